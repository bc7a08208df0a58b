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
import type { PropertyGroup } from "../../../src/properties/property-filters.js";

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
