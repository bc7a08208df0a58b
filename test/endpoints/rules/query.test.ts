/** When a new query counts as a change (src/endpoints/rules/query.ts, PostHog's `has_query_changed`). */
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  HOGQL_QUERY_FIELDS,
  isEndpointQueryKind,
  normalizedQueryNode,
  queryChanged,
} from "../../../src/endpoints/rules/query.js";

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

describe("normalizedQueryNode (PostHog stores `HogQLQuery.model_dump()`)", () => {
  it("gives a HogQL node every field of the model, unset ones null, keeping what was given", () => {
    const node = {
      kind: "HogQLQuery",
      query: "SELECT 1",
      explain: false,
      variables: { v: { code_name: "x" } },
    };
    const normalized = normalizedQueryNode(node);
    expect(Object.keys(normalized)).toEqual([...HOGQL_QUERY_FIELDS]);
    expect(normalized).toEqual({
      explain: false,
      filters: null,
      kind: "HogQLQuery",
      modifiers: null,
      name: null,
      query: "SELECT 1",
      response: null,
      tags: null,
      values: null,
      variables: { v: { code_name: "x" } },
      version: null,
    });
    expect(normalizedQueryNode(normalized)).toEqual(normalized);
  });

  it("keeps keys the model does not have, and leaves insight nodes as they are", () => {
    expect(normalizedQueryNode({ kind: "HogQLQuery", query: "SELECT 1", extra: 1 })).toMatchObject({
      extra: 1,
    });
    const trends = { kind: "TrendsQuery", series: [] };
    expect(normalizedQueryNode(trends)).toBe(trends);
  });

  it("makes an echoed node and the node without its null fields the same query", () => {
    const given = { kind: "HogQLQuery", query: "SELECT 1" };
    expect(queryChanged(normalizedQueryNode(given), given)).toBe(false);
    expect(queryChanged(given, normalizedQueryNode(given))).toBe(false);
    expect(queryChanged(given, { ...given, name: "n" })).toBe(true);
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
