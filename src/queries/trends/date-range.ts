/**
 * A TrendsQuery's date range, resolved in the project's timezone (PostHog's
 * `posthog/hogql_queries/utils/query_date_range.py` and `posthog/utils.py` `relative_date_parse`;
 * query-and-experiments.md 1d "Date range").
 *
 * Rules:
 * - Relative values match `-?(\d+)?([hdwmqysHDWMQY])(Start|End)?`: `h` hours, `d` days, `w` weeks,
 *   `m` months, `q` quarters (13 weeks, as PostHog), `y` years, `M` minutes, `s` seconds, counted back
 *   from now; no number means no offset (`dStart` = today 00:00, `mStart` = the 1st of this month).
 *   `Start`/`End` snap to the start/end of that unit (weeks start on Sunday). `all` = the project's
 *   earliest event (the caller reads it).
 * - Absolute values without an offset (`2020-01-09`, `2020-01-09 12:00`) are read in the project
 *   timezone; values with one (`Z`, `+02:00`) are that instant.
 * - Defaults: `date_from` = `-7d`, `date_to` = now.
 * - `date_to`: relative values are truncated to the start of their unit; then, unless
 *   `explicitDate`, for day/week/month intervals it moves to 23:59:59.999 of its day (even when
 *   absolute); for hour (and minute) intervals only a relative or absent `date_to` moves, to the end
 *   of its hour (minute).
 * - `date_from`: unless `explicitDate`, the SQL lower bound is the start of the interval containing
 *   it (start of *day* for weeks), except for hour/minute intervals with a relative `date_from` and
 *   for a day interval with an hour-based relative one (`-24h`), which keep the exact instant
 *   (`use_start_of_interval`). Buckets start at the interval start of `date_from` (weeks on Sunday).
 * - Compare: the previous period is `[from − (to − from), from)`; `compare_to` (`-1w`) shifts both
 *   bounds back by that amount instead (`QueryPreviousPeriodDateRange`, `QueryCompareToDateRange`).
 *
 * Times are luxon `DateTime`s in the project zone; luxon handles DST (a day can be 23 or 25 hours).
 */
import { DateTime, type DateTimeUnit, type DurationLikeObject } from "luxon";
import { ValidationError } from "../../core/errors.js";
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

const RELATIVE = /^-?(\d+)?([hdwmqysHDWMQY])(Start|End)?$/;

/** A parsed date input: its instant and whether it was relative (and in which unit). */
interface ParsedDate {
  value: DateTime;
  relativeUnit: string | null;
}

/** ISO 8601 with the zone's offset spelled `+00:00` even in UTC, as Python's `isoformat()` writes it. */
export function isoInZone(dt: DateTime): string {
  return dt.toFormat("yyyy-LL-dd'T'HH:mm:ss.SSSZZ");
}

/** Sunday-based start of the week containing `dt` (PostHog's default `week_start_day` 0). */
export function startOfWeek(dt: DateTime): DateTime {
  return dt.startOf("day").minus({ days: dt.weekday % 7 });
}

/** The start of the `interval` bucket containing `dt` (weeks start on Sunday). */
export function startOfInterval(dt: DateTime, interval: Interval): DateTime {
  return interval === "week" ? startOfWeek(dt) : dt.startOf(interval);
}

/** Luxon's unit of each relative letter but `w` (weeks start on Sunday here, not Monday). */
const UNITS = {
  h: "hour",
  M: "minute",
  s: "second",
  d: "day",
  m: "month",
  q: "quarter",
  y: "year",
} as const satisfies Record<string, DateTimeUnit>;

function unitStart(dt: DateTime, type: string): DateTime {
  if (type === "w") return startOfWeek(dt);
  return dt.startOf(UNITS[type as keyof typeof UNITS] ?? "day");
}

function unitEnd(dt: DateTime, type: string): DateTime {
  if (type === "w") return startOfWeek(dt).plus({ days: 7 }).minus({ milliseconds: 1 });
  return dt.endOf(UNITS[type as keyof typeof UNITS] ?? "day");
}

/** The unit letter of a relative match: `m`/`M` differ (months/minutes), other letters in either case. */
function unitLetter(raw: string): string {
  return raw === "M" || raw === "m" ? raw : raw.toLowerCase();
}

function delta(type: string, n: number): DurationLikeObject {
  switch (type) {
    case "h":
      return { hours: n };
    case "M":
      return { minutes: n };
    case "s":
      return { seconds: n };
    case "w":
      return { weeks: n };
    case "m":
      return { months: n };
    case "q":
      return { weeks: 13 * n };
    case "y":
      return { years: n };
    default:
      return { days: n };
  }
}

/**
 * Parses a relative or absolute date in `zone`.
 * @param truncate Truncate a relative value without Start/End to the start of its unit (date_to).
 * @throws ValidationError (attr `dateRange__<field>`) for text that is neither.
 */
export function parseDate(
  text: string,
  now: DateTime,
  zone: string,
  field: string,
  truncate = false,
): ParsedDate {
  const relative = RELATIVE.exec(text.trim());
  if (relative) {
    const [, number, rawType, position] = relative;
    const type = unitLetter(rawType!);
    let value = number ? now.minus(delta(type, Number(number))) : now;
    if (position === "Start") value = unitStart(value, type);
    else if (position === "End") value = unitEnd(value, type);
    else if (truncate) value = unitStart(value, type);
    return { value, relativeUnit: type };
  }
  const iso = text.trim().replace(" ", "T");
  const absolute = DateTime.fromISO(iso, { zone, setZone: false });
  if (!absolute.isValid) {
    throw new ValidationError(`Invalid date: ${text}`, { attr: `dateRange__${field}`, code: "invalid_date" });
  }
  return { value: absolute.setZone(zone), relativeUnit: null };
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
    const parsed = parseDate(toText, now, zone, "date_to", true);
    upper = parsed.value;
    if (!input.explicitDate) {
      if (!hourly) upper = upper.endOf("day");
      else if (parsed.relativeUnit !== null) upper = upper.endOf(interval);
    }
  }

  let from: ParsedDate;
  const fromText = input.dateFrom ?? "-7d";
  if (fromText === "all") {
    from = { value: DateTime.fromJSDate(input.earliest ?? input.now, { zone }), relativeUnit: null };
  } else {
    from = parseDate(fromText, now, zone, "date_from");
  }
  const firstBucket = startOfInterval(from.value, interval);
  let lower: DateTime;
  if (input.explicitDate) lower = from.value;
  else if (hourly && from.relativeUnit !== null) lower = from.value;
  else if (interval === "day" && (from.relativeUnit === "h" || from.relativeUnit === "M")) lower = from.value;
  else lower = interval === "week" ? from.value.startOf("day") : firstBucket;
  return { lower, upper, firstBucket, interval };
}

/**
 * The range a comparison runs over: the previous period of the same length, or the range shifted
 * back by `compareTo` (`-1w`, `-2d`).
 */
export function previousRange(range: DateRange, compareTo: string | null): DateRange {
  if (compareTo) {
    const relative = RELATIVE.exec(compareTo.trim());
    if (!relative || relative[3]) {
      throw new ValidationError(`Invalid compare_to: ${compareTo}`, {
        attr: "compareFilter__compare_to",
        code: "invalid_date",
      });
    }
    const type = unitLetter(relative[2]!);
    const shift = delta(type, Number(relative[1] ?? 1));
    const lower = range.lower.minus(shift);
    return {
      lower,
      upper: range.upper.minus(shift),
      firstBucket: startOfInterval(range.firstBucket.minus(shift), range.interval),
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
