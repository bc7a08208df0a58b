/**
 * Whole-flag behaviour (posthog-behavior.md §3.3–3.4): rollout, variants, overrides, payloads, the
 * reasons and condition indexes of Rust `flag_matching.rs` `get_match`, holdouts, early access,
 * group flags and odd stored filters.
 */
import { describe, expect, it } from "vitest";
import { holdoutHash, rolloutHash, variantHash } from "../../../src/feature-flags/evaluation/engine/hash.js";
import { evaluate, evaluateOne, flag, identifierWhere, person, subject } from "./support.js";

const email = (value: string) => person("email", "exact", value);

describe("rollout", () => {
  it("is inclusive at the boundary: a hash equal to rollout/100 is in, a hair above it is out", () => {
    // An identifier whose hash is exactly some percentage / 100 in doubles.
    const id = identifierWhere("edge", (hash) => ((hash * 100) / 100 === hash ? hash > 0.01 : false), "b-");
    const percentage = rolloutHash("edge", id) * 100;
    const at = flag("edge", { groups: [{ properties: [], rollout_percentage: percentage }] });
    expect(evaluateOne(at, subject({ distinctId: id }))).toMatchObject({
      value: true,
      reason: "condition_match",
      conditionIndex: 0,
    });
    const below = flag("edge", { groups: [{ properties: [], rollout_percentage: percentage - 1e-9 }] });
    expect(evaluateOne(below, subject({ distinctId: id }))).toMatchObject({
      value: false,
      reason: "out_of_rollout_bound",
      conditionIndex: 0,
    });
  });

  it("null rollout is everyone; 0 is no one; outside 0–100 is read as posthog-node reads it", () => {
    const who = subject({ distinctId: "u_42" });
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: null }] }), who).value).toBe(
      true,
    );
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: 0 }] }), who).value).toBe(false);
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: 150 }] }), who).value).toBe(
      true,
    );
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: -5 }] }), who).value).toBe(
      false,
    );
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: "80" }] }), who).value).toBe(
      true,
    );
    expect(evaluateOne(flag("new-checkout", { groups: [{ rollout_percentage: "50" }] }), who).value).toBe(
      false,
    );
  });

  it("matches about the share of identifiers it names", () => {
    const half = flag("half", { groups: [{ properties: [], rollout_percentage: 50 }] });
    let on = 0;
    for (let i = 0; i < 2000; i++) if (evaluateOne(half, subject({ distinctId: `d${i}` })).value) on++;
    expect(on).toBeGreaterThan(900);
    expect(on).toBeLessThan(1100);
  });
});

describe("variants", () => {
  const multivariate = (variants: Array<[string, unknown]>, extra: Record<string, unknown> = {}) =>
    flag("new-checkout", {
      groups: [{ properties: [], rollout_percentage: 100, ...extra }],
      multivariate: { variants: variants.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) },
    });

  it("pick by cumulative bounds of the variant hash", () => {
    // variantHash("new-checkout", "u_42") = 0.18510865603197107 (§3.1).
    const who = subject({ distinctId: "u_42" });
    expect(
      evaluateOne(
        multivariate([
          ["a", 18],
          ["b", 82],
        ]),
        who,
      ).value,
    ).toBe("b");
    expect(
      evaluateOne(
        multivariate([
          ["a", 19],
          ["b", 81],
        ]),
        who,
      ),
    ).toMatchObject({
      value: "a",
      variant: "a",
      reason: "condition_match",
    });
    expect(
      evaluateOne(
        multivariate([
          ["a", 10],
          ["b", 5],
          ["c", 85],
        ]),
        who,
      ).value,
    ).toBe("c");
  });

  it("an identifier past a sum under 100 gets plain true", () => {
    const who = subject({ distinctId: "u_42" });
    expect(variantHash("new-checkout", "u_42")).toBeGreaterThan(0.15);
    expect(
      evaluateOne(
        multivariate([
          ["a", 10],
          ["b", 5],
        ]),
        who,
      ),
    ).toMatchObject({ value: true, variant: null });
  });

  it("a condition's override wins when it names a variant, else the hashed variant is used", () => {
    const who = subject({ distinctId: "u_42" });
    expect(
      evaluateOne(
        multivariate(
          [
            ["a", 50],
            ["b", 50],
          ],
          { variant: "b" },
        ),
        who,
      ).value,
    ).toBe("b");
    expect(
      evaluateOne(
        multivariate(
          [
            ["a", 50],
            ["b", 50],
          ],
          { variant: "zzz" },
        ),
        who,
      ).value,
    ).toBe("a");
  });

  it("conditions keep their stored order: an earlier condition without override wins over a later override", () => {
    const both = flag("ordered", {
      groups: [
        { properties: [email("a@x.com")], rollout_percentage: 100 },
        { properties: [email("a@x.com")], rollout_percentage: 100, variant: "second" },
      ],
      multivariate: {
        variants: [
          { key: "first", rollout_percentage: 100 },
          { key: "second", rollout_percentage: 0 },
        ],
      },
    });
    expect(evaluateOne(both, subject({ personProperties: { email: "a@x.com" } }))).toMatchObject({
      value: "first",
      conditionIndex: 0,
    });
    const overrideFirst = flag("ordered2", {
      groups: [
        { properties: [email("a@x.com")], rollout_percentage: 100, variant: "second" },
        { properties: [email("a@x.com")], rollout_percentage: 100 },
      ],
      multivariate: (both.filters as { multivariate: unknown }).multivariate,
    });
    expect(evaluateOne(overrideFirst, subject({ personProperties: { email: "a@x.com" } }))).toMatchObject({
      value: "second",
      conditionIndex: 0,
    });
  });
});

