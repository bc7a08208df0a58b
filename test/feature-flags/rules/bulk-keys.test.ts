/**
 * The ids of `POST feature_flags/bulk_keys/` (rules/bulk-keys.ts) read with Python's semantics, as
 * PostHog's `bulk_keys` action reads `request.data["ids"]` (posthog-behavior.md §2.10).
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import { INVALID_FLAG_IDS, readFlagIds } from "../../../src/feature-flags/rules/bulk-keys.js";

describe("readFlagIds (bulk_keys, Python's reading of `ids`)", () => {
  it("asks for nothing when ids is falsy", () => {
    for (const raw of [undefined, null, false, 0, "", [], {}]) expect(readFlagIds(raw)).toEqual({ ids: [] });
  });

  it("reads integers and digit strings, leading zeros as int() does", () => {
    expect(readFlagIds([3, "12", "007"])).toEqual({ ids: [3, 12, 7] });
  });

  it("iterates a string's characters and an object's keys, as Python's for loop does", () => {
    expect(readFlagIds("12")).toEqual({ ids: [1, 2] });
    expect(readFlagIds({ "5": "x", a: 1 })).toEqual({ ids: [5], warning: "Invalid flag IDs ignored: ['a']" });
  });

  it("warns with the Python repr of what it ignored", () => {
    expect(readFlagIds([1, -2, "x", null, true, 2.5, { a: 1 }])).toEqual({
      ids: [1],
      warning: "Invalid flag IDs ignored: [-2, 'x', None, True, 2.5, {'a': 1}]",
    });
  });

  it("refuses ids sent with none valid, and values Python cannot iterate", () => {
    for (const raw of [["x"], [null], 5, true]) {
      expect(() => readFlagIds(raw)).toThrow(
        expect.objectContaining({
          constructor: ValidationError,
          code: INVALID_FLAG_IDS,
          message: "Invalid flag IDs provided",
        }),
      );
    }
  });
});

describe("readFlagIds: items that are not numbers or strings", () => {
  it("ignores a nested list, whose str() is not digits", () => {
    expect(readFlagIds([[7], 8])).toEqual({ ids: [8], warning: "Invalid flag IDs ignored: [[7]]" });
  });
});
