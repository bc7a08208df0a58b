/**
 * The event definition as the REST door answers it (PostHog's `EnterpriseEventDefinitionSerializer`,
 * `ee/api/ee_event_definition.py`; posthog-behavior.md §6.1), written once as zod schemas: the
 * serialiser returns their types, fastify writes bodies with them, OpenAPI names them.
 */
import { z } from "zod";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { GeneratedCode } from "./codegen/index.js";
import {
  serializeUpdateStamp,
  serializeVerification,
  updateStampFields,
  verificationFields,
} from "./definitions-base.responses.js";
import type { EventDefinitionRecord } from "./event-definitions.queries.js";
import type { EventDefinitionMetrics } from "./event-definitions.service.js";

/** An event definition in PostHog's enterprise response shape. */
export const eventDefinitionSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    owner: userBasicSchema.nullable(),
    description: z.string(),
    tags: z.array(z.string()),
    created_at: z.iso.datetime().nullable().describe("When capture first saw the event; null until then."),
    ...updateStampFields,
    last_seen_at: z.iso.datetime().nullable().describe("When capture last saw the event (hour resolution)."),
    last_updated_at: z.iso.datetime().nullable().describe("Always null: an action field."),
    ...verificationFields,
    is_action: z.boolean().describe("Always false: actions are not listed here."),
    action_id: z.int().nullable(),
    is_calculating: z.boolean(),
    last_calculated_at: z.iso.datetime().nullable(),
    created_by: userBasicSchema.nullable().describe("Always null: an action field."),
    post_to_slack: z.boolean(),
    default_columns: z.array(z.string()),
  })
  .meta({ id: "EnterpriseEventDefinition" });

/** An event definition in PostHog's response shape (the output of `eventDefinitionSchema`). */
export type EventDefinitionResponse = z.output<typeof eventDefinitionSchema>;

/** A DRF offset page of event definitions. */
export const eventDefinitionPageSchema = paginatedListSchema(
  eventDefinitionSchema,
  "PaginatedEnterpriseEventDefinitionList",
);

/** `GET :id/metrics`'s answer. */
export const eventDefinitionMetricsSchema = z
  .object({
    query_usage_30_day: z.int().describe("Views of the event in insights over the last 30 days."),
  })
  .meta({ id: "EventDefinitionMetrics" });

/** An event definition in PostHog's response shape (schema: `eventDefinitionSchema`). */
export function serializeEventDefinition(definition: EventDefinitionRecord): EventDefinitionResponse {
  return {
    id: definition.id,
    name: definition.name,
    owner: definition.owner ? serializeUserBasic(definition.owner) : null,
    description: definition.description,
    tags: definition.tags,
    created_at: drfDateTimeOrNull(definition.createdAt),
    ...serializeUpdateStamp(definition),
    last_seen_at: drfDateTimeOrNull(definition.lastSeenAt),
    last_updated_at: null,
    ...serializeVerification(definition),
    is_action: false,
    action_id: null,
    is_calculating: false,
    last_calculated_at: null,
    created_by: null,
    post_to_slack: false,
    default_columns: definition.defaultColumns,
  };
}

/** `GET :id/metrics`'s answer (schema: `eventDefinitionMetricsSchema`). */
export function serializeMetrics(
  metrics: EventDefinitionMetrics,
): z.output<typeof eventDefinitionMetricsSchema> {
  return { query_usage_30_day: metrics.queryUsage30Day };
}

/**
 * `GET event_definitions/<language>/`'s answer (posthog-behavior.md §6.4; `_generate_definitions` in
 * `posthog/api/event_definition.py`).
 */
export const eventDefinitionCodeSchema = z
  .object({
    content: z.string().describe("The generated source file."),
    event_count: z.int().describe("How many events the file covers."),
    schema_hash: z
      .string()
      .describe(
        "32 hex digits over the events' schemas, the language and the generator version: regenerate when it changes.",
      ),
    generator_version: z.string().describe("The generator's version, e.g. `1.1.0`."),
  })
  .meta({ id: "EventDefinitionCode" });

/** Generated code in PostHog's response shape (schema: `eventDefinitionCodeSchema`). */
export function serializeCode(code: GeneratedCode): z.output<typeof eventDefinitionCodeSchema> {
  return {
    content: code.content,
    event_count: code.eventCount,
    schema_hash: code.schemaHash,
    generator_version: code.generatorVersion,
  };
}
