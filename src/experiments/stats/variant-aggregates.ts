/**
 * Per-variant aggregates of one experiment metric: what the statistics consume
 * (query-and-experiments.md 2b Step 3; PostHog's `ExperimentStatsBase`,
 * frontend/src/queries/schema/schema-general.ts). Counts are integers; sums are in the metric's unit.
 */
export interface VariantAggregates {
  /** The variant key (`control`, `test`, ..., or `holdout-<id>`). */
  key: string;
  /** Exposed entities (persons, or groups for a group-aggregated flag). */
  number_of_samples: number;
  /** Σ per-entity value (funnel/retention: entities that converted). */
  sum: number;
  /** Σ per-entity value² (funnel/retention: same as `sum`, values being 0/1). */
  sum_squares: number;
  /** Funnel only: `step_counts[i]` = entities that reached at least step i+1. */
  step_counts?: number[];
  /** Ratio (and retention) only: Σ per-entity denominator. */
  denominator_sum?: number;
  /** Ratio (and retention) only: Σ per-entity denominator². */
  denominator_sum_squares?: number;
  /** Ratio (and retention) only: Σ per-entity numerator·denominator. */
  numerator_denominator_sum_product?: number;
}

/** The metric kinds whose aggregates the statistics read (PostHog's `metric_type`). */
export type ExperimentMetricType = "mean" | "funnel" | "ratio" | "retention";
