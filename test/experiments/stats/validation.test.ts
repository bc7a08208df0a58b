/**
 * PostHog's validation of a variant (src/experiments/stats/validation.ts, `validate_variant_result`,
 * query-and-experiments.md 2b Step 4): each rule at its threshold, their order, and the validated shape.
 */
import { describe, expect, it } from "vitest";
import { validateVariant, validationFailures } from "../../../src/experiments/stats/validation.js";
import type { VariantAggregates } from "../../../src/experiments/stats/variant-aggregates.js";

const variant = (overrides: Partial<VariantAggregates> = {}): VariantAggregates => ({
  key: "test",
  number_of_samples: 100,
  sum: 10,
  sum_squares: 10,
  ...overrides,
});

describe("validationFailures", () => {
  it("not-enough-exposures below 50 exposures, for every metric type", () => {
    for (const metricType of ["mean", "funnel", "ratio", "retention"] as const) {
      expect(validationFailures(variant({ number_of_samples: 49 }), metricType, false)).toEqual([
        "not-enough-exposures",
      ]);
      expect(validationFailures(variant({ number_of_samples: 50 }), metricType, false)).toEqual([]);
    }
  });

  it("not-enough-metric-data below 5 conversions, for funnel and retention only", () => {
    for (const metricType of ["funnel", "retention"] as const) {
      expect(validationFailures(variant({ sum: 4 }), metricType, false)).toEqual(["not-enough-metric-data"]);
      expect(validationFailures(variant({ sum: 5 }), metricType, false)).toEqual([]);
    }
    for (const metricType of ["mean", "ratio"] as const) {
      expect(validationFailures(variant({ sum: 4 }), metricType, false)).toEqual([]);
    }
  });

  it("baseline-mean-is-zero for the baseline only", () => {
    expect(validationFailures(variant({ sum: 0 }), "mean", true)).toEqual(["baseline-mean-is-zero"]);
    expect(validationFailures(variant({ sum: 0 }), "mean", false)).toEqual([]);
    expect(validationFailures(variant({ sum: -0 }), "ratio", true)).toEqual(["baseline-mean-is-zero"]);
    expect(validationFailures(variant({ sum: 0.001 }), "mean", true)).toEqual([]);
  });

  it("lists every failure in PostHog's order", () => {
    expect(validationFailures(variant({ number_of_samples: 10, sum: 0 }), "funnel", true)).toEqual([
      "not-enough-exposures",
      "not-enough-metric-data",
      "baseline-mean-is-zero",
    ]);
  });
});

describe("validateVariant", () => {
  it("has every key of ExperimentStatsBaseValidated, null when unset, failures always a list", () => {
    const validated = validateVariant(variant(), "mean");
    expect(Object.keys(validated)).toEqual([
      "denominator_sum",
      "denominator_sum_squares",
      "key",
      "number_of_samples",
      "numerator_denominator_sum_product",
      "step_counts",
      "step_sessions",
      "sum",
      "sum_squares",
      "validation_failures",
    ]);
    expect(validated).toEqual({
      denominator_sum: null,
      denominator_sum_squares: null,
      key: "test",
      number_of_samples: 100,
      numerator_denominator_sum_product: null,
      step_counts: null,
      step_sessions: null,
      sum: 10,
      sum_squares: 10,
      validation_failures: [],
    });
  });

  it("keeps funnel step counts and the ratio fields", () => {
    expect(validateVariant(variant({ step_counts: [80, 10] }), "funnel").step_counts).toEqual([80, 10]);
    const ratio = validateVariant(
      variant({ denominator_sum: 200, denominator_sum_squares: 500, numerator_denominator_sum_product: 40 }),
      "ratio",
    );
    expect(ratio).toMatchObject({
      denominator_sum: 200,
      denominator_sum_squares: 500,
      numerator_denominator_sum_product: 40,
    });
  });

  it("copies the ratio fields only with a denominator sum, as PostHog does", () => {
    const validated = validateVariant(
      variant({ denominator_sum_squares: 5, numerator_denominator_sum_product: 3 }),
      "ratio",
    );
    expect(validated).toMatchObject({
      denominator_sum: null,
      denominator_sum_squares: null,
      numerator_denominator_sum_product: null,
    });
  });
});
