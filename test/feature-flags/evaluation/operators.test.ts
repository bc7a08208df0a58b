/**
 * One block per operator (posthog-behavior.md §3.5), with vectors ported from the Rust service's
 * `property_matching.rs` tests (`test_match_properties_*`) and posthog-node's local evaluator, and
 * the server rule for a missing property.
 */
import { describe, expect, it } from "vitest";
import { compilePropertyTest } from "../../../src/feature-flags/evaluation/engine/operators.js";
import { NOW, person } from "./support.js";

function matches(filter: Record<string, unknown>, properties: Record<string, unknown>, now = NOW): boolean {
  return compilePropertyTest(filter)(properties, now);
}

describe("exact", () => {
  const filter = person("key", "exact", "value");

  it("compares case-insensitively, a missing key does not match", () => {
    expect(matches(filter, { key: "value" })).toBe(true);
    expect(matches(filter, { key: "VALUE" })).toBe(true);
    expect(matches(filter, { key: "value2" })).toBe(false);
    expect(matches(filter, { key: "" })).toBe(false);
    expect(matches(filter, { key: null })).toBe(false);
    expect(matches(filter, { key2: "value" })).toBe(false);
  });

  it("is the default when the operator is null or absent", () => {
    expect(matches(person("key", null, "value"), { key: "value" })).toBe(true);
    expect(matches({ key: "key", type: "person", value: "value" }, { key: "value" })).toBe(true);
  });

  it("takes a list as any of, case-insensitively (Rust test_match_properties_exact_array_is_case_insensitive)", () => {
    const list = person("country", "exact", ["US", "CA", "Uk"]);
    for (const [value, expected] of [
      ["us", true],
      ["Us", true],
      ["ca", true],
      ["UK", true],
      ["de", false],
    ] as const) {
      expect(matches(list, { country: value })).toBe(expected);
    }
  });

  it("compares numbers and numeric strings by their text", () => {
    expect(matches(person("age", "exact", "30"), { age: 30 })).toBe(true);
    expect(matches(person("age", "exact", 30), { age: "30" })).toBe(true);
    expect(matches(person("age", "exact", [1, 2]), { age: 2 })).toBe(true);
    expect(matches(person("age", "exact", 30), { age: 30.5 })).toBe(false);
  });

  it("compares booleans and 'true'/'false' by truthiness", () => {
    expect(matches(person("beta", "exact", true), { beta: "True" })).toBe(true);
    expect(matches(person("beta", "exact", "true"), { beta: true })).toBe(true);
    expect(matches(person("beta", "exact", ["false"]), { beta: false })).toBe(true);
    expect(matches(person("beta", "exact", false), { beta: "yes" })).toBe(true);
    expect(matches(person("beta", "exact", true), { beta: "yes" })).toBe(false);
  });

  it("an empty list never matches a non-boolean (Rust test_match_properties_exact_empty_array_never_matches)", () => {
    expect(matches(person("country", "exact", []), { country: "us" })).toBe(false);
  });
});

describe("is_not", () => {
  it("negates exact, and a missing key matches on the server", () => {
    const filter = person("key", "is_not", "value");
    expect(matches(filter, { key: "value2" })).toBe(true);
    expect(matches(filter, { key: "" })).toBe(true);
    expect(matches(filter, { key: null })).toBe(true);
    expect(matches(filter, { key: "Value" })).toBe(false);
    expect(matches(filter, {})).toBe(true);
  });

  it("takes a list as none of", () => {
    const filter = person("key", "is_not", ["value1", "value2", "value3"]);
    expect(matches(filter, { key: "value4" })).toBe(true);
    expect(matches(filter, { key: "value2" })).toBe(false);
  });
});

describe("is_set / is_not_set", () => {
  it("is_set: the key is present, whatever its value (null too)", () => {
    const filter = person("key", "is_set", "is_set");
    expect(matches(filter, { key: "" })).toBe(true);
    expect(matches(filter, { key: null })).toBe(true);
    expect(matches(filter, { key2: "x" })).toBe(false);
  });

  it("is_not_set: the key is absent (the server decides what SDKs cannot)", () => {
    const filter = person("key", "is_not_set");
    expect(matches(filter, {})).toBe(true);
    expect(matches(filter, { key: null })).toBe(false);
    expect(matches(filter, { key: "x" })).toBe(false);
  });
});