describe("payloads", () => {
  it("come from payloads[variant] or payloads['true'], as stored, only on a match", () => {
    const boolean = flag("b", {
      groups: [{ properties: [email("a@x.com")] }],
      payloads: { true: '{"x":1}' },
    });
    expect(evaluateOne(boolean, subject({ personProperties: { email: "a@x.com" } })).payload).toBe('{"x":1}');
    expect(evaluateOne(boolean, subject({ personProperties: { email: "b@x.com" } })).payload).toBeNull();
    const variants = flag("v", {
      groups: [{ properties: [], variant: "blue" }],
      multivariate: { variants: [{ key: "blue", rollout_percentage: 100 }] },
      payloads: { blue: { color: "#00f" }, true: "unused" },
    });
    expect(evaluateOne(variants).payload).toEqual({ color: "#00f" });
    expect(evaluateOne(flag("none", { groups: [{}] })).payload).toBeNull();
  });
});

describe("reasons and condition_index (Rust get_match)", () => {
  it("no_condition_match names the last condition that failed on properties", () => {
    const f = flag("r", { groups: [{ properties: [email("a@x.com")] }, { properties: [email("b@x.com")] }] });
    expect(evaluateOne(f, subject({ personProperties: { email: "c@x.com" } }))).toMatchObject({
      value: false,
      reason: "no_condition_match",
      conditionIndex: 1,
    });
  });

  it("out_of_rollout_bound outranks no_condition_match, whatever the order", () => {
    const id = identifierWhere("r2", (hash) => hash > 0.1);
    const f = flag("r2", {
      groups: [{ properties: [], rollout_percentage: 10 }, { properties: [email("x@x.com")] }],
    });
    expect(evaluateOne(f, subject({ distinctId: id }))).toMatchObject({
      reason: "out_of_rollout_bound",
      conditionIndex: 0,
    });
  });

  it("ties take the later condition", () => {
    const id = identifierWhere("r3", (hash) => hash > 0.2);
    const f = flag("r3", {
      groups: [
        { properties: [], rollout_percentage: 10 },
        { properties: [email("x@x.com")] },
        { properties: [], rollout_percentage: 20 },
      ],
    });
    expect(evaluateOne(f, subject({ distinctId: id }))).toMatchObject({
      reason: "out_of_rollout_bound",
      conditionIndex: 2,
    });
  });

  it("condition_match names the condition that matched", () => {
    const f = flag("r4", {
      groups: [{ properties: [email("a@x.com")] }, { properties: [email("b@x.com")] }],
    });
    expect(evaluateOne(f, subject({ personProperties: { email: "b@x.com" } }))).toMatchObject({
      value: true,
      reason: "condition_match",
      conditionIndex: 1,
    });
  });

  it("a flag without conditions is false with no_group_type and no index (Rust's starting reason)", () => {
    expect(evaluateOne(flag("empty", { groups: [] }))).toMatchObject({
      value: false,
      reason: "no_group_type",
      conditionIndex: null,
    });
  });

  it("an inactive flag is false with flag_disabled", () => {
    const f = flag("off", { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false });
    expect(evaluateOne(f)).toEqual({
      key: "off",
      value: false,
      variant: null,
      reason: "flag_disabled",
      conditionIndex: null,
      payload: null,
    });
  });
});

