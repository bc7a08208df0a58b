/**
 * The throttle's arithmetic (src/core/rate-limit.ts), DRF's `SimpleRateThrottle` exactly: a sliding
 * window of request times per identity, refused requests not recorded, the wait until the oldest
 * time leaves the window; and DRF's rate syntax.
 */
import { describe, expect, it } from "vitest";
import { parseRate } from "../../src/config.js";
import { RateLimits, Throttle, throttledError } from "../../src/core/rate-limit.js";

describe("parseRate", () => {
  it("reads DRF's rates by the period's first letter, and off", () => {
    expect(parseRate("480/minute")).toEqual({ requests: 480, durationMs: 60_000 });
    expect(parseRate("4800/hour")).toEqual({ requests: 4800, durationMs: 3_600_000 });
    expect(parseRate("10/s")).toEqual({ requests: 10, durationMs: 1000 });
    expect(parseRate("2/day")).toEqual({ requests: 2, durationMs: 86_400_000 });
    expect(parseRate("off")).toBeNull();
    expect(parseRate("0")).toBeNull();
    expect(parseRate("0/minute")).toBeNull();
    expect(() => parseRate("fast")).toThrow(/not a rate/);
    expect(() => parseRate("10/week")).toThrow(/not a rate/);
  });
});

describe("Throttle", () => {
  it("allows `requests` per window, then answers the wait until the oldest leaves it", () => {
    const throttle = new Throttle({ requests: 3, durationMs: 60_000 });
    expect(throttle.take("k", 1_000)).toBe(0);
    expect(throttle.take("k", 11_000)).toBe(0);
    expect(throttle.take("k", 21_000)).toBe(0);
    expect(throttle.take("k", 31_000)).toBe(30_000);
    // The refused request was not recorded: at 61,000 the first (1,000) is out, one slot is free.
    expect(throttle.take("k", 61_000)).toBe(0);
    expect(throttle.take("k", 61_500)).toBe(9_500);
    expect(throttle.take("other", 61_500)).toBe(0);
  });

  it("keeps the window in order while its memory grows with use, wrapped or not", () => {
    const throttle = new Throttle({ requests: 20, durationMs: 1_000 });
    for (let t = 0; t < 80; t += 10) expect(throttle.take("k", t)).toBe(0);
    // At 1,035 the four oldest have left: the ring's head has moved when it next grows.
    for (let i = 0; i < 16; i++) expect(throttle.take("k", 1_035)).toBe(0);
    // Full: the oldest held is 40, out of the window at 1,040.
    expect(throttle.take("k", 1_035)).toBe(5);
    expect(throttle.take("k", 1_040)).toBe(0);
    expect(throttle.take("k", 1_041)).toBe(9);
  });

  it("forgets identities with no request in the window", () => {
    const throttle = new Throttle({ requests: 2, durationMs: 1_000 });
    throttle.take("a", 0);
    throttle.take("b", 500);
    expect(throttle.size).toBe(2);
    throttle.take("c", 1_200);
    expect(throttle.size).toBe(2);
  });
});

describe("RateLimits", () => {
  it("counts a key's request in both windows, even when one refuses it, and answers the longest wait", () => {
    let now = 0;
    const limits = new RateLimits(
      {
        burst: { requests: 2, durationMs: 60_000 },
        sustained: { requests: 3, durationMs: 3_600_000 },
        scopes: {
          local_evaluation: { requests: 1, durationMs: 60_000 },
          remote_config: null,
          capture: null,
          flags: null,
        },
      },
      () => now,
    );
    expect(limits.waitForKey("k")).toBe(0);
    expect(limits.waitForKey("k")).toBe(0);
    expect(limits.waitForKey("k")).toBe(60_000); // burst refuses; sustained records its third
    now = 60_000;
    expect(limits.waitForKey("k")).toBe(3_540_000); // burst allows again; sustained is full
    expect(limits.waitForScope("local_evaluation", 1)).toBe(0);
    expect(limits.waitForScope("local_evaluation", 1)).toBe(60_000); // the scope's own limit, per identity
    expect(limits.waitForScope("local_evaluation", 2)).toBe(0);
    expect(limits.waitForScope("capture", "phc_x")).toBe(0); // no limit
  });

  it("words the refusal as DRF's Throttled, in whole seconds rounded up", () => {
    expect(throttledError(1).detail).toBe("Request was throttled. Expected available in 1 second.");
    expect(throttledError(1_001).detail).toBe("Request was throttled. Expected available in 2 seconds.");
    expect(throttledError(59_000).retryAfterSeconds).toBe(59);
  });
});