describe("icontains / not_icontains", () => {
  it("searches case-insensitively in the property's text (Rust test_match_properties_icontains)", () => {
    const filter = person("key", "icontains", "valUe");
    expect(matches(filter, { key: "value" })).toBe(true);
    expect(matches(filter, { key: "vaLue4" })).toBe(true);
    expect(matches(filter, { key: "343tfvalue5" })).toBe(true);
    expect(matches(filter, { key: "Alakazam" })).toBe(false);
    expect(matches(filter, { key: 123 })).toBe(false);
    const digit = person("key", "icontains", "3");
    expect(matches(digit, { key: 323 })).toBe(true);
    expect(matches(digit, { key: "three" })).toBe(false);
  });

  it("folds ASCII capitals only, in the property and in the value searched for", () => {
    expect(matches(person("key", "icontains", "ÄB"), { key: "xÄbx" })).toBe(true);
    expect(matches(person("key", "icontains", "äb"), { key: "xÄbx" })).toBe(false);
    expect(matches(person("key", "icontains", "Ä"), { key: "ä" })).toBe(false);
    expect(matches(person("key", "icontains", "already lower"), { key: "ALREADY LOWER case" })).toBe(true);
  });

  it("not_icontains negates, and a missing key matches", () => {
    const filter = person("email", "not_icontains", "@posthog.com");
    expect(matches(filter, { email: "a@example.com" })).toBe(true);
    expect(matches(filter, { email: "A@PostHog.com" })).toBe(false);
    expect(matches(filter, {})).toBe(true);
  });
});

describe("starts_with / ends_with / icontains_multi", () => {
  it("compare case-insensitively; the negations match a missing key", () => {
    expect(matches(person("key", "starts_with", "Val"), { key: "value" })).toBe(true);
    expect(matches(person("key", "ends_with", "LUE"), { key: "value" })).toBe(true);
    expect(matches(person("key", "not_starts_with", "x"), {})).toBe(true);
    expect(matches(person("key", "icontains_multi", ["foo", "ALU"]), { key: "value" })).toBe(true);
    expect(matches(person("key", "not_icontains_multi", ["foo", "bar"]), { key: "value" })).toBe(true);
  });
});

describe("regex / not_regex (re2js)", () => {
  it("searches anywhere in the text", () => {
    const filter = person("email", "regex", "@posthog\\.com$");
    expect(matches(filter, { email: "ben@posthog.com" })).toBe(true);
    expect(matches(filter, { email: "ben@posthog.com.evil" })).toBe(false);
    expect(matches(person("n", "regex", "^\\d+$"), { n: 4567 })).toBe(true);
  });

  it("not_regex negates, and a missing key matches", () => {
    const filter = person("email", "not_regex", "@posthog\\.com$");
    expect(matches(filter, { email: "ben@example.com" })).toBe(true);
    expect(matches(filter, { email: "ben@posthog.com" })).toBe(false);
    expect(matches(filter, {})).toBe(true);
  });

  it("an invalid pattern is false for both operators", () => {
    expect(matches(person("key", "regex", "(unclosed"), { key: "(unclosed" })).toBe(false);
    expect(matches(person("key", "not_regex", "(unclosed"), { key: "anything" })).toBe(false);
    // Lookarounds are not RE2 syntax: they do not compile on a linear-time engine.
    expect(matches(person("key", "regex", "a(?=b)"), { key: "ab" })).toBe(false);
  });

  it("an empty pattern matches everything (posthog-node)", () => {
    expect(matches(person("key", "regex", ""), { key: "x" })).toBe(true);
  });

  it("stays linear on a pattern that backtracks catastrophically elsewhere", () => {
    const filter = person("key", "regex", "^(a+)+$");
    expect(matches(filter, { key: `${"a".repeat(5000)}b` })).toBe(false);
  });
});

describe("gt / gte / lt / lte", () => {
  it("compare numbers, numeric strings included", () => {
    expect(matches(person("age", "gt", "30"), { age: 31 })).toBe(true);
    expect(matches(person("age", "gt", 30), { age: "30" })).toBe(false);
    expect(matches(person("age", "gte", "30"), { age: "30" })).toBe(true);
    expect(matches(person("age", "lt", "100"), { age: "99.5" })).toBe(true);
    expect(matches(person("age", "lte", 5), { age: 5 })).toBe(true);
    // Numerically 10 > 9, although "10" < "9" as strings.
    expect(matches(person("n", "gt", "9"), { n: "10" })).toBe(true);
  });

  it("compare as strings when either side is not a number (posthog-node)", () => {
    expect(matches(person("name", "gt", "bob"), { name: "carol" })).toBe(true);
    expect(matches(person("name", "lt", "bob"), { name: "alice" })).toBe(true);
    expect(matches(person("n", "gt", "abc"), { n: 5 })).toBe(false);
  });

  it("a null property or a missing key does not match", () => {
    expect(matches(person("age", "gt", "1"), { age: null })).toBe(false);
    expect(matches(person("age", "lt", "1"), {})).toBe(false);
  });
});

