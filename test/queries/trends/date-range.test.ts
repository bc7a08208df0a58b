/**
 * Date-range resolution (query_date_range.py, relative_date_parse), bucket lists and labels, without
 * a database: relative forms, snapping, truncation, explicit dates, compare ranges, week labels.
 */
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { bucketStarts, labelOf } from "../../../src/queries/trends/buckets.js";
import {
  isoInZone,
  previousRange,
  type RangeInput,
  resolveDateRange,
} from "../../../src/queries/trends/date-range.js";

const NOW = new Date("2020-01-20T10:30:00Z"); // a Monday
const base: RangeInput = {
  dateFrom: null,
  dateTo: null,
  explicitDate: false,
  interval: "day",
  now: NOW,
  zone: "UTC",
  earliest: null,
};
const bounds = (input: Partial<RangeInput>) => {
  const range = resolveDateRange({ ...base, ...input });
  return [isoInZone(range.lower), isoInZone(range.upper), isoInZone(range.firstBucket)];
};

describe("Trends date ranges", () => {
  it("snaps Start/End and reads a missing number as no offset", () => {
    expect(bounds({ dateFrom: "-1mStart", dateTo: "-1mEnd" }).slice(0, 2)).toEqual([
      "2019-12-01T00:00:00.000+00:00",
      "2019-12-31T23:59:59.999+00:00",
    ]);
    expect(bounds({ dateFrom: "dStart" })[0]).toBe("2020-01-20T00:00:00.000+00:00");
    expect(bounds({ dateFrom: "yStart" })[0]).toBe("2020-01-01T00:00:00.000+00:00");
    // A quarter is 3 calendar months (PostHog PR #68287), not 13 weeks.
    expect(bounds({ dateFrom: "-1q" })[0]).toBe("2019-10-20T00:00:00.000+00:00");
    expect(bounds({ dateFrom: "-1qStart", dateTo: "-1qEnd" }).slice(0, 2)).toEqual([
      "2019-10-01T00:00:00.000+00:00",
      "2019-12-31T23:59:59.999+00:00",
    ]);
    // Weeks start on Sunday (2020-01-19); `-1wEnd` is the Saturday after.
    expect(bounds({ dateFrom: "-1wStart", dateTo: "-1wEnd" }).slice(0, 2)).toEqual([
      "2020-01-12T00:00:00.000+00:00",
      "2020-01-18T23:59:59.999+00:00",
    ]);
    // Upper-case units other than M shift nothing in PostHog: today.
    expect(bounds({ dateFrom: "-7D" })[0]).toBe("2020-01-20T00:00:00.000+00:00");
  });

  it("truncates an hour-shifting date_from to its hour and keeps it on day and hour intervals", () => {
    expect(bounds({ dateFrom: "-24h" })).toEqual([
      "2020-01-19T10:00:00.000+00:00",
      "2020-01-20T23:59:59.999+00:00",
      "2020-01-19T00:00:00.000+00:00",
    ]);
    expect(bounds({ dateFrom: "-6h", interval: "hour" })).toEqual([
      "2020-01-20T04:00:00.000+00:00",
      "2020-01-20T10:59:59.999+00:00",
      "2020-01-20T04:00:00.000+00:00",
    ]);
    // Other relative values start at 00:00 of their day, on hour intervals too; minute intervals
    // keep the instant (`always_truncate=False`).
    expect(bounds({ dateFrom: "-1d", interval: "hour" })[0]).toBe("2020-01-19T00:00:00.000+00:00");
    expect(bounds({ dateFrom: "-1d", interval: "minute" })[0]).toBe("2020-01-19T10:30:00.000+00:00");
    expect(bounds({ dateFrom: "-7d", explicitDate: true })[0]).toBe("2020-01-13T00:00:00.000+00:00");
  });

  it("reads a relative date_to without truncating it to its unit", () => {
    expect(bounds({ dateFrom: "-1m", dateTo: "-1w" })[1]).toBe("2020-01-13T23:59:59.999+00:00");
    expect(bounds({ dateFrom: "-2d", dateTo: "-1d", interval: "hour" })[1]).toBe(
      "2020-01-19T10:59:59.999+00:00",
    );
  });

  it("refuses text that is not a date", () => {
    expect(() => bounds({ dateFrom: "-7x" })).toThrow("Invalid date: -7x");
    expect(() => bounds({ dateTo: "-1S" })).toThrow("Invalid date: -1S");
  });

  it("moves an absolute date_to to the end of its day, not with explicitDate", () => {
    expect(bounds({ dateFrom: "2020-01-01 10:00", dateTo: "2020-01-05 10:00" }).slice(0, 2)).toEqual([
      "2020-01-01T00:00:00.000+00:00",
      "2020-01-05T23:59:59.999+00:00",
    ]);
    expect(
      bounds({ dateFrom: "2020-01-01 10:00", dateTo: "2020-01-05 10:00", explicitDate: true }).slice(0, 2),
    ).toEqual(["2020-01-01T10:00:00.000+00:00", "2020-01-05T10:00:00.000+00:00"]);
  });

  it("starts weeks on Sunday, counting from the start of date_from's day", () => {
    const range = resolveDateRange({
      ...base,
      dateFrom: "2020-01-09",
      dateTo: "2020-01-20",
      interval: "week",
    });
    expect(isoInZone(range.lower)).toBe("2020-01-09T00:00:00.000+00:00");
    expect(bucketStarts(range).map((b) => b.toISODate())).toEqual(["2020-01-05", "2020-01-12", "2020-01-19"]);
    expect(labelOf(DateTime.fromISO("2020-01-12", { zone: "UTC" }), "week")).toBe("12–18 Jan 2020");
    expect(labelOf(DateTime.fromISO("2019-12-29", { zone: "UTC" }), "week")).toBe("29 Dec 2019 – 4 Jan 2020");
  });

  it("reads `all` from the earliest event", () => {
    expect(bounds({ dateFrom: "all", earliest: new Date("2019-06-15T08:00:00Z") })[0]).toBe(
      "2019-06-15T00:00:00.000+00:00",
    );
  });

  it("compares with the previous period or a shifted one", () => {
    const range = resolveDateRange({ ...base, dateFrom: "2020-01-15", dateTo: "2020-01-19" });
    const previous = previousRange(range, null);
    expect([isoInZone(previous.lower), isoInZone(previous.upper)]).toEqual([
      "2020-01-10T00:00:00.000+00:00",
      "2020-01-14T23:59:59.999+00:00",
    ]);
    const week = previousRange(range, "-1w");
    expect([isoInZone(week.lower), isoInZone(week.upper)]).toEqual([
      "2020-01-08T00:00:00.000+00:00",
      "2020-01-12T23:59:59.999+00:00",
    ]);
    // Any relative date: counted back from the start, the end kept at the same distance.
    const month = previousRange(range, "-1mStart");
    expect([isoInZone(month.lower), isoInZone(month.upper)]).toEqual([
      "2019-12-01T00:00:00.000+00:00",
      "2019-12-05T23:59:59.999+00:00",
    ]);
    expect(() => previousRange(range, "-1x")).toThrow("Invalid compare_to: -1x");
  });
});
