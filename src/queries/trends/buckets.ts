/**
 * The interval buckets of a range and how PostHog shows them (`posthog/utils.py` `format_label_date`,
 * `query_date_range.py` `all_values`; query-and-experiments.md 1c/1d).
 *
 * Buckets are every interval start from the range's first bucket while `start <= upper`, in the
 * project zone; `days` are `YYYY-MM-DD` (hour and minute: `YYYY-MM-DD HH:MM:SS`); labels are
 * `9-Jan-2020` (day), `9-Jan 14:00` (hour, minute), `Jan 2020` (month) and a week range
 * (`12–18 Jan 2020`, across months `29 Dec – 4 Jan 2020`, both years when they differ: cosmetic,
 * PostHog's own format varies by version).
 */
import type { DateTime } from "luxon";
import type { DateRange } from "./date-range.js";
import type { Interval } from "./trends-query.schema.js";

/** A bound on the number of buckets one run may produce (a minute interval over years would be millions). */
export const MAX_BUCKETS = 50_000;

/** The bucket starts of `range`. @throws RangeError past `MAX_BUCKETS` (the caller turns it into a 400). */
export function bucketStarts(range: DateRange): DateTime[] {
  const starts: DateTime[] = [];
  let start = range.firstBucket;
  let i = 0;
  while (start <= range.upper) {
    starts.push(start);
    if (starts.length > MAX_BUCKETS) throw new RangeError(`more than ${MAX_BUCKETS} buckets`);
    i += 1;
    start = range.firstBucket.plus({ [`${range.interval}s`]: i });
  }
  return starts;
}

/** The end (exclusive) of the bucket starting at `start`. */
export function bucketEnd(start: DateTime, interval: Interval): DateTime {
  return start.plus({ [`${interval}s`]: 1 });
}

/** PostHog's `days` entry of a bucket. */
export function dayOf(start: DateTime, interval: Interval): string {
  return interval === "hour" || interval === "minute"
    ? start.toFormat("yyyy-LL-dd HH:mm:ss")
    : start.toFormat("yyyy-LL-dd");
}

/** PostHog's label of a bucket. */
export function labelOf(start: DateTime, interval: Interval): string {
  switch (interval) {
    case "hour":
    case "minute":
      return start.toFormat("d-LLL HH:mm", { locale: "en-US" });
    case "month":
      return start.toFormat("LLL yyyy", { locale: "en-US" });
    case "week": {
      const end = start.plus({ days: 6 });
      const fmt = (dt: DateTime, f: string) => dt.toFormat(f, { locale: "en-US" });
      if (start.year !== end.year) return `${fmt(start, "d LLL yyyy")} – ${fmt(end, "d LLL yyyy")}`;
      if (start.month !== end.month) return `${fmt(start, "d LLL")} – ${fmt(end, "d LLL yyyy")}`;
      return `${start.day}–${fmt(end, "d LLL yyyy")}`;
    }
    default:
      return start.toFormat("d-LLL-yyyy", { locale: "en-US" });
  }
}