describe("is_date_before / is_date_after / is_date_exact", () => {
  it("compare ISO dates and date-times (UTC without an offset)", () => {
    const before = person("signup", "is_date_before", "2024-06-01");
    expect(matches(before, { signup: "2024-05-31T23:59:59Z" })).toBe(true);
    expect(matches(before, { signup: "2024-06-01T00:00:00Z" })).toBe(false);
    const after = person("signup", "is_date_after", "2024-06-01T10:00:00+02:00");
    expect(matches(after, { signup: "2024-06-01T08:00:01Z" })).toBe(true);
    expect(matches(after, { signup: "2024-06-01T08:00:00Z" })).toBe(false);
  });

  it("measure relative dates back from the evaluation's now", () => {
    const recent = person("last_seen", "is_date_after", "-7d");
    expect(matches(recent, { last_seen: "2025-06-09T00:00:00Z" })).toBe(true);
    expect(matches(recent, { last_seen: "2025-06-07T00:00:00Z" })).toBe(false);
    const later = new Date("2025-06-20T12:00:00Z");
    expect(matches(recent, { last_seen: "2025-06-09T00:00:00Z" }, later)).toBe(false);
    expect(matches(person("d", "is_date_before", "-1m"), { d: "2025-05-14T00:00:00Z" })).toBe(true);
    expect(matches(person("d", "is_date_after", "24h"), { d: "2025-06-14T13:00:00Z" })).toBe(true);
  });

  it("clamp a month back to the last day of a shorter month", () => {
    const endOfMarch = new Date("2025-03-31T00:00:00Z");
    const filter = person("d", "is_date_after", "-1m");
    expect(matches(filter, { d: "2025-02-28T00:00:01Z" }, endOfMarch)).toBe(true);
    expect(matches(filter, { d: "2025-02-27T23:59:59Z" }, endOfMarch)).toBe(false);
  });

  it("read a number as epoch milliseconds and a numeric string as epoch seconds", () => {
    const filter = person("t", "is_date_after", "2024-01-01");
    expect(matches(filter, { t: Date.UTC(2024, 0, 2) })).toBe(true);
    expect(matches(filter, { t: String(Date.UTC(2024, 0, 2) / 1000) })).toBe(true);
    expect(matches(filter, { t: String(Date.UTC(2023, 11, 31) / 1000) })).toBe(false);
  });

  it("is_date_exact is the same instant (Rust)", () => {
    const filter = person("d", "is_date_exact", "2024-06-01");
    expect(matches(filter, { d: "2024-06-01T00:00:00Z" })).toBe(true);
    expect(matches(filter, { d: "2024-06-01T10:00:00Z" })).toBe(false);
  });

  it("an unreadable date on either side, null, or a missing key does not match", () => {
    expect(matches(person("d", "is_date_before", "not a date"), { d: "2024-01-01" })).toBe(false);
    expect(matches(person("d", "is_date_before", "2024-01-01"), { d: "yesterday-ish" })).toBe(false);
    expect(matches(person("d", "is_date_before", "2024-01-01"), { d: null })).toBe(false);
    expect(matches(person("d", "is_date_before", "2024-01-01"), {})).toBe(false);
  });
});

