/**
 * PostHog's relative dates (src/lib/relative-dates.ts): both grammars (insights, flag matching),
 * every unit with its Start/End forms, signs, bad input, the week start, always_truncate, the
 * project's zone and DST, by the shared table of cases (./relative-date-cases.ts).
 */
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  parseFlagMatchingRelativeDate,
  parseRelativeDate,
  resolveRelativeDate,
  shiftsHours,
  startOfWeek,
} from "../../src/lib/relative-dates.js";
import { RELATIVE_DATE_CASES } from "./relative-date-cases.js";

const at = (iso: string, zone = "UTC") => DateTime.fromISO(iso, { zone });
const iso = (dt: DateTime) => dt.toFormat("yyyy-LL-dd'T'HH:mm:ss.SSSZZ");

describe("the insights grammar (relative_date_parse)", () => {
  it.each([
    ["-7d", { count: 7, unit: "d", position: null }],
    ["7d", { count: 7, unit: "d", position: null }],
    ["-0h", { count: 0, unit: "h", position: null }],
    ["007d", { count: 7, unit: "d", position: null }],
    ["mStart", { count: null, unit: "m", position: "Start" }],
    ["-1wEnd", { count: 1, unit: "w", position: "End" }],
    ["d", { count: null, unit: "d", position: null }],
    ["-30M", { count: 30, unit: "M", position: null }],
    ["-1Q", { count: 1, unit: "Q", position: null }],
  ])("reads %s", (text, expected) => {
    expect(parseRelativeDate(text)).toEqual(expected);
  });

  it.each([
    "",
    "-",
    "7",
    "-7x",
    "-7S", // `S` is not in PostHog's regex
    "+7d",
    "7dd",
    "1.5d",
    "-7dstart",
    "-7dStartEnd",
    " -7d",
    "-7d ",
    "yesterday-ish", // PostHog's re.search would read "y" here (now); the grammar is anchored
    "2020-01-01",
    "all",
  ])("refuses %j", (text) => {
    expect(parseRelativeDate(text)).toBeNull();
  });

  it('marks the texts that shift hours (PostHog\'s `"hours" in delta_mapping`)', () => {
    expect(["-24h", "-0h", "hStart", "-1d", "-3H"].map((t) => shiftsHours(parseRelativeDate(t)!))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("resolving relative dates (the table)", () => {
  it.each(RELATIVE_DATE_CASES.map((c) => [c.text, c.zone, c.now, c.options ?? {}, c.expected] as const))(
    "%s in %s at %s %j is %s",
    (text, zone, now, options, expected) => {
      const resolved = resolveRelativeDate(parseRelativeDate(text)!, at(now, zone), options);
      expect(iso(resolved)).toBe(expected);
      expect(resolved.zoneName).toBe(zone);
    },
  );

  it("answers an invalid DateTime beyond JavaScript's date range", () => {
    expect(resolveRelativeDate(parseRelativeDate("-999999999y")!, at("2020-01-31T00:00:00Z")).isValid).toBe(
      false,
    );
    expect(iso(resolveRelativeDate(parseRelativeDate("-2019y")!, at("2020-01-31T00:00:00Z")))).toBe(
      "0001-01-31T00:00:00.000+00:00",
    );
  });
});

describe("the flag-matching grammar (relative_date_parse_for_feature_flag_matching)", () => {
  it.each([
    ["-7d", 7, "d"],
    ["24h", 24, "h"],
    ["-2w", 2, "w"],
    ["1m", 1, "m"],
    ["-1y", 1, "y"],
    ["000h", 0, "h"],
    ["9999d", 9999, "d"],
  ])("reads %s", (text, count, unit) => {
    expect(parseFlagMatchingRelativeDate(text)).toEqual({ count, unit, position: null });
  });

  it.each(["10000d", "-1q", "1s", "1M", "1D", "mStart", "-1dStart", "d", "1.2y", "1x", "", " -7d"])(
    "refuses %j",
    (text) => {
      expect(parseFlagMatchingRelativeDate(text)).toBeNull();
    },
  );

  it("resolves with calendar months and years, in UTC", () => {
    const now = at("2026-03-31T12:00:00Z");
    const back = (text: string) => iso(resolveRelativeDate(parseFlagMatchingRelativeDate(text)!, now));
    expect(back("-1m")).toBe("2026-02-28T12:00:00.000+00:00");
    expect(back("-2w")).toBe("2026-03-17T12:00:00.000+00:00");
    expect(back("24h")).toBe("2026-03-30T12:00:00.000+00:00");
    expect(back("-1y")).toBe("2025-03-31T12:00:00.000+00:00");
  });
});

describe("the week start", () => {
  it("is Sunday by default and Monday for a week_start_day of 1, at 00:00", () => {
    const friday = at("2020-01-31T15:00:00", "Europe/Berlin");
    expect(iso(startOfWeek(friday))).toBe("2020-01-26T00:00:00.000+01:00");
    expect(iso(startOfWeek(friday, 1))).toBe("2020-01-27T00:00:00.000+01:00");
    const sunday = at("2020-02-02T15:00:00", "Europe/Berlin");
    expect(iso(startOfWeek(sunday))).toBe("2020-02-02T00:00:00.000+01:00");
    expect(iso(startOfWeek(sunday, 1))).toBe("2020-01-27T00:00:00.000+01:00");
  });
});
