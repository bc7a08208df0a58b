/**
 * PostHog's Bayesian method: a Gaussian model of the effect with a conjugate normal prior
 * (`products/experiments/stats/bayesian/{method,tests,utils,priors}.py`, query-and-experiments.md 2b
 * Step 5). Pure. Normal distribution from `@stdlib` (matches scipy's `stats.norm`).
 *
 * Steps, in PostHog's order: proportions must each have ≥ 5 successes and ≥ 5 failures (the normal
 * approximation), positive sample sizes and non-negative variances, the effect δ and Var(δ), the
 * posterior N(μpost, σ²post) (improper prior: the likelihood itself), chance to win P(θ > 0), the
 * central credible interval at `ciLevel` (normal quantiles), and decisiveness
 * (`chance_to_win > ciLevel or < 1 − ciLevel`). PostHog's risk figures (expected loss) are computed
 * there but never returned by its runner, so they are not computed here.
 */
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import {
  type DifferenceType,
  type ProportionStatistic,
  type Statistic,
  StatisticError,
  statisticMean,
} from "./statistics.js";

/**
 * A normal prior on the effect (PostHog's `GaussianPrior`). Improper (`proper: false`, the default)
 * contributes no precision: the posterior is the likelihood.
 */
export interface GaussianPrior {
  mean: number;
  /** > 0. */
  variance: number;
  proper: boolean;
}

/** PostHog's prior kinds (`PriorType`); stored in the config, not used by the computation (as in PostHog). */
export const PRIOR_TYPES = ["RELATIVE", "ABSOLUTE"] as const;

/** One of `PRIOR_TYPES`. */
export type PriorType = (typeof PRIOR_TYPES)[number];

/** How a Bayesian test runs (PostHog's `BayesianConfig`). */
export interface BayesianConfig {
  /** Credible-interval level, 0 < ciLevel < 1; also the decisiveness threshold. */
  ciLevel: number;
  /** "Lower is better": chance to win is P(θ < 0). PostHog's runner never sets it (not even for `goal: decrease`). */
  inverse: boolean;
  differenceType: DifferenceType;
  priorType: PriorType;
  prior: GaussianPrior;
}

/** PostHog's Bayesian defaults: 95 %, not inverse, relative, improper N(0, 1) prior. */
export const BAYESIAN_DEFAULTS: BayesianConfig = {
  ciLevel: 0.95,
  inverse: false,
  differenceType: "RELATIVE",
  priorType: "RELATIVE",
  prior: { mean: 0, variance: 1, proper: false },
};

/** One test's outcome (PostHog's `BayesianResult`, without the risk figures). Effect scale throughout. */
export interface BayesianResult {
  /** The observed effect δ (relative lift or absolute difference). */
  effect: number;
  /** Var(δ) from the data. */
  effectVariance: number;
  /** μpost, PostHog's `effect_size`. */
  posteriorMean: number;
  /** σ²post. */
  posteriorVariance: number;
  /** P(θ > 0 | data), or P(θ < 0) when `inverse`. */
  chanceToWin: number;
  /** [lower, upper] central credible interval at `ciLevel`. */
  credibleInterval: [number, number];
  /** PostHog's `is_decisive`: chanceToWin > ciLevel or < 1 − ciLevel (the runner's `significant`). */
  isDecisive: boolean;
  ciLevel: number;
}

/**
 * Checks PostHog's configuration rules (`BayesianConfig.__post_init__`, `GaussianPrior`).
 * @throws StatisticError `ci_level must be between 0 and 1`, `Prior variance must be positive`.
 */
export function checkBayesianConfig(config: BayesianConfig): void {
  if (!(config.ciLevel > 0 && config.ciLevel < 1))
    throw new StatisticError("ci_level must be between 0 and 1");
  if (!(config.prior.variance > 0)) throw new StatisticError("Prior variance must be positive");
}

/**
 * Var(M/D) by the delta method (`variance_of_ratios`): Vm/D² + M²·Vd/D⁴ − 2·M·cov/D³.
 * @throws StatisticError `Denominator mean cannot be zero for ratio variance calculation` (|D| < 1e-10).
 */