describe("semver operators", () => {
  const version = (operator: string, value: string, actual: unknown) =>
    matches(person("app_version", operator, value), { app_version: actual });

  it("compare versions numerically, missing parts as 0", () => {
    expect(version("semver_eq", "1.2.3", "1.2.3")).toBe(true);
    expect(version("semver_eq", "1.2", "1.2.0")).toBe(true);
    expect(version("semver_neq", "1.2.3", "1.2.4")).toBe(true);
    expect(version("semver_gt", "1.2.3", "1.10.0")).toBe(true);
    expect(version("semver_gte", "1.2.3", "1.2.3")).toBe(true);
    expect(version("semver_lt", "2.0.0", "1.99.99")).toBe(true);
    expect(version("semver_lte", "2.0.0", "2.0.1")).toBe(false);
  });

  it("accept a leading v, ignore pre-release and build, strip leading zeros", () => {
    expect(version("semver_eq", "1.2.3", "v1.2.3")).toBe(true);
    expect(version("semver_eq", "1.2.3", "1.2.3-beta.1+build.7")).toBe(true);
    expect(version("semver_eq", "3.8.0", "3.08")).toBe(true);
  });

  it("tilde, caret and wildcard ranges", () => {
    expect(version("semver_tilde", "1.2.3", "1.2.9")).toBe(true);
    expect(version("semver_tilde", "1.2.3", "1.3.0")).toBe(false);
    expect(version("semver_caret", "1.2.3", "1.9.0")).toBe(true);
    expect(version("semver_caret", "1.2.3", "2.0.0")).toBe(false);
    expect(version("semver_caret", "0.2.3", "0.2.9")).toBe(true);
    expect(version("semver_caret", "0.2.3", "0.3.0")).toBe(false);
    expect(version("semver_wildcard", "1.2.*", "1.2.7")).toBe(true);
    expect(version("semver_wildcard", "1.*", "1.9.9")).toBe(true);
    expect(version("semver_wildcard", "1.*", "2.0.0")).toBe(false);
  });

  it("a property that is not a version, null, or missing does not match; neither does a bad filter value", () => {
    expect(version("semver_gt", "1.0.0", "banana")).toBe(false);
    expect(version("semver_neq", "1.0.0", null)).toBe(false);
    expect(matches(person("app_version", "semver_neq", "1.0.0"), {})).toBe(false);
    expect(version("semver_eq", "one", "1.0.0")).toBe(false);
  });
});

describe("between / not_between", () => {
  it("are inclusive ranges of numbers", () => {
    expect(matches(person("n", "between", [1, 10]), { n: 10 })).toBe(true);
    expect(matches(person("n", "between", ["1", "10"]), { n: "0.5" })).toBe(false);
    expect(matches(person("n", "not_between", [1, 10]), { n: 11 })).toBe(true);
    expect(matches(person("n", "not_between", [1, 10]), {})).toBe(true);
    expect(matches(person("n", "between", [10, 1]), { n: 5 })).toBe(false);
  });
});

describe("filters without a value", () => {
  it("compare a present property with the text null (posthog-node), and a missing one never matches (Rust)", () => {
    expect(matches(person("key", "exact", null), { key: "null" })).toBe(true);
    expect(matches(person("key", "is_not", null), { key: "x" })).toBe(true);
    expect(matches(person("key", "is_not", null), {})).toBe(false);
    expect(matches(person("key", "not_icontains"), {})).toBe(false);
  });
});

describe("unknown operators and odd filters", () => {
  it("never match and never throw", () => {
    expect(matches(person("key", "is_cleaned_path_exact", "/a"), { key: "/a" })).toBe(false);
    expect(matches(person("key", "no_such_operator", "x"), { key: "x" })).toBe(false);
    expect(matches({ type: "person", operator: "exact", value: "x" }, { undefined: "x" })).toBe(false);
    expect(matches(person("key", "exact"), { key: "x" })).toBe(false);
    expect(matches({ key: "key", type: "person", operator: 5, value: "x" }, { key: "x" })).toBe(false);
  });
});

