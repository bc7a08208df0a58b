/** When a new query counts as a change (src/endpoints/rules/query.ts, PostHog's `has_query_changed`). */
import { describe, expect, it } from "vitest";
import { canonicalJson, isEndpointQueryKind, queryChanged } from "../../../src/endpoints/rules/query.js";

describe("queryChanged", () => {
  it("ignores key order at any depth", () => {
    const a = {
      kind: "HogQLQuery",
      query: "SELECT 1",
      variables: { v: { code_name: "x", variableId: "v" } },
    };
    const b = {
      variables: { v: { variableId: "v", code_name: "x" } },
      query: "SELECT 1",
      kind: "HogQLQuery",
    };
    expect(queryChanged(a, b)).toBe(false);
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it("sees a changed value, an added key and a reordered list", () => {
    const base = { kind: "TrendsQuery", series: [{ event: "a" }, { event: "b" }] };
    expect(queryChanged(base, { ...base, interval: "day" })).toBe(true);
    expect(queryChanged(base, { kind: "TrendsQuery", series: [{ event: "b" }, { event: "a" }] })).toBe(true);
    expect(queryChanged(base, { kind: "TrendsQuery", series: [{ event: "a" }, { event: "c" }] })).toBe(true);
  });
});

describe("isEndpointQueryKind", () => {
  it("takes HogQLQuery and the insight nodes only", () => {
    for (const kind of [
      "HogQLQuery",
      "TrendsQuery",
      "FunnelsQuery",
      "RetentionQuery",
      "LifecycleQuery",
      "StickinessQuery",
      "PathsQuery",
    ]) {
      expect(isEndpointQueryKind(kind), kind).toBe(true);
    }
    for (const kind of ["EventsQuery", "InsightVizNode", "", null, 3])
      expect(isEndpointQueryKind(kind)).toBe(false);
  });
});