describe("group flags", () => {
  const company = (value: string) => ({
    key: "plan",
    type: "group",
    group_type_index: 0,
    operator: "exact",
    value,
  });

  it("hash the group key and read the group's properties", () => {
    const f = flag("g", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [company("enterprise")], rollout_percentage: 100 }],
    });
    const inGroup = subject({
      groups: { company: "acme" },
      groupProperties: { company: { plan: "enterprise" } },
    });
    expect(evaluateOne(f, inGroup)).toMatchObject({ value: true, reason: "condition_match" });
    const other = subject({ groups: { company: "acme" }, groupProperties: { company: { plan: "free" } } });
    expect(evaluateOne(f, other)).toMatchObject({ value: false, reason: "no_condition_match" });
  });

  it("bucket by the group key, not the distinct id", () => {
    const key = identifierWhere("g2", (hash) => hash <= 0.3, "acme-");
    const f = flag("g2", {
      aggregation_group_type_index: 1,
      groups: [{ properties: [], rollout_percentage: 30 }],
    });
    for (const distinctId of ["a", "b", "c"]) {
      expect(evaluateOne(f, subject({ distinctId, groups: { team: key } })).value).toBe(true);
    }
  });

  it("without the subject's group: false with no_group_type at the last condition", () => {
    const f = flag("g3", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [], rollout_percentage: 100 }, { properties: [company("x")] }],
    });
    expect(evaluateOne(f, subject({ groups: { team: "t" } }))).toMatchObject({
      value: false,
      reason: "no_group_type",
      conditionIndex: 1,
    });
    const unknownType = flag("g4", {
      aggregation_group_type_index: 3,
      groups: [{ rollout_percentage: 100 }],
    });
    expect(evaluateOne(unknownType, subject({ groups: { company: "c" } })).reason).toBe("no_group_type");
  });

  it("mixed targeting: a person condition still decides when the group condition is skipped", () => {
    const f = flag("mixed", {
      aggregation_group_type_index: 0,
      groups: [
        { properties: [company("x")], rollout_percentage: 100 },
        { aggregation_group_type_index: null, properties: [email("a@x.com")], rollout_percentage: 100 },
      ],
    });
    expect(evaluateOne(f, subject({ personProperties: { email: "a@x.com" } }))).toMatchObject({
      value: true,
      conditionIndex: 1,
    });
    expect(evaluateOne(f, subject({ personProperties: { email: "b@x.com" } }))).toMatchObject({
      value: false,
      reason: "no_condition_match",
      conditionIndex: 1,
    });
  });
});

describe("identifiers", () => {
  it("experience continuity hashes the person's hash-key override instead of the distinct id", () => {
    const anon = identifierWhere("ec", (hash) => hash <= 0.5, "anon-");
    const known = identifierWhere("ec", (hash) => hash > 0.5, "user-");
    const f = flag("ec", { groups: [{ rollout_percentage: 50 }] }, { ensureExperienceContinuity: true });
    expect(evaluateOne(f, subject({ distinctId: known, hashKeyOverrides: { ec: anon } })).value).toBe(true);
    expect(evaluateOne(f, subject({ distinctId: known })).value).toBe(false);
    const without = flag("ec", { groups: [{ rollout_percentage: 50 }] });
    expect(evaluateOne(without, subject({ distinctId: known, hashKeyOverrides: { ec: anon } })).value).toBe(
      false,
    );
  });

  it("device_id bucketing hashes the device id; without one a person condition is out_of_rollout_bound", () => {
    const device = identifierWhere("dev", (hash) => hash <= 0.5, "device-");
    const user = identifierWhere("dev", (hash) => hash > 0.5, "user-");
    const f = flag("dev", { groups: [{ rollout_percentage: 50 }] }, { bucketingIdentifier: "device_id" });
    expect(evaluateOne(f, subject({ distinctId: user, deviceId: device })).value).toBe(true);
    expect(evaluateOne(f, subject({ distinctId: user }))).toMatchObject({
      value: false,
      reason: "out_of_rollout_bound",
      conditionIndex: 0,
    });
  });
});

