/**
 * PostHog's relative dates (`-7d`, `-1q`, `mStart`, `-1wEnd`, `24h`): one grammar, one table of
 * rules, one resolver, for every place that reads them (Trends date ranges, HogQL, property filters).
 *
 * Two grammars, as PostHog has two:
 * - Insights (`parseRelativeDate`): `posthog/utils.py` `relative_date_parse_with_delta_mapping`,
 *   regex `-?(\d+)?([hdwmqysHDWMQY])(Start|End)?`; HogQL Date variables take the same text
 *   (`posthog/hogql/variables.py` `is_relative_date_value`). The sign is optional and ignored: every
 *   count goes back from now. No count means no shift (`mStart` = this month).
 * - Flag matching (`parseFlagMatchingRelativeDate`): `posthog/queries/base.py`
 *   `relative_date_parse_for_feature_flag_matching` and the Rust flags service
 *   (`rust/feature-flags/src/properties/relative_date.rs`): `-?(\d+)([a-z])`, a count below 10,000,
 *   units `h d w m y` only, no Start/End.
 *
 * Units: shifts and Start/End from `posthog/utils.py` `get_delta_mapping_for` (the mapping is
 * subtracted as a dateutil `relativedelta`), week and quarter snaps from
 * `relative_date_parse_with_delta_mapping` in the same file; expected values in
 * `posthog/test/test_utils.py` `TestRelativeDateParse`:
 * - `h` hours; `Start`/`End` = minute 0 / 59:59.999999 of that hour.
 * - `d` days; `Start`/`End` = 00:00 / 23:59:59.999999 of that day.
 * - `w` weeks (7 days); `Start`/`End` move now to the first/last day of its week before the shift,
 *   the time of day kept (`get_weekday_index`: weeks start on Sunday, or Monday for a team
 *   `week_start_day` of 1; PostHog PR #41796).
 * - `m` calendar months (the day clamped to the target month's length: 31 March − 1m = 29 Feb);
 *   `Start` = day 1, `End` = day 31 clamped (the month's last day), the time of day kept.
 * - `q` quarters = 3 calendar months (PostHog PR #68287; 13 weeks before it, and still with the team
 *   option `human_friendly_comparison_periods`, which projects here do not have); `Start`/`End`
 *   snap, after the shift, to the first / last day of that calendar quarter, the time of day kept.
 * - `y` calendar years (29 Feb − 1y = 28 Feb); `Start` = 1 January; `End` = day 31 clamped **of the
 *   same month** (PostHog sets only `day=31`), the time of day kept.
 * - `M` minutes, `s` seconds; no Start/End.
 * - `H D W Q Y`: matched by PostHog's regex but given no shift and no snap (no branch for them):
 *   the date is now. (`S` is not in PostHog's regex.)
 * `alwaysTruncate` (PostHog's `always_truncate`, which `QueryDateRange.date_from` passes) then
 * truncates to the start of the hour when the text shifts hours (`"hours" in delta_mapping`: `h`
 * with a count) and to the start of the day otherwise (`hStart` included).
 *
 * Arithmetic is on the wall clock of `now`'s zone, as Python's aware-datetime arithmetic is (and
 * the Rust service's `parse_relative_date_in_tz`): `-24h` across a DST change is the same wall
 * time yesterday. A wall time that does not exist (spring-forward gap) is read with the offset
 * before the change, one that occurs twice with the first occurrence (Python's `fold=0`).
 *
 * Deliberate differences from PostHog, which uses `re.search` (any text containing a unit letter
 * matches, `yesterday-ish` is "now") and falls back to "now" when nothing matches: the grammar is
 * anchored, so callers refuse text that is not exactly a relative date. PostHog raises for results
 * outside years 1–9999; here only results outside JavaScript's date range are invalid.
 */
import { DateTime, type Zone } from "luxon";

/** A unit letter of the insights grammar (`m` months, `M` minutes; `H D W Q Y` shift nothing). */
export type RelativeDateUnit = "h" | "d" | "w" | "m" | "q" | "y" | "M" | "s" | "H" | "D" | "W" | "Q" | "Y";

/** A parsed relative date: how many units back (null: none written), the unit, the snap. */
export interface RelativeDate {
  /** The written count (`-7d` → 7, `0h` → 0), null when the text has none (`mStart`). */
  count: number | null;
  unit: RelativeDateUnit;
  /** `Start`/`End` suffix, null without one. */
  position: "Start" | "End" | null;
}

/** A team's `week_start_day`: 0 Sunday (PostHog's default), 1 Monday. */
export type WeekStartDay = 0 | 1;

/** How a relative date is resolved, as PostHog's caller passes it. */
export interface RelativeDateOptions {
  /** First day of the week for `wStart`/`wEnd` (default 0, Sunday: callers that pass no team value). */
  weekStartDay?: WeekStartDay;
  /** PostHog's `always_truncate` (default false). */
  alwaysTruncate?: boolean;
}

