/**
 * An experiment metric's result from its per-variant aggregates: validation, the configured method
 * per test variant against the baseline, and PostHog's response body (`get_bayesian_experiment_result`,
 * `get_frequentist_experiment_result`, `split_baseline_and_test_variants` in
 * posthog/hogql_queries/experiments/utils.py, newest; query-and-experiments.md 2b Steps 4–5, 2c). Pure.
 *
 * Guarantees, as PostHog's runner: every test variant appears, in the given order, with its aggregates
 * and `validation_failures`; its statistics (`chance_to_win`/`credible_interval` or
 * `p_value`/`confidence_interval`, and `significant`) are set only when neither it nor the baseline has
 * a validation failure and no `StatisticError` arises, and are null otherwise. Intervals are on the
 * effect scale (relative lift by default). Every key of PostHog's models is present (null when unset),
 * in the models' (alphabetical) order. CUPED (`covariate_*`) is not built.
 */
import { ValidationError } from "../../core/errors.js";
import { type BayesianConfig, checkBayesianConfig, runBayesianTest } from "./bayesian.js";
import { parseStatsConfig, type StatsConfig } from "./config.js";
import { checkFrequentistConfig, type FrequentistConfig, runFrequentistTest } from "./frequentist.js";
import { type Statistic, StatisticError, statisticFromAggregates } from "./statistics.js";
import { type ExperimentStatsBaseValidated, validateVariant } from "./validation.js";
import type { ExperimentMetricType, VariantAggregates } from "./variant-aggregates.js";

/** PostHog's `CONTROL_VARIANT_KEY`: the variant every other is compared with. */
export const CONTROL_VARIANT_KEY = "control";

/**
 * The collected aggregates cannot make a result: no baseline variant, or more than one
 * (PostHog's `ExperimentDataError`, a `ValueError`).
 */
export class ExperimentDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A test variant's Bayesian result (PostHog's `ExperimentVariantResultBayesian`). */
export interface ExperimentVariantResultBayesian {
  /** P(effect > 0); null without statistics. */
  chance_to_win: number | null;
  /** [lower, upper] credible interval of the effect at `ci_level`; null without statistics. */
  credible_interval: [number, number] | null;
  denominator_sum: number | null;
  denominator_sum_squares: number | null;
  key: string;
  method: "bayesian";
  number_of_samples: number;
  numerator_denominator_sum_product: number | null;
  /** Decisive: chance_to_win > ci_level or < 1 − ci_level; null without statistics. */
  significant: boolean | null;
  step_counts: number[] | null;
  step_sessions: null;
  sum: number;
  sum_squares: number;
  validation_failures: ExperimentStatsBaseValidated["validation_failures"];
}

/** A test variant's frequentist result (PostHog's `ExperimentVariantResultFrequentist`). */
export interface ExperimentVariantResultFrequentist {
  /** [lower, upper] (1 − alpha) confidence interval of the effect; null without statistics. */
  confidence_interval: [number, number] | null;
  denominator_sum: number | null;
  denominator_sum_squares: number | null;
  key: string;
  method: "frequentist";
  number_of_samples: number;
  numerator_denominator_sum_product: number | null;
  /** Two-sided Welch t-test p-value; null without statistics. */
  p_value: number | null;
  /** p_value < alpha; null without statistics. */
  significant: boolean | null;
  step_counts: number[] | null;
  step_sessions: null;
  sum: number;
  sum_squares: number;
  validation_failures: ExperimentStatsBaseValidated["validation_failures"];
}

/** PostHog's `ExperimentQueryResponse` core: the baseline and one result per test variant. */
export type ExperimentResult =
  | { baseline: ExperimentStatsBaseValidated; variant_results: ExperimentVariantResultBayesian[] }
  | { baseline: ExperimentStatsBaseValidated; variant_results: ExperimentVariantResultFrequentist[] };

/** Options of `experimentResult`. */
export interface ExperimentResultOptions {
  /** The variant the others are compared with; PostHog's default `control`. */
  baselineKey?: string;
}

/**
 * The baseline and the test variants, in order (`split_baseline_and_test_variants`).
 * @throws ExperimentDataError `No control variant found`, `Multiple control variants found`.
 */
export function splitBaselineAndTestVariants(
  variants: readonly VariantAggregates[],
  baselineKey = CONTROL_VARIANT_KEY,
): { baseline: VariantAggregates; tests: VariantAggregates[] } {
  const baselines = variants.filter((variant) => variant.key === baselineKey);
  const [baseline] = baselines;
  if (baseline === undefined) throw new ExperimentDataError("No control variant found");
  if (baselines.length > 1) throw new ExperimentDataError("Multiple control variants found");
  return { baseline, tests: variants.filter((variant) => variant.key !== baselineKey) };
}

/** The frequentist method's configuration from the parsed `stats_config`, as PostHog's runner builds it. */
function frequentistConfig(config: StatsConfig): FrequentistConfig {
  return { alpha: config.frequentist.alpha, differenceType: config.frequentist.difference_type };
}

/** The Bayesian method's configuration as PostHog's runner builds it: never inverse, improper prior. */
function bayesianConfig(config: StatsConfig): BayesianConfig {
  return {
    ciLevel: config.bayesian.ci_level,
    inverse: false,
    differenceType: config.bayesian.difference_type,
    priorType: config.bayesian.prior_type,
    prior: { mean: 0, variance: 1, proper: false },
  };
}

