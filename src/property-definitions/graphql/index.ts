/**
 * Property definitions in GraphQL, one file per type: the enums, the `PropertyDefinition` node, its
 * fields on `Project`, and the mutations with their inputs. A thin adapter over
 * property-definitions.service.ts, which owns every rule, scope check and message. The composition
 * root imports this module for its types.
 */
import "./enums.js";
import "./property-definition.type.js";
import "./project-fields.js";
import "./mutations.js";
