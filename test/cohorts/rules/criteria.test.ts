import { describe, expect, it } from "vitest";
import {
  checkCohortType,
  checkPersonOperators,
  cohortsUsingEvents,
  derivedCohortType,
  filtersForResponse,
} from "../../../src/cohorts/rules/criteria.js";
import { personName } from "../../../src/cohorts/rules/person-name.js";
import type { PropertyGroup } from "../../../src/lib/property-filters/property-filters.js";

const and = (...values: PropertyGroup["values"]): PropertyGroup => ({ type: "AND", values });
const behavioral = { type: "behavioral" as const, key: "$pageview", value: "performed_event" as const };
const cohort = (id: number) => ({ type: "cohort" as const, key: "id", value: id });

describe("cohort criteria rules", () => {
  it("finds cohorts that use events directly or through the cohorts they name, cycles included", () => {
    const criteria = new Map<number, PropertyGroup | null>([
      [1, and(behavioral)],
      [2, and(cohort(1))],
      [3, and(cohort(2))],
      [4, and(cohort(5))],
      [5, and(cohort(4))],
      [6, null],
    ]);
    expect([...cohortsUsingEvents(criteria)].sort()).toEqual([1, 2, 3]);
  });

  it("derives the cohort type and refuses one that does not fit", () => {
    expect(derivedCohortType(true, null)).toBe("static");
    expect(derivedCohortType(false, and(behavioral))).toBe("behavioral");
    expect(derivedCohortType(false, and(cohort(1)))).toBe("person_property");
    expect(() => checkCohortType("analytical", "behavioral")).not.toThrow();
    expect(() => checkCohortType("static", "person_property")).toThrow(/does not match/);
  });

  it("requires an operator on person criteria", () => {
    expect(() => checkPersonOperators(and({ type: "person", key: "a", value: "b" }))).toThrow(
      "Missing required keys for person filter: operator",
    );
  });

  it("answers legacy groups as PostHog's filters shape", () => {
    expect(filtersForResponse(null, [{ properties: [{ key: "a" }] }])).toEqual({
      properties: { type: "OR", values: [{ type: "AND", values: [{ key: "a" }] }] },
    });
    expect(filtersForResponse(null, [])).toEqual({ properties: {} });
    expect(filtersForResponse({ properties: and() }, [])).toEqual({ properties: and() });
  });

  it("names a person by email, name, username, then distinct id", () => {
    const base = { uuid: "u", distinctIds: ["d1"], properties: {} };
    expect(personName({ ...base, properties: { name: "N", email: "e@x" } })).toBe("e@x");
    expect(personName({ ...base, properties: { username: "usr" } })).toBe("usr");
    expect(personName(base)).toBe("d1");
    expect(personName({ ...base, distinctIds: [] })).toBe("u");
  });
});
