/**
 * The bounded lz64 decompressor (src/sdk/lz64.ts) against lz-string itself: the same text for every
 * stream lz-string writes, lz-string's text or a refusal for arbitrary base64, and a refusal, early, of
 * a stream standing for far more than the bound (a decompression bomb lz-string would expand whole).
 */
import fc from "fast-check";
import lzString from "lz-string";
import { describe, expect, it } from "vitest";
import { PayloadTooLargeError } from "../../src/core/errors.js";
import { decompressLz64 } from "../../src/sdk/lz64.js";
import { edgeString, propertyRuns } from "../support/arbitraries.js";
import { lz64Bomb } from "../support/compression.js";

/** lz-string's answer with its failures (null, "", a throw) as null. */
function lzStringAnswer(input: string): string | null {
  try {
    return lzString.decompressFromBase64(input) || null;
  } catch {
    return null;
  }
}

describe("decompressLz64", () => {
  it("gives lz-string's text for every stream lz-string writes", () => {
    fc.assert(
      fc.property(fc.oneof(edgeString, fc.string({ unit: "grapheme", maxLength: 500 })), (text) => {
        const compressed = lzString.compressToBase64(text);
        expect(decompressLz64(compressed, 10_000)).toBe(lzStringAnswer(compressed));
      }),
      propertyRuns(300),
    );
  });

  it("reads arbitrary base64 as lz-string does or refuses it, and never throws but for the bound", () => {
    const base64 = fc.string({
      unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
      maxLength: 200,
    });
    fc.assert(
      fc.property(base64, (input) => {
        let ours: string | null;
        try {
          ours = decompressLz64(input, 1_000_000);
        } catch (error) {
          expect(error).toBeInstanceOf(PayloadTooLargeError);
          return;
        }
        // lz-string reads some malformed streams as garbage (a first code of 3 as "undefined"); those are refused.
        if (ours !== null) expect(ours).toBe(lzStringAnswer(input));
      }),
      propertyRuns(500),
    );
  });

  it("answers a text at the bound, and refuses one unit past it", () => {
    const compressed = lzString.compressToBase64("a".repeat(5_000));
    expect(decompressLz64(compressed, 5_000)).toHaveLength(5_000);
    expect(() => decompressLz64(compressed, 4_999)).toThrow(PayloadTooLargeError);
  });

  it("refuses a bomb of a few kilobytes standing for gigabytes, at once", () => {
    const bomb = lz64Bomb(200_000);
    expect(bomb.length).toBeLessThan(1_000_000);
    const started = performance.now();
    expect(() => decompressLz64(bomb, 2_000_000)).toThrow(PayloadTooLargeError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
