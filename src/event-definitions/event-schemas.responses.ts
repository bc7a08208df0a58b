/**
 * Schema property groups and event schemas as the REST door answers them
 * (`posthog/api/schema_property_group.py` SchemaPropertyGroupSerializer with its nested
 * SchemaPropertyGroupPropertySerializer and EventDefinitionBasicSerializer;
 * `posthog/api/event_schema.py` EventSchemaSerializer), written once as zod schemas: the
 * serialisers return their types, fastify writes bodies with them, OpenAPI names them.
 */
import { z } from "zod";
import { drfDateTime } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { EventSchemaRecord, SchemaPropertyGroupRecord } from "./event-schemas.queries.js";
import { PROPERTY_TYPES } from "./event-schemas.schemas.js";

/** One property of a group. */
export const schemaPropertySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    property_type: z.enum(PROPERTY_TYPES),
    is_required: z.boolean(),
    description: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "SchemaPropertyGroupProperty" });

/** A schema property group: its properties by name and the events it is attached to by name. */
export const schemaPropertyGroupSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    properties: z.array(schemaPropertySchema),
    events: z
      .array(z.object({ id: z.uuid(), name: z.string() }))
      .describe("The event definitions the group is attached to, by name (any case)."),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
  })
  .meta({ id: "SchemaPropertyGroup" });

/** A DRF offset page of groups. */
export const schemaPropertyGroupPageSchema = paginatedListSchema(
  schemaPropertyGroupSchema,
  "PaginatedSchemaPropertyGroupList",
);

/** An event schema: the event definition's UUID and the whole group. */
export const eventSchemaSchema = z
  .object({
    id: z.uuid(),
    event_definition: z.uuid().describe("The event definition's UUID."),
    property_group: schemaPropertyGroupSchema,
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "EventSchema" });

/** A DRF offset page of event schemas. */
export const eventSchemaPageSchema = paginatedListSchema(eventSchemaSchema, "PaginatedEventSchemaList");

/** A group in PostHog's response shape (schema: `schemaPropertyGroupSchema`). */
export function serializeSchemaPropertyGroup(
  group: SchemaPropertyGroupRecord,
): z.output<typeof schemaPropertyGroupSchema> {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    properties: group.properties.map((p) => ({
      id: p.id,
      name: p.name,
      property_type: p.propertyType,
      is_required: p.isRequired,
      description: p.description,
      created_at: drfDateTime(p.createdAt),
      updated_at: drfDateTime(p.updatedAt),
    })),
    events: group.events.map((e) => ({ id: e.id, name: e.name })),
    created_at: drfDateTime(group.createdAt),
    updated_at: drfDateTime(group.updatedAt),
    created_by: group.createdBy ? serializeUserBasic(group.createdBy) : null,
  };
}

/** An event schema in PostHog's response shape (schema: `eventSchemaSchema`). */
export function serializeEventSchema(schema: EventSchemaRecord): z.output<typeof eventSchemaSchema> {
  return {
    id: schema.id,
    event_definition: schema.eventDefinitionId,
    property_group: serializeSchemaPropertyGroup(schema.propertyGroup),
    created_at: drfDateTime(schema.createdAt),
    updated_at: drfDateTime(schema.updatedAt),
  };
}