/** `statisticFromAggregates`, or null when the aggregates make no valid statistic (PostHog logs and skips). */
function statisticOrNull(
  metricType: ExperimentMetricType,
  variant: ExperimentStatsBaseValidated,
): Statistic | null {
  return statisticsOrNull(() => statisticFromAggregates(metricType, variant));
}

/** Runs `test` unless a StatisticError makes the variant's statistics null (PostHog logs and skips). */
function statisticsOrNull<T>(test: () => T): T | null {
  try {
    return test();
  } catch (error) {
    if (error instanceof StatisticError) return null;
    throw error;
  }
}

/**
 * PostHog's result of one metric (`get_{bayesian,frequentist}_experiment_result`) from the per-variant
 * aggregates (in the flag's variant order, baseline included, `$multiple` already removed), the metric's
 * type and the experiment's stored `stats_config` (any JSON; read by `parseStatsConfig`).
 * @throws ExperimentDataError no baseline variant, or several.
 * @throws StatisticError `ci_level must be between 0 and 1` / `Alpha must be between 0 and 1` when
 *   `stats_config` gives exactly 0 or 1 (in range for the parser, refused by the method, as PostHog does).
 */
export function experimentResult(
  aggregates: readonly VariantAggregates[],
  metricType: ExperimentMetricType,
  statsConfig: unknown,
  options: ExperimentResultOptions = {},
): ExperimentResult {
  const config = parseStatsConfig(statsConfig);
  const { baseline, tests } = splitBaselineAndTestVariants(aggregates, options.baselineKey);
  // PostHog builds the method's configuration first: an invalid one fails the whole result.
  const frequentist = frequentistConfig(config);
  const bayesian = bayesianConfig(config);
  if (config.method === "frequentist") checkFrequentistConfig(frequentist);
  else checkBayesianConfig(bayesian);

  const baselineValidated = validateVariant(baseline, metricType, true);
  const testsValidated = tests.map((variant) => validateVariant(variant, metricType));
  const controlStatistic =
    baselineValidated.validation_failures.length === 0
      ? statisticOrNull(metricType, baselineValidated)
      : null;

  /** The test variant's statistic, when it and the baseline passed validation and both make statistics. */
  const comparable = (variant: ExperimentStatsBaseValidated): [Statistic, Statistic] | null => {
    if (controlStatistic === null || variant.validation_failures.length > 0) return null;
    const testStatistic = statisticOrNull(metricType, variant);
    return testStatistic === null ? null : [testStatistic, controlStatistic];
  };

  if (config.method === "frequentist") {
    return {
      baseline: baselineValidated,
      variant_results: testsValidated.map((variant): ExperimentVariantResultFrequentist => {
        const pair = comparable(variant);
        const result =
          pair === null ? null : statisticsOrNull(() => runFrequentistTest(pair[0], pair[1], frequentist));
        return {
          confidence_interval: result === null ? null : result.confidenceInterval,
          denominator_sum: variant.denominator_sum,
          denominator_sum_squares: variant.denominator_sum_squares,
          key: variant.key,
          method: "frequentist",
          number_of_samples: variant.number_of_samples,
          numerator_denominator_sum_product: variant.numerator_denominator_sum_product,
          p_value: result === null ? null : result.pValue,
          significant: result === null ? null : result.isSignificant,
          step_counts: variant.step_counts,
          step_sessions: variant.step_sessions,
          sum: variant.sum,
          sum_squares: variant.sum_squares,
          validation_failures: variant.validation_failures,
        };
      }),
    };
  }
  return {
    baseline: baselineValidated,
    variant_results: testsValidated.map((variant): ExperimentVariantResultBayesian => {
      const pair = comparable(variant);
      const result =
        pair === null ? null : statisticsOrNull(() => runBayesianTest(pair[0], pair[1], bayesian));
      return {
        chance_to_win: result === null ? null : result.chanceToWin,
        credible_interval: result === null ? null : result.credibleInterval,
        denominator_sum: variant.denominator_sum,
        denominator_sum_squares: variant.denominator_sum_squares,
        key: variant.key,
        method: "bayesian",
        number_of_samples: variant.number_of_samples,
        numerator_denominator_sum_product: variant.numerator_denominator_sum_product,
        significant: result === null ? null : result.isDecisive,
        step_counts: variant.step_counts,
        step_sessions: variant.step_sessions,
        sum: variant.sum,
        sum_squares: variant.sum_squares,
        validation_failures: variant.validation_failures,
      };
    }),
  };
}

/** PostHog's user-facing message for a StatisticError that fails a whole result (`error_handling.py`). */
export const STATISTIC_ERROR_MESSAGE =
  "Unable to calculate experiment statistics. Please ensure your experiment has sufficient data and try again.";

/** PostHog's user-facing message for an ExperimentDataError (`error_handling.py`). */
export const EXPERIMENT_DATA_ERROR_MESSAGE =
  "Unable to calculate experiment results from the collected data. This usually resolves once more exposures are recorded.";

/**
 * What PostHog's `experiment_error_handler` answers for an error escaping `experimentResult`: a 400
 * `ValidationError` (code `invalid`, DRF's default) with the user-facing message, or null for an error it
 * does not map (re-raised as is: a 500).
 */
export function experimentErrorToValidationError(error: unknown): ValidationError | null {
  if (error instanceof StatisticError)
    return new ValidationError(STATISTIC_ERROR_MESSAGE, { code: "invalid" });
  if (error instanceof ExperimentDataError) {
    return new ValidationError(EXPERIMENT_DATA_ERROR_MESSAGE, { code: "invalid" });
  }
  return null;
}
