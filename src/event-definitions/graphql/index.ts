/**
 * Event definitions and event schemas in GraphQL, one file per type: the enums, the
 * `EventDefinition` node, its fields on `Project`, the generated capture code, and the mutations with
 * their inputs; the `SchemaPropertyGroup` and `EventSchema` nodes, their fields on `Project` and
 * `EventDefinition`, and their mutations. Thin adapters over event-definitions.service.ts and
 * event-schemas.service.ts, which own every rule, scope check and message. The composition root
 * imports this module for its types.
 */
import "./enums.js";
import "./event-definition.type.js";
import "./project-fields.js";
import "./code.js";
import "./mutations.js";
import "./schema-property-group.type.js";
import "./event-definition-schema.fields.js";
import "./schema-project-fields.js";
import "./schema-mutations.js";