export function varianceOfRatios(
  meanM: number,
  varM: number,
  meanD: number,
  varD: number,
  covariance: number,
): number {
  if (Math.abs(meanD) < 1e-10) {
    throw new StatisticError("Denominator mean cannot be zero for ratio variance calculation");
  }
  return varM / meanD ** 2 + (meanM ** 2 * varD) / meanD ** 4 - (2 * meanM * covariance) / meanD ** 3;
}

/**
 * δ and Var(δ) (`calculate_effect_size_and_variance`): ABSOLUTE μT − μC with VT/nT + VC/nC;
 * RELATIVE (μT − μC)/μC with `varianceOfRatios(μT, VT/nT, μC, VC/nC, 0)`.
 * @throws StatisticError `Control mean must be positive for relative difference calculation` (μC ≤ 0, RELATIVE).
 */
export function effectSizeAndVariance(
  treatment: Statistic,
  control: Statistic,
  differenceType: DifferenceType,
): { effect: number; variance: number } {
  const treatmentMean = statisticMean(treatment);
  const controlMean = statisticMean(control);
  const treatmentVarianceOfMean = treatment.variance / treatment.n;
  const controlVarianceOfMean = control.variance / control.n;
  if (differenceType === "ABSOLUTE") {
    return { effect: treatmentMean - controlMean, variance: treatmentVarianceOfMean + controlVarianceOfMean };
  }
  if (controlMean <= 0) {
    throw new StatisticError("Control mean must be positive for relative difference calculation");
  }
  return {
    effect: (treatmentMean - controlMean) / controlMean,
    variance: varianceOfRatios(treatmentMean, treatmentVarianceOfMean, controlMean, controlVarianceOfMean, 0),
  };
}

/**
 * The posterior of the effect (`calculate_posterior`): precision τ = τprior + 1/Var(δ) (τprior = 1/v0 for a
 * proper prior, else 0); μpost = (τprior·m0 + δ/Var(δ))/τ for a proper prior, δ otherwise; σ²post = 1/τ.
 * @throws StatisticError `Effect variance must be positive`, `Posterior precision must be positive`.
 */
export function posterior(
  effect: number,
  effectVariance: number,
  prior: GaussianPrior,
): { mean: number; variance: number } {
  if (effectVariance <= 0) throw new StatisticError("Effect variance must be positive");
  const dataPrecision = 1 / effectVariance;
  const isProper = prior.proper && prior.variance > 0;
  const priorPrecision = isProper ? 1 / prior.variance : 0;
  const posteriorPrecision = priorPrecision + dataPrecision;
  if (posteriorPrecision <= 0) throw new StatisticError("Posterior precision must be positive");
  const mean = isProper
    ? (priorPrecision * prior.mean + dataPrecision * effect) / posteriorPrecision
    : effect;
  return { mean, variance: 1 / posteriorPrecision };
}

/**
 * P(θ > 0) for θ ~ N(mean, std²) (scipy `norm.sf(0, mean, std)` = Φ(mean/std)), or P(θ < 0) when `inverse`.
 * @throws StatisticError `Posterior standard deviation must be positive`.
 */
export function chanceToWin(mean: number, std: number, inverse = false): number {
  if (std <= 0) throw new StatisticError("Posterior standard deviation must be positive");
  const z = (0 - mean) / std;
  return inverse ? normalCdf(z, 0, 1) : normalCdf(-z, 0, 1);
}

/**
 * The central interval [Φ⁻¹(α/2), Φ⁻¹(1 − α/2)] of N(mean, std²) (`credible_interval`).
 * @throws StatisticError `Alpha must be between 0 and 1`, `Posterior standard deviation must be positive`.
 */
export function credibleInterval(mean: number, std: number, alpha = 0.05): [number, number] {
  if (!(alpha > 0 && alpha < 1)) throw new StatisticError("Alpha must be between 0 and 1");
  if (std <= 0) throw new StatisticError("Posterior standard deviation must be positive");
  return [normalQuantile(alpha / 2, mean, std), normalQuantile(1 - alpha / 2, mean, std)];
}

