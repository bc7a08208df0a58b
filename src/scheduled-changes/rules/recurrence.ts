/**
 * When a recurring schedule runs next, as PostHog computes it (posthog/tasks/process_scheduled_changes.py
 * `compute_next_run`, `compute_next_run_cron`, `resolve_schedule_timezone` and the catch-up loop of
 * `process_scheduled_changes`). Pure: instants in, instants out (all `Date`s are instants; the time
 * zone only says how a cron expression's wall-clock fields are read).
 * - An interval adds to the previous run in UTC (`relativedelta`): a day, a week, a month or a year,
 *   a month end clamped (Jan 31 + 1 month = Feb 28/29; Feb 29 + 1 year = Feb 28), and from then on
 *   counted from the clamped day, as PostHog does (Jan 31 → Feb 28 → Mar 28).
 * - A cron expression (5 fields, cron-parser) is read in the schedule's stored IANA zone (the
 *   project's at creation): `0 9 * * 1-5` stays 09:00 local across daylight-saving changes. A zone
 *   that is missing or unknown reads as UTC.
 */
import { CronExpressionParser } from "cron-parser";
import { DateTime, IANAZone } from "luxon";
import type { RecurrenceInterval } from "../scheduled-changes.schemas.js";
import { ScheduledChangeError } from "./failures.js";

/** Most runs the catch-up loop skips before it jumps to the first run after now (PostHog's `MAX_CATCHUP_ITERATIONS`). */
export const MAX_CATCHUP_ITERATIONS = 1000;

/**
 * The run after `current` by `interval`, in UTC, month ends clamped (`compute_next_run`).
 * @throws ScheduledChangeError (ValueError) `Unknown recurrence interval: <interval>` for any other value.
 */
export function nextIntervalRun(current: Date, interval: RecurrenceInterval | string): Date {
  const from = DateTime.fromJSDate(current, { zone: "utc" });
  const step = { daily: { days: 1 }, weekly: { weeks: 1 }, monthly: { months: 1 }, yearly: { years: 1 } }[
    interval as RecurrenceInterval
  ];
  if (!step) throw new ScheduledChangeError(`Unknown recurrence interval: ${interval}`, "ValueError");
  return from.plus(step).toJSDate();
}

/** The IANA zone a schedule's cron is read in: `name` when it is one, else `UTC` (`resolve_schedule_timezone`). */
export function resolveScheduleTimezone(name: string | null | undefined): string {
  return name && IANAZone.isValidZone(name) ? name : "UTC";
}

/**
 * The first instant strictly after `current` that `expression` (5 fields: minute hour day month
 * weekday) matches, its fields read in zone `timezone` (`compute_next_run_cron`). A day of month and a
 * day of week both restricted match either (cron's rule, as croniter's).
 * @throws ScheduledChangeError (ValueError, as croniter's `CroniterBadCronError`) with cron-parser's
 *   message for an expression `isValidCron` refuses.
 */
export function nextCronRun(expression: string, current: Date, timezone: string): Date {
  try {
    const parsed = CronExpressionParser.parse(expression.trim(), {
      currentDate: current,
      tz: resolveScheduleTimezone(timezone),
    });
    return parsed.next().toDate();
  } catch (error) {
    throw new ScheduledChangeError(error instanceof Error ? error.message : String(error), "ValueError");
  }
}

/**
 * Whether `expression` is a cron expression PostHog's `croniter.is_valid` takes, read by cron-parser:
 * values in range, known names (`MON`, `JAN`), lists, ranges, steps, `L` and `#`. Jenkins' hashed `H`
 * is refused (croniter needs a hash id for it, and cron-parser would pick a random minute).
 */
export function isValidCron(expression: string): boolean {
  if (/h/i.test(expression.replace(/\b(thu|thursday)\b/gi, ""))) return false;
  try {
    CronExpressionParser.parse(expression.trim(), { currentDate: new Date(0), tz: "UTC" }).next();
    return true;
  } catch {
    return false;
  }
}

/** A recurring schedule's recurrence: its interval, or its cron expression and zone. */
export type Recurrence =
  | { kind: "interval"; interval: RecurrenceInterval | string }
  | { kind: "cron"; expression: string; timezone: string | null };

/** The run after `current` by `recurrence`. @throws as `nextIntervalRun`, `nextCronRun`. */
export function nextRun(recurrence: Recurrence, current: Date): Date {
  return recurrence.kind === "cron"
    ? nextCronRun(recurrence.expression, current, resolveScheduleTimezone(recurrence.timezone))
    : nextIntervalRun(current, recurrence.interval);
}

/**
 * The next run of a schedule that just ran at its `scheduledAt`, after `now` (the catch-up of
 * `process_scheduled_changes`): the run after `scheduledAt`, then the one after that while it is not
 * after `now`, at most `MAX_CATCHUP_ITERATIONS` times, then, if still not after `now`, the run after
 * `now` itself. `missed`: the runs skipped because the run came late (PostHog's `skipped_count - 1`,
 * 0 when none).
 */
export function nextRunAfter(
  recurrence: Recurrence,
  scheduledAt: Date,
  now: Date,
): { next: Date; missed: number } {
  let next = nextRun(recurrence, scheduledAt);
  let skipped = 0;
  while (next.getTime() <= now.getTime() && skipped < MAX_CATCHUP_ITERATIONS) {
    next = nextRun(recurrence, next);
    skipped++;
  }
  if (next.getTime() <= now.getTime()) next = nextRun(recurrence, now);
  return { next, missed: Math.max(0, skipped - 1) };
}
