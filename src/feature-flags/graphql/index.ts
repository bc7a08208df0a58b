/**
 * Feature flags in GraphQL, one file per type (hayes/pothos app layout): the enums, the filters
 * object, the `FeatureFlag` type, its fields on `Project`, and the mutations with their inputs. A thin
 * adapter over feature-flags.service.ts, which owns every rule, scope check and message. The
 * composition root imports this module for the types it registers.
 */
import "./enums.js";
import "./filters.type.js";
import "./feature-flag.type.js";
import "./project-fields.js";
import "./definitions.fields.js";
import "./filters.input.js";
import "./create.mutation.js";
import "./update.mutation.js";
import "./deletion.mutations.js";
