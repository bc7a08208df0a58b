/**
 * A TrendsQuery's date range, resolved in the project's timezone (PostHog's
 * `posthog/hogql_queries/utils/query_date_range.py` and `posthog/utils.py` `relative_date_parse`;
 * query-and-experiments.md 1d "Date range").
 *
 * Rules:
 * - Relative values (`-7d`, `-1q`, `mStart`, `-1wEnd`) are PostHog's insights grammar, resolved by
 *   `src/lib/relative-dates.ts` (units, Start/End, calendar months and quarters, weeks from Sunday:
 *   projects here have no `week_start_day`). `all` = the project's earliest event (the caller
 *   reads it). Text that is neither relative nor absolute is refused (PostHog reads it as now).
 * - Absolute values without an offset (`2020-01-09`, `2020-01-09 12:00`) are read in the project
 *   timezone; values with one (`Z`, `+02:00`) are that instant.
 * - Defaults: `date_from` = `-7d` (at the start of that day), `date_to` = now.
 * - `date_to`: relative values as parsed (`always_truncate=False`); then, unless `explicitDate`,
 *   for day/week/month intervals it moves to 23:59:59.999 of its day (even when absolute); for hour
 *   (and minute) intervals only a relative or absent `date_to` moves, to the end of its hour (minute).
 * - `date_from`: relative values are truncated to the start of their day, or of their hour when
 *   they shift hours (`-24h`), except on minute intervals (`always_truncate`). Unless
 *   `explicitDate`, the SQL lower bound is then the start of the interval containing it (start of
 *   *day* for weeks), except for hour/minute intervals with a relative `date_from` and for a day
 *   interval with an hour-shifting one (`-24h`), which keep it (`use_start_of_interval`). Buckets
 *   start at the interval start of `date_from` (weeks on Sunday).
 * - Compare: the previous period is `[from − (to − from), from)`; `compare_to` (`-1w`, any
 *   relative date) moves the start to that date counted back from the start, and the end by as much
 *   (`QueryPreviousPeriodDateRange`, `QueryCompareToDateRange`).
 *
 * Times are luxon `DateTime`s in the project zone; luxon handles DST (a day can be 23 or 25 hours).
 */
import { DateTime } from "luxon";
import { ValidationError } from "../../core/errors.js";
import {
  parseRelativeDate,
  type RelativeDate,
  resolveRelativeDate,
  shiftsHours,
  startOfWeek,
} from "../../lib/relative-dates.js";
import type { Interval } from "./trends-query.schema.js";

/** The resolved range of one run. */
export interface DateRange {
  /** The instant events are counted from (inclusive). */
  lower: DateTime;
  /** The instant events are counted to (inclusive). */
  upper: DateTime;
  /** The start of the first bucket (≤ lower). */
  firstBucket: DateTime;
  interval: Interval;
}

/** A parsed date input: its instant and, when it was relative, what it said. */
interface ParsedDate {
  value: DateTime;
  relative: RelativeDate | null;
}

/** ISO 8601 with the zone's offset spelled `+00:00` even in UTC, as Python's `isoformat()` writes it. */
export function isoInZone(dt: DateTime): string {
  return dt.toFormat("yyyy-LL-dd'T'HH:mm:ss.SSSZZ");
}

/** The start of the `interval` bucket containing `dt` (weeks start on Sunday). */
export function startOfInterval(dt: DateTime, interval: Interval): DateTime {
  return interval === "week" ? startOfWeek(dt) : dt.startOf(interval);
}

function invalidDate(text: string, field: string): ValidationError {
  return new ValidationError(`Invalid date: ${text}`, { attr: `dateRange__${field}`, code: "invalid_date" });
}

/**
 * Parses a relative or absolute date in `zone` (`relative_date_parse_with_delta_mapping`).
 * @param alwaysTruncate PostHog's `always_truncate` for a relative value (date_from).
 * @throws ValidationError (attr `dateRange__<field>`) for text that is neither, or out of range.
 */
