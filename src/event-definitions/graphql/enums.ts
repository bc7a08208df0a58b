/** The event-definition and event-schema enums of GraphQL, built from the constants event-definitions.schemas.ts validates with. */
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { EVENT_TYPES, ORDERING_FIELDS } from "../event-definitions.schemas.js";
import { PROPERTY_TYPES } from "../event-schemas.schemas.js";

/** The list's `event_type` filter. */
export const EventDefinitionTypeEnum = builder.enumType("EventDefinitionType", {
  description: "Which event names a list shows (REST's `event_type`).",
  values: enumValues(EVENT_TYPES, {
    event: "All events (`event`, the default).",
    event_custom: "Events whose name does not start with `$` (`event_custom`).",
    event_posthog: "PostHog's own events, whose name starts with `$` (`event_posthog`).",
  }),
});

/** A sort field of the list (REST's `ordering` values). */
export const EventDefinitionOrderFieldEnum = builder.enumType("EventDefinitionOrderField", {
  description: "A field an event-definition list can be sorted by (REST's `ordering`).",
  values: enumValues(ORDERING_FIELDS, {
    name: "The name (`name`).",
    last_seen_at: "When capture last saw the event (`last_seen_at`); never-seen events first ascending.",
    "last_seen_at::date": "The UTC day capture last saw the event (`last_seen_at::date`).",
    created_at: "When capture first saw the event (`created_at`).",
    "created_at::date": "The UTC day capture first saw the event (`created_at::date`).",
  }),
});

/** A schema property's type (PostHog's `property_type`: `String` → `STRING`, `DateTime` → `DATE_TIME`). */
export const SchemaPropertyTypeEnum = builder.enumType("SchemaPropertyType", {
  description: "The type a schema property declares (REST's `property_type`).",
  values: enumValues(
    PROPERTY_TYPES,
    {
      String: "Text (`String`).",
      Numeric: "A number (`Numeric`).",
      Boolean: "true or false (`Boolean`).",
      DateTime: "A date and time (`DateTime`).",
      Array: "A list (`Array`).",
      Object: "A JSON object (`Object`).",
    },
    (value) => value.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase(),
  ),
});
