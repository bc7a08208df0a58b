/**
 * The table of PostHog relative dates (insights grammar, `posthog/utils.py`
 * `relative_date_parse_with_delta_mapping`) and the instants they name, shared by the resolver's
 * unit test (test/lib/relative-dates.test.ts) and the HogQL SQL test (test/lib/hogql/relative-dates.test.ts),
 * so the JavaScript and SQL resolutions are pinned by the same cases. Expected values follow
 * PostHog's own tests (`posthog/test/test_utils.py` `TestRelativeDateParse`, frozen at 2020-01-31)
 * and its rules (see src/lib/relative-dates.ts).
 */
import type { RelativeDateOptions } from "../../src/lib/relative-dates.js";

/** One case: `text` resolved at `now` (an ISO instant read in `zone`) is `expected` (ISO with offset). */
export interface RelativeDateCase {
  text: string;
  now: string;
  zone: string;
  expected: string;
  options?: RelativeDateOptions;
  /** Why the SQL resolution differs (and is not compared), when it does. */
  sqlDiffers?: string;
}

/** Friday 31 January 2020, 12:22:23.456 UTC. */
const FRIDAY = "2020-01-31T12:22:23.456Z";

const utc = (text: string, expected: string, options?: RelativeDateOptions): RelativeDateCase => ({
  text,
  now: FRIDAY,
  zone: "UTC",
  expected: `${expected}+00:00`,
  ...(options ? { options } : {}),
});

