/** The property-definition enums of GraphQL, built from the constants property-definitions.schemas.ts validates with. */
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { PROPERTY_DEFINITION_KINDS, PROPERTY_TYPES } from "../property-definitions.schemas.js";

/** Whose property a definition describes (REST's `type`). */
export const PropertyDefinitionKindEnum = builder.enumType("PropertyDefinitionKind", {
  description:
    "Whose property a definition describes (REST's `type` filter; PostHog's PropertyDefinition.Type).",
  values: enumValues(PROPERTY_DEFINITION_KINDS, {
    event: "A property of events (`event`, the default).",
    person: "A person property, set by `$set`/`$set_once` (`person`).",
    group: "A group property of one group type, set by `$groupidentify` (`group`).",
    session: "A session property (`session`).",
  }),
});

/** A property's value type (REST's `property_type`). */
export const PropertyValueTypeEnum = builder.enumType("PropertyValueType", {
  description: "The type of a property's values (REST's `property_type`; PostHog's PropertyType).",
  values: enumValues(PROPERTY_TYPES, {
    DateTime: "Dates and times (`DateTime`).",
    String: "Text (`String`).",
    Numeric: "Numbers (`Numeric`): the property is numerical.",
    Boolean: "True or false (`Boolean`).",
    Duration: "A duration (`Duration`).",
  }),
});
