/**
 * The `SchemaPropertyGroup` (a node), `SchemaProperty` and `EventSchema` (a node) object types:
 * records as the event-schema service reads them (event-schemas.queries.ts). Field names are
 * camelCase versions of REST's (`posthog/api/schema_property_group.py`, `posthog/api/event_schema.py`).
 */
import { isUuid } from "../../core/validation.js";
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type {
  EventSchemaRecord,
  SchemaEventRef,
  SchemaPropertyGroupRecord,
  SchemaPropertyRecord,
} from "../event-schemas.queries.js";
import { SchemaPropertyTypeEnum } from "./enums.js";

/** The `SchemaProperty` object type: one typed property of a group. */
export const SchemaPropertyRef = builder.objectRef<SchemaPropertyRecord>("SchemaProperty").implement({
  description:
    "One property a schema property group declares: its name, type and whether events must carry it (PostHog's " +
    "SchemaPropertyGroupProperty).",
  fields: (t) => ({
    uuid: t.exposeString("id", {
      description:
        "PostHog's UUID of the property (REST's `id`); every write of the group's properties renews it.",
    }),
    name: t.exposeString("name", {
      description: "The property name: a letter or `_`, then letters, digits, `_`.",
    }),
    propertyType: t.field({
      type: SchemaPropertyTypeEnum,
      description: "Its type (REST's `property_type`).",
      resolve: (property) => property.propertyType,
    }),
    isRequired: t.exposeBoolean("isRequired", { description: "Whether events must carry it." }),
    description: t.exposeString("description", { description: "Its description; may be empty." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was written." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it was last written." }),
  }),
});

/** The `SchemaPropertyGroupEvent` object type: an event definition a group is attached to. */
const SchemaPropertyGroupEventRef = builder.objectRef<SchemaEventRef>("SchemaPropertyGroupEvent").implement({
  description: "An event definition a schema property group is attached to (REST's `events` entries).",
  fields: (t) => ({
    uuid: t.exposeString("id", { description: "The event definition's UUID." }),
    name: t.exposeString("name", { description: "The event name." }),
  }),
});

/** The `SchemaPropertyGroup` object type. */
export const SchemaPropertyGroupRef = builder
  .objectRef<SchemaPropertyGroupRecord>("SchemaPropertyGroup")
  .implement({
    description:
      "A reusable, named list of typed properties (PostHog's SchemaPropertyGroup), attached to event definitions " +
      "to declare their schema; the typed capture code is generated from them.",
    extensions: requiresScopes("event_definition:read"),
    fields: (t) => ({
      uuid: t.exposeString("id", { description: "PostHog's UUID of the group (REST's `:id`)." }),
      name: t.exposeString("name", { description: "The group's name, unique in the project." }),
      description: t.exposeString("description", { description: "Its description; may be empty." }),
      properties: t.field({
        type: [SchemaPropertyRef],
        description: "Its properties, by name.",
        resolve: (group) => group.properties,
      }),
      events: t.field({
        type: [SchemaPropertyGroupEventRef],
        description: "The event definitions it is attached to, by name (any case).",
        resolve: (group) => group.events,
      }),
      createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
      updatedAt: t.expose("updatedAt", {
        type: "DateTime",
        description: "When it or its properties were last changed.",
      }),
      createdBy: t.field({
        type: UserRef,
        nullable: true,
        description: "Who created it; null when that user is gone.",
        resolve: (group) => group.createdBy,
      }),
    }),
  });

implementNode(SchemaPropertyGroupRef, {
  localId: (group) => projectOwnedLocalId(group.projectId, group.id),
  // Scope `event_definition:read` and the project check, as `Project.schemaPropertyGroup`.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key.toLowerCase() : null),
    (ctx, serviceContext, projectId, ids) =>
      ctx.services.eventSchemas.getGroups(serviceContext, projectId, ids),
  ),
});

/** The `EventSchema` object type. */
export const EventSchemaRef = builder.objectRef<EventSchemaRecord>("EventSchema").implement({
  description:
    "A schema property group attached to an event definition (PostHog's EventSchema): the event's schema is the " +
    "union of its groups' properties.",
  extensions: requiresScopes("event_definition:read"),
  fields: (t) => ({
    uuid: t.exposeString("id", { description: "PostHog's UUID of the event schema (REST's `:id`)." }),
    eventDefinitionUuid: t.exposeString("eventDefinitionId", {
      description: "The event definition's UUID (REST's `event_definition`).",
    }),
    eventName: t.exposeString("eventName", { description: "The event definition's name." }),
    propertyGroup: t.field({
      type: SchemaPropertyGroupRef,
      description: "The attached group.",
      resolve: (schema) => schema.propertyGroup,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the group was attached." }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the link was last written." }),
  }),
});

implementNode(EventSchemaRef, {
  localId: (schema) => projectOwnedLocalId(schema.projectId, schema.id),
  // Scope `event_definition:read` and the project check.
  load: projectOwnedLoader(
    (key) => (isUuid(key) ? key.toLowerCase() : null),
    (ctx, serviceContext, projectId, ids) =>
      ctx.services.eventSchemas.getEventSchemas(serviceContext, projectId, ids),
  ),
});