describe("numbers as the Rust service reads them (between, not_between)", () => {
  const between = (bounds: unknown[], value: unknown) =>
    matches(person("n", "between", bounds), { n: value });

  it("read number texts: signs, exponents, a bare point on either side, surrounding blanks", () => {
    for (const text of ["5", "+5", " 5 ", "5.", ".5e1", "1e1", "1E+1", "10.0"]) {
      expect(between([1, 10], text), text).toBe(true);
    }
    for (const text of ["", " ", "abc", "5abc", "1e", "--5", "0x5", "5 5", "1,5"]) {
      expect(between([0, 10], text), text).toBe(false);
    }
    expect(between([0, 1], ".5")).toBe(true);
    expect(between([-10, -1], "-5")).toBe(true);
    expect(between([1, 10], true)).toBe(false);
    expect(between([1, 10], [5])).toBe(false);
    expect(between([1, 10], null)).toBe(false);
  });

  it("read inf, infinity and nan in any case and with a sign; NaN matches nothing", () => {
    expect(between([0, "inf"], "INF")).toBe(true);
    expect(between([0, "Infinity"], "+infinity")).toBe(true);
    expect(between([0, "inf"], "-inf")).toBe(false);
    expect(between(["-inf", 0], "-Infinity")).toBe(true);
    expect(between(["-infinity", "+inf"], 1e300)).toBe(true);
    expect(between([0, 10], "inf")).toBe(false);
    expect(between([0, 10], "nan")).toBe(false);
    expect(between([0, "nan"], 5)).toBe(false);
    expect(between(["NaN", 10], 5)).toBe(false);
    expect(matches(person("n", "not_between", [0, 10]), { n: "-nan" })).toBe(false);
    expect(matches(person("n", "not_between", [0, 10]), { n: "inf" })).toBe(true);
  });

  it("need exactly two readable bounds, low not above high (equal bounds are one point)", () => {
    expect(between([5, 5], 5)).toBe(true);
    expect(between([5, 5], 5.5)).toBe(false);
    expect(between([1, 5, 10], 3)).toBe(false);
    expect(between([1], 1)).toBe(false);
    expect(matches(person("n", "between", "1,10"), { n: 3 })).toBe(false);
    expect(between([null, 10], 3)).toBe(false);
    expect(between([1, "ten"], 3)).toBe(false);
    expect(matches(person("n", "not_between", [10, 1]), { n: 50 })).toBe(false);
    expect(matches(person("n", "not_between", [1, 10]), { n: 1 })).toBe(false);
    expect(matches(person("n", "not_between", [1, 10]), { n: 0 })).toBe(true);
  });
});

describe("exact on JSON values", () => {
  it("compares objects and lists by their JSON text with object keys sorted (serde's map order)", () => {
    const stored = { b: 1, a: [1, { d: "x", c: null }] };
    expect(matches(person("o", "exact", '{"a":[1,{"c":null,"d":"x"}],"b":1}'), { o: stored })).toBe(true);
    expect(matches(person("o", "exact", '{"b":1,"a":[1,{"d":"x","c":null}]}'), { o: stored })).toBe(false);
    expect(matches(person("o", "exact", "[]"), { o: [] })).toBe(true);
    expect(matches(person("o", "exact", "{}"), { o: {} })).toBe(true);
    expect(matches(person("o", "exact", '["a","b"]'), { o: ["a", "b"] })).toBe(true);
    expect(matches(person("o", "exact", "null"), { o: null })).toBe(true);
  });

  it("folds case with full Unicode lower case (posthog-node's toLowerCase), unlike the substring operators", () => {
    expect(matches(person("city", "exact", "ÉCOLE"), { city: "école" })).toBe(true);
    expect(matches(person("city", "icontains", "ÉCOLE"), { city: "école" })).toBe(false);
    expect(matches(person("city", "icontains", "Ecole"), { city: "une ECOLE" })).toBe(true);
  });
});

describe("substring operators on odd values (posthog-node reads String(value))", () => {
  it("search lists and numbers as their text, and take a single needle for icontains_multi", () => {
    expect(matches(person("tags", "icontains", "a,b"), { tags: ["a", "b"] })).toBe(true);
    expect(matches(person("n", "starts_with", "12"), { n: 123 })).toBe(true);
    expect(matches(person("n", "ends_with", "23"), { n: 123 })).toBe(true);
    expect(matches(person("n", "ends_with", "12"), { n: 123 })).toBe(false);
    expect(matches(person("n", "starts_with", "23"), { n: 123 })).toBe(false);
    expect(matches(person("k", "not_starts_with", "va"), { k: "Value" })).toBe(false);
    expect(matches(person("k", "not_ends_with", "UE"), { k: "value" })).toBe(false);
    expect(matches(person("k", "not_ends_with", "x"), { k: "value" })).toBe(true);
    expect(matches(person("k", "not_ends_with", "x"), {})).toBe(true);
    expect(matches(person("k", "icontains_multi", "ALU"), { k: "value" })).toBe(true);
    expect(matches(person("k", "icontains_multi", ["x", "y"]), { k: "value" })).toBe(false);
    expect(matches(person("k", "not_icontains_multi", ["x", "al"]), { k: "value" })).toBe(false);
    expect(matches(person("k", "not_icontains_multi", ["x"]), {})).toBe(true);
    expect(matches(person("k", "icontains_multi", [1]), { k: 10 })).toBe(true);
  });

  it("regexes search the text of numbers and lists too; an empty pattern's negation matches nothing", () => {
    expect(matches(person("k", "regex", "^a,b$"), { k: ["a", "b"] })).toBe(true);
    expect(matches(person("k", "not_regex", ""), { k: "x" })).toBe(false);
    expect(matches(person("k", "not_regex", "^x"), { k: "yx" })).toBe(true);
  });
});

