import { describe, expect, it } from "vitest";
import { isPythonFalsy, pythonJsonDumps, pythonStr } from "../../../src/feature-flags/rules/python-format.js";

describe("pythonStr", () => {
  it("prints values as a Python f-string would", () => {
    expect(pythonStr("@posthog.com")).toBe("@posthog.com");
    expect(pythonStr(["@posthog.com", 1, true, null])).toBe("['@posthog.com', 1, True, None]");
    expect(pythonStr({ a: false })).toBe("{'a': False}");
    expect(pythonStr(["it's"])).toBe(`["it's"]`);
    expect(pythonStr(['say "hi" it\'s'])).toBe(`['say "hi" it\\'s']`);
    expect(pythonStr(12.5)).toBe("12.5");
    expect(pythonStr({ a: 1, b: "x" })).toBe("{'a': 1, 'b': 'x'}");
    expect(pythonStr([undefined])).toBe("[None]");
    expect(pythonStr(["a\\b\nc\rd\te"])).toBe("['a\\\\b\\nc\\rd\\te']");
  });
});

describe("isPythonFalsy", () => {
  it("is true for None, False, 0, the empty string, list and object only", () => {
    for (const value of [undefined, null, false, 0, "", [], {}]) expect(isPythonFalsy(value)).toBe(true);
    for (const value of [true, 1, "0", " ", [0], [[]], { a: null }]) expect(isPythonFalsy(value)).toBe(false);
  });
});

describe("pythonJsonDumps", () => {
  it("serialises with Python's default separators and ASCII escaping", () => {
    expect(pythonJsonDumps({ a: [1, { b: null }], c: "ü😀\u007f\n" })).toBe(
      '{"a": [1, {"b": null}], "c": "\\u00fc\\ud83d\\ude00\\u007f\\n"}',
    );
    expect(pythonJsonDumps([])).toBe("[]");
    expect(pythonJsonDumps({})).toBe("{}");
  });

  it("refuses values that are not JSON", () => {
    expect(pythonJsonDumps(undefined)).toBeUndefined();
    expect(pythonJsonDumps({ a: Number.NaN })).toBeUndefined();
    expect(pythonJsonDumps([new Date(0)])).toBeUndefined();
    expect(pythonJsonDumps(new Map())).toBeUndefined();
    expect(pythonJsonDumps(Object.create(null))).toBe("{}");
  });
});