describe("holdouts", () => {
  const holdoutFlag = (filters: Record<string, unknown>) =>
    flag("exp", {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: "control", rollout_percentage: 100 }] },
      payloads: { "holdout-7": '"held"' },
      ...filters,
    });

  it("hold out identifiers whose holdout hash is within the exclusion (inclusive)", () => {
    // holdout hash: some_distinct_id 0.727, example_id 0.940 (§3.1).
    const f = holdoutFlag({ holdout: { id: 7, exclusion_percentage: 80 } });
    expect(evaluateOne(f, subject({ distinctId: "some_distinct_id" }))).toEqual({
      key: "exp",
      value: "holdout-7",
      variant: "holdout-7",
      reason: "holdout_condition_value",
      conditionIndex: null,
      payload: '"held"',
    });
    expect(evaluateOne(f, subject({ distinctId: "example_id" }))).toMatchObject({
      value: "control",
      reason: "condition_match",
    });
  });

  it("clamp the exclusion to 0–100 and ignore a holdout without id or percentage", () => {
    expect(evaluateOne(holdoutFlag({ holdout: { id: 7, exclusion_percentage: 500 } })).value).toBe(
      "holdout-7",
    );
    expect(evaluateOne(holdoutFlag({ holdout: { id: 7, exclusion_percentage: -1 } })).value).toBe("control");
    expect(evaluateOne(holdoutFlag({ holdout: { id: 7 } })).value).toBe("control");
    expect(evaluateOne(holdoutFlag({ holdout: { exclusion_percentage: 100 } })).value).toBe("control");
  });

  it("read the older holdout_groups form", () => {
    const f = holdoutFlag({
      holdout_groups: [{ properties: [], rollout_percentage: 80, variant: "holdout-7" }],
    });
    expect(evaluateOne(f, subject({ distinctId: "some_distinct_id" }))).toMatchObject({
      value: "holdout-7",
      reason: "holdout_condition_value",
    });
    expect(evaluateOne(f, subject({ distinctId: "example_id" })).value).toBe("control");
    const withProperties = holdoutFlag({
      holdout_groups: [{ properties: [email("x")], rollout_percentage: 100, variant: "holdout-7" }],
    });
    expect(evaluateOne(withProperties).value).toBe("control");
  });
});

describe("early access (super conditions)", () => {
  it("feature_enrollment: the person's $feature_enrollment/<key> decides, condition_index 0", () => {
    const f = flag("beta", { feature_enrollment: true, groups: [{ properties: [], rollout_percentage: 0 }] });
    expect(evaluateOne(f, subject({ personProperties: { "$feature_enrollment/beta": true } }))).toMatchObject(
      {
        value: true,
        reason: "super_condition_value",
        conditionIndex: 0,
      },
    );
    expect(
      evaluateOne(f, subject({ personProperties: { "$feature_enrollment/beta": "false" } })),
    ).toMatchObject({
      value: false,
      reason: "super_condition_value",
    });
    expect(evaluateOne(f, subject())).toMatchObject({ value: false, reason: "out_of_rollout_bound" });
  });

  it("legacy super_groups decide when the person has one of their properties", () => {
    const f = flag("beta2", {
      super_groups: [
        { properties: [person("$feature_enrollment/beta2", "exact", ["true"])], rollout_percentage: 100 },
      ],
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: "v", rollout_percentage: 100 }] },
    });
    expect(
      evaluateOne(f, subject({ personProperties: { "$feature_enrollment/beta2": false } })),
    ).toMatchObject({
      value: false,
      reason: "super_condition_value",
      conditionIndex: 0,
    });
    expect(evaluateOne(f, subject({ personProperties: { "$feature_enrollment/beta2": "true" } })).value).toBe(
      true,
    );
    expect(evaluateOne(f, subject())).toMatchObject({ value: "v", reason: "condition_match" });
  });
});