/**
 * The normal approximation of a binomial needs ≥ 5 successes and ≥ 5 failures in each arm
 * (`BayesianProportionTest._validate_normal_approximation`), treatment first.
 * @throws StatisticError `Normal approximation invalid: treatment has only 3 successes (need ≥5). Consider
 *   using exact binomial methods.` (or `… failures …`, or `control`).
 */
export function checkNormalApproximation(treatment: ProportionStatistic, control: ProportionStatistic): void {
  for (const [name, statistic] of [
    ["treatment", treatment],
    ["control", control],
  ] as const) {
    const successes = statistic.sum;
    const failures = statistic.n - statistic.sum;
    if (successes < 5) {
      throw new StatisticError(
        `Normal approximation invalid: ${name} has only ${successes} successes (need ≥5). Consider using exact binomial methods.`,
      );
    }
    if (failures < 5) {
      throw new StatisticError(
        `Normal approximation invalid: ${name} has only ${failures} failures (need ≥5). Consider using exact binomial methods.`,
      );
    }
  }
}

/**
 * The Bayesian test, unwrapped (`BayesianProportionTest` / `BayesianMeanTest` / `BayesianGaussianTest`
 * `.run_test`): each failure keeps its own message.
 * @throws StatisticError `Treatment and control statistics must be the same type`, the normal-approximation
 *   check for proportions, `Treatment sample size must be positive`, `Treatment variance cannot be negative`
 *   (and the control's), then the messages of `effectSizeAndVariance`, `posterior`, `chanceToWin` and
 *   `credibleInterval`.
 */
export function bayesianGaussianTest(
  treatment: Statistic,
  control: Statistic,
  config: BayesianConfig = BAYESIAN_DEFAULTS,
): BayesianResult {
  checkBayesianConfig(config);
  if (treatment.kind !== control.kind) {
    throw new StatisticError("Treatment and control statistics must be the same type");
  }
  if (treatment.kind === "proportion" && control.kind === "proportion")
    checkNormalApproximation(treatment, control);
  if (treatment.n <= 0) throw new StatisticError("Treatment sample size must be positive");
  if (control.n <= 0) throw new StatisticError("Control sample size must be positive");
  if (treatment.variance < 0) throw new StatisticError("Treatment variance cannot be negative");
  if (control.variance < 0) throw new StatisticError("Control variance cannot be negative");

  const { effect, variance } = effectSizeAndVariance(treatment, control, config.differenceType);
  const post = posterior(effect, variance, config.prior);
  const posteriorStd = Math.sqrt(post.variance);
  const chance = chanceToWin(post.mean, posteriorStd, config.inverse);
  const interval = credibleInterval(post.mean, posteriorStd, 1 - config.ciLevel);
  return {
    effect,
    effectVariance: variance,
    posteriorMean: post.mean,
    posteriorVariance: post.variance,
    chanceToWin: chance,
    credibleInterval: interval,
    isDecisive: chance > config.ciLevel || chance < 1 - config.ciLevel,
    ciLevel: config.ciLevel,
  };
}

/**
 * PostHog's `BayesianMethod.run_test`: the configuration and the statistics' kinds are checked first
 * (errors unwrapped, as PostHog raises them outside its `try`), then the test, whose every failure is
 * re-raised as `Bayesian test execution failed: <message>` with the original as `cause`.
 * @throws StatisticError as described.
 */
export function runBayesianTest(
  treatment: Statistic,
  control: Statistic,
  config: BayesianConfig = BAYESIAN_DEFAULTS,
): BayesianResult {
  checkBayesianConfig(config);
  if (treatment.kind !== control.kind) {
    throw new StatisticError("Treatment and control statistics must be the same type");
  }
  try {
    return bayesianGaussianTest(treatment, control, config);
  } catch (error) {
    if (!(error instanceof StatisticError)) throw error;
    throw new StatisticError(`Bayesian test execution failed: ${error.message}`, { cause: error });
  }
}
