import { describe, expect, it } from "vitest";
import {
  bucketHash,
  HashMemo,
  holdoutHash,
  rolloutHash,
  variantHash,
} from "../../../src/feature-flags/evaluation/engine/hash.js";

describe("bucketing hash (posthog-behavior.md §3.1 golden vectors)", () => {
  it("matches PostHog's published holdout vectors", () => {
    expect(holdoutHash("some_distinct_id")).toBe(0.7270002403585725);
    expect(holdoutHash("test-identifier")).toBe(0.4493881716040236);
    expect(holdoutHash("example_id")).toBe(0.9402003475831224);
    expect(holdoutHash("example_id2")).toBe(0.6292740389966519);
  });

  it("hashes rollouts with the flag key as prefix and variants with the salt 'variant'", () => {
    expect(rolloutHash("new-checkout", "u_42")).toBe(0.6729059414944576);
    expect(variantHash("new-checkout", "u_42")).toBe(0.18510865603197107);
    expect(bucketHash("new-checkout.", "u_42", "variant")).toBe(0.18510865603197107);
  });

  it("answers a remembered hash as computed, past the memo's bound and for identifiers too long to keep", () => {
    for (let round = 0; round < 3; round++) {
      expect(rolloutHash("new-checkout", "u_42")).toBe(0.6729059414944576);
      expect(variantHash("new-checkout", "u_42")).toBe(0.18510865603197107);
      expect(holdoutHash("some_distinct_id")).toBe(0.7270002403585725);
      // Enough other hashes to fill each memo and start it over.
      for (let i = 0; i < 30_000; i++) {
        rolloutHash("flag", `filler_${round}_${i}`);
        variantHash("flag", `filler_${round}_${i}`);
        holdoutHash(`filler_${round}_${i}`);
      }
    }
    const long = "x".repeat(300);
    expect(rolloutHash("flag", long)).toBe(bucketHash("flag.", long));
    expect(rolloutHash("flag", long)).toBe(bucketHash("flag.", long));
    expect(rolloutHash("flag", `${long}y`)).toBe(bucketHash("flag.", `${long}y`));
  });

  it("stays in [0, 1)", () => {
    for (let i = 0; i < 2000; i++) {
      const hash = rolloutHash("flag", `distinct_id_${i}`);
      expect(hash).toBeGreaterThanOrEqual(0);
      expect(hash).toBeLessThan(1);
    }
  });
});

describe("HashMemo", () => {
  /** A memo over a compute that counts its calls. */
  const counting = (maxEntries?: number, maxIdentifier?: number) => {
    const calls: string[] = [];
    const memo = new HashMemo(
      (flagKey, identifier) => {
        calls.push(`${flagKey}/${identifier}`);
        return calls.length / 100;
      },
      maxEntries,
      maxIdentifier,
    );
    return { memo, calls };
  };

  it("computes a hash once per flag key and identifier", () => {
    const { memo, calls } = counting();
    expect(memo.hash("a", "u1")).toBe(0.01);
    expect(memo.hash("b", "u1")).toBe(0.02);
    expect(memo.hash("a", "u2")).toBe(0.03);
    expect(memo.hash("a", "u1")).toBe(0.01);
    expect(memo.hash("b", "u1")).toBe(0.02);
    expect(calls).toEqual(["a/u1", "b/u1", "a/u2"]);
    expect(memo.size).toBe(3);
  });

  it("starts over once it holds its bound, and keeps no identifier longer than its bound", () => {
    const { memo, calls } = counting(2, 3);
    memo.hash("a", "u1");
    memo.hash("b", "u1");
    expect(memo.size).toBe(2);
    memo.hash("c", "u1");
    expect(memo.size).toBe(1);
    memo.hash("a", "u1");
    expect(calls).toEqual(["a/u1", "b/u1", "c/u1", "a/u1"]);
    expect(memo.hash("c", "u1")).toBe(0.03);
    expect(memo.size).toBe(2);
    memo.hash("a", "long");
    memo.hash("a", "long");
    expect(memo.size).toBe(2);
    expect(calls.filter((call) => call === "a/long")).toHaveLength(2);
    memo.hash("a", "abc");
    expect(memo.size).toBe(1);
  });
});
