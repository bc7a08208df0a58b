/**
 * The tolerant readers of stored `filters` (free-form JSON, older rows unvalidated): they never
 * throw, and whatever is malformed contributes nothing.
 */
import { describe, expect, it } from "vitest";
import {
  conditionGroups,
  effectiveFilters,
  flagCohortIds,
  groupProperties,
  isJsonObject,
  parseId,
} from "../../../src/feature-flags/rules/stored-filters.js";

describe("isJsonObject", () => {
  it("is true for an object only", () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject("x")).toBe(false);
  });
});

describe("conditionGroups and groupProperties", () => {
  it("keep only the objects of the lists", () => {
    expect(conditionGroups({ groups: [{ a: 1 }, null, 3, [], { b: 2 }] })).toEqual([{ a: 1 }, { b: 2 }]);
    expect(groupProperties({ properties: [{ key: "x" }, "y", null] })).toEqual([{ key: "x" }]);
  });

  it("are empty for a missing or malformed list", () => {
    for (const filters of [null, [], "x", {}, { groups: {} }, { groups: "x" }]) {
      expect(conditionGroups(filters)).toEqual([]);
    }
    expect(groupProperties({})).toEqual([]);
    expect(groupProperties({ properties: { key: "x" } })).toEqual([]);
  });
});

describe("parseId", () => {
  it("reads an integer, or a string of digits with a sign and spaces, as Python's int()", () => {
    expect(parseId(12)).toBe(12);
    expect(parseId("12")).toBe(12);
    expect(parseId(" +12 ")).toBe(12);
    expect(parseId("-3")).toBe(-3);
    expect(parseId("\t7\n")).toBe(7);
  });

  it("refuses anything else", () => {
    for (const value of [
      1.5,
      Number.MAX_SAFE_INTEGER + 2,
      "1.5",
      "12a",
      "a12",
      "1 2",
      "",
      " ",
      "+",
      "--1",
      null,
      true,
      {},
    ]) {
      expect(parseId(value)).toBeNull();
    }
    expect(parseId("99999999999999999999")).toBeNull();
  });
});

describe("flagCohortIds", () => {
  it("lists each cohort a flag's conditions name once, ignoring other properties", () => {
    const filters = {
      groups: [
        {
          properties: [
            { type: "cohort", value: 3 },
            { type: "person", key: "id", value: 4 },
          ],
        },
        {
          properties: [
            { type: "cohort", value: "3" },
            { type: "cohort", value: " 5 " },
            { type: "cohort", value: "x" },
          ],
        },
        { properties: "not a list" },
      ],
    };
    expect(flagCohortIds(filters)).toEqual([3, 5]);
    expect(flagCohortIds(null)).toEqual([]);
  });
});

describe("effectiveFilters", () => {
  it("shows stored filters with groups as they are", () => {
    const stored = { groups: [], payloads: {} };
    expect(effectiveFilters(stored, 50)).toBe(stored);
  });

  it("synthesises one group from the legacy properties and rollout", () => {
    const legacy = { properties: [{ key: "email", value: "a" }], other: 1 };
    expect(effectiveFilters(legacy, 30)).toEqual({
      properties: legacy.properties,
      other: 1,
      groups: [{ properties: legacy.properties, rollout_percentage: 30 }],
    });
    expect(effectiveFilters({ properties: "x" }, null)).toEqual({
      properties: "x",
      groups: [{ properties: [], rollout_percentage: null }],
    });
  });

  it("reads anything that is not an object as empty filters", () => {
    for (const filters of [null, "groups", [{ groups: [] }], 0]) {
      expect(effectiveFilters(filters, 100)).toEqual({
        groups: [{ properties: [], rollout_percentage: 100 }],
      });
    }
  });
});

describe("parseId: what Python's int() refuses", () => {
  it("is null for a list, and for hexadecimal or exponent text that JavaScript's Number would read", () => {
    expect(parseId(["7"])).toBeNull();
    expect(parseId("0x10")).toBeNull();
    expect(parseId("1e3")).toBeNull();
  });
});
