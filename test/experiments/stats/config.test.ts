/**
 * `stats_config` read with PostHog's fallbacks (src/experiments/stats/config.ts;
 * `get_experiment_stats_method`, `_validate_numeric_range`, `_parse_enum_config` in
 * posthog/hogql_queries/experiments/utils.py): defaults, accepted values, and every value that falls back.
 */
import { describe, expect, it } from "vitest";
import {
  parseEnumConfig,
  parseStatsConfig,
  pythonFloat,
  STATS_CONFIG_DEFAULTS,
  statsMethod,
  validateNumericRange,
} from "../../../src/experiments/stats/config.js";
import { DIFFERENCE_TYPES } from "../../../src/experiments/stats/statistics.js";

describe("statsMethod (get_experiment_stats_method)", () => {
  it("takes bayesian or frequentist", () => {
    expect(statsMethod({ method: "frequentist" })).toBe("frequentist");
    expect(statsMethod({ method: "bayesian" })).toBe("bayesian");
  });

  it("falls back to bayesian for no config, no method, an unknown method or a malformed config", () => {
    for (const config of [
      null,
      undefined,
      {},
      { method: "Frequentist" },
      { method: "sequential" },
      { method: null },
      { method: 1 },
      { method: ["frequentist"] },
      [],
      "frequentist",
      42,
    ]) {
      expect(statsMethod(config), JSON.stringify(config)).toBe("bayesian");
    }
  });

  it("never reads an inherited key", () => {
    const config = Object.create({ method: "frequentist" }) as object;
    expect(statsMethod(config)).toBe("bayesian");
  });
});

describe("pythonFloat (Python's float() on a JSON value)", () => {
  it("takes numbers, booleans and Python float strings", () => {
    const cases: [unknown, number][] = [
      [0.9, 0.9],
      [1, 1],
      [true, 1],
      [false, 0],
      ["0.9", 0.9],
      [" 0.9\n", 0.9],
      ["1e-1", 0.1],
      ["+.5", 0.5],
      ["5.", 5],
      ["1_000", 1000],
      ["0.0_1", 0.01],
      ["-0", -0],
      ["inf", Number.POSITIVE_INFINITY],
      ["-Infinity", Number.NEGATIVE_INFINITY],
    ];
    for (const [value, expected] of cases) expect(pythonFloat(value), JSON.stringify(value)).toBe(expected);
    expect(pythonFloat("nan")).toBeNaN();
    expect(pythonFloat("-NaN")).toBeNaN();
  });

  it("refuses what float() refuses", () => {
    for (const value of [
      null,
      undefined,
      [],
      [0.5],
      {},
      "",
      " ",
      "abc",
      "0x10",
      "1__0",
      "_1",
      "1_",
      "0.5%",
      "1e",
      ".",
      "∞",
    ]) {
      expect(pythonFloat(value), JSON.stringify(value)).toBeNull();
    }
  });
});

describe("validateNumericRange (_validate_numeric_range)", () => {
  it("keeps a value inside the range, bounds included", () => {
    expect(validateNumericRange(0.9, 0, 1, 0.95)).toBe(0.9);
    expect(validateNumericRange("0.8", 0, 1, 0.95)).toBe(0.8);
    expect(validateNumericRange(0, 0, 1, 0.95)).toBe(0);
    expect(validateNumericRange(1, 0, 1, 0.95)).toBe(1);
    expect(validateNumericRange(true, 0, 1, 0.95)).toBe(1);
  });

  it("falls back outside the range, for NaN and for what float() refuses", () => {
    for (const value of [
      1.01,
      -0.01,
      95,
      "95",
      "nan",
      "inf",
      null,
      undefined,
      "high",
      [0.9],
      { value: 0.9 },
    ]) {
      expect(validateNumericRange(value, 0, 1, 0.95), JSON.stringify(value)).toBe(0.95);
    }
  });
});

describe("parseEnumConfig (_parse_enum_config)", () => {
  it("takes a member's name, case-sensitively, else the fallback", () => {
    expect(parseEnumConfig("ABSOLUTE", DIFFERENCE_TYPES, "RELATIVE")).toBe("ABSOLUTE");
    expect(parseEnumConfig("RELATIVE", DIFFERENCE_TYPES, "RELATIVE")).toBe("RELATIVE");
    for (const value of [
      "absolute",
      "Absolute",
      "RATIO",
      "",
      null,
      1,
      ["ABSOLUTE"],
      undefined,
      "__proto__",
      "toString",
    ]) {
      expect(parseEnumConfig(value, DIFFERENCE_TYPES, "RELATIVE"), String(value)).toBe("RELATIVE");
    }
  });
});

describe("parseStatsConfig", () => {
  it("gives PostHog's defaults for no config", () => {
    for (const config of [null, undefined, {}, [], "x", 0]) {
      expect(parseStatsConfig(config), JSON.stringify(config)).toEqual(STATS_CONFIG_DEFAULTS);
    }
    expect(STATS_CONFIG_DEFAULTS).toEqual({
      method: "bayesian",
      frequentist: { alpha: 0.05, difference_type: "RELATIVE" },
      bayesian: { ci_level: 0.95, difference_type: "RELATIVE", prior_type: "RELATIVE" },
    });
  });

  it("reads every value PostHog reads", () => {
    expect(
      parseStatsConfig({
        method: "frequentist",
        frequentist: { alpha: 0.1, difference_type: "ABSOLUTE" },
        bayesian: { ci_level: "0.9", difference_type: "ABSOLUTE", prior_type: "ABSOLUTE" },
      }),
    ).toEqual({
      method: "frequentist",
      frequentist: { alpha: 0.1, difference_type: "ABSOLUTE" },
      bayesian: { ci_level: 0.9, difference_type: "ABSOLUTE", prior_type: "ABSOLUTE" },
    });
  });

  it("falls back value by value", () => {
    expect(
      parseStatsConfig({
        method: "frequentist",
        frequentist: { alpha: 5, difference_type: "absolute" },
        bayesian: { ci_level: 95, difference_type: null, prior_type: "GAMMA" },
      }),
    ).toEqual({ ...STATS_CONFIG_DEFAULTS, method: "frequentist" });
  });

  it("reads a section that is not an object as absent", () => {
    expect(parseStatsConfig({ method: "frequentist", frequentist: null, bayesian: [0.9] })).toEqual({
      ...STATS_CONFIG_DEFAULTS,
      method: "frequentist",
    });
    expect(parseStatsConfig({ frequentist: "alpha=0.1", bayesian: 0.9 })).toEqual(STATS_CONFIG_DEFAULTS);
  });

  it("keeps the bounds 0 and 1 (the method refuses them later)", () => {
    const config = parseStatsConfig({ frequentist: { alpha: 0 }, bayesian: { ci_level: 1 } });
    expect(config.frequentist.alpha).toBe(0);
    expect(config.bayesian.ci_level).toBe(1);
  });

  it("ignores unknown keys (CUPED, sequential testing are not read)", () => {
    expect(
      parseStatsConfig({
        cuped: { enabled: true },
        frequentist: { sequential_testing_enabled: true },
        other: 1,
      }),
    ).toEqual(STATS_CONFIG_DEFAULTS);
  });
});
