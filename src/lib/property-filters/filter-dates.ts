/**
 * Date values of PostHog's date operators (`is_date_exact`, `is_date_before`, `is_date_after`):
 * a relative offset back from now (`-7d`, `24h`, `2w`, `1m`, `1y`) or an ISO 8601 date or date-time.
 * Sources: `posthog/queries/base.py` `relative_date_parse_for_feature_flag_matching` (the relative
 * form: digits below 10,000 and one unit letter, optional leading `-`, always in the past) and
 * posthog-behavior.md §2.5 rule 9, §3.5. PostHog falls back to dateutil's free-form parser for
 * absolute values; we take the ISO forms its UI sends. A value without an offset is UTC.
 * Months and years are calendar steps that keep the day of the month where the target month has
 * it and clamp to its last day otherwise (dateutil's `relativedelta`, chrono's `checked_sub_months`
 * in PostHog's Rust `relative_date.rs`): 31 March − 1m is 28/29 February, never 3 March.
 */

const RELATIVE = /^-?(\d+)([hdwmy])$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A unit of a relative date: hours, days, weeks, calendar months, calendar years. */
export type RelativeUnit = "h" | "d" | "w" | "m" | "y";

/** A parsed date filter value: an offset back from the evaluation's `now`, or a fixed instant. */
export type FilterDateSpec = { relative: { amount: number; unit: RelativeUnit } } | { absolute: Date };

/** `now` moved back by `months` calendar months, the day clamped to the target month's last day. */
function backMonths(now: Date, months: number): Date {
  const date = new Date(now.getTime());
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date;
}

/** `now` moved back by `amount` of `unit` (calendar months and years, as dateutil's relativedelta). */
function back(now: Date, amount: number, unit: RelativeUnit): Date {
  const date = new Date(now.getTime());
  switch (unit) {
    case "h":
      date.setUTCHours(date.getUTCHours() - amount);
      return date;
    case "d":
      date.setUTCDate(date.getUTCDate() - amount);
      return date;
    case "w":
      date.setUTCDate(date.getUTCDate() - 7 * amount);
      return date;
    case "m":
      return backMonths(now, amount);
    default:
      return backMonths(now, 12 * amount);
  }
}

/** The instant of an ISO 8601 value, or null when it names no real date or time. */
function parseIso(text: string): Date | null {
  const match = ISO.exec(text);
  if (!match) return null;
  const part = (index: number) => Number(match[index] ?? 0);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const fraction = match[7] ? Math.floor(Number(match[7]) * 1000) : 0;
  let offsetMinutes = 0;
  const zone = match[8];
  if (zone && zone !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    offsetMinutes =
      (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * (zone[0] === "-" ? -1 : 1);
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offsetMinutes * 60_000);
}

/**
 * A date filter value parsed once, for callers that evaluate it against many `now`s (the flag
 * engine compiles filters once per project revision); null when the value is neither form.
 */
export function parseFilterDateSpec(text: string): FilterDateSpec | null {
  const relative = RELATIVE.exec(text.trim());
  if (relative) {
    const amount = Number(relative[1]);
    return amount < 10_000 ? { relative: { amount, unit: relative[2] as RelativeUnit } } : null;
  }
  const absolute = parseIso(text.trim());
  return absolute === null ? null : { absolute };
}

/** The instant a parsed date filter value names at `now`. */
export function resolveFilterDate(spec: FilterDateSpec, now: Date): Date {
  return "absolute" in spec ? spec.absolute : back(now, spec.relative.amount, spec.relative.unit);
}

/** The instant of an ISO 8601 date or date-time (no offset means UTC), or null. */
export function parseIsoDate(text: string): Date | null {
  return parseIso(text.trim());
}

/**
 * The instant a date filter value names, relative values measured back from `now`; null when the
 * value is neither form (PostHog's `invalid_date`).
 */
export function parseFilterDate(text: string, now: Date): Date | null {
  const spec = parseFilterDateSpec(text);
  return spec === null ? null : resolveFilterDate(spec, now);
}
