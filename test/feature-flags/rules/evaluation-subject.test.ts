import { describe, expect, it } from "vitest";
import type {
  EvaluationDefinitions,
  EvaluationFlag,
} from "../../../src/feature-flags/evaluation/engine/types.js";
import type { EvaluationInput } from "../../../src/feature-flags/evaluation/evaluation.schemas.js";
import {
  detectRuntime,
  matchesContexts,
  runsIn,
} from "../../../src/feature-flags/evaluation/rules/runtime.js";
import {
  buildSubject,
  groupsToLoad,
  needsStoredData,
} from "../../../src/feature-flags/evaluation/rules/subject.js";
import { flag } from "../evaluation/support.js";

const definitions = (flags: EvaluationFlag[]): EvaluationDefinitions => ({
  flags,
  groupTypeMapping: { "0": "company" },
  cohorts: new Map(),
});

const input = (extra: Partial<EvaluationInput> = {}): EvaluationInput => ({
  distinctId: "u1",
  anonDistinctId: null,
  deviceId: null,
  groups: {},
  personProperties: {},
  groupProperties: {},
  flagKeys: null,
  ...extra,
});

describe("buildSubject (the flags service's precedence)", () => {
  it("puts the request's person properties over the stored ones, adds distinct_id and fills $initial_ twins", () => {
    const subject = buildSubject(
      input({ personProperties: { plan: "free", $browser: "Firefox" } }),
      {
        personProperties: { plan: "pro", $browser: "Chrome", $initial_browser: "Safari", email: "a@b" },
        staticCohortIds: [3],
        groups: [],
        hashKeys: [],
      },
      definitions([]),
    );
    expect(subject.personProperties).toEqual({
      plan: "free",
      email: "a@b",
      distinct_id: "u1",
      $browser: "Firefox",
      $initial_browser: "Safari",
    });
    expect(subject.staticCohortIds).toEqual(new Set([3]));
    const fresh = buildSubject(input({ personProperties: { utm_source: "ad" } }), null, definitions([]));
    expect(fresh.personProperties).toEqual({ utm_source: "ad", $initial_utm_source: "ad" });
  });

  it("merges stored group properties, the request's, and $group_key, per group type", () => {
    const subject = buildSubject(
      input({
        groups: { company: "acme" },
        groupProperties: { company: { tier: "startup" }, team: { size: 2 } },
      }),
      {
        personProperties: null,
        staticCohortIds: [],
        groups: [{ groupTypeIndex: 0, groupKey: "acme", properties: { tier: "enterprise", seats: 9 } }],
        hashKeys: [],
      },
      definitions([]),
    );
    expect(subject.groupProperties).toEqual({
      company: { tier: "startup", seats: 9, $group_key: "acme" },
      team: { size: 2 },
    });
    expect(groupsToLoad({ company: "acme", unknown: "x" }, { "0": "company" })).toEqual([
      { groupTypeIndex: 0, groupKey: "acme" },
    ]);
  });

  it("prefers the distinct id's stored hash keys, then the anonymous id for continuity flags without one", () => {
    const sticky = flag("sticky", {}, { ensureExperienceContinuity: true });
    const other = flag("other", {}, { ensureExperienceContinuity: true });
    const device = flag("device", {}, { ensureExperienceContinuity: true, bucketingIdentifier: "device_id" });
    const subject = buildSubject(
      input({ anonDistinctId: "anon" }),
      {
        personProperties: null,
        staticCohortIds: [],
        groups: [],
        hashKeys: [
          { flagKey: "sticky", hashKey: "mine", primary: true },
          { flagKey: "sticky", hashKey: "theirs", primary: false },
        ],
      },
      definitions([sticky, other, device]),
    );
    expect(subject.hashKeyOverrides).toEqual({ sticky: "mine", other: "anon" });
  });
});

describe("needsStoredData (what a failed read still lets us compute)", () => {
  it("is false for rollout-only conditions and person properties the request gives", () => {
    expect(needsStoredData(flag("a", { groups: [{ rollout_percentage: 50 }] }), {})).toBe(false);
    const byPlan = flag("b", { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }] });
    expect(needsStoredData(byPlan, { plan: "pro" })).toBe(false);
    expect(needsStoredData(byPlan, {})).toBe(true);
  });

  it("is true for cohorts, group flags, early access, continuity and unreadable filters", () => {
    expect(
      needsStoredData(flag("c", { groups: [{ properties: [{ key: "id", value: 1, type: "cohort" }] }] }), {}),
    ).toBe(true);
    expect(needsStoredData(flag("g", { aggregation_group_type_index: 0, groups: [] }), {})).toBe(true);
    expect(needsStoredData(flag("s", { super_groups: [{ properties: [] }], groups: [] }), {})).toBe(true);
    expect(needsStoredData(flag("e", { groups: [] }, { ensureExperienceContinuity: true }), {})).toBe(true);
    expect(needsStoredData(flag("u", { groups: ["odd"] }), {})).toBe(true);
  });
});

describe("runtime and evaluation tags (flags.rs fetch_and_filter)", () => {
  it("takes the stated runtime, else the user agent, else browser headers, else none", () => {
    expect(detectRuntime("server", { "user-agent": "Mozilla/5.0" })).toBe("server");
    expect(detectRuntime(null, { "user-agent": "Mozilla/5.0 Chrome/120" })).toBe("client");
    expect(detectRuntime(null, { "user-agent": "posthog-python/6.0" })).toBe("server");
    expect(detectRuntime(null, { "user-agent": "curl/8.5" })).toBe("server");
    expect(detectRuntime(null, { "user-agent": "posthog-ios/3.0" })).toBe("client");
    expect(detectRuntime(null, { "sec-fetch-mode": "cors" })).toBe("client");
    expect(detectRuntime(null, { "user-agent": "node" })).toBeNull();
  });

  it("runs all-runtime flags everywhere, the others only in their runtime or for `all`", () => {
    expect(runsIn("all", null)).toBe(true);
    expect(runsIn("server", null)).toBe(false);
    expect(runsIn("server", "server")).toBe(true);
    expect(runsIn("server", "client")).toBe(false);
    expect(runsIn("client", "all")).toBe(true);
    expect(runsIn("bogus", "client")).toBe(true);
  });

  it("keeps untagged flags, and tagged ones when a context names a tag", () => {
    expect(matchesContexts([], ["web"])).toBe(true);
    expect(matchesContexts(["web"], [])).toBe(true);
    expect(matchesContexts(["web"], ["mobile"])).toBe(false);
    expect(matchesContexts(["web", "mobile"], ["mobile"])).toBe(true);
  });
});