/**
 * What resolving a relative date does to the wall clock of now, in this order (the steps of
 * `relative_date_parse_with_delta_mapping`), for resolvers in JavaScript and in SQL alike.
 */
export interface RelativeDatePlan {
  /** 1. `w` with Start/End: move to the first/last day of now's week (time of day kept). */
  weekSnap: "Start" | "End" | null;
  weekStartDay: WeekStartDay;
  /** 2. The calendar shift back, in months (years × 12 + months); 0 for none. */
  months: number;
  /** 2. Absolute month (1–12) set before the shift (`yStart`), else null. */
  month: number | null;
  /** 2. Absolute day set after the shift, clamped to the month's length (`mStart` 1, `mEnd` 31). */
  day: number | null;
  /** 3. Time of day set: start/end of the hour or of the day; null keeps it. */
  time: "hourStart" | "hourEnd" | "dayStart" | "dayEnd" | null;
  /** 4. The exact shift back, in milliseconds of wall clock (days, weeks, hours, minutes, seconds). */
  shiftMs: number;
  /** 5. `q` with Start/End: snap to the first/last day of the resulting calendar quarter. */
  quarterSnap: "Start" | "End" | null;
  /** 6. `alwaysTruncate`: to the start of the hour or of the day; null without it. */
  truncate: "hour" | "day" | null;
}

const INSIGHTS = /^-?(\d*)([hdwmqysHDWMQY])(Start|End)?$/;
const FLAG_MATCHING = /^-?(\d+)([a-z])$/;
const FLAG_UNITS = new Set(["h", "d", "w", "m", "y"]);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The largest distance from the epoch a JavaScript date can have. */
const MAX_DATE = 8.64e15;

/**
 * Reads `text` with the insights grammar (`posthog/utils.py` `relative_date_parse`): `-7d`, `7d`,
 * `mStart`, `-1wEnd`, `d`. Exact text only: no surrounding spaces, no other characters.
 * @returns the relative date, or null when `text` is not one.
 */
export function parseRelativeDate(text: string): RelativeDate | null {
  const match = INSIGHTS.exec(text);
  if (!match) return null;
  return {
    count: match[1] === "" ? null : Number(match[1]),
    unit: match[2] as RelativeDateUnit,
    position: (match[3] as "Start" | "End" | undefined) ?? null,
  };
}

/**
 * Reads `text` with the flag-matching grammar (`posthog/queries/base.py`
 * `relative_date_parse_for_feature_flag_matching`, Rust `relative_date.rs`): `-7d`, `24h`, `2w`,
 * `1m`, `1y`; a count below 10,000.
 * @returns the relative date (unit `h|d|w|m|y`, no position), or null when `text` is not one.
 */
export function parseFlagMatchingRelativeDate(text: string): RelativeDate | null {
  const match = FLAG_MATCHING.exec(text);
  if (!match || !FLAG_UNITS.has(match[2]!)) return null;
  const count = Number(match[1]);
  return count < 10_000 ? { count, unit: match[2] as RelativeDateUnit, position: null } : null;
}

/** PostHog's `"hours" in delta_mapping`: the text shifts hours (`h` with a count, `-0h` included). */
export function shiftsHours(date: RelativeDate): boolean {
  return date.unit === "h" && date.count !== null;
}

