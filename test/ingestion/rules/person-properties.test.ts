import { describe, expect, it } from "vitest";
import {
  applyPropertyOperations,
  initialPropertyState,
  mergePropertyStates,
  type PropertyOperations,
  type PropertyState,
  personPropertyOperations,
} from "../../../src/ingestion/rules/person-properties.js";
import { ingestEvent } from "../../support/ingest.js";

const T1 = "2026-11-20T10:00:00.000Z";
const T2 = "2026-11-21T10:00:00.000Z";
const AT2 = new Date(T2);
const none = { set: {}, setOnce: {}, unset: [], alwaysWrites: false };

/** Operations of an ordinary (not person) event. */
function ops(partial: Partial<PropertyOperations>): PropertyOperations {
  return { ...none, ...partial };
}

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
      alwaysWrites: false,
    });
  });

  it("reads $unset given as an object's keys and ignores non-object $set", () => {
    const event = ingestEvent("u", { $set: "oops", $set_once: [1], $unset: { gone: null } });
    expect(personPropertyOperations(event)).toEqual(ops({ unset: ["gone"] }));
  });

  it("lifts browser and campaign properties onto the person, explicit ones winning", () => {
    const event = ingestEvent("u", {
      $browser: "Firefox",
      utm_source: null,
      gclid: "g1",
      $current_url: "https://a.example/",
      $set: { $browser: "Chrome" },
      $set_once: { $initial_gclid: "first" },
      unrelated: 1,
    });
    expect(personPropertyOperations(event)).toEqual(
      ops({
        set: { $browser: "Chrome", utm_source: null, gclid: "g1", $current_url: "https://a.example/" },
        setOnce: {
          $initial_gclid: "first",
          $initial_browser: "Firefox",
          $initial_current_url: "https://a.example/",
        },
      }),
    );
  });

  it("leaves out a server SDK's host OS and treats $os_name as $initial_os", () => {
    const server = ingestEvent("u", { $is_server: true, $os: "Linux", $os_version: "6", $browser: "x" });
    expect(personPropertyOperations(server)).toEqual(
      ops({ set: { $browser: "x" }, setOnce: { $initial_browser: "x" } }),
    );
    const mobile = ingestEvent("u", { $os_name: "iOS", $app_version: "1.2" });
    expect(personPropertyOperations(mobile)).toEqual(
      ops({ set: { $app_version: "1.2" }, setOnce: { $initial_app_version: "1.2", $initial_os: "iOS" } }),
    );
  });

  it("sets $survey_last_seen_date on survey shown, and lifts nothing from $snapshot", () => {
    const shown = ingestEvent("u", {}, { event: "survey shown" });
    expect(personPropertyOperations(shown).set).toEqual({
      $survey_last_seen_date: shown.timestamp.toISOString(),
    });
    expect(personPropertyOperations(ingestEvent("u", { $browser: "x" }, { event: "$snapshot" }))).toEqual(
      none,
    );
  });

  it("marks PostHog's person events as writing every change", () => {
    expect(personPropertyOperations(ingestEvent("u", {}, { event: "$identify" })).alwaysWrites).toBe(true);
    expect(personPropertyOperations(ingestEvent("u", {}, { event: "$set" })).alwaysWrites).toBe(true);
    expect(personPropertyOperations(ingestEvent("u", {})).alwaysWrites).toBe(false);
  });

  it("carries no person update on $exception, $$heatmap and $groupidentify", () => {
    for (const name of ["$exception", "$$heatmap", "$groupidentify"]) {
      expect(personPropertyOperations(ingestEvent("u", { $set: { a: 1 } }, { event: name })).set).toEqual({});
    }
  });
});

describe("initialPropertyState", () => {
  it("writes $set_once, then $set over it, then $creator_event_uuid, with bookkeeping", () => {
    const created = initialPropertyState(
      ops({ set: { a: 2 }, setOnce: { a: 1, b: 1 }, unset: ["c"] }),
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
      ops({ set: { a: 2, b: 1 }, setOnce: { c: 2, d: 2, n: 5 }, unset: ["c", "missing"] }),
      AT2,
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
      ops({ set: { k: "set" }, setOnce: { k: "once" } }),
      AT2,
    );
    expect(next.properties).toEqual({ k: "set" });
    expect(next.lastOperation).toEqual({ k: "set" });
  });

  it("unsets only keys present before the event", () => {
    const { state: next } = applyPropertyOperations(state({}), ops({ set: { k: 1 }, unset: ["k"] }), AT2);
    expect(next.properties).toEqual({ k: 1 });
  });

  it("does not write a change of frequently changing keys alone, unless a person event makes it", () => {
    const current = state({ $current_url: "a", $browser: "x" });
    const urlOnly = ops({ set: { $current_url: "b" } });
    expect(applyPropertyOperations(current, urlOnly, AT2)).toMatchObject({ changed: true, writes: false });
    expect(applyPropertyOperations(current, { ...urlOnly, alwaysWrites: true }, AT2).writes).toBe(true);
    const withNewKey = ops({ set: { $current_url: "b", $pathname: "/new" } });
    expect(applyPropertyOperations(current, withNewKey, AT2).writes).toBe(true);
    expect(applyPropertyOperations(current, ops({ set: { $current_url: "b", plan: 1 } }), AT2).writes).toBe(
      true,
    );
  });

  it("reports no change for deeply equal values", () => {
    const current = state({ obj: { a: [1, { b: 2 }] } });
    const result = applyPropertyOperations(
      current,
      ops({ set: { obj: { a: [1, { b: 2 }] } }, setOnce: { obj: 1 } }),
      AT2,
    );
    expect(result).toMatchObject({ changed: false, writes: false });
    expect(applyPropertyOperations(current, none, AT2).changed).toBe(false);
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
