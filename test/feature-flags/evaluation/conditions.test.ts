/**
 * One condition set (engine/conditions.ts, posthog-behavior.md §3.4): which properties each filter
 * type reads (Rust `flag_matching.rs` `PropertyContext::resolve_for_filter`), a condition's own
 * `aggregation_group_type_index`, and flag filters (`flag_evaluates_to`, §2.6).
 */
import { describe, expect, it } from "vitest";
import { flagEvaluatesTo } from "../../../src/feature-flags/evaluation/engine/conditions.js";
import { evaluateOne, flag, subject } from "./support.js";

/** A person in company "acme" and team "t1", each with its own `plan`. */
const who = subject({
  personProperties: { plan: "person-plan" },
  groups: { company: "acme", team: "t1" },
  groupProperties: { company: { plan: "company-plan" }, team: { plan: "team-plan" } },
});

/** An `exact` filter on `plan`, of `type` (none when undefined). */
const plan = (type: string | undefined, value: string, extra: Record<string, unknown> = {}) => ({
  key: "plan",
  ...(type === undefined ? {} : { type }),
  operator: "exact",
  value,
  ...extra,
});

/** Whether a flag of one condition with `properties` (and `extra` condition fields) is true for `who`. */
const matches = (
  properties: unknown[],
  flagAggregation: number | null,
  extra: Record<string, unknown> = {},
): boolean =>
  evaluateOne(
    flag("c", {
      ...(flagAggregation === null ? {} : { aggregation_group_type_index: flagAggregation }),
      groups: [{ properties, rollout_percentage: 100, ...extra }],
    }),
    who,
  ).value === true;

describe("which properties a filter reads", () => {
  it("a person filter reads the person, in a group condition too", () => {
    expect(matches([plan("person", "person-plan")], null)).toBe(true);
    expect(matches([plan("person", "person-plan")], 0)).toBe(true);
    expect(matches([plan("person", "company-plan")], 0)).toBe(false);
  });

  it("a filter of another type, or of none, reads the condition's subject: the person or its group", () => {
    for (const type of [undefined, "event", "element"]) {
      expect(matches([plan(type, "person-plan")], null), `${type} on a person`).toBe(true);
      expect(matches([plan(type, "company-plan")], null), `${type} on a person`).toBe(false);
      expect(matches([plan(type, "company-plan")], 0), `${type} on company`).toBe(true);
      expect(matches([plan(type, "team-plan")], 1), `${type} on team`).toBe(true);
      expect(matches([plan(type, "person-plan")], 0), `${type} on company`).toBe(false);
    }
  });

  it("a group filter's group_type_index counts only as a number; otherwise it reads the condition's group", () => {
    expect(matches([plan("group", "team-plan", { group_type_index: 1 })], 0)).toBe(true);
    expect(matches([plan("group", "company-plan", { group_type_index: "1" })], 0)).toBe(true);
    expect(matches([plan("group", "team-plan", { group_type_index: "1" })], 0)).toBe(false);
  });
});

describe("a condition's own aggregation_group_type_index", () => {
  it("a number makes the condition a group condition of that type, on a person flag too", () => {
    expect(matches([plan(undefined, "company-plan")], null, { aggregation_group_type_index: 0 })).toBe(true);
    expect(matches([plan(undefined, "person-plan")], null, { aggregation_group_type_index: 0 })).toBe(false);
    const noCompany = flag("c2", { groups: [{ aggregation_group_type_index: 0, rollout_percentage: 100 }] });
    expect(evaluateOne(noCompany, subject())).toMatchObject({ value: false, reason: "no_group_type" });
  });

  it("null, or anything that is not a number, makes it a person condition, on a group flag too", () => {
    for (const own of [null, "0", true]) {
      expect(
        matches([plan(undefined, "person-plan")], 0, { aggregation_group_type_index: own }),
        `${own}`,
      ).toBe(true);
      const groupFlag = flag("c3", {
        aggregation_group_type_index: 0,
        groups: [{ aggregation_group_type_index: own, rollout_percentage: 100 }],
      });
      expect(evaluateOne(groupFlag, subject()), `${own}`).toMatchObject({
        value: true,
        reason: "condition_match",
      });
    }
  });
});

describe("flag filters", () => {
  it("a key that is not a flag id is no dependency and never matches (Rust `PropertyFilter::get_feature_flag_id`)", () => {
    const byKey = flag("dep-by-key", {
      groups: [
        {
          properties: [{ type: "flag", key: "beta", operator: "flag_evaluates_to", value: true }],
          rollout_percentage: 100,
        },
      ],
    });
    expect(evaluateOne(byKey)).toMatchObject({
      value: false,
      reason: "no_condition_match",
      conditionIndex: 0,
    });
  });

  it("flag_evaluates_to is false for a flag without a result, whatever the expected value", () => {
    for (const expected of [true, false, "control"]) expect(flagEvaluatesTo(expected, undefined)).toBe(false);
    expect(flagEvaluatesTo(true, "control")).toBe(true);
    expect(flagEvaluatesTo(false, false)).toBe(true);
    expect(flagEvaluatesTo("control", "control")).toBe(true);
    expect(flagEvaluatesTo("control", true)).toBe(false);
  });
});
