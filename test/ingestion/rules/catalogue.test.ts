/** Catalogue entries of a batch (rust/property-defs-rs/src/types.rs `Event::into_updates`). */
import { describe, expect, it } from "vitest";
import type { IngestEvent } from "../../../src/ingestion/ingest-event.js";
import {
  catalogueEntries,
  groupTypesToResolve,
  inLockOrder,
} from "../../../src/ingestion/rules/catalogue.js";

const NOW = new Date("2026-11-23T12:00:00Z");
const event = (name: string, properties: Record<string, unknown>): IngestEvent => ({
  uuid: "0190b2d4-4c4e-7c4e-8d7e-000000000001",
  event: name,
  distinctId: "u",
  properties,
  topLevel: {},
  timestamp: NOW,
});

describe("catalogueEntries", () => {
  it("records event properties (skipping $set and the group keys), person properties, pairs; deduplicated, and sorted by inLockOrder", () => {
    const entries = inLockOrder(
      catalogueEntries(
        [
          event("b", {
            x: 1,
            $set: { email: "a@b.c" },
            $set_once: { first: "y" },
            $groups: {},
            $group_0: "acme",
          }),
          event("a", { x: 2 }),
          event("a", { x: 3 }),
        ],
        new Map(),
        NOW,
      ),
    );
    expect(entries.eventNames).toEqual(["a", "b"]);
    expect(entries.properties).toEqual([
      { name: "x", type: 1, groupTypeIndex: -1, propertyType: "Numeric" },
      { name: "email", type: 2, groupTypeIndex: -1, propertyType: "String" },
      { name: "first", type: 2, groupTypeIndex: -1, propertyType: "String" },
    ]);
    expect(entries.eventProperties).toEqual([
      { event: "a", property: "x" },
      { event: "b", property: "email" },
      { event: "b", property: "first" },
      { event: "b", property: "x" },
    ]);
  });

  it("records only $group_set of a $groupidentify, under its resolved group type", () => {
    const identify = event("$groupidentify", {
      $group_type: "company",
      $group_key: "acme",
      $group_set: { size: 5 },
    });
    expect(groupTypesToResolve([identify])).toEqual(["company"]);
    const resolved = catalogueEntries([identify], new Map([["company", 2]]), NOW);
    expect(resolved.properties).toEqual([
      { name: "size", type: 3, groupTypeIndex: 2, propertyType: "Numeric" },
    ]);
    const unresolved = catalogueEntries([identify], new Map(), NOW);
    expect(unresolved.properties).toEqual([]);
    expect(unresolved.eventNames).toEqual(["$groupidentify"]);
  });

  it("skips $$plugin_metrics and names longer than 200 bytes", () => {
    const long = "é".repeat(101);
    const entries = catalogueEntries(
      [event("$$plugin_metrics", { a: 1 }), event("ok", { [long]: 1 }), event(long, {})],
      new Map(),
      NOW,
    );
    expect(entries.eventNames).toEqual(["ok"]);
    expect(entries.properties).toEqual([]);
  });
});
