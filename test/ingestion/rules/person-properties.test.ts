import { describe, expect, it } from "vitest";
import {
  applyPropertyOperations,
  initialPropertyState,
  mergePropertyStates,
  type PropertyState,
  personPropertyOperations,
} from "../../../src/ingestion/rules/person-properties.js";
import { ingestEvent } from "../../support/ingest.js";

const T1 = "2026-11-20T10:00:00.000Z";
const T2 = "2026-11-21T10:00:00.000Z";
const none = { set: {}, setOnce: {}, unset: [] };

function state(properties: Record<string, unknown>, at = T1): PropertyState {
  return {
    properties,
    lastUpdatedAt: Object.fromEntries(Object.keys(properties).map((k) => [k, at])),
    lastOperation: Object.fromEntries(Object.keys(properties).map((k) => [k, "set" as const])),
  };
}

describe("personPropertyOperations", () => {
  it("merges top-level $set and $set_once over the properties' ones, top level winning", () => {
    const event = ingestEvent(
      "u",
      { $set: { a: 1, b: 1 }, $set_once: { c: 1 }, $unset: ["x", 3] },
      { topLevel: { $set: { b: 2 }, $set_once: { d: 1 }, $unset: ["y"] } },
    );
    expect(personPropertyOperations(event)).toEqual({
      set: { a: 1, b: 2 },
      setOnce: { c: 1, d: 1 },
      unset: ["x"],
    });
  });

  it("reads $unset given as an object's keys and ignores non-object $set", () => {
    const event = ingestEvent("u", { $set: "oops", $set_once: [1], $unset: { gone: null } });
    expect(personPropertyOperations(event)).toEqual({ set: {}, setOnce: {}, unset: ["gone"] });
  });

  it("carries no person update on $exception, $$heatmap and $groupidentify", () => {
    for (const name of ["$exception", "$$heatmap", "$groupidentify"]) {
      expect(personPropertyOperations(ingestEvent("u", { $set: { a: 1 } }, { event: name }))).toEqual(none);
    }
  });
});

describe("initialPropertyState", () => {
  it("writes $set_once, then $set over it, then $creator_event_uuid, with bookkeeping", () => {
    const created = initialPropertyState(
      { set: { a: 2 }, setOnce: { a: 1, b: 1 }, unset: ["c"] },
      "ev-1",
      T1,
    );
    expect(created).toEqual({
      properties: { a: 2, b: 1, $creator_event_uuid: "ev-1" },
      lastUpdatedAt: { a: T1, b: T1 },
      lastOperation: { a: "set", b: "set_once" },
    });
  });
});

describe("applyPropertyOperations", () => {
  it("sets changed keys, sets once only absent keys, and unsets present keys", () => {
    const current = state({ a: 1, b: 1, c: 1, n: null });
    const { state: next, changed } = applyPropertyOperations(
      current,
      { set: { a: 2, b: 1 }, setOnce: { c: 2, d: 2, n: 5 }, unset: ["c", "missing"] },
      T2,
    );
    expect(changed).toBe(true);
    expect(next.properties).toEqual({ a: 2, b: 1, d: 2, n: null });
    expect(next.lastUpdatedAt).toEqual({ a: T2, b: T1, d: T2, n: T1 });
    expect(next.lastOperation).toEqual({ a: "set", b: "set", d: "set_once", n: "set" });
    expect(current.properties).toEqual({ a: 1, b: 1, c: 1, n: null });
  });

  it("lets $set win over $set_once of the same key in one event", () => {
    const { state: next } = applyPropertyOperations(
      state({}),
      { set: { k: "set" }, setOnce: { k: "once" }, unset: [] },
      T2,
    );
    expect(next.properties).toEqual({ k: "set" });
    expect(next.lastOperation).toEqual({ k: "set" });
  });

  it("unsets only keys present before the event", () => {
    const { state: next } = applyPropertyOperations(
      state({}),
      { set: { k: 1 }, setOnce: {}, unset: ["k"] },
      T2,
    );
    expect(next.properties).toEqual({ k: 1 });
  });

  it("reports no change for deeply equal values", () => {
    const current = state({ obj: { a: [1, { b: 2 }] } });
    const result = applyPropertyOperations(
      current,
      { set: { obj: { a: [1, { b: 2 }] } }, setOnce: { obj: 1 }, unset: [] },
      T2,
    );
    expect(result.changed).toBe(false);
    expect(applyPropertyOperations(current, none, T2).changed).toBe(false);
  });
});

describe("mergePropertyStates", () => {
  it("keeps the surviving person's value and bookkeeping on shared keys, the other's elsewhere", () => {
    const into: PropertyState = {
      properties: { shared: "into", mine: 1 },
      lastUpdatedAt: { shared: T2 },
      lastOperation: { shared: "set" },
    };
    const other: PropertyState = {
      properties: { shared: "other", theirs: 1 },
      lastUpdatedAt: { shared: T1, theirs: T1 },
      lastOperation: { shared: "set_once", theirs: "set_once" },
    };
    expect(mergePropertyStates(into, other)).toEqual({
      properties: { shared: "into", theirs: 1, mine: 1 },
      lastUpdatedAt: { shared: T2, theirs: T1 },
      lastOperation: { shared: "set", theirs: "set_once" },
    });
  });
});
