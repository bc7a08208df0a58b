/**
 * Flag dependencies (posthog-behavior.md §2.6): `flag_evaluates_to` against the results of flags
 * evaluated first, chains, variants, inactive dependencies, and `missing_dependency` for missing and
 * cyclic ones (Rust `flags_with_missing_deps`).
 */
import { describe, expect, it } from "vitest";
import { dependencyId, planDependencies } from "../../../src/feature-flags/evaluation/engine/dependencies.js";
import type { EvaluationFlag } from "../../../src/feature-flags/evaluation/engine/types.js";
import { evaluate, flag, person, subject } from "./support.js";

const on = (id: number, value: unknown) => ({
  key: String(id),
  type: "flag",
  operator: "flag_evaluates_to",
  value,
});
const dependent = (key: string, ...filters: unknown[]) =>
  flag(key, { groups: [{ properties: filters, rollout_percentage: 100 }] });
const base = (key: string, email: string, extra: Partial<EvaluationFlag> = {}) =>
  flag(key, { groups: [{ properties: [person("email", "exact", email)], rollout_percentage: 100 }] }, extra);

describe("flag_evaluates_to", () => {
  it("true matches any value but false, false matches false", () => {
    const leaf = base("leaf", "a@x.com");
    const wantsOn = dependent("wants-on", on(leaf.id, true));
    const wantsOff = dependent("wants-off", on(leaf.id, false));
    const flags = [wantsOn, wantsOff, leaf];
    const a = evaluate(flags, subject({ personProperties: { email: "a@x.com" } }));
    expect(a.get("wants-on")).toMatchObject({ value: true, reason: "condition_match" });
    expect(a.get("wants-off")).toMatchObject({
      value: false,
      reason: "no_condition_match",
      conditionIndex: 0,
    });
    const b = evaluate(flags, subject({ personProperties: { email: "b@x.com" } }));
    expect(b.get("wants-on")!.value).toBe(false);
    expect(b.get("wants-off")!.value).toBe(true);
  });

  it("a string matches that variant only; true matches any variant", () => {
    const leaf = flag("mv", {
      groups: [{ properties: [], rollout_percentage: 100, variant: "blue" }],
      multivariate: {
        variants: [
          { key: "blue", rollout_percentage: 50 },
          { key: "red", rollout_percentage: 50 },
        ],
      },
    });
    const blue = dependent("wants-blue", on(leaf.id, "blue"));
    const red = dependent("wants-red", on(leaf.id, "red"));
    const any = dependent("wants-any", on(leaf.id, true));
    const results = evaluate([blue, red, any, leaf]);
    expect(results.get("wants-blue")!.value).toBe(true);
    expect(results.get("wants-red")!.value).toBe(false);
    expect(results.get("wants-any")!.value).toBe(true);
  });

  it("follows chains in any listed order", () => {
    const c = base("c", "a@x.com");
    const b = dependent("b", on(c.id, true));
    const a = dependent("a", on(b.id, true));
    const results = evaluate([a, b, c], subject({ personProperties: { email: "a@x.com" } }));
    expect([...results.keys()]).toEqual(["a", "b", "c"]);
    expect(results.get("a")!.value).toBe(true);
    expect(evaluate([a, b, c]).get("a")!.value).toBe(false);
  });

  it("an inactive dependency is false, which flag_evaluates_to: false matches", () => {
    const off = base("off", "a@x.com", { active: false });
    const wantsOff = dependent("wants-off", on(off.id, false));
    const results = evaluate([wantsOff, off], subject({ personProperties: { email: "a@x.com" } }));
    expect(results.get("off")!.reason).toBe("flag_disabled");
    expect(results.get("wants-off")!.value).toBe(true);
  });

  it("evaluates the dependencies of requested keys without returning them", () => {
    const leaf = base("leaf", "a@x.com");
    const top = dependent("top", on(leaf.id, true));
    const results = evaluate([top, leaf], subject({ personProperties: { email: "a@x.com" } }), {
      keys: ["top"],
    });
    expect([...results.keys()]).toEqual(["top"]);
    expect(results.get("top")!.value).toBe(true);
  });

  it("a flag filter with another operator or a non-id key never matches", () => {
    const leaf = base("leaf", "a@x.com");
    const exact = dependent("exact-op", {
      key: String(leaf.id),
      type: "flag",
      operator: "exact",
      value: true,
    });
    const byKey = dependent("by-key", on(0, true), {
      key: "leaf",
      type: "flag",
      operator: "flag_evaluates_to",
    });
    const results = evaluate([exact, byKey, leaf], subject({ personProperties: { email: "a@x.com" } }));
    expect(results.get("exact-op")).toMatchObject({ value: false, reason: "no_condition_match" });
    expect(results.get("by-key")).toMatchObject({ value: false });
  });
});

