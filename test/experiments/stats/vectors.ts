/**
 * The statistics test vectors of query-and-experiments.md 2b (#1–#13): PostHog's own
 * (`products/experiments/stats/tests/test_frequentist.py`, `test_bayesian.py`) and scipy
 * reproductions of the same formulas, as statistic objects, plus a closeness check at 1e-6.
 */
import { expect } from "vitest";
import {
  ProportionStatistic,
  RatioStatistic,
  SampleMeanStatistic,
} from "../../../src/experiments/stats/statistics.js";

/** Vectors #1, #4, #9: mean metric, PostHog's `test_two_sided_ttest_with_sample_mean`. */
export const MEAN_TREATMENT = { n: 2461, sum: 1922.7, sumSquares: 94698.29 };
export const MEAN_CONTROL = { n: 2507, sum: 1196.87, sumSquares: 37377.9767 };

/** Vectors #3, #7: ratio metric, PostHog's `test_two_sided_ttest_with_ratio_statistic`. */
export const RATIO_TREATMENT = {
  n: 2034,
  m: { sum: 99673.9364269569, sumSquares: 11298745.182728939 },
  d: { sum: 947, sumSquares: 947 },
  md: 99673.9364269569,
};
export const RATIO_CONTROL = {
  n: 1966,
  m: { sum: 94605.79858780127, sumSquares: 10463129.505392816 },
  d: { sum: 936, sumSquares: 936 },
  md: 94605.79858780127,
};

/** A SampleMeanStatistic from `{n, sum, sumSquares}`. */
export function mean(arm: { n: number; sum: number; sumSquares: number }): SampleMeanStatistic {
  return new SampleMeanStatistic(arm.n, arm.sum, arm.sumSquares);
}

/** A ProportionStatistic of `successes` out of `n`. */
export function proportion(successes: number, n: number): ProportionStatistic {
  return new ProportionStatistic(n, successes);
}

/** A RatioStatistic from a ratio arm above. */
export function ratio(arm: typeof RATIO_TREATMENT): RatioStatistic {
  return new RatioStatistic(
    arm.n,
    new SampleMeanStatistic(arm.n, arm.m.sum, arm.m.sumSquares),
    new SampleMeanStatistic(arm.n, arm.d.sum, arm.d.sumSquares),
    arm.md,
  );
}

/** The brief's tolerance for every vector figure. */
export const TOLERANCE = 1e-6;

/** `actual` is within `TOLERANCE` of `expected`. */
export function expectClose(actual: number, expected: number, label = ""): void {
  expect(Math.abs(actual - expected), `${label}: ${actual} vs ${expected}`).toBeLessThanOrEqual(TOLERANCE);
}

/** Both ends of an interval are within `TOLERANCE`. */
export function expectInterval(
  actual: readonly [number, number] | null,
  expected: [number, number],
  label = "",
): void {
  expect(actual, label).not.toBeNull();
  expectClose(actual?.[0] ?? Number.NaN, expected[0], `${label} lower`);
  expectClose(actual?.[1] ?? Number.NaN, expected[1], `${label} upper`);
}
