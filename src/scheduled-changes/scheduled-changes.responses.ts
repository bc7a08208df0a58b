/**
 * Scheduled changes as the REST door answers them (PostHog's `ScheduledChangeSerializer` fields, in
 * its order), written once as zod schemas: the serialiser returns their type, fastify writes bodies
 * with them, the OpenAPI document names them.
 */
import { z } from "zod";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import { formatFailureReason } from "./rules/failures.js";
import type { ScheduledChangeRecord } from "./scheduled-changes.queries.js";

/** A date-time as REST writes it (DRF's ISO 8601 in UTC, `Z`: rest/date-time.ts), or null. */
const instant = (what: string) => z.string().nullable().describe(what);

/** A scheduled change. */
export const scheduledChangeSchema = z
  .object({
    id: z.int(),
    team_id: z.int().describe("The project the change belongs to."),
    record_id: z.string().describe("The ID of the record to modify (e.g. the feature flag ID)."),
    model_name: z.string().describe('The type of record to modify: "FeatureFlag".'),
    payload: z
      .record(z.string(), z.unknown())
      .describe(
        "The change to apply: `{operation, value}`, `operation` one of `update_status` (value true/false), " +
          "`add_release_condition` (value `{groups, payloads, multivariate}`), `update_variants` (value `{variants, payloads}`).",
      ),
    scheduled_at: z
      .string()
      .describe("When the change applies (a recurring schedule: its next run), ISO 8601."),
    executed_at: instant(
      "When a one-time change was applied, or the schedule ended; null while it is active.",
    ),
    failure_reason: z
      .string()
      .nullable()
      .describe(
        "Why the last run failed, with its retry status (`(permanent error)`, ...); null when none failed.",
      ),
    created_at: z.string(),
    created_by: userBasicSchema.nullable(),
    updated_at: z.string(),
    is_recurring: z.boolean(),
    recurrence_interval: z.enum(["daily", "weekly", "monthly", "yearly"]).nullable(),
    cron_expression: z.string().nullable().describe("A 5-field cron expression, read in `timezone`."),
    last_executed_at: instant("When a recurring schedule last ran successfully."),
    end_date: instant("A recurring schedule stops after this time."),
    timezone: z.string().nullable().describe("The project's IANA time zone when the change was scheduled."),
  })
  .meta({ id: "ScheduledChange" });

/** A page of scheduled changes. */
export const scheduledChangePageSchema = paginatedListSchema(
  scheduledChangeSchema,
  "PaginatedScheduledChangeList",
);

/** A scheduled change in its REST shape: `failure_reason` formatted (PostHog's `formatted_failure_reason`). */
export function serializeScheduledChange(c: ScheduledChangeRecord): z.output<typeof scheduledChangeSchema> {
  return {
    id: c.id,
    team_id: c.projectId,
    record_id: c.recordId,
    model_name: c.modelName,
    payload: (c.payload ?? {}) as Record<string, unknown>,
    scheduled_at: drfDateTime(c.scheduledAt),
    executed_at: drfDateTimeOrNull(c.executedAt),
    failure_reason: formatFailureReason(c.failureReason),
    created_at: drfDateTime(c.createdAt),
    created_by: c.createdBy ? serializeUserBasic(c.createdBy) : null,
    updated_at: drfDateTime(c.updatedAt),
    is_recurring: c.isRecurring,
    recurrence_interval: c.recurrenceInterval as z.output<
      typeof scheduledChangeSchema
    >["recurrence_interval"],
    cron_expression: c.cronExpression,
    last_executed_at: drfDateTimeOrNull(c.lastExecutedAt),
    end_date: drfDateTimeOrNull(c.endDate),
    timezone: c.timezone,
  };
}
