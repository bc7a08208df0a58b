/**
 * The reads every subscriber of one live event shares (src/core/shared-reads.ts): one load per
 * event and key, whoever asks first; a new event reads again; outside an event nothing is shared.
 */
import { describe, expect, it } from "vitest";
import type { ServiceContext } from "../../src/core/context.js";
import { sharedRead, sharedReadsOf } from "../../src/core/shared-reads.js";

/** A load that counts its calls and answers the count. */
function counter() {
  let calls = 0;
  return { load: async () => ++calls, calls: () => calls };
}

describe("shared reads", () => {
  it("loads a key once per event, for every asker, and again for the next event", async () => {
    const first = { kind: "change" };
    const second = { kind: "change" };
    const { load, calls } = counter();
    const asked = await Promise.all(
      Array.from({ length: 5 }, () => sharedReadsOf(first).read("feature_flags:1:id:7", load)),
    );
    expect(asked).toEqual([1, 1, 1, 1, 1]);
    expect(await sharedReadsOf(first).read("feature_flags:1:id:8", load)).toBe(2);
    expect(await sharedReadsOf(second).read("feature_flags:1:id:7", load)).toBe(3);
    expect(calls()).toBe(3);
  });

  it("hands every asker the same error", async () => {
    const event = {};
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error("gone");
    };
    const reads = sharedReadsOf(event);
    await expect(reads.read("k", failing)).rejects.toThrow("gone");
    await expect(reads.read("k", failing)).rejects.toThrow("gone");
    expect(calls).toBe(1);
  });

  it("shares nothing outside an event", async () => {
    const { load, calls } = counter();
    const ctx = {} as ServiceContext;
    expect([await sharedRead(ctx, "k", load), await sharedRead(ctx, "k", load)]).toEqual([1, 2]);
    expect(calls()).toBe(2);
    const shared = { shared: sharedReadsOf({}) } as unknown as ServiceContext;
    expect([await sharedRead(shared, "k", load), await sharedRead(shared, "k", load)]).toEqual([3, 3]);
  });
});
