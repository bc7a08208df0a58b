/**
 * PostHog's cohort rules of the local-evaluation payload (rules/cohort-inlining.ts), case by case
 * from `transform_cohort_filters_for_easy_evaluation`, `get_cohort_ids` and `Property.to_dict`.
 */
import { describe, expect, it } from "vitest";
import {
  cohortDict,
  flagCohortIds,
  type InliningCohort,
  inlineCohort,
  UnreadableFlagError,
} from "../../../src/feature-flags/rules/cohort-inlining.js";
import type { PropertyGroup } from "../../../src/lib/property-filters/property-filters.js";

const person = (key: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  key,
  type: "person" as const,
  value: value as string,
  operator: "exact" as const,
  ...extra,
});
const ref = (id: number | string) => ({ key: "id", type: "cohort", value: id });
const dynamic = (criteria: PropertyGroup): InliningCohort => ({ isStatic: false, criteria });
const or = (...values: PropertyGroup["values"]): PropertyGroup => ({ type: "OR", values });
const and = (...values: PropertyGroup["values"]): PropertyGroup => ({ type: "AND", values });

const COHORTS = new Map<number, InliningCohort>([
  [1, dynamic(or(and(person("plan", "pro"), person("seats", 5))))],
  [2, dynamic(or(and(person("plan", "pro")), and(person("plan", "team"))))],
  [3, dynamic(and(or(person("a", 1), person("b", 2)), or(person("c", 3), person("d", 4))))],
  [4, dynamic(or(and(person("plan", "pro", { negation: true }))))],
  [5, dynamic(or(and(ref(1) as never, person("region", "eu"))))],
  [6, { isStatic: true, criteria: null }],
  [7, dynamic(or(and({ key: "$browser", type: "event", value: "Chrome", operator: "exact" })))],
  [8, dynamic(and())],
]);

const inline = (groups: unknown[]) => inlineCohort({ groups }, COHORTS);

describe("inlineCohort", () => {
  it("inlines an AND of person properties as one group, after the groups without the cohort", () => {
    expect(
      inline([
        { properties: [ref(1)], rollout_percentage: 20 },
        { properties: [person("beta", true)], rollout_percentage: 70 },
      ]),
    ).toEqual([
      { properties: [person("beta", true)], rollout_percentage: 70 },
      // PostHog's quirk: the rollout is that of the flag's last condition, not the cohort's.
      { properties: [person("plan", "pro"), person("seats", 5)], rollout_percentage: 70 },
    ]);
  });

  it("turns an OR of single properties into one group each", () => {
    expect(inline([{ properties: [ref("2")] }])).toEqual([
      { properties: [person("plan", "pro")], rollout_percentage: null },
      { properties: [person("plan", "team")], rollout_percentage: null },
    ]);
  });

  it("keeps the conditions for what PostHog does not inline", () => {
    expect(inline([{ properties: [ref(1)], variant: "test" }]), "variant override").toBeNull();
    expect(inline([{ properties: [ref(1), person("x", 1)] }]), "cohort beside a filter").toBeNull();
    expect(inline([{ properties: [ref(1)] }, { properties: [ref(2)] }]), "two cohorts").toBeNull();
    expect(inline([{ properties: [ref(3)] }]), "an AND of ORs").toBeNull();
    expect(inline([{ properties: [ref(4)] }]), "negation").toBeNull();
    expect(inline([{ properties: [ref(5)] }]), "a cohort naming a cohort").toBeNull();
    expect(inline([{ properties: [ref(6)] }]), "static").toBeNull();
    expect(inline([{ properties: [ref(7)] }]), "event properties").toBeNull();
    expect(inline([{ properties: [ref(8)] }]), "no criteria").toBeNull();
    expect(inline([{ properties: [ref(99)] }]), "no such cohort").toBeNull();
    expect(inline([{ properties: [person("x", 1)] }]), "no cohort").toBeNull();
  });

  it("says so where PostHog's code raises on stored filters", () => {
    expect(() => inline([{ properties: [ref("twelve")] }])).toThrow(UnreadableFlagError);
    expect(() => inline([{ properties: "nope" }])).toThrow(UnreadableFlagError);
  });
});

