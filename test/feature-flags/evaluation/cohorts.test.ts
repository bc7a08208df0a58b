/**
 * Cohorts in flag conditions (posthog-behavior.md §3.5–3.6): dynamic cohorts evaluated from the
 * person's properties (nested groups, negation, cohorts in cohorts), static cohorts by membership,
 * `not_in`, and cohorts the engine cannot evaluate.
 */
import { describe, expect, it } from "vitest";
import type { EvaluationCohort } from "../../../src/feature-flags/evaluation/engine/types.js";
import type { PropertyGroup } from "../../../src/lib/property-filters/property-filters.js";
import { evaluate, evaluateOne, flag, person, subject } from "./support.js";

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

describe("odd criteria", () => {
  it("a flag filter inside a cohort is false before its negation (Rust)", () => {
    const withFlag = dynamic(30, { type: "AND", values: [{ type: "flag", key: "1", value: true }] });
    const negated = dynamic(31, {
      type: "AND",
      values: [{ type: "flag", key: "1", value: true, negation: true }],
    });
    const cohorts = [withFlag, negated];
    expect(evaluateOne(inCohort(30), who({}), { cohorts }).value).toBe(false);
    expect(evaluateOne(inCohort(31), who({}), { cohorts }).value).toBe(true);
    // Even one shaped like a property filter that the person's properties would match.
    const propertyShaped = dynamic(35, {
      type: "AND",
      values: [{ type: "flag", key: "email", operator: "exact", value: "a@x.com" }],
    });
    const person = who({ email: "a@x.com" });
    expect(evaluateOne(inCohort(35), person, { cohorts: [propertyShaped] }).value).toBe(false);
  });

  it("negation of a not_in cohort filter is in, and a negated in is not_in", () => {
    const members: EvaluationCohort = { id: 32, isStatic: true, criteria: null };
    const negatedNotIn = dynamic(33, {
      type: "AND",
      values: [{ ...cohortFilter(32, "not_in"), negation: true }],
    });
    const negatedIn = dynamic(34, { type: "AND", values: [{ ...cohortFilter(32), negation: true }] });
    const cohorts = [members, negatedNotIn, negatedIn];
    expect(evaluateOne(inCohort(33), who({}, [32]), { cohorts }).value).toBe(true);
    expect(evaluateOne(inCohort(33), who({}), { cohorts }).value).toBe(false);
    expect(evaluateOne(inCohort(34), who({}, [32]), { cohorts }).value).toBe(false);
    expect(evaluateOne(inCohort(34), who({}), { cohorts }).value).toBe(true);
  });

  it("a group node without values, a member that is not an object, or a cohort id that is not one, make the cohort unusable", () => {
    const cohorts = [
      dynamic(40, { type: "AND", values: [{ type: "OR" }] }),
      dynamic(41, { type: "AND", values: [null] }),
      dynamic(42, { type: "AND", values: [{ type: "cohort", value: "abc" }] }),
      dynamic(43, { type: "AND", values: [{ type: "property" }] }),
      dynamic(44, "AND"),
      dynamic(45, { type: "AND", values: [{ type: "AND" }] }),
    ];
    for (const id of [40, 41, 42, 43, 44, 45]) {
      for (const operator of ["in", "not_in"] as const) {
        expect(evaluateOne(inCohort(id, operator), who({}), { cohorts }).value, `${id} ${operator}`).toBe(
          false,
        );
      }
    }
  });

  it("a cohort reached twice, through two others, is evaluated the same each time", () => {
    const shared = dynamic(50, { type: "AND", values: [person("plan", "exact", "pro")] });
    const viaA = dynamic(51, { type: "AND", values: [cohortFilter(50)] });
    const viaB = dynamic(52, { type: "OR", values: [cohortFilter(50, "not_in")] });
    const both = dynamic(53, { type: "OR", values: [cohortFilter(51), cohortFilter(52)] });
    const cohorts = [shared, viaA, viaB, both];
    const flags = [inCohort(51), inCohort(52), inCohort(53)];
    for (const plan of ["pro", "free"]) {
      const evaluated = evaluate(flags, who({ plan }), { cohorts });
      const results = flags.map((f) => evaluated.get(f.key)!.value);
      expect(results, plan).toEqual(plan === "pro" ? [true, false, true] : [false, true, true]);
    }
  });
});
