/**
 * The rules across a scheduled change's fields, in PostHog's order and words:
 * `ScheduledChangeSerializer.validate` (products/feature_flags/backend/api/scheduled_change.py).
 * Pure: the stored schedule (on update) and the parsed body in, the schedule to write out.
 * Not here: the approval gate's timing lock (`_reject_timing_change_on_gated_schedule`: this service
 * has no approvals) and the target's existence ("Feature flag not found", the service's).
 */
import { ValidationError } from "../../core/errors.js";
import {
  type ModelName,
  RECURRENCE_INTERVALS,
  type RecurrenceInterval,
  type ScheduledChangeInput,
} from "../scheduled-changes.schemas.js";
import { isValidCron } from "./recurrence.js";

/** A schedule's fields the rules read and the write stores. */
export interface ScheduleFields {
  recordId: string;
  modelName: ModelName;
  payload: Record<string, unknown>;
  /** When it is due. */
  scheduledAt: Date;
  isRecurring: boolean;
  recurrenceInterval: RecurrenceInterval | null;
  /** A 5-field cron expression; `""` counts as none (Python's truthiness), and is stored as given. */
  cronExpression: string | null;
  endDate: Date | null;
}

/** The stored schedule an update starts from: its fields and whether (and when) it was executed. */
export interface StoredSchedule extends ScheduleFields {
  executedAt: Date | null;
}

const fieldError = (attr: string, message: string) => new ValidationError(message, { attr, code: "invalid" });

/**
 * The schedule `input` describes: on create (`stored` null) every required field is in `input`; on
 * update the absent fields keep `stored`'s values. Checked by PostHog's `validate`, first failing rule
 * answered:
 * 1. (update) `Cannot change the target record of an existing scheduled change.` (attr `record_id`),
 *    `Cannot change the model type of an existing scheduled change.` (attr `model_name`), then
 *    `Cannot modify a scheduled change that has already executed.` (a one-time schedule already run);
 * 2. `Cannot set both cron_expression and recurrence_interval. Use one or the other.`;
 * 3. `Only standard 5-field cron expressions are supported (minute hour day month weekday). Example: '0 9 * * 1-5'.`,
 *    then `Invalid cron expression. Use standard 5-field cron syntax (e.g., '0 9 * * 1-5').`;
 * 4. recurring: `Either recurrence_interval or cron_expression is required when is_recurring is true.`,
 *    `Must be one of: daily, weekly, monthly, yearly`, and `Recurring schedules are not supported for
 *    add_release_condition because it appends conditions on each run, creating duplicates.` (attr `payload`);
 * 5. create, not recurring: `Cannot set recurrence_interval when is_recurring is false for new schedules.`,
 *    `Cannot set cron_expression when is_recurring is false for new schedules.` (an update keeps the
 *    configuration of a paused schedule);
 * 6. `End date must be after the scheduled start date.` (attr `end_date`).
 * @throws ValidationError (code `invalid`) as listed.
 */
export function checkSchedule(input: ScheduledChangeInput, stored: StoredSchedule | null): ScheduleFields {
  if (stored) {
    if (input.record_id !== undefined && input.record_id !== stored.recordId) {
      throw fieldError("record_id", "Cannot change the target record of an existing scheduled change.");
    }
    if (input.model_name !== undefined && input.model_name !== stored.modelName) {
      throw fieldError("model_name", "Cannot change the model type of an existing scheduled change.");
    }
    // A completed one-time schedule is immutable; a recurring one carries executed_at only once ended.
    if (stored.executedAt !== null && !stored.isRecurring) {
      throw new ValidationError("Cannot modify a scheduled change that has already executed.", {
        code: "invalid",
      });
    }
  }
  const isRecurring = input.is_recurring ?? stored?.isRecurring ?? false;
  const recurrenceInterval =
    input.recurrence_interval === undefined
      ? (stored?.recurrenceInterval ?? null)
      : input.recurrence_interval;
  const cronExpression =
    input.cron_expression === undefined ? (stored?.cronExpression ?? null) : input.cron_expression;
  const payload = input.payload ?? stored?.payload ?? {};

  if (cronExpression && recurrenceInterval) {
    throw fieldError(
      "cron_expression",
      "Cannot set both cron_expression and recurrence_interval. Use one or the other.",
    );
  }
  if (cronExpression) {
    if (cronExpression.trim().split(/\s+/).length !== 5) {
      throw fieldError(
        "cron_expression",
        "Only standard 5-field cron expressions are supported (minute hour day month weekday). Example: '0 9 * * 1-5'.",
      );
    }
    if (!isValidCron(cronExpression)) {
      throw fieldError(
        "cron_expression",
        "Invalid cron expression. Use standard 5-field cron syntax (e.g., '0 9 * * 1-5').",
      );
    }
  }
  if (isRecurring) {
    if (!recurrenceInterval && !cronExpression) {
      throw fieldError(
        "recurrence_interval",
        "Either recurrence_interval or cron_expression is required when is_recurring is true.",
      );
    }
    if (recurrenceInterval && !(RECURRENCE_INTERVALS as readonly string[]).includes(recurrenceInterval)) {
      throw fieldError("recurrence_interval", `Must be one of: ${RECURRENCE_INTERVALS.join(", ")}`);
    }
    if (payload["operation"] === "add_release_condition") {
      throw fieldError(
        "payload",
        "Recurring schedules are not supported for add_release_condition because it appends conditions on each run, creating duplicates.",
      );
    }
  }
  if (!stored && !isRecurring) {
    if (recurrenceInterval) {
      throw fieldError(
        "recurrence_interval",
        "Cannot set recurrence_interval when is_recurring is false for new schedules.",
      );
    }
    if (cronExpression) {
      throw fieldError(
        "cron_expression",
        "Cannot set cron_expression when is_recurring is false for new schedules.",
      );
    }
  }
  const endDate = input.end_date === undefined ? (stored?.endDate ?? null) : input.end_date;
  const scheduledAt = input.scheduled_at ?? stored?.scheduledAt;
  if (scheduledAt === undefined) throw new Error("a new schedule is parsed with its scheduled_at");
  if (endDate && endDate.getTime() <= scheduledAt.getTime()) {
    throw fieldError("end_date", "End date must be after the scheduled start date.");
  }
  const recordId = input.record_id ?? stored?.recordId;
  const modelName = input.model_name ?? stored?.modelName;
  if (recordId === undefined || modelName === undefined) {
    throw new Error("a new schedule is parsed with its record_id and model_name");
  }
  return {
    recordId,
    modelName,
    payload,
    scheduledAt,
    isRecurring,
    recurrenceInterval,
    cronExpression,
    endDate,
  };
}

/**
 * Whether a schedule is paused: not recurring yet configured to recur (PostHog's sweep skips it,
 * posthog/tasks/process_scheduled_changes.py `is_paused`), so it keeps its configuration for a resume.
 */
export function isPaused(
  schedule: Pick<ScheduleFields, "isRecurring" | "recurrenceInterval" | "cronExpression">,
) {
  return !schedule.isRecurring && hasRecurrenceConfig(schedule);
}

/** Whether a schedule carries a recurrence (an interval, or a non-empty cron expression). */
export function hasRecurrenceConfig(schedule: Pick<ScheduleFields, "recurrenceInterval" | "cronExpression">) {
  return Boolean(schedule.recurrenceInterval) || Boolean(schedule.cronExpression);
}