export const RELATIVE_DATE_CASES: RelativeDateCase[] = [
  // h: hours; Start/End = the hour's first/last instant.
  utc("-24h", "2020-01-30T12:22:23.456"),
  utc("24h", "2020-01-30T12:22:23.456"), // the sign is optional: always back
  utc("-0h", "2020-01-31T12:22:23.456"),
  utc("-1hStart", "2020-01-31T11:00:00.000"),
  utc("-1hEnd", "2020-01-31T11:59:59.999"),
  utc("hStart", "2020-01-31T12:00:00.000"),
  utc("hEnd", "2020-01-31T12:59:59.999"),
  // d: days; Start/End = the day's first/last instant; no count = no shift.
  utc("-7d", "2020-01-24T12:22:23.456"),
  utc("d", "2020-01-31T12:22:23.456"),
  utc("dStart", "2020-01-31T00:00:00.000"),
  utc("-1dStart", "2020-01-30T00:00:00.000"),
  utc("-1dEnd", "2020-01-30T23:59:59.999"),
  // w: 7 days; Start/End = first/last day of now's week (Sunday start by default), time kept.
  utc("-1w", "2020-01-24T12:22:23.456"),
  utc("-2w", "2020-01-17T12:22:23.456"),
  utc("wStart", "2020-01-26T12:22:23.456"),
  utc("wEnd", "2020-02-01T12:22:23.456"),
  utc("-1wStart", "2020-01-19T12:22:23.456"),
  utc("-1wEnd", "2020-01-25T12:22:23.456"),
  utc("wStart", "2020-01-27T12:22:23.456", { weekStartDay: 1 }),
  utc("wEnd", "2020-02-02T12:22:23.456", { weekStartDay: 1 }),
  utc("-1wStart", "2020-01-20T12:22:23.456", { weekStartDay: 1 }),
  // m: calendar months, the day clamped; Start = day 1, End = the month's last day, time kept.
  utc("-1m", "2019-12-31T12:22:23.456"),
  utc("-2m", "2019-11-30T12:22:23.456"),
  utc("mStart", "2020-01-01T12:22:23.456"),
  utc("mEnd", "2020-01-31T12:22:23.456"),
  utc("-1mStart", "2019-12-01T12:22:23.456"),
  utc("-2mStart", "2019-11-01T12:22:23.456"),
  utc("-1mEnd", "2019-12-31T12:22:23.456"),
  utc("-2mEnd", "2019-11-30T12:22:23.456"),
  // q: 3 calendar months; Start/End snap to the resulting calendar quarter, time kept.
  utc("-1q", "2019-10-31T12:22:23.456"),
  utc("-2q", "2019-07-31T12:22:23.456"),
  utc("qStart", "2020-01-01T12:22:23.456"),
  utc("qEnd", "2020-03-31T12:22:23.456"),
  utc("-1qStart", "2019-10-01T12:22:23.456"),
  utc("-2qStart", "2019-07-01T12:22:23.456"),
  utc("-1qEnd", "2019-12-31T12:22:23.456"),
  utc("-2qEnd", "2019-09-30T12:22:23.456"),
  // y: calendar years; Start = 1 January; End = day 31 of the same month (PostHog sets only day=31).
  utc("-1y", "2019-01-31T12:22:23.456"),
  utc("-2y", "2018-01-31T12:22:23.456"),
  utc("yStart", "2020-01-01T12:22:23.456"),
  utc("-1yStart", "2019-01-01T12:22:23.456"),
  utc("yEnd", "2020-01-31T12:22:23.456"),
  utc("-1yEnd", "2019-01-31T12:22:23.456"),
  // M minutes, s seconds; no Start/End snap for them.
  utc("-30M", "2020-01-31T11:52:23.456"),
  utc("MStart", "2020-01-31T12:22:23.456"),
  utc("-10s", "2020-01-31T12:22:13.456"),
  utc("-1sEnd", "2020-01-31T12:22:22.456"),
  // H D W Q Y: in PostHog's regex, but no shift and no snap.
  utc("-7D", "2020-01-31T12:22:23.456"),
  utc("-3H", "2020-01-31T12:22:23.456"),
  utc("-1W", "2020-01-31T12:22:23.456"),
  utc("-1QStart", "2020-01-31T12:22:23.456"),
  utc("-1YEnd", "2020-01-31T12:22:23.456"),
  // always_truncate: to the hour when hours are shifted, else to the day.
  utc("-7d", "2020-01-24T00:00:00.000", { alwaysTruncate: true }),
  utc("-6h", "2020-01-31T06:00:00.000", { alwaysTruncate: true }),
  utc("-0h", "2020-01-31T12:00:00.000", { alwaysTruncate: true }),
  utc("hStart", "2020-01-31T00:00:00.000", { alwaysTruncate: true }),
  utc("-30M", "2020-01-31T00:00:00.000", { alwaysTruncate: true }),
  utc("-1mEnd", "2019-12-31T00:00:00.000", { alwaysTruncate: true }),
  utc("-1wStart", "2020-01-19T00:00:00.000", { alwaysTruncate: true }),
  // Leap days and short months.
  { text: "-1m", now: "2020-03-31T10:00:00Z", zone: "UTC", expected: "2020-02-29T10:00:00.000+00:00" },
  { text: "-1q", now: "2020-05-31T10:00:00Z", zone: "UTC", expected: "2020-02-29T10:00:00.000+00:00" },
  { text: "-1y", now: "2020-02-29T10:00:00Z", zone: "UTC", expected: "2019-02-28T10:00:00.000+00:00" },
  { text: "-1qEnd", now: "2020-05-15T10:00:00Z", zone: "UTC", expected: "2020-03-31T10:00:00.000+00:00" },
  // The project's zone: snaps and shifts on its wall clock.
  {
    text: "dStart",
    now: "2020-01-31T23:30:00Z",
    zone: "Europe/Berlin",
    expected: "2020-02-01T00:00:00.000+01:00",
  },
  {
    text: "-1mStart",
    now: "2020-01-31T23:30:00Z",
    zone: "Europe/Berlin",
    expected: "2020-01-01T00:30:00.000+01:00",
  },
  {
    text: "wStart",
    now: "2020-02-01T20:00:00Z",
    zone: "Asia/Kolkata",
    expected: "2020-02-02T01:30:00.000+05:30",
  },
  // DST: the wall clock moves, not the instant (-24h is the same wall time the day before).
  {
    text: "-24h",
    now: "2020-03-09T16:00:00Z",
    zone: "America/New_York",
    expected: "2020-03-08T12:00:00.000-04:00",
  },
  {
    text: "-2d",
    now: "2020-03-09T16:00:00Z",
    zone: "America/New_York",
    expected: "2020-03-07T12:00:00.000-05:00",
  },
  {
    text: "-1d",
    now: "2020-03-09T06:30:00Z",
    zone: "America/New_York",
    expected: "2020-03-08T03:30:00.000-04:00", // 02:30 does not exist: read with the earlier offset
  },
  {
    text: "-1d",
    now: "2020-11-02T06:30:00Z",
    zone: "America/New_York",
    expected: "2020-11-01T01:30:00.000-04:00", // 01:30 occurs twice: the first (Python's fold=0)
    sqlDiffers: "PostgreSQL reads a repeated wall time as its second occurrence",
  },
];