describe("odd stored filters", () => {
  it("never throw and evaluate as posthog-node reads them", () => {
    const odd: unknown[] = [
      null,
      "filters",
      42,
      {},
      { groups: "nope" },
      { groups: [null, 5, "x", { properties: "not a list", rollout_percentage: 100 }] },
      { groups: [{ properties: [null, { type: "person" }, { key: "a", type: "nope", value: 1 }] }] },
      { groups: [{ properties: [], rollout_percentage: {} }], multivariate: { variants: "x" } },
      {
        groups: [{ rollout_percentage: 100 }],
        multivariate: { variants: [null, { rollout_percentage: 100 }] },
      },
      { groups: [{ properties: [{ type: "cohort", value: "abc" }] }], aggregation_group_type_index: "0" },
      {
        groups: [{ properties: [{ type: "flag", key: "x", value: true }] }],
        holdout: "x",
        super_groups: [1],
      },
      { groups: [{ rollout_percentage: 100 }], payloads: ["a"], feature_enrollment: "yes" },
    ];
    const flags = odd.map((filters, i) => flag(`odd-${i}`, filters));
    const results = evaluate(flags, subject({ personProperties: { a: 1 } }));
    expect(results.size).toBe(odd.length);
    expect(results.get("odd-0")).toMatchObject({ value: false, reason: "no_group_type" });
    // A condition whose properties are not a list is a rollout-only condition (posthog-node).
    expect(results.get("odd-5")).toMatchObject({ value: true, conditionIndex: 3 });
    // A non-numeric rollout is NaN, which posthog-node's `hash > NaN` lets through.
    expect(results.get("odd-7")).toMatchObject({ value: true });
    // A variant without a key still takes its slice, and then picks no variant.
    expect(results.get("odd-8")).toMatchObject({ value: true, variant: null });
    expect(results.get("odd-11")).toMatchObject({ value: true, payload: null });
  });

  it("return only the requested keys, leaving unknown ones out", () => {
    const a = flag("a", { groups: [{ rollout_percentage: 100 }] });
    const b = flag("b", { groups: [{ rollout_percentage: 100 }] });
    expect([...evaluate([a, b], subject(), { keys: ["b", "nope"] }).keys()]).toEqual(["b"]);
  });
});