describe("comparisons on odd values (posthog-node)", () => {
  it("parse leading numbers, and compare as text when either side is not a finite number", () => {
    expect(matches(person("n", "gt", 10), { n: "12abc" })).toBe(true);
    expect(matches(person("n", "lt", "12abc"), { n: 11 })).toBe(true);
    expect(matches(person("n", "gte", 5), { n: 5 })).toBe(true);
    expect(matches(person("n", "gte", 5), { n: 4.9 })).toBe(false);
    expect(matches(person("n", "lte", 5), { n: 5.1 })).toBe(false);
    expect(matches(person("n", "lt", 5), { n: 5 })).toBe(false);
    expect(matches(person("n", "gt", 5), { n: 5 })).toBe(false);
    // "b" > "a" as text; NaN and infinities compare as text.
    expect(matches(person("s", "gt", "a"), { s: "b" })).toBe(true);
    expect(matches(person("s", "lte", "a"), { s: "b" })).toBe(false);
    expect(matches(person("s", "gte", "b"), { s: "b" })).toBe(true);
    // "Infinity" is no finite number: compared as text, "I" sorts after "5" and before "a".
    expect(matches(person("n", "gt", 5), { n: "Infinity" })).toBe(true);
    expect(matches(person("n", "gt", "a"), { n: "Infinity" })).toBe(false);
  });
});

describe("dates on odd values", () => {
  const isAfter = (target: unknown, value: unknown) =>
    matches(person("d", "is_date_after", target), { d: value });

  it("read date texts V8 parses, epoch milliseconds as a filter value, and nothing else", () => {
    expect(isAfter("2024-06-01", "Sun, 02 Jun 2024 00:00:00 GMT")).toBe(true);
    expect(isAfter("Sat, 01 Jun 2024 00:00:00 GMT", "2024-06-01T00:00:01Z")).toBe(true);
    expect(isAfter("Sat, 01 Jun 2024 00:00:00 GMT", "2024-05-31T23:59:59Z")).toBe(false);
    expect(isAfter(Date.UTC(2024, 5, 1), "2024-06-01T00:00:01Z")).toBe(true);
    expect(isAfter(Date.UTC(2024, 5, 1), "2024-05-31T00:00:00Z")).toBe(false);
    expect(isAfter(true, "2024-06-01")).toBe(false);
    expect(isAfter({ date: "2024-06-01" }, "2024-06-02")).toBe(false);
    expect(isAfter("2024-06-01", true)).toBe(false);
    expect(isAfter("2024-06-01", Number.POSITIVE_INFINITY)).toBe(false);
    expect(isAfter("2024-06-01", ["2024-06-02"])).toBe(false);
    expect(isAfter("2024-06-01", "inf")).toBe(false);
  });

  it("is_date_before and is_date_exact on epoch seconds", () => {
    const seconds = String(Date.UTC(2024, 5, 1) / 1000);
    expect(matches(person("d", "is_date_exact", "2024-06-01T00:00:00Z"), { d: seconds })).toBe(true);
    expect(matches(person("d", "is_date_before", "2024-06-01T00:00:01Z"), { d: seconds })).toBe(true);
    expect(matches(person("d", "is_date_before", "2024-06-01T00:00:00Z"), { d: seconds })).toBe(false);
    expect(matches(person("d", "is_date_exact", "2024-06-01T00:00:00Z"), { d: Date.UTC(2024, 5, 1) })).toBe(
      true,
    );
  });
});