function parseDate(
  text: string,
  now: DateTime,
  zone: string,
  field: string,
  alwaysTruncate: boolean,
): ParsedDate {
  const relative = parseRelativeDate(text.trim());
  if (relative) {
    const value = resolveRelativeDate(relative, now, { alwaysTruncate });
    if (!value.isValid) throw invalidDate(text, field);
    return { value, relative };
  }
  const iso = text.trim().replace(" ", "T");
  const absolute = DateTime.fromISO(iso, { zone, setZone: false });
  if (!absolute.isValid) throw invalidDate(text, field);
  return { value: absolute.setZone(zone), relative: null };
}

/** What resolving a range needs besides the query. */
export interface RangeInput {
  dateFrom: string | null;
  dateTo: string | null;
  explicitDate: boolean;
  interval: Interval;
  now: Date;
  zone: string;
  /** The project's earliest event, for `date_from: "all"` (null when it has none). */
  earliest: Date | null;
}

/** Resolves a query's range (see the module comment for the rules). */
export function resolveDateRange(input: RangeInput): DateRange {
  const { interval, zone } = input;
  const now = DateTime.fromJSDate(input.now, { zone });
  const hourly = interval === "hour" || interval === "minute";

  const toText = input.dateTo;
  let upper: DateTime;
  if (toText === null) {
    upper = now;
    if (!input.explicitDate) upper = hourly ? now.endOf(interval) : now.endOf("day");
  } else {
    const parsed = parseDate(toText, now, zone, "date_to", false);
    upper = parsed.value;
    if (!input.explicitDate) {
      if (!hourly) upper = upper.endOf("day");
      else if (parsed.relative !== null) upper = upper.endOf(interval);
    }
  }

  let from: ParsedDate;
  const fromText = input.dateFrom ?? "-7d";
  if (fromText === "all") {
    from = { value: DateTime.fromJSDate(input.earliest ?? input.now, { zone }), relative: null };
  } else {
    // The default -7d is truncated on every interval (`now.replace(hour=0, …) - 7 days`).
    const truncate = interval !== "minute" || input.dateFrom === null;
    from = parseDate(fromText, now, zone, "date_from", truncate);
  }
  const firstBucket = startOfInterval(from.value, interval);
  let lower: DateTime;
  if (input.explicitDate) lower = from.value;
  else if (hourly && from.relative !== null) lower = from.value;
  else if (interval === "day" && from.relative !== null && shiftsHours(from.relative)) lower = from.value;
  else lower = interval === "week" ? from.value.startOf("day") : firstBucket;
  return { lower, upper, firstBucket, interval };
}

/**
 * The range a comparison runs over: the previous period of the same length, or, for `compareTo`
 * (`-1w`, `-2d`, any relative date), the range whose start is `compareTo` counted back from the
 * current start and whose end keeps the same distance from it.
 * @throws ValidationError (attr `compareFilter__compare_to`) when `compareTo` is not a relative date.
 */
export function previousRange(range: DateRange, compareTo: string | null): DateRange {
  if (compareTo) {
    const relative = parseRelativeDate(compareTo.trim());
    const lower = relative ? resolveRelativeDate(relative, range.lower) : null;
    if (!lower?.isValid) {
      throw new ValidationError(`Invalid compare_to: ${compareTo}`, {
        attr: "compareFilter__compare_to",
        code: "invalid_date",
      });
    }
    const length = range.upper.diff(range.lower, ["days", "milliseconds"]);
    return {
      lower,
      upper: lower.plus(length),
      firstBucket: startOfInterval(lower, range.interval),
      interval: range.interval,
    };
  }
  const length = range.upper.toMillis() - range.lower.toMillis();
  const lowerExact = range.lower.minus({ milliseconds: length });
  const hourly = range.interval === "hour" || range.interval === "minute";
  const firstBucket = startOfInterval(lowerExact, range.interval);
  const lower = hourly ? lowerExact : range.interval === "week" ? lowerExact.startOf("day") : firstBucket;
  return { lower, upper: range.lower.minus({ milliseconds: 1 }), firstBucket, interval: range.interval };
}
