import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { parseInput } from "../../../src/core/validation.js";
import { parseFilterDate } from "../../../src/lib/property-filters/filter-dates.js";
import {
  cohortCriteriaSchema,
  hasBehavioralFilter,
  propertyGroupSchema,
  referencedCohortIds,
} from "../../../src/lib/property-filters/property-filters.js";
import { parseSemver } from "../../../src/lib/property-filters/semver.js";

/** The DRF-shaped error `parseInput` answers for `input`, or null when it passes. */
function problem(input: unknown, schema = propertyGroupSchema) {
  try {
    parseInput(schema, input);
    return null;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { code: error.code, attr: error.attr, detail: error.detail };
  }
}

const group = (...values: unknown[]) => ({ type: "AND", values });

describe("the property filter model", () => {
  it("accepts nested AND/OR groups of person, cohort, group and event filters", () => {
    const tree = {
      type: "OR",
      values: [
        group(
          { key: "email", type: "person", value: "@posthog.com", operator: "icontains" },
          { key: "id", type: "cohort", value: "12", operator: "not_in" },
        ),
        group({ key: "industry", type: "group", group_type_index: 1, value: ["tech", "ai"] }),
        group({ key: "$browser", type: "event", operator: "is_set", negation: true }),
      ],
    };
    expect(problem(tree)).toBeNull();
    expect(referencedCohortIds(parseInput(propertyGroupSchema, tree))).toEqual([12]);
  });

  it("names the failing field by its path", () => {
    expect(problem(group(group({ key: "a", type: "person", value: "x", operator: "bogus" })))).toMatchObject({
      code: "invalid_choice",
      attr: "values__0__values__0__operator",
    });
    expect(problem(group({ key: "a", type: "element", value: "x" }))).toMatchObject({
      code: "invalid_choice",
      attr: "values__0__type",
    });
    expect(problem({ type: "XOR", values: [] })).toMatchObject({ code: "invalid_choice", attr: "type" });
  });

  it("requires a value unless the operator is is_set or is_not_set", () => {
    expect(problem(group({ key: "a", type: "person", operator: "exact" }))).toMatchObject({
      code: "required",
      attr: "values__0__value",
    });
    expect(problem(group({ key: "a", type: "person", operator: "is_not_set" }))).toBeNull();
  });

  it("keeps in/not_in to cohort filters, and cohort values to ids", () => {
    expect(problem(group({ key: "a", type: "person", value: "1", operator: "in" }))).toMatchObject({
      code: "invalid_operator",
      detail: "The 'in' operator is only valid for cohort properties, not 'person' properties.",
    });
    expect(problem(group({ key: "id", type: "cohort", value: "abc" }))).toMatchObject({
      attr: "values__0__value",
    });
    expect(problem(group({ key: "id", type: "cohort", value: 3, operator: "icontains" }))).toMatchObject({
      code: "invalid_operator",
    });
  });

  it("requires a group type index on group filters", () => {
    expect(problem(group({ key: "a", type: "group", value: "x" }))).toMatchObject({
      code: "required",
      attr: "values__0__group_type_index",
    });
  });

  it("refuses dates and versions that do not parse", () => {
    expect(
      problem(group({ key: "d", type: "person", value: "yesterday", operator: "is_date_before" })),
    ).toMatchObject({
      code: "invalid_date",
      detail: "Invalid date value: yesterday",
    });
    expect(problem(group({ key: "d", type: "person", value: "-7d", operator: "is_date_after" }))).toBeNull();
    expect(problem(group({ key: "v", type: "person", value: "one", operator: "semver_gt" }))).toMatchObject({
      code: "invalid_value",
    });
  });

  it("accepts behavioral criteria only in cohort criteria", () => {
    const behavioral = group({
      key: "$pageview",
      type: "behavioral",
      value: "performed_event",
      time_value: 7,
    });
    expect(problem(behavioral)).toMatchObject({ attr: "values__0__type" });
    expect(problem(behavioral, cohortCriteriaSchema)).toBeNull();
    expect(hasBehavioralFilter(parseInput(cohortCriteriaSchema, behavioral))).toBe(true);
  });
});

describe("filter dates", () => {
  const now = new Date("2026-03-31T12:00:00Z");

  it("counts relative offsets back from now, months by the calendar", () => {
    expect(parseFilterDate("-7d", now)?.toISOString()).toBe("2026-03-24T12:00:00.000Z");
    expect(parseFilterDate("24h", now)?.toISOString()).toBe("2026-03-30T12:00:00.000Z");
    expect(parseFilterDate("-2w", now)?.toISOString()).toBe("2026-03-17T12:00:00.000Z");
    expect(parseFilterDate("-1y", now)?.toISOString()).toBe("2025-03-31T12:00:00.000Z");
    expect(parseFilterDate("-10000d", now)).toBeNull();
  });

  it("reads ISO dates as UTC unless they carry an offset, and refuses impossible ones", () => {
    expect(parseFilterDate("2026-02-01", now)?.toISOString()).toBe("2026-02-01T00:00:00.000Z");
    expect(parseFilterDate("2026-02-01T10:00:00+02:00", now)?.toISOString()).toBe("2026-02-01T08:00:00.000Z");
    expect(parseFilterDate("2026-02-30", now)).toBeNull();
  });
});

describe("semver ranges", () => {
  it("turns each operator into PostHog's range", () => {
    expect(parseSemver("semver_tilde", "1.2.3")).toMatchObject({
      lower: { version: [1, 2, 3], inclusive: true },
      upper: { version: [1, 3, 0], inclusive: false },
    });
    expect(parseSemver("semver_caret", "0.2.3")?.upper?.version).toEqual([0, 3, 0]);
    expect(parseSemver("semver_caret", "0.0.3")?.upper?.version).toEqual([0, 0, 4]);
    expect(parseSemver("semver_wildcard", "1.*")).toMatchObject({
      lower: { version: [1, 0, 0] },
      upper: { version: [2, 0, 0] },
    });
    expect(parseSemver("semver_neq", "v2")).toMatchObject({ negate: true, lower: { version: [2, 0, 0] } });
    expect(parseSemver("semver_wildcard", "1.2")).toBeNull();
  });
});
