/**
 * Saved-query endpoints in GraphQL, one file per type: the `Endpoint` node with its versions and
 * materialization check, its fields on `Project`, and the mutations with their inputs. Thin adapters
 * over endpoints.service.ts, which owns every rule, scope check and message. The composition root
 * imports this module for its types.
 */
import "./endpoint.type.js";
import "./project-fields.js";
import "./mutations.js";
import "./run.field.js";