describe("flagCohortIds", () => {
  it("reaches the cohorts a flag names and those they name, existing ones only", () => {
    expect(flagCohortIds({ groups: [{ properties: [ref(5)] }, { properties: [ref(99)] }] }, COHORTS)).toEqual(
      [5, 1],
    );
  });
});

describe("cohortDict", () => {
  it("writes PostHog's Property.to_dict: nulls dropped, type defaulted, valueless operators valued", () => {
    expect(
      cohortDict(
        or(
          and({ key: "email", type: "person", operator: "is_set", value: null, cohort_name: "x" } as never),
          and(),
        ),
      ),
    ).toEqual({
      type: "OR",
      values: [
        { type: "AND", values: [{ key: "email", operator: "is_set", type: "person", value: "is_set" }] },
        {},
      ],
    });
    expect(cohortDict(and())).toEqual({});
  });
});

describe("inlineCohort: the shapes of a cohort's criteria", () => {
  const cohorts = new Map<number, InliningCohort>([
    ...COHORTS,
    [10, dynamic(or(and(person("plan", "pro"))))],
    [11, dynamic(or(or(person("a", 1), person("b", 2)), and(person("c", 3), person("d", 4))))],
    [
      12,
      dynamic(
        or(and(person("plan", "pro"), { key: "$browser", type: "event", value: "x", operator: "exact" })),
      ),
    ],
    [13, dynamic(or(and(person("plan", "pro"), person("seats", 5, { negation: true }))))],
    [14, dynamic(or(and(person("a", 1), person("b", 2)), and(person("c", 3))))],
    [15, dynamic(or(and(person("a", 1)), and(or(person("b", 2), person("c", 3)))))],
  ]);
  const inlineIn = (groups: unknown[]) => inlineCohort({ groups }, cohorts);

  it("inlines a criteria that collapses to one property as one group", () => {
    expect(inlineIn([{ properties: [ref(10)], rollout_percentage: 40 }])).toEqual([
      { properties: [person("plan", "pro")], rollout_percentage: 40 },
    ]);
  });

  it("inlines an OR of ANDs as one group per AND", () => {
    expect(inlineIn([{ properties: [ref(14)] }])).toEqual([
      { properties: [person("a", 1), person("b", 2)], rollout_percentage: null },
      { properties: [person("c", 3)], rollout_percentage: null },
    ]);
  });

  it("keeps the conditions for an OR inside the OR, mixed property types, or any negated criterion", () => {
    expect(inlineIn([{ properties: [ref(11)] }]), "an OR of several in an OR").toBeNull();
    expect(inlineIn([{ properties: [ref(15)] }]), "a group nested in the AND").toBeNull();
    expect(inlineIn([{ properties: [ref(12)] }]), "a person and an event property").toBeNull();
    expect(inlineIn([{ properties: [ref(13)] }]), "one negated criterion of two").toBeNull();
  });

  it("reads a boolean cohort value as Python's int(): true is cohort 1", () => {
    expect(inlineIn([{ properties: [ref(true as never)] }])).toEqual(inlineIn([{ properties: [ref(1)] }]));
  });

  it("skips a condition naming cohort 0, as PostHog does", () => {
    expect(
      inlineIn([
        { properties: [ref(0)], rollout_percentage: 10 },
        { properties: [ref(10)], rollout_percentage: 30 },
      ]),
    ).toEqual([{ properties: [person("plan", "pro")], rollout_percentage: 30 }]);
  });

  it("names what it could not read", () => {
    expect(() => inline([{ properties: [ref("twelve")] }])).toThrow(
      expect.objectContaining({
        name: "UnreadableFlagError",
        message: 'cohort filter value "twelve" is not an id',
      }),
    );
    expect(() => inline([{ properties: "nope" }])).toThrow("a condition's properties are not a list");
  });
});