describe("missing_dependency", () => {
  it("a dependency that does not exist makes the flag and its dependents false", () => {
    const orphan = dependent("orphan", on(999_999, true));
    const above = dependent("above", on(orphan.id, false));
    const results = evaluate([orphan, above]);
    for (const key of ["orphan", "above"]) {
      expect(results.get(key)).toMatchObject({
        value: false,
        reason: "missing_dependency",
        conditionIndex: null,
      });
    }
  });

  it("every flag of a cycle, and flags depending on one, are false with missing_dependency", () => {
    const a = flag("a", {});
    const b = flag("b", {});
    a.filters = { groups: [{ properties: [on(b.id, true)] }] };
    b.filters = { groups: [{ properties: [on(a.id, false)] }] };
    const self = flag("self", {});
    self.filters = { groups: [{ properties: [on(self.id, true)] }] };
    const outside = dependent("outside", on(a.id, false));
    const fine = dependent("fine");
    const results = evaluate([outside, a, b, self, fine]);
    for (const key of ["a", "b", "self", "outside"])
      expect(results.get(key)!.reason).toBe("missing_dependency");
    expect(results.get("fine")).toMatchObject({ value: true, reason: "condition_match" });
  });

  it("an inactive flag is flag_disabled even with a missing dependency", () => {
    const off = flag("off", { groups: [{ properties: [on(424_242, true)] }] }, { active: false });
    expect(evaluate([off]).get("off")!.reason).toBe("flag_disabled");
  });
});

describe("planDependencies", () => {
  it("orders dependencies first and handles long chains without recursion", () => {
    const nodes = Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      dependsOn: i + 1 < 20_000 ? [i + 1] : [],
    }));
    const plan = planDependencies(nodes);
    expect(plan.order[0]).toBe(19_999);
    expect(plan.order.at(-1)).toBe(0);
    expect(plan.broken.size).toBe(0);
  });
});

describe("dependencyId", () => {
  it("reads a non-negative safe integer, or a text of 1 to 15 digits; nothing else names a flag", () => {
    expect(dependencyId(0)).toBe(0);
    expect(dependencyId(42)).toBe(42);
    expect(dependencyId("42")).toBe(42);
    expect(dependencyId("0042")).toBe(42);
    expect(dependencyId("999999999999999")).toBe(999_999_999_999_999);
    for (const key of [
      -1,
      1.5,
      Number.MAX_SAFE_INTEGER + 1,
      Number.NaN,
      "",
      "1e3",
      "-1",
      " 1",
      "1 ",
      "4x",
      "x4",
      "1234567890123456",
      null,
      true,
      [1],
    ]) {
      expect(dependencyId(key), String(key)).toBeNull();
    }
  });
});

describe("planDependencies on shared dependencies", () => {
  it("lists a dependency two flags share once, before both", () => {
    const plan = planDependencies([
      { id: 1, dependsOn: [3] },
      { id: 2, dependsOn: [3] },
      { id: 3, dependsOn: [] },
    ]);
    expect(plan.order).toEqual([3, 1, 2]);
    expect([...plan.broken]).toEqual([]);
  });
});
