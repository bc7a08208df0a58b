/**
 * Event definitions in GraphQL, one file per type: the enums, the `EventDefinition` node, its fields
 * on `Project`, the generated capture code, and the mutations with their inputs. A thin adapter over
 * event-definitions.service.ts, which owns every rule, scope check and message. The composition root
 * imports this module for its types.
 */
import "./enums.js";
import "./event-definition.type.js";
import "./project-fields.js";
import "./code.js";
import "./mutations.js";