/** The steps resolving `date` takes (see `RelativeDatePlan`), by the unit table of the module comment. */
export function planRelativeDate(date: RelativeDate, options: RelativeDateOptions = {}): RelativeDatePlan {
  const plan: RelativeDatePlan = {
    weekSnap: null,
    weekStartDay: options.weekStartDay ?? 0,
    months: 0,
    month: null,
    day: null,
    time: null,
    shiftMs: 0,
    quarterSnap: null,
    truncate: options.alwaysTruncate ? (shiftsHours(date) ? "hour" : "day") : null,
  };
  const n = date.count ?? 0;
  const { position } = date;
  switch (date.unit) {
    case "h":
      plan.shiftMs = n * HOUR;
      plan.time = position === "Start" ? "hourStart" : position === "End" ? "hourEnd" : null;
      break;
    case "d":
      plan.shiftMs = n * DAY;
      plan.time = position === "Start" ? "dayStart" : position === "End" ? "dayEnd" : null;
      break;
    case "w":
      plan.shiftMs = 7 * n * DAY;
      plan.weekSnap = position;
      break;
    case "m":
      plan.months = n;
      plan.day = position === "Start" ? 1 : position === "End" ? 31 : null;
      break;
    case "q":
      plan.months = 3 * n;
      plan.quarterSnap = position;
      break;
    case "y":
      plan.months = 12 * n;
      if (position === "Start") {
        plan.month = 1;
        plan.day = 1;
      } else if (position === "End") plan.day = 31;
      break;
    case "M":
      plan.shiftMs = n * MINUTE;
      break;
    case "s":
      plan.shiftMs = n * SECOND;
      break;
    default:
      break; // H, D, W, Q, Y: no branch in get_delta_mapping_for.
  }
  return plan;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in month `month0` (0–11) of `year` (proleptic Gregorian, as Python's `calendar`). */
function daysIn(year: number, month0: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month0 === 1 && leap ? 29 : MONTH_DAYS[month0]!;
}

/** `value` modulo `unit`, never negative (wall clocks before 1970 are negative). */
function mod(value: number, unit: number): number {
  return ((value % unit) + unit) % unit;
}

/** The wall clock (UTC milliseconds) of a date and a time of day; years below 100 stay literal. */
function wallAt(year: number, month0: number, day: number, timeOfDay: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month0, day);
  return date.getTime() + timeOfDay;
}

/** Applies `plan` to the wall clock `wall` (a local date-time written as UTC milliseconds). */
function applyPlan(plan: RelativeDatePlan, wall: number): number {
  let t = wall;
  if (plan.weekSnap) {
    const weekday = new Date(t).getUTCDay(); // 0 Sunday … 6 Saturday: Python's isoweekday() % 7
    const index = plan.weekStartDay === 1 ? (weekday + 6) % 7 : weekday;
    t += (plan.weekSnap === "Start" ? -index : 6 - index) * DAY;
  }
  const at = new Date(t);
  let year = at.getUTCFullYear();
  let month0 = at.getUTCMonth();
  let day = at.getUTCDate();
  if (plan.months !== 0 || plan.month !== null || plan.day !== null) {
    // relativedelta: the absolute month, then the months back, then the day clamped to the month.
    const months = 12 * year + (plan.month ?? month0 + 1) - 1 - plan.months;
    year = Math.floor(months / 12);
    month0 = months - 12 * year;
    day = Math.min(daysIn(year, month0), plan.day ?? day);
  }
  let timeOfDay = mod(t, DAY);
  if (plan.time === "hourStart") timeOfDay -= mod(timeOfDay, HOUR);
  else if (plan.time === "hourEnd") timeOfDay += HOUR - 1 - mod(timeOfDay, HOUR);
  else if (plan.time === "dayStart") timeOfDay = 0;
  else if (plan.time === "dayEnd") timeOfDay = DAY - 1;
  t = wallAt(year, month0, day, timeOfDay) - plan.shiftMs;
  if (plan.quarterSnap) {
    const shifted = new Date(t);
    const first = shifted.getUTCMonth() - (shifted.getUTCMonth() % 3);
    const last = plan.quarterSnap === "Start" ? first : first + 2;
    const y = shifted.getUTCFullYear();
    t = wallAt(y, last, plan.quarterSnap === "Start" ? 1 : daysIn(y, last), mod(t, DAY));
  }
  if (plan.truncate) t -= mod(t, plan.truncate === "hour" ? HOUR : DAY);
  return t;
}

/**
 * The instant (UTC milliseconds) of the wall clock `wall` (local milliseconds) in `zone`: a time in a DST gap takes
 * the offset before the change, a repeated time its first occurrence (Python's `fold=0`).
 */
function fromWall(wall: number, zone: Zone): number {
  const before = zone.offset(wall - DAY);
  const after = zone.offset(wall + DAY);
  const fits = [wall - before * MINUTE, wall - after * MINUTE].filter(
    (instant) => zone.offset(instant) * MINUTE === wall - instant,
  );
  return fits.length > 0 ? Math.min(...fits) : wall - before * MINUTE;
}

/**
 * The instant `date` names at `now`, in `now`'s zone (PostHog's `relative_date_parse(text,
 * timezone_info, now=now, always_truncate=…, team_week_start_day=…)`), at millisecond precision
 * (PostHog's `.999999` ends are `.999` here).
 * @returns the instant; an invalid DateTime when it falls outside JavaScript's date range.
 */
export function resolveRelativeDate(
  date: RelativeDate,
  now: DateTime,
  options: RelativeDateOptions = {},
): DateTime {
  const wall = applyPlan(planRelativeDate(date, options), now.toMillis() + now.offset * MINUTE);
  const instant = fromWall(wall, now.zone);
  return Number.isFinite(instant) && Math.abs(instant) <= MAX_DATE
    ? DateTime.fromMillis(instant, { zone: now.zone })
    : DateTime.invalid("relative date out of range");
}

/**
 * The start (00:00) of the week containing `dt`, in its zone: back to Sunday, or to Monday for a
 * `weekStartDay` of 1 (`QueryDateRange.align_with_interval`, `get_weekday_index`).
 */
export function startOfWeek(dt: DateTime, weekStartDay: WeekStartDay = 0): DateTime {
  const back = weekStartDay === 1 ? dt.weekday - 1 : dt.weekday % 7;
  return dt.startOf("day").minus({ days: back });
}
