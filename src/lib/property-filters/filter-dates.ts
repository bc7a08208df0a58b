/**
 * Date values of PostHog's date operators (`is_date_exact`, `is_date_before`, `is_date_after`):
 * a relative offset back from now (`-7d`, `24h`, `2w`, `1m`, `1y`) or an ISO 8601 date or date-time.
 * The relative form is the flag-matching grammar of `src/lib/relative-dates.ts`
 * (`parseFlagMatchingRelativeDate`: PostHog's `posthog/queries/base.py`
 * `relative_date_parse_for_feature_flag_matching` and the Rust service's `relative_date.rs`:
 * digits below 10,000 and one of `h d w m y`, optional leading `-`, always in the past), resolved
 * in UTC with calendar months and years (31 March − 1m is 29 February, as dateutil's
 * `relativedelta`; the Rust service steps back one month at a time, which clamps again for −2m and
 * more across a short month; posthog-node's `setUTCMonth` overflows instead). Validation: see
 * posthog-behavior.md §2.5 rule 9, §3.5. PostHog falls back to dateutil's free-form parser for
 * absolute values; we take the ISO forms its UI sends. A value without an offset is UTC.
 */
import { DateTime } from "luxon";
import { parseFlagMatchingRelativeDate, type RelativeDate, resolveRelativeDate } from "../relative-dates.js";

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A parsed date filter value: an offset back from the evaluation's `now`, or a fixed instant. */
export type FilterDateSpec = { relative: RelativeDate } | { absolute: Date };

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
  const relative = parseFlagMatchingRelativeDate(text.trim());
  if (relative) return { relative };
  const absolute = parseIso(text.trim());
  return absolute === null ? null : { absolute };
}

/** The instant a parsed date filter value names at `now` (relative values counted back in UTC). */
export function resolveFilterDate(spec: FilterDateSpec, now: Date): Date {
  if ("absolute" in spec) return spec.absolute;
  return resolveRelativeDate(spec.relative, DateTime.fromJSDate(now, { zone: "utc" })).toJSDate();
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