describe("semver wildcards without a star (posthog-node computeWildcardBounds)", () => {
  const wildcard = (value: string, actual: string) =>
    matches(person("v", "semver_wildcard", value), { v: actual });

  it("read 'x.y.z' as x.y.*, 'x' as x.*, with a leading v", () => {
    expect(wildcard("1.2.3", "1.2.0")).toBe(true);
    expect(wildcard("1.2.3", "1.2.99")).toBe(true);
    expect(wildcard("1.2.3", "1.3.0")).toBe(false);
    expect(wildcard("1.2.3", "1.1.9")).toBe(false);
    expect(wildcard("1", "1.0.0")).toBe(true);
    expect(wildcard("1", "1.99.0")).toBe(true);
    expect(wildcard("1", "2.0.0")).toBe(false);
    expect(wildcard("1", "0.9.9")).toBe(false);
    expect(wildcard(" V2.5 ", "2.5.1")).toBe(true);
    expect(wildcard("1.a", "1.0.0")).toBe(false);
    expect(wildcard("beta", "1.0.0")).toBe(false);
    expect(wildcard("1.2", "1.2.0-rc.1")).toBe(true);
  });

  it("other semver operators on a null or missing value are false; semver_lte and semver_lt at the bound", () => {
    expect(matches(person("v", "semver_lte", "2.0.0"), { v: "2.0.0" })).toBe(true);
    expect(matches(person("v", "semver_lt", "2.0.0"), { v: "2.0.0" })).toBe(false);
    expect(matches(person("v", "semver_gt", "2.0.0"), { v: "2.0.0" })).toBe(false);
    expect(matches(person("v", "semver_eq", "2.0.0"), { v: null })).toBe(false);
    expect(matches(person("v", "semver_wildcard", "2.*"), { v: null })).toBe(false);
  });
});

describe("filter keys", () => {
  it("may be numbers, naming the property of that text", () => {
    expect(matches({ key: 5, type: "person", operator: "exact", value: "x" }, { "5": "x" })).toBe(true);
    expect(matches({ key: 5, type: "person", operator: "is_set" }, { "5": null })).toBe(true);
    expect(matches({ key: 5, type: "person", operator: "is_not_set" }, { "5": 1 })).toBe(false);
    expect(matches({ key: true, type: "person", operator: "is_not_set" }, {})).toBe(false);
  });

  it("read own properties only, not the prototype's, and undefined as missing", () => {
    expect(matches(person("toString", "is_set"), {})).toBe(false);
    expect(matches(person("toString", "is_not", "x"), {})).toBe(true);
    expect(matches(person("k", "is_set"), { k: undefined })).toBe(false);
    expect(matches(person("k", "is_not", "x"), { k: undefined })).toBe(true);
  });
});

describe("edges the mutation run found unchecked", () => {
  const between = (bounds: unknown[], value: unknown) =>
    matches(person("n", "between", bounds), { n: value });
  const wildcard = (value: string, actual: string) =>
    matches(person("v", "semver_wildcard", value), { v: actual });

  it("number texts: several digits after a bare point or in the exponent; inf only as the whole text", () => {
    expect(between([0, 1], ".25")).toBe(true);
    expect(between([0, 1e11], "1e10")).toBe(true);
    expect(between([0, "inf"], "xinf")).toBe(false);
    expect(between([0, "inf"], "-xinf")).toBe(false);
    // A number property is read as is, an infinite one too.
    expect(between([0, "inf"], Number.POSITIVE_INFINITY)).toBe(true);
    // An unreadable upper bound is no bound: nothing matches.
    expect(between([-1, "x"], 0)).toBe(false);
  });

  it("a date-time without an offset is UTC whatever the process's time zone", () => {
    const zone = process.env["TZ"];
    process.env["TZ"] = "America/New_York";
    try {
      expect(
        matches(person("d", "is_date_exact", "2024-06-01T10:00:00Z"), { d: "2024-06-01T10:00:00" }),
      ).toBe(true);
    } finally {
      if (zone === undefined) delete process.env["TZ"];
      else process.env["TZ"] = zone;
    }
  });

  it("star-less wildcards: only a leading v is dropped, the first two parts must be numbers, more digits count", () => {
    expect(wildcard("1.v2", "1.2.0")).toBe(false);
    expect(wildcard("1.2.beta", "1.2.5")).toBe(true);
    expect(wildcard("10", "10.1.0")).toBe(true);
    expect(wildcard("10", "1.1.0")).toBe(false);
  });

  it("other semver operators read the filter value leniently, never as a wildcard", () => {
    expect(matches(person("v", "semver_gt", "1.2.3.4"), { v: "1.3.0" })).toBe(true);
    expect(matches(person("v", "semver_eq", "1.2"), { v: "1.2.5" })).toBe(false);
    // A capital V is dropped too (posthog-node's parseSemver), and the value is still no wildcard.
    expect(matches(person("v", "semver_gt", "V1.2.0"), { v: "1.4.0" })).toBe(true);
  });
});