describe("holdouts read tolerantly", () => {
  const holdoutFlag = (filters: Record<string, unknown>, extra = {}) =>
    flag(
      "exp2",
      {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: { variants: [{ key: "control", rollout_percentage: 100 }] },
        ...filters,
      },
      extra,
    );
  // holdout hash (§3.1): some_distinct_id 0.727, example_id 0.940.
  const held = (f: ReturnType<typeof holdoutFlag>, distinctId = "some_distinct_id") =>
    evaluateOne(f, subject({ distinctId }));

  it("take a numeric text as the percentage, id 0 as an id, and 0% as no one", () => {
    expect(held(holdoutFlag({ holdout: { id: 7, exclusion_percentage: "80" } })).value).toBe("holdout-7");
    expect(held(holdoutFlag({ holdout: { id: 7, exclusion_percentage: "80" } }), "example_id").value).toBe(
      "control",
    );
    expect(held(holdoutFlag({ holdout: { id: 0, exclusion_percentage: 100 } }), "example_id").value).toBe(
      "holdout-0",
    );
    expect(held(holdoutFlag({ holdout: { id: 7, exclusion_percentage: 0 } })).value).toBe("control");
    expect(held(holdoutFlag({ holdout: { id: 7, exclusion_percentage: "many" } })).value).toBe("control");
    expect(held(holdoutFlag({ holdout: { id: null, exclusion_percentage: 100 } })).value).toBe("control");
    expect(held(holdoutFlag({ holdout: { id: 7, exclusion_percentage: null } })).value).toBe("control");
  });

  it("the older holdout_groups: no rollout holds out everyone, no variant gives the flag's own", () => {
    expect(
      held(holdoutFlag({ holdout_groups: [{ properties: [], variant: "holdout-3" }] }), "example_id"),
    ).toMatchObject({ value: "holdout-3", reason: "holdout_condition_value", conditionIndex: null });
    expect(held(holdoutFlag({ holdout_groups: [{ rollout_percentage: 100 }] }))).toMatchObject({
      value: "control",
      reason: "holdout_condition_value",
    });
    // Without variants, a held-out identifier gets plain true.
    expect(
      evaluateOne(flag("plain", { groups: [{ properties: [] }], holdout_groups: [{ properties: [] }] })),
    ).toMatchObject({ value: true, reason: "holdout_condition_value" });
    expect(held(holdoutFlag({ holdout_groups: [null, { properties: [] }] })).reason).toBe("condition_match");
    expect(held(holdoutFlag({ holdout_groups: "x" })).reason).toBe("condition_match");
  });

  it("hash the holdout with the distinct id, not the hash-key override, and a group flag with the group key", () => {
    const continuity = holdoutFlag(
      { holdout: { id: 7, exclusion_percentage: 80 } },
      { ensureExperienceContinuity: true },
    );
    expect(
      evaluateOne(
        continuity,
        subject({ distinctId: "some_distinct_id", hashKeyOverrides: { exp2: "example_id" } }),
      ).value,
    ).toBe("holdout-7");
    const group = flag("exp3", {
      aggregation_group_type_index: 0,
      groups: [{ properties: [], rollout_percentage: 100 }],
      holdout: { id: 7, exclusion_percentage: 80 },
    });
    expect(
      evaluateOne(group, subject({ distinctId: "example_id", groups: { company: "some_distinct_id" } }))
        .value,
    ).toBe("holdout-7");
    expect(
      evaluateOne(group, subject({ distinctId: "some_distinct_id", groups: { company: "example_id" } }))
        .value,
    ).toBe(true);
  });
});

describe("group keys", () => {
  const f = flag("gk", {
    aggregation_group_type_index: 0,
    groups: [{ properties: [], rollout_percentage: 100 }],
  });

  it("a number is its text; an empty or null key, or an unmapped type, is no group", () => {
    expect(evaluateOne(f, subject({ groups: { company: 42 as unknown as string } })).value).toBe(true);
    expect(evaluateOne(f, subject({ groups: { company: "" } }))).toMatchObject({
      value: false,
      reason: "no_group_type",
    });
    expect(evaluateOne(f, subject({ groups: { company: null as unknown as string } })).reason).toBe(
      "no_group_type",
    );
    const unmapped = flag("gk2", { aggregation_group_type_index: 4, groups: [{ properties: [] }] });
    expect(evaluateOne(unmapped, subject({ groups: { company: "acme" } })).reason).toBe("no_group_type");
  });

  it("a group filter of another type reads that type's properties; an unmapped type reads none", () => {
    const teamFilter = { key: "size", type: "group", group_type_index: 1, operator: "exact", value: "big" };
    const mixed = flag("gk3", { aggregation_group_type_index: 0, groups: [{ properties: [teamFilter] }] });
    const who = subject({
      groups: { company: "acme", team: "t" },
      groupProperties: { company: { size: "small" }, team: { size: "big" } },
    });
    expect(evaluateOne(mixed, who).value).toBe(true);
    const missing = { key: "size", type: "group", group_type_index: 7, operator: "is_not_set" };
    expect(evaluateOne(flag("gk4", { groups: [{ properties: [missing] }] }), who).value).toBe(true);
    // A group filter without a type index, on a person flag, reads no properties.
    const untyped = { key: "size", type: "group", operator: "is_not_set" };
    expect(evaluateOne(flag("gk5", { groups: [{ properties: [untyped] }] }), who).value).toBe(true);
  });
});

describe("payloads by variant", () => {
  it("are the flag's own entries only", () => {
    const f = flag("pv", {
      groups: [{ properties: [], variant: "constructor" }],
      multivariate: { variants: [{ key: "constructor", rollout_percentage: 100 }] },
      payloads: { true: "yes" },
    });
    expect(evaluateOne(f)).toMatchObject({ value: "constructor", payload: null });
  });
});

