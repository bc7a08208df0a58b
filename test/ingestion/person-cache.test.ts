/** The persons capture's steady state remembers (src/ingestion/person-cache.ts): all of a batch's ids or none, latest read wins, bounded. */
import { describe, expect, it } from "vitest";
import { PersonCache } from "../../src/ingestion/person-cache.js";
import type { LoadedPerson } from "../../src/ingestion/person-store.js";

/** A person row as read, for distinct id `distinctId`. */
function row(distinctId: string, id = 1n, version = 0n): LoadedPerson {
  return {
    distinctId,
    id,
    uuid: `uuid-${id}`,
    state: { properties: {}, lastUpdatedAt: {}, lastOperation: {} },
    isIdentified: false,
    version,
    createdAt: new Date("2026-11-20T10:00:00.000Z"),
  };
}

describe("PersonCache", () => {
  it("answers every asked id's person, or nothing when one is missing", () => {
    const cache = new PersonCache();
    cache.remember(1, [row("a", 1n), row("b", 2n)]);
    expect(cache.get(1, ["b", "a"])!.map((p) => p.id)).toEqual([2n, 1n]);
    expect(cache.get(1, ["a", "c"])).toBeNull();
    expect(cache.get(2, ["a"])).toBeNull();
  });

  it("keeps the latest read of an id and forgets ids on request", () => {
    const cache = new PersonCache();
    cache.remember(1, [row("a", 1n, 0n)]);
    cache.remember(1, [row("a", 1n, 3n)]);
    expect(cache.get(1, ["a"])![0]!.version).toBe(3n);
    cache.forget(1, ["a"]);
    expect(cache.get(1, ["a"])).toBeNull();
  });

  it("lets the ids read longest ago go beyond its bound", () => {
    const cache = new PersonCache(2);
    cache.remember(1, [row("a"), row("b")]);
    cache.remember(1, [row("c")]);
    expect(cache.get(1, ["a"])).toBeNull();
    expect(cache.get(1, ["b", "c"])).not.toBeNull();
  });
});