describe("flagCohortIds: walking cohorts", () => {
  it("ends on a cycle and skips cohorts that do not exist", () => {
    const cohorts = new Map<number, InliningCohort>([
      [20, dynamic(or(and(ref(21) as never, ref(99) as never, ref("x") as never)))],
      [21, dynamic(or(and(ref(20) as never, person("plan", "pro"))))],
    ]);
    expect(flagCohortIds({ groups: [{ properties: [ref(20)] }] }, cohorts)).toEqual([20, 21]);
  });

  it("reads only cohort properties' values as ids", () => {
    const filters = { groups: [{ properties: [person("plan", "pro"), ref(1), null] }, { properties: null }] };
    expect(flagCohortIds(filters, COHORTS)).toEqual([1]);
  });
});

describe("cohortDict: Property.to_dict of a filter", () => {
  it("defaults the type to event, values is_not_set, and keeps falsy values but null", () => {
    expect(cohortDict({ key: "email", operator: "is_not_set" } as never)).toEqual({
      key: "email",
      type: "event",
      operator: "is_not_set",
      value: "is_not_set",
    });
    expect(cohortDict({ key: "n", type: "person", operator: "exact", value: 0 } as never)).toEqual({
      key: "n",
      type: "person",
      operator: "exact",
      value: 0,
    });
    expect(cohortDict({ key: "n", type: "person", operator: "exact", value: null } as never)).toEqual({
      key: "n",
      type: "person",
      operator: "exact",
    });
  });
});

describe("inlineCohort: more shapes of criteria (clear_excess_levels and the OR of ANDs)", () => {
  const [p1, p2, p3] = [person("a", 1), person("b", 2), person("c", 3)];
  const inlined = (
    criteria: PropertyGroup,
    groups: unknown[] = [{ properties: [ref(10)], rollout_percentage: 40 }],
  ) => inlineCohort({ groups }, new Map([[10, dynamic(criteria)]]));
  const group = (...filters: unknown[]) => ({
    properties: filters.map((f) => cohortDict(f as never)),
    rollout_percentage: 40,
  });

  it("inlines an OR of filters as one group each, also under an AND of that one OR", () => {
    expect(inlined(or(p1, p2))).toEqual([group(p1), group(p2)]);
    expect(inlined(and(or(p1, p2)))).toEqual([group(p1), group(p2)]);
  });

  it("inlines each group of an OR, a single-filter OR among them as its filter", () => {
    expect(inlined(or(or(p1), and(p2, p3)))).toEqual([group(p1), group(p2, p3)]);
  });

  it("keeps the conditions for an AND of groups, or an OR holding an empty group", () => {
    expect(inlined(and(and(p1, p2), and(p3)))).toBeNull();
    expect(inlined(or(and(), and(p1)))).toBeNull();
  });

  it("cannot read an OR that mixes groups and filters", () => {
    expect(() => inlined(or(and(p1, p2), p3))).toThrow(UnreadableFlagError);
    expect(() => inlined(or(and(p1, p2), p3))).toThrow("a property where a group was expected");
  });

  it("keeps the conditions when one condition names a cohort that does not exist", () => {
    expect(
      inlined(or(and(p1)), [
        { properties: [ref(99)], rollout_percentage: 40 },
        { properties: [ref(10)], rollout_percentage: 40 },
      ]),
    ).toBeNull();
  });
});

describe("cohortDict: attributes that are null", () => {
  it("leaves out attributes that are null, as Property.to_dict", () => {
    expect(cohortDict({ ...person("a", 1), negation: null, group_type_index: null } as never)).toEqual({
      key: "a",
      operator: "exact",
      type: "person",
      value: 1,
    });
  });
});
