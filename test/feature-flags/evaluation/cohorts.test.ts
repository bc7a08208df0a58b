/**
 * Cohorts in flag conditions (posthog-behavior.md §3.5–3.6): dynamic cohorts evaluated from the
 * person's properties (nested groups, negation, cohorts in cohorts), static cohorts by membership,
 * `not_in`, and cohorts the engine cannot evaluate.
 */
import { describe, expect, it } from "vitest";
import type { EvaluationCohort } from "../../../src/feature-flags/evaluation/engine/types.js";
import type { PropertyGroup } from "../../../src/properties/property-filters.js";
import { evaluateOne, flag, person, subject } from "./support.js";

const cohortFilter = (id: number, operator: "in" | "not_in" | null = "in") => ({
  key: "id",
  type: "cohort",
  value: id,
  operator,
});
const inCohort = (id: number, operator: "in" | "not_in" | null = "in") =>
  flag(`in-${id}-${operator}`, {
    groups: [{ properties: [cohortFilter(id, operator)], rollout_percentage: 100 }],
  });
const dynamic = (id: number, criteria: unknown): EvaluationCohort => ({
  id,
  isStatic: false,
  criteria: criteria as PropertyGroup,
});
const who = (personProperties: Record<string, unknown>, staticIds: number[] = []) =>
  subject({ personProperties, staticCohortIds: new Set(staticIds) });

describe("dynamic cohorts", () => {
  // PostHog's stored shape: an OR of AND groups.
  const paying = dynamic(1, {
    type: "OR",
    values: [
      { type: "AND", values: [person("plan", "exact", "pro"), person("country", "exact", ["US", "CA"])] },
      { type: "AND", values: [person("email", "icontains", "@posthog.com")] },
    ],
  });

  it("match the person's properties through nested AND/OR groups", () => {
    const f = inCohort(1);
    expect(evaluateOne(f, who({ plan: "pro", country: "ca" }), { cohorts: [paying] }).value).toBe(true);
    expect(evaluateOne(f, who({ plan: "pro", country: "de" }), { cohorts: [paying] })).toMatchObject({
      value: false,
      reason: "no_condition_match",
    });
    expect(evaluateOne(f, who({ email: "x@PostHog.com" }), { cohorts: [paying] }).value).toBe(true);
  });

  it("not_in negates membership; a null operator is in", () => {
    expect(evaluateOne(inCohort(1, "not_in"), who({ plan: "free" }), { cohorts: [paying] }).value).toBe(true);
    expect(
      evaluateOne(inCohort(1, "not_in"), who({ email: "a@posthog.com" }), { cohorts: [paying] }).value,
    ).toBe(false);
    expect(evaluateOne(inCohort(1, null), who({ email: "a@posthog.com" }), { cohorts: [paying] }).value).toBe(
      true,
    );
  });

  it("apply negation to properties and to nested cohorts, in AND and OR groups", () => {
    const notInternal = dynamic(2, {
      type: "AND",
      values: [{ ...person("email", "icontains", "@posthog.com"), negation: true }],
    });
    const either = dynamic(3, {
      type: "OR",
      values: [{ ...cohortFilter(1), negation: true }, person("vip", "exact", true)],
    });
    const cohorts = [paying, notInternal, either];
    expect(evaluateOne(inCohort(2), who({ email: "a@example.com" }), { cohorts }).value).toBe(true);
    expect(evaluateOne(inCohort(2), who({ email: "a@posthog.com" }), { cohorts }).value).toBe(false);
    // Not in cohort 1 → cohort 3 matches through its negated member.
    expect(evaluateOne(inCohort(3), who({ plan: "free" }), { cohorts }).value).toBe(true);
    expect(evaluateOne(inCohort(3), who({ email: "a@posthog.com" }), { cohorts }).value).toBe(false);
    expect(evaluateOne(inCohort(3), who({ email: "a@posthog.com", vip: "true" }), { cohorts }).value).toBe(
      true,
    );
  });

  it("treat empty groups as AND true, OR false, and 'property' groups as AND", () => {
    expect(
      evaluateOne(inCohort(4), who({}), { cohorts: [dynamic(4, { type: "AND", values: [] })] }).value,
    ).toBe(true);
    expect(
      evaluateOne(inCohort(5), who({}), { cohorts: [dynamic(5, { type: "OR", values: [] })] }).value,
    ).toBe(false);
    const legacy = dynamic(6, {
      type: "OR",
      values: [{ type: "property", values: [person("a", "exact", "1")] }],
    });
    expect(evaluateOne(inCohort(6), who({ a: 1 }), { cohorts: [legacy] }).value).toBe(true);
  });

  it("read relative dates from the evaluation's now", () => {
    const recent = dynamic(7, { type: "AND", values: [person("signup", "is_date_after", "-30d")] });
    expect(
      evaluateOne(inCohort(7), who({ signup: "2025-06-01T00:00:00Z" }), { cohorts: [recent] }).value,
    ).toBe(true);
    expect(
      evaluateOne(inCohort(7), who({ signup: "2025-04-01T00:00:00Z" }), { cohorts: [recent] }).value,
    ).toBe(false);
  });
});

describe("static cohorts", () => {
  const members: EvaluationCohort = { id: 10, isStatic: true, criteria: null };

  it("are the subject's static cohort ids", () => {
    expect(evaluateOne(inCohort(10), who({}, [10]), { cohorts: [members] }).value).toBe(true);
    expect(evaluateOne(inCohort(10), who({}), { cohorts: [members] }).value).toBe(false);
    expect(evaluateOne(inCohort(10, "not_in"), who({}), { cohorts: [members] }).value).toBe(true);
  });

  it("can be nested in a dynamic cohort", () => {
    const wrapper = dynamic(11, { type: "AND", values: [cohortFilter(10)] });
    expect(evaluateOne(inCohort(11), who({}, [10]), { cohorts: [members, wrapper] }).value).toBe(true);
  });
});

describe("cohorts the engine cannot evaluate", () => {
  it("missing, cyclic, behavioral or criteria-less cohorts fail the filter for in and not_in alike", () => {
    const a = dynamic(20, { type: "AND", values: [cohortFilter(21)] });
    const b = dynamic(21, { type: "AND", values: [cohortFilter(20)] });
    const behavioral = dynamic(22, {
      type: "AND",
      values: [{ type: "behavioral", key: "$pageview", value: "performed_event" }],
    });
    const empty = dynamic(23, null);
    const odd = dynamic(24, { type: "XOR", values: [] });
    const reachesBroken = dynamic(25, { type: "OR", values: [person("a", "is_set"), cohortFilter(404)] });
    const cohorts = [a, b, behavioral, empty, odd, reachesBroken];
    for (const id of [20, 21, 22, 23, 24, 25, 404]) {
      for (const operator of ["in", "not_in"] as const) {
        expect(evaluateOne(inCohort(id, operator), who({ a: 1 }), { cohorts })).toMatchObject({
          value: false,
          reason: "no_condition_match",
        });
      }
    }
  });
});
