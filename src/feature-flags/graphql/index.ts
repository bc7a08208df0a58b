/**
 * Feature flags in GraphQL, one file per type (hayes/pothos app layout): the enums, the filters
 * object, the `FeatureFlag` type and its fields on other flags, its fields on `Project` (blast radius
 * included), and the mutations with their inputs (the static cohort of a flag included). A thin
 * adapter over feature-flags.service.ts, which owns every rule, scope check and message. The
 * composition root imports this module for the types it registers.
 */
import "./enums.js";
import "./filters.type.js";
import "./feature-flag.type.js";
import "./dependencies.fields.js";
import "./project-fields.js";
import "./evaluation.fields.js";
import "./definitions.fields.js";
import "./blast-radius.field.js";
import "./filters.input.js";
import "./create.mutation.js";
import "./update.mutation.js";
import "./deletion.mutations.js";
import "./static-cohort.mutation.js";
import "./versions.fields.js";
import "./subscriptions.js";
