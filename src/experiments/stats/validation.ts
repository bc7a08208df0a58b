/**
 * Whether a variant has enough data for statistics (PostHog's `validate_variant_result`,
 * posthog/hogql_queries/experiments/utils.py, newest; query-and-experiments.md 2b Step 4), and the
 * validated shape (`ExperimentStatsBaseValidated`, 2c) every variant of a response carries. Pure.
 *
 * Key presence follows PostHog's pydantic dump: every field of the model is present, null when unset;
 * `validation_failures` is always a list (empty when the variant passes).
 */
import type { ExperimentMetricType, VariantAggregates } from "./variant-aggregates.js";

/** PostHog's `ExperimentStatsValidationFailure` values, in the order they are checked. */
export const VALIDATION_FAILURES = [
  "not-enough-exposures",
  "not-enough-metric-data",
  "baseline-mean-is-zero",
] as const;

/** One of `VALIDATION_FAILURES`. */
export type ExperimentStatsValidationFailure = (typeof VALIDATION_FAILURES)[number];

/** Fewer exposed entities than this: `not-enough-exposures`. */
export const MIN_EXPOSURES = 50;

/** Funnel and retention metrics with fewer conversions than this: `not-enough-metric-data`. */
export const MIN_METRIC_DATA = 5;

/**
 * A variant's aggregates with its validation failures (PostHog's `ExperimentStatsBaseValidated`).
 * Ratio fields are set for ratio and retention metrics, `step_counts` for funnels; else null.
 */
export interface ExperimentStatsBaseValidated {
  denominator_sum: number | null;
  denominator_sum_squares: number | null;
  key: string;
  number_of_samples: number;
  numerator_denominator_sum_product: number | null;
  step_counts: number[] | null;
  /** PostHog's sampled sessions per funnel step; not collected here, always null. */
  step_sessions: null;
  sum: number;
  sum_squares: number;
  validation_failures: ExperimentStatsValidationFailure[];
}

/**
 * The failures of one variant: `number_of_samples < 50` → `not-enough-exposures`; a funnel or retention
 * metric with `sum < 5` → `not-enough-metric-data`; the baseline with `sum == 0` → `baseline-mean-is-zero`.
 */
export function validationFailures(
  variant: VariantAggregates,
  metricType: ExperimentMetricType,
  isBaseline: boolean,
): ExperimentStatsValidationFailure[] {
  const failures: ExperimentStatsValidationFailure[] = [];
  if (variant.number_of_samples < MIN_EXPOSURES) failures.push("not-enough-exposures");
  if ((metricType === "funnel" || metricType === "retention") && variant.sum < MIN_METRIC_DATA) {
    failures.push("not-enough-metric-data");
  }
  if (isBaseline && variant.sum === 0) failures.push("baseline-mean-is-zero");
  return failures;
}

/**
 * PostHog's `validate_variant_result`: the variant's aggregates in the validated shape with its failures.
 * The ratio fields are copied together when `denominator_sum` is set, as PostHog does.
 */
export function validateVariant(
  variant: VariantAggregates,
  metricType: ExperimentMetricType,
  isBaseline = false,
): ExperimentStatsBaseValidated {
  const hasRatio = variant.denominator_sum !== undefined && variant.denominator_sum !== null;
  return {
    denominator_sum: hasRatio ? (variant.denominator_sum ?? null) : null,
    denominator_sum_squares: hasRatio ? (variant.denominator_sum_squares ?? null) : null,
    key: variant.key,
    number_of_samples: variant.number_of_samples,
    numerator_denominator_sum_product: hasRatio ? (variant.numerator_denominator_sum_product ?? null) : null,
    step_counts: variant.step_counts ?? null,
    step_sessions: null,
    sum: variant.sum,
    sum_squares: variant.sum_squares,
    validation_failures: validationFailures(variant, metricType, isBaseline),
  };
}
