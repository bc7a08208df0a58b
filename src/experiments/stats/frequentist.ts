/**
 * PostHog's frequentist method: a two-sided Welch t-test of treatment against control
 * (`products/experiments/stats/frequentist/{method,tests,utils}.py`, query-and-experiments.md 2b Step 5).
 * Pure. Student's t distribution from `@stdlib` (matches scipy's `stats.t` to ~1e-15).
 *
 * Steps, in PostHog's order (the first failure wins, so the message is PostHog's): sample sizes ≥ 5,
 * point estimate δ, its variance Var(δ), Welch–Satterthwaite df, t = δ/√Var(δ),
 * p = 2·(1 − Tcdf(|t|, df)), CI = δ ± Tinv(1 − α/2, df)·√Var(δ), significant = p < α.
 * Sequential testing (PostHog's always-valid intervals, `sequential_testing_enabled`) is not built.
 */
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import {
  type DifferenceType,
  pythonDivide,
  type Statistic,
  StatisticError,
  statisticMean,
} from "./statistics.js";

/** PostHog's frequentist defaults (`FrequentistConfig`): α = 0.05, relative difference. */
export const FREQUENTIST_DEFAULTS = { alpha: 0.05, differenceType: "RELATIVE" } as const;

/** The smallest sample per arm the t-test accepts (`validate_sample_sizes`, `min_sample_size = 5`). */
export const MIN_SAMPLE_SIZE = 5;

/** How a frequentist test runs (PostHog's `FrequentistConfig`; the test type is always two-sided). */
export interface FrequentistConfig {
  /** Significance level, 0 < α < 1. */
  alpha: number;
  differenceType: DifferenceType;
}

/** One test's outcome (PostHog's `TestResult`). Intervals and δ are on the effect scale. */
export interface FrequentistResult {
  /** δ: the relative lift (0.1 = +10 %) or the absolute difference of means. */
  pointEstimate: number;
  /** Var(δ), the pooled variance the t statistic divides by. */
  variance: number;
  /** [lower, upper] of the (1 − α) confidence interval of δ. */
  confidenceInterval: [number, number];
  pValue: number;
  tStatistic: number;
  /** Welch–Satterthwaite degrees of freedom (fractional). */
  degreesOfFreedom: number;
  /** p < α. */
  isSignificant: boolean;
  alpha: number;
}

/**
 * The effect δ of treatment over control (`calculate_point_estimate`).
 * @throws StatisticError `Control mean cannot be zero for relative difference calculation` (|μC| < 1e-10, RELATIVE).
 */
export function pointEstimate(
  treatment: Statistic,
  control: Statistic,
  differenceType: DifferenceType,
): number {
  const treatmentMean = statisticMean(treatment);
  const controlMean = statisticMean(control);
  if (differenceType === "ABSOLUTE") return treatmentMean - controlMean;
  if (Math.abs(controlMean) < 1e-10) {
    throw new StatisticError("Control mean cannot be zero for relative difference calculation");
  }
  return (treatmentMean - controlMean) / controlMean;
}

/**
 * Var(δ) (`calculate_variance_pooled`): ABSOLUTE VT/nT + VC/nC; RELATIVE by the delta method without
 * covariance between the arms, VT/(nT·μC²) + μT²·VC/(nC·μC⁴).
 * @throws StatisticError `Control mean cannot be zero for relative variance calculation`.
 */
export function pooledVariance(
  treatment: Statistic,
  control: Statistic,
  differenceType: DifferenceType,
): number {
  const treatmentVariance = treatment.variance;
  const controlVariance = control.variance;
  if (differenceType === "ABSOLUTE") return treatmentVariance / treatment.n + controlVariance / control.n;
  const treatmentMean = statisticMean(treatment);
  const controlMean = statisticMean(control);
  if (Math.abs(controlMean) < 1e-10) {
    throw new StatisticError("Control mean cannot be zero for relative variance calculation");
  }
  return (
    treatmentVariance / (treatment.n * controlMean ** 2) +
    (treatmentMean ** 2 * controlVariance) / (control.n * controlMean ** 4)
  );
}