describe("variants read tolerantly", () => {
  it("skip entries that are not objects, and a key that is not a string picks no variant", () => {
    const skipped = flag("vt", {
      groups: [{ properties: [] }],
      multivariate: { variants: [5, "x", { key: "a", rollout_percentage: 100 }] },
    });
    expect(evaluateOne(skipped).value).toBe("a");
    const numericKey = flag("vt2", {
      groups: [{ properties: [] }],
      multivariate: { variants: [{ key: 5, rollout_percentage: 100 }] },
    });
    expect(evaluateOne(numericKey)).toMatchObject({ value: true, variant: null });
  });

  it("a variant hash equal to a cumulative bound falls in the next variant (Rust: the first bound above the hash)", () => {
    let id = "";
    let hash = 0;
    for (let i = 0; i < 10_000; i++) {
      hash = variantHash("vb", `v-${i}`);
      if ((hash * 100) / 100 === hash) {
        id = `v-${i}`;
        break;
      }
    }
    const f = flag("vb", {
      groups: [{ properties: [] }],
      multivariate: {
        variants: [
          { key: "below", rollout_percentage: hash * 100 },
          { key: "above", rollout_percentage: 100 - hash * 100 },
        ],
      },
    });
    expect(evaluateOne(f, subject({ distinctId: id })).value).toBe("above");
  });
});

describe("holdouts at their edges", () => {
  const held = (filters: Record<string, unknown>, who = subject({ distinctId: "some_distinct_id" })) =>
    evaluateOne(
      flag("edges", {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: { variants: [{ key: "control", rollout_percentage: 100 }] },
        ...filters,
      }),
      who,
    );

  it("a holdout hash equal to exclusion/100 is held out", () => {
    const id = "h-0";
    const hash = holdoutHash(id);
    expect((hash * 100) / 100).toBe(hash);
    expect(
      held({ holdout: { id: 7, exclusion_percentage: hash * 100 } }, subject({ distinctId: id })).value,
    ).toBe("holdout-7");
  });

  it("the older holdout_groups: a null rollout holds out everyone, a variant that is not text gives the flag's own", () => {
    expect(
      held({ holdout_groups: [{ properties: [], rollout_percentage: null, variant: "holdout-3" }] }).value,
    ).toBe("holdout-3");
    expect(held({ holdout_groups: [{ properties: [], variant: 5 }] })).toMatchObject({
      value: "control",
      reason: "holdout_condition_value",
    });
  });

  it("a group flag's subject without the group hashes the empty key (holdoutHash('') = 0.927)", () => {
    const groupFlag = (exclusion: number) =>
      flag("edges-g", {
        aggregation_group_type_index: 0,
        groups: [{ properties: [], rollout_percentage: 100 }],
        holdout: { id: 7, exclusion_percentage: exclusion },
      });
    expect(holdoutHash("")).toBeCloseTo(0.927, 3);
    expect(evaluateOne(groupFlag(60), subject())).toMatchObject({ value: false, reason: "no_group_type" });
    expect(evaluateOne(groupFlag(93), subject())).toMatchObject({
      value: "holdout-7",
      reason: "holdout_condition_value",
    });
  });
});

