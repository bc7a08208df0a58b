/**
 * The statistic objects of PostHog's experiment statistics engine and the effect sizes both methods
 * compare them by (`products/experiments/stats/shared/{statistics,utils,enums}.py`,
 * query-and-experiments.md 2b Step 5). Pure: numbers in, numbers out.
 *
 * Invariants: a statistic is valid once constructed (its constructor refuses what PostHog's
 * `__post_init__` refuses, with PostHog's messages); variances are per unit (per entity), so the
 * variance of a mean is `variance / n`. Every failure is a `StatisticError`, which the response
 * assembly turns into null statistics (src/experiments/stats/response.ts).
 */
import type { ExperimentMetricType, VariantAggregates } from "./variant-aggregates.js";

/**
 * A statistic cannot be computed from these inputs (PostHog's `StatisticError`, a `ValueError`).
 * Raised for invalid aggregates, a zero control mean, a non-positive variance, too small samples and
 * an invalid configuration; the message is PostHog's. `cause` holds the inner error when a method
 * wraps it (`Test execution failed: …`, `Bayesian test execution failed: …`).
 */
export class StatisticError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A statistic's inputs are invalid (PostHog's `InvalidStatisticError`, a `StatisticError`). */
export class InvalidStatisticError extends StatisticError {}

/**
 * How the effect of a treatment is measured against the control (PostHog's `DifferenceType`, by
 * member name as `stats_config` spells it): `RELATIVE` = (μT − μC)/μC (0.1 = +10 %), `ABSOLUTE` = μT − μC.
 */
export const DIFFERENCE_TYPES = ["RELATIVE", "ABSOLUTE"] as const;

/** One of `DIFFERENCE_TYPES`. */
export type DifferenceType = (typeof DIFFERENCE_TYPES)[number];

/**
 * A continuous metric's sufficient statistics (PostHog's `SampleMeanStatistic`): `n` observations,
 * their `sum` and `sumSquares`. Mean μ = sum/n; sample variance s² = (sumSquares − sum²/n)/(n−1), 0 for n = 1.
 * @throws InvalidStatisticError `Sample size must be positive` (n ≤ 0), `sum_squares must be >= sum^2 for
 *   single observation` (n = 1), `sum_squares incompatible with sum and n` (sumSquares < sum²/n).
 */
export class SampleMeanStatistic {
  readonly kind = "sample_mean";

  constructor(
    readonly n: number,
    readonly sum: number,
    readonly sumSquares: number,
  ) {
    if (n <= 0) throw new InvalidStatisticError("Sample size must be positive");
    if (n === 1 && sumSquares < sum ** 2) {
      throw new InvalidStatisticError("sum_squares must be >= sum^2 for single observation");
    }
    if (n > 1 && sumSquares < sum ** 2 / n)
      throw new InvalidStatisticError("sum_squares incompatible with sum and n");
  }

  /** μ = sum / n. */
  get mean(): number {
    return this.sum / this.n;
  }

  /** s² = (sumSquares − sum²/n) / (n − 1), per unit; 0 for a single observation. */
  get variance(): number {
    if (this.n === 1) return 0;
    return (this.sumSquares - this.sum ** 2 / this.n) / (this.n - 1);
  }
}

/**
 * A conversion metric's statistics (PostHog's `ProportionStatistic`): `sum` successes out of `n`
 * trials. Proportion p = sum/n, per-unit variance p(1 − p).
 * @throws InvalidStatisticError `Sample size must be positive`, `Number of successes cannot be negative`,
 *   `Number of successes cannot exceed sample size`.
 */
export class ProportionStatistic {
  readonly kind = "proportion";

  constructor(
    readonly n: number,
    readonly sum: number,
  ) {
    if (n <= 0) throw new InvalidStatisticError("Sample size must be positive");
    if (sum < 0) throw new InvalidStatisticError("Number of successes cannot be negative");
    if (sum > n) throw new InvalidStatisticError("Number of successes cannot exceed sample size");
  }

  /** p = sum / n. */
  get proportion(): number {
    return this.sum / this.n;
  }

  /** p(1 − p), per unit. */
  get variance(): number {
    const p = this.proportion;
    return p * (1 - p);
  }
}

/** What a ratio's numerator and denominator are (PostHog allows either statistic). */
export type RatioPart = SampleMeanStatistic | ProportionStatistic;

