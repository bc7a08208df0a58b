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
    expect(bounds({ dateFrom: "-1q" })[0]).toBe("2019-10-21T00:00:00.000+00:00");
  });

  it("keeps the exact instant of an hour-based date_from on day and hour intervals", () => {
    expect(bounds({ dateFrom: "-24h" })).toEqual([
      "2020-01-19T10:30:00.000+00:00",
      "2020-01-20T23:59:59.999+00:00",
      "2020-01-19T00:00:00.000+00:00",
    ]);
    expect(bounds({ dateFrom: "-6h", interval: "hour" })).toEqual([
      "2020-01-20T04:30:00.000+00:00",
      "2020-01-20T10:59:59.999+00:00",
      "2020-01-20T04:00:00.000+00:00",
    ]);
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
  });
});