describe("early access at its edges", () => {
  it("feature_enrollment counts only when literally true; the person's text 'true' enrols", () => {
    const enrolled = { "$feature_enrollment/ea": true };
    const notLiteral = flag("ea", { feature_enrollment: "true", groups: [{ rollout_percentage: 0 }] });
    expect(evaluateOne(notLiteral, subject({ personProperties: enrolled }))).toMatchObject({
      value: false,
      reason: "out_of_rollout_bound",
    });
    const literal = flag("ea", { feature_enrollment: true, groups: [{ rollout_percentage: 0 }] });
    expect(
      evaluateOne(literal, subject({ personProperties: { "$feature_enrollment/ea": "true" } })),
    ).toMatchObject({ value: true, reason: "super_condition_value" });
  });

  it("super_groups decide when the person has any one of their keys; numeric keys count, other keys do not", () => {
    const superFlag = (properties: unknown[]) =>
      flag("ea2", {
        super_groups: [{ properties, rollout_percentage: 100 }],
        groups: [{ properties: [], rollout_percentage: 0 }],
      });
    const two = superFlag([person("a", "exact", "yes"), person("b", "exact", "yes")]);
    expect(evaluateOne(two, subject({ personProperties: { b: "yes" } }))).toMatchObject({
      value: false,
      reason: "super_condition_value",
    });
    expect(evaluateOne(two, subject({ personProperties: { a: "yes", b: "yes" } })).value).toBe(true);
    const numeric = superFlag([{ key: 5, type: "person", operator: "is_set" }]);
    expect(evaluateOne(numeric, subject({ personProperties: { "5": 1 } }))).toMatchObject({
      value: true,
      reason: "super_condition_value",
    });
    // A key that is neither text nor a number, and an entry that is not an object, name no property.
    const odd = superFlag([null, { key: true, type: "person", operator: "is_not_set" }]);
    expect(evaluateOne(odd, subject({ personProperties: { true: 1 } }))).toMatchObject({
      value: false,
      reason: "out_of_rollout_bound",
    });
  });

  it("the super condition's rollout hashes the hash-key override on a continuity flag", () => {
    const anon = identifierWhere("ea3", (hash) => hash <= 0.5, "anon-");
    const known = identifierWhere("ea3", (hash) => hash > 0.5, "user-");
    const f = flag(
      "ea3",
      {
        super_groups: [{ properties: [person("a", "is_set")], rollout_percentage: 50 }],
        groups: [{ properties: [], rollout_percentage: 0 }],
      },
      { ensureExperienceContinuity: true },
    );
    const who = subject({ distinctId: known, personProperties: { a: 1 }, hashKeyOverrides: { ea3: anon } });
    expect(evaluateOne(f, who)).toMatchObject({ value: true, reason: "super_condition_value" });
  });
});

describe("evaluation at its edges", () => {
  it("a device_id flag without a device id is out of rollout even at 100%", () => {
    const f = flag("dev2", { groups: [{ rollout_percentage: 100 }] }, { bucketingIdentifier: "device_id" });
    expect(evaluateOne(f, subject())).toMatchObject({
      value: false,
      reason: "out_of_rollout_bound",
      conditionIndex: 0,
    });
  });

  it("a false flag has no payload, even one stored under 'false'", () => {
    const f = flag("pf", { groups: [{ rollout_percentage: 0 }], payloads: { false: "no", true: "yes" } });
    expect(evaluateOne(f)).toMatchObject({ value: false, payload: null });
  });

  it("requested keys evaluate their cyclic or missing dependencies as missing_dependency", () => {
    const a = flag("cyc-a", {}, { id: 9001 });
    const b = flag("cyc-b", {}, { id: 9002 });
    const dependsOn = (id: number) => ({
      groups: [
        { properties: [{ type: "flag", key: String(id), operator: "flag_evaluates_to", value: true }] },
      ],
    });
    a.filters = dependsOn(9002);
    b.filters = dependsOn(9001);
    const orphan = flag("orphan", dependsOn(404));
    const results = evaluate([a, b, orphan], subject(), { keys: ["cyc-a", "orphan"] });
    expect([...results.keys()]).toEqual(["cyc-a", "orphan"]);
    for (const result of results.values()) {
      expect(result).toMatchObject({ value: false, reason: "missing_dependency" });
    }
  });

  it("group type indexes are decimal numerals: 12 is read, '1e0' or '0x1' are not index 1", () => {
    const teamFlag = (index: number) =>
      flag("gt", { aggregation_group_type_index: index, groups: [{ rollout_percentage: 100 }] });
    const who = subject({ groups: { org: "o1", odd: "x" } });
    expect(evaluate([teamFlag(12)], who, { groupTypeMapping: { "12": "org" } }).get("gt")!.value).toBe(true);
    for (const index of ["1e0", "0x1", "1 ", "a1"]) {
      expect(
        evaluate([teamFlag(1)], who, { groupTypeMapping: { [index]: "odd" } }).get("gt"),
        index,
      ).toMatchObject({
        value: false,
        reason: "no_group_type",
      });
    }
  });
});
