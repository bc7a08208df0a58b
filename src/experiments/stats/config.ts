/**
 * An experiment's `stats_config` as PostHog's runner reads it (`get_experiment_stats_method`,
 * `get_frequentist_experiment_result`, `get_bayesian_experiment_result`, `_validate_numeric_range`,
 * `_parse_enum_config` in posthog/hogql_queries/experiments/utils.py, newest; query-and-experiments.md 2a).
 * Pure, and never throws: a missing or unusable value falls back to PostHog's default, as PostHog does.
 *
 * Stored shape: `{method?: "bayesian"|"frequentist", bayesian?: {ci_level?, difference_type?, prior_type?},
 * frequentist?: {alpha?, difference_type?}}`. Numbers are taken as Python's `float()` takes them (numbers,
 * booleans, numeric strings such as " 0.9 " or "1e-1") and kept only inside [0, 1], bounds included;
 * enums by member name (`"ABSOLUTE"`, not `"absolute"`). The bounds 0 and 1 pass here and are refused
 * later by the method (`ci_level must be between 0 and 1`), as in PostHog.
 *
 * Where PostHog would fail on a malformed document (a `bayesian` or `frequentist` key that is not an
 * object, a `stats_config` that is not an object), this reads it as absent and uses the defaults.
 * Not read (not built): CUPED and sequential-testing settings.
 */
import { ownValue } from "../../core/own-keys.js";
import { PRIOR_TYPES, type PriorType } from "./bayesian.js";
import { DIFFERENCE_TYPES, type DifferenceType } from "./statistics.js";

/** PostHog's statistics methods; `bayesian` is the default. */
export const STATS_METHODS = ["bayesian", "frequentist"] as const;

/** One of `STATS_METHODS`. */
export type StatsMethod = (typeof STATS_METHODS)[number];

/** `stats_config` after PostHog's fallbacks: what the methods run with. */
export interface StatsConfig {
  method: StatsMethod;
  frequentist: { alpha: number; difference_type: DifferenceType };
  bayesian: { ci_level: number; difference_type: DifferenceType; prior_type: PriorType };
}

/** PostHog's defaults for every `stats_config` value. */
export const STATS_CONFIG_DEFAULTS: StatsConfig = {
  method: "bayesian",
  frequentist: { alpha: 0.05, difference_type: "RELATIVE" },
  bayesian: { ci_level: 0.95, difference_type: "RELATIVE", prior_type: "RELATIVE" },
};

/** Python's float literal grammar as `float()` accepts it (ASCII digits, `_` between digits). */
const PYTHON_FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$|^[+-]?(?:inf|infinity|nan)$/i;

/**
 * `float(value)` as Python computes it for a JSON value, or null where Python raises (TypeError or
 * ValueError): numbers as they are, booleans 1/0, strings by Python's float grammar after trimming
 * whitespace (`"inf"`, `"nan"` included); null, arrays and objects are refused.
 */
export function pythonFloat(value: unknown): number | null {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (!PYTHON_FLOAT.test(text)) return null;
  const lowered = text.toLowerCase().replace(/^[+]/, "");
  if (lowered.endsWith("nan")) return Number.NaN;
  if (lowered.endsWith("inf") || lowered.endsWith("infinity")) {
    return lowered.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  return Number(text.replaceAll("_", ""));
}

/**
 * PostHog's `_validate_numeric_range`: `float(value)` when it is within [min, max] (bounds included),
 * else `fallback` (also for NaN and for values `float()` refuses).
 */
export function validateNumericRange(value: unknown, min: number, max: number, fallback: number): number {
  const number = pythonFloat(value);
  if (number === null || !(min <= number && number <= max)) return fallback;
  return number;
}

/** PostHog's `_parse_enum_config`: a string naming a member (case-sensitive) is that member, else `fallback`. */
export function parseEnumConfig<T extends string>(value: unknown, names: readonly T[], fallback: T): T {
  return typeof value === "string" && (names as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** The object under `key`, or `{}` when absent, null or not an object. */
function section(config: Record<string, unknown> | null, key: string): Record<string, unknown> {
  const value = config?.[key];
  return isPlainObject(value) ? value : {};
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * PostHog's `get_experiment_stats_method`: `stats_config.method` when it is `bayesian` or `frequentist`,
 * else `bayesian` (also for no config).
 */
export function statsMethod(statsConfig: unknown): StatsMethod {
  if (!isPlainObject(statsConfig)) return "bayesian";
  return parseEnumConfig(ownValue(statsConfig, "method"), STATS_METHODS, "bayesian");
}

/**
 * An experiment's stored `stats_config` (any JSON, or null) read with PostHog's fallbacks: method as
 * `statsMethod`; `frequentist.alpha` and `bayesian.ci_level` in [0, 1] else 0.05 / 0.95;
 * `difference_type` and `prior_type` by member name else `RELATIVE`.
 */
export function parseStatsConfig(statsConfig: unknown): StatsConfig {
  const config = isPlainObject(statsConfig) ? statsConfig : null;
  const frequentist = section(config, "frequentist");
  const bayesian = section(config, "bayesian");
  const defaults = STATS_CONFIG_DEFAULTS;
  return {
    method: statsMethod(statsConfig),
    frequentist: {
      alpha: validateNumericRange(ownValue(frequentist, "alpha"), 0, 1, defaults.frequentist.alpha),
      difference_type: parseEnumConfig(
        ownValue(frequentist, "difference_type"),
        DIFFERENCE_TYPES,
        defaults.frequentist.difference_type,
      ),
    },
    bayesian: {
      ci_level: validateNumericRange(ownValue(bayesian, "ci_level"), 0, 1, defaults.bayesian.ci_level),
      difference_type: parseEnumConfig(
        ownValue(bayesian, "difference_type"),
        DIFFERENCE_TYPES,
        defaults.bayesian.difference_type,
      ),
      prior_type: parseEnumConfig(
        ownValue(bayesian, "prior_type"),
        PRIOR_TYPES,
        defaults.bayesian.prior_type,
      ),
    },
  };
}