/**
 * Welch–Satterthwaite df = (a + b)² / (a²/(nT − 1) + b²/(nC − 1)), a = VT/nT, b = VC/nC
 * (`calculate_welch_satterthwaite_df`).
 * @throws StatisticError `Welch-Satterthwaite requires n ≥ 2 per group.`; `float division by zero` when
 *   both arms have zero variance (Python's ZeroDivisionError there).
 */
export function welchSatterthwaiteDf(treatment: Statistic, control: Statistic): number {
  if (Math.min(treatment.n, control.n) < 2) {
    throw new StatisticError("Welch-Satterthwaite requires n ≥ 2 per group.");
  }
  const a = treatment.variance / treatment.n;
  const b = control.variance / control.n;
  return pythonDivide((a + b) ** 2, a ** 2 / (treatment.n - 1) + b ** 2 / (control.n - 1));
}

/**
 * Checks PostHog's configuration rule (`FrequentistConfig.__post_init__`).
 * @throws StatisticError `Alpha must be between 0 and 1` unless 0 < α < 1.
 */
export function checkFrequentistConfig(config: FrequentistConfig): void {
  if (!(config.alpha > 0 && config.alpha < 1)) throw new StatisticError("Alpha must be between 0 and 1");
}

/**
 * The two-sided Welch t-test (`TwoSidedTTest.run_test`), unwrapped: each failure keeps its own message.
 * Both statistics must be of the same kind (the caller builds them from one metric type).
 * @throws StatisticError `Treatment sample size (n) below minimum (5)` / `Control …`, the messages of
 *   `pointEstimate`, `pooledVariance`, `welchSatterthwaiteDf`, and `Pooled variance must be positive`.
 */
export function twoSidedTTest(
  treatment: Statistic,
  control: Statistic,
  config: FrequentistConfig = FREQUENTIST_DEFAULTS,
): FrequentistResult {
  checkFrequentistConfig(config);
  if (treatment.n < MIN_SAMPLE_SIZE) {
    throw new StatisticError(`Treatment sample size (${treatment.n}) below minimum (${MIN_SAMPLE_SIZE})`);
  }
  if (control.n < MIN_SAMPLE_SIZE) {
    throw new StatisticError(`Control sample size (${control.n}) below minimum (${MIN_SAMPLE_SIZE})`);
  }
  const delta = pointEstimate(treatment, control, config.differenceType);
  const variance = pooledVariance(treatment, control, config.differenceType);
  const degreesOfFreedom = welchSatterthwaiteDf(treatment, control);
  if (variance <= 0) throw new StatisticError("Pooled variance must be positive");
  const standardError = Math.sqrt(variance);
  const tStatistic = delta / standardError;
  const pValue = 2 * (1 - tCdf(Math.abs(tStatistic), degreesOfFreedom));
  const margin = tQuantile(1 - config.alpha / 2, degreesOfFreedom) * standardError;
  return {
    pointEstimate: delta,
    variance,
    confidenceInterval: [delta - margin, delta + margin],
    pValue,
    tStatistic,
    degreesOfFreedom,
    isSignificant: pValue < config.alpha,
    alpha: config.alpha,
  };
}

/**
 * PostHog's `FrequentistMethod.run_test`: the configuration is checked first (its error unwrapped, as
 * PostHog raises it when the config is built), then the t-test, whose every failure is re-raised as
 * `Test execution failed: <message>` with the original as `cause`.
 * @throws StatisticError as described.
 */
export function runFrequentistTest(
  treatment: Statistic,
  control: Statistic,
  config: FrequentistConfig = FREQUENTIST_DEFAULTS,
): FrequentistResult {
  checkFrequentistConfig(config);
  try {
    return twoSidedTTest(treatment, control, config);
  } catch (error) {
    if (!(error instanceof StatisticError)) throw error;
    throw new StatisticError(`Test execution failed: ${error.message}`, { cause: error });
  }
}