/**
 * A ratio metric's statistics (PostHog's `RatioStatistic`): per-entity numerator `m` and denominator
 * `d` over the same `n` entities, and Σ m·d. Ratio R = Σm/Σd; per-unit variance by the delta method
 * `Var = Vm/D̄² + M̄²·Vd/D̄⁴ − 2·M̄·cov/D̄³` with M̄, D̄ the per-entity means and
 * cov = (Σmd − Σm·Σd/n)/(n − 1) (0 for n = 1).
 * @throws InvalidStatisticError `Sample size must be positive`, `All statistics must have same sample size`,
 *   `Denominator mean cannot be zero for ratio calculation` (|D̄| < 1e-10).
 */
export class RatioStatistic {
  readonly kind = "ratio";

  constructor(
    readonly n: number,
    readonly mStatistic: RatioPart,
    readonly dStatistic: RatioPart,
    readonly mdSumOfProducts: number,
  ) {
    if (n <= 0) throw new InvalidStatisticError("Sample size must be positive");
    if (mStatistic.n !== n || dStatistic.n !== n) {
      throw new InvalidStatisticError("All statistics must have same sample size");
    }
    if (Math.abs(partMean(dStatistic)) < 1e-10) {
      throw new InvalidStatisticError("Denominator mean cannot be zero for ratio calculation");
    }
  }

  /** R = Σm / Σd. */
  get ratio(): number {
    return this.mStatistic.sum / this.dStatistic.sum;
  }

  /** Sample covariance of numerator and denominator, per unit; 0 for a single entity. */
  get covariance(): number {
    if (this.n === 1) return 0;
    return (this.mdSumOfProducts - (this.mStatistic.sum * this.dStatistic.sum) / this.n) / (this.n - 1);
  }

  /** Delta-method variance of R, per unit. */
  get variance(): number {
    const mMean = partMean(this.mStatistic);
    const dMean = partMean(this.dStatistic);
    return (
      this.mStatistic.variance / dMean ** 2 +
      (mMean ** 2 * this.dStatistic.variance) / dMean ** 4 -
      (2 * mMean * this.covariance) / dMean ** 3
    );
  }
}

/** Any statistic the engine compares (PostHog's `AnyStatistic`). */
export type Statistic = SampleMeanStatistic | ProportionStatistic | RatioStatistic;

/** The mean of a ratio's part. */
function partMean(part: RatioPart): number {
  return part.kind === "sample_mean" ? part.mean : part.proportion;
}

/** A statistic's central value: the mean, the proportion or the ratio (PostHog's `get_mean`). */
export function statisticMean(statistic: Statistic): number {
  switch (statistic.kind) {
    case "sample_mean":
      return statistic.mean;
    case "proportion":
      return statistic.proportion;
    case "ratio":
      return statistic.ratio;
  }
}

/**
 * The aggregates a statistic is built from: a variant's `VariantAggregates`, or its validated form
 * (src/experiments/stats/validation.ts), whose unset ratio fields are null.
 */
export type StatisticInputs = Pick<VariantAggregates, "number_of_samples" | "sum" | "sum_squares"> & {
  denominator_sum?: number | null;
  denominator_sum_squares?: number | null;
  numerator_denominator_sum_product?: number | null;
};

/**
 * The statistic PostHog builds from a variant's aggregates for a metric type
 * (`metric_variant_to_statistic`, posthog/hogql_queries/experiments/utils.py, newest): mean →
 * SampleMean(n, sum, sum_squares); funnel → Proportion(n, trunc(sum)); ratio and retention →
 * Ratio(n, SampleMean(n, sum, sum_squares), SampleMean(n, denominator_sum ?? 0, denominator_sum_squares ?? 0),
 * numerator_denominator_sum_product ?? 0).
 * @throws InvalidStatisticError when the aggregates make no valid statistic (see each constructor).
 */
export function statisticFromAggregates(
  metricType: ExperimentMetricType,
  variant: StatisticInputs,
): Statistic {
  const n = variant.number_of_samples;
  switch (metricType) {
    case "mean":
      return new SampleMeanStatistic(n, variant.sum, variant.sum_squares);
    case "funnel":
      return new ProportionStatistic(n, Math.trunc(variant.sum));
    case "ratio":
    case "retention":
      return new RatioStatistic(
        n,
        new SampleMeanStatistic(n, variant.sum, variant.sum_squares),
        new SampleMeanStatistic(n, variant.denominator_sum ?? 0, variant.denominator_sum_squares ?? 0),
        variant.numerator_denominator_sum_product ?? 0,
      );
  }
}

/**
 * Python's `ZeroDivisionError` for a float division PostHog's engine makes unguarded: JavaScript would
 * give Infinity or NaN where PostHog raises, and the method wraps the raise into a StatisticError.
 */
export function pythonDivide(numerator: number, denominator: number): number {
  if (denominator === 0) throw new StatisticError("float division by zero");
  return numerator / denominator;
}
