/**
 * PostHog's Bayesian method (src/experiments/stats/bayesian.ts): the vectors #4, #5, #7, #8, #11, #12,
 * #13 of query-and-experiments.md 2b at 1e-6 (chance to win, credible interval, posterior), the
 * improper and proper priors, and its failures with PostHog's messages.
 */
import { describe, expect, it } from "vitest";
import {
  BAYESIAN_DEFAULTS,
  type BayesianConfig,
  bayesianGaussianTest,
  chanceToWin,
  credibleInterval,
  effectSizeAndVariance,
  posterior,
  runBayesianTest,
  varianceOfRatios,
} from "../../../src/experiments/stats/bayesian.js";
import {
  ProportionStatistic,
  SampleMeanStatistic,
  StatisticError,
} from "../../../src/experiments/stats/statistics.js";
import {
  expectClose,
  expectInterval,
  MEAN_CONTROL,
  MEAN_TREATMENT,
  mean,
  proportion,
  RATIO_CONTROL,
  RATIO_TREATMENT,
  ratio,
} from "./vectors.js";

/** The StatisticError `run` throws (fails the test when it throws nothing or something else). */
function statisticError(run: () => unknown): StatisticError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StatisticError);
    return error as StatisticError;
  }
  throw new Error("expected a StatisticError");
}

/** Vectors #11–#12's arms (PostHog's `test_basic_method_usage`, `test_with_informative_prior`). */
const SMALL_TREATMENT = new SampleMeanStatistic(100, 550, 3050);
const SMALL_CONTROL = new SampleMeanStatistic(100, 500, 2550);

describe("Bayesian vectors", () => {
  it("#4 mean, relative (PostHog's test_realistic_example): δ, credible interval, chance to win, decisive", () => {
    const result = runBayesianTest(mean(MEAN_TREATMENT), mean(MEAN_CONTROL));
    expectClose(result.posteriorMean, 0.6364670496854374, "μpost");
    expectClose(result.effect, 0.6364670496854374, "δ");
    expectInterval(result.credibleInterval, [-0.08733397602031734, 1.3602680753911922], "CI");
    expectClose(result.chanceToWin, 0.9575986091709435, "ctw");
    expectClose(Math.sqrt(result.posteriorVariance), 0.36929302345094345, "σpost");
    expect(result.isDecisive).toBe(true);
  });

  it("#5 proportion 110/1000 vs 100/1000, relative", () => {
    const result = runBayesianTest(proportion(110, 1000), proportion(100, 1000));
    expectClose(result.posteriorMean, 0.1, "δ");
    expectInterval(result.credibleInterval, [-0.18185345201355, 0.3818534520135499], "CI");
    expectClose(result.chanceToWin, 0.7565926771113489, "ctw");
    expect(result.isDecisive).toBe(false);
  });

  it("#7 ratio, relative", () => {
    const result = runBayesianTest(ratio(RATIO_TREATMENT), ratio(RATIO_CONTROL));
    expectClose(result.posteriorMean, 0.04133322165029552, "δ");
    expectInterval(result.credibleInterval, [0.013794489800395299, 0.06887195350019575], "CI");
    expectClose(result.chanceToWin, 0.998368099634437, "ctw");
    expect(result.isDecisive).toBe(true);
  });

  it("#8 proportion 62/1471 vs 87/1529: decisive because the chance to win is below 1 − ci_level", () => {
    const result = runBayesianTest(proportion(62, 1471), proportion(87, 1529));
    expectInterval(result.credibleInterval, [-0.49465733801990297, -0.023857707652366417], "CI");
    expectClose(result.chanceToWin, 0.01544038102177514, "ctw");
    expect(result.isDecisive).toBe(true);
  });

  it("#11 mean n 100, relative, improper prior", () => {
    const result = runBayesianTest(SMALL_TREATMENT, SMALL_CONTROL);
    expectClose(result.effect, 0.1, "δ");
    expectClose(result.effectVariance, 0.00034545454545454544, "Var(δ)");
    expectClose(result.posteriorVariance, 0.00034545454545454544, "σ²post = Var(δ)");
    expectInterval(result.credibleInterval, [0.06357131060846077, 0.13642868939153924], "CI");
    expectClose(result.chanceToWin, 0.9999999628141093, "ctw");
  });

  it("#12 the same with a proper prior N(0.05, 0.01)", () => {
    const config: BayesianConfig = {
      ...BAYESIAN_DEFAULTS,
      prior: { mean: 0.05, variance: 0.01, proper: true },
    };
    const result = runBayesianTest(SMALL_TREATMENT, SMALL_CONTROL, config);
    expectClose(result.effect, 0.1, "δ (the data's)");
    expectClose(result.posteriorMean, 0.09833040421792619, "μpost");
    expectClose(result.posteriorVariance, 0.0003339191564147628, "σ²post");
    expectInterval(result.credibleInterval, [0.06251509, 0.13414572], "CI");
  });

  it("#13 two observations per arm: uncertain", () => {
    const result = runBayesianTest(new SampleMeanStatistic(2, 3, 5), new SampleMeanStatistic(2, 2, 2));
    expectClose(result.posteriorMean, 0.5, "δ");
    expectClose(Math.sqrt(result.posteriorVariance), 0.5, "σ");
    expectClose(result.chanceToWin, 0.8413447460685429, "ctw");
    expect(result.isDecisive).toBe(false);
  });

  it("absolute difference (PostHog's test_effect_size_calculation_absolute)", () => {
    const { effect, variance } = effectSizeAndVariance(SMALL_TREATMENT, SMALL_CONTROL, "ABSOLUTE");
    expectClose(effect, 0.5, "δ");
    expectClose(variance, (3050 - 550 ** 2 / 100) / 99 / 100 + (2550 - 500 ** 2 / 100) / 99 / 100, "Var");
  });

  it("ci_level sets the interval and the decisiveness threshold", () => {
    const at99 = runBayesianTest(mean(MEAN_TREATMENT), mean(MEAN_CONTROL), {
      ...BAYESIAN_DEFAULTS,
      ciLevel: 0.99,
    });
    expect(at99.credibleInterval[1] - at99.credibleInterval[0]).toBeGreaterThan(
      1.3602680753911922 + 0.0873339760203,
    );
    expect(at99.isDecisive).toBe(false);
    expect(at99.ciLevel).toBe(0.99);
  });

  it("inverse ('lower is better') gives P(θ < 0)", () => {
    const normal = runBayesianTest(proportion(62, 1471), proportion(87, 1529));
    const inverse = runBayesianTest(proportion(62, 1471), proportion(87, 1529), {
      ...BAYESIAN_DEFAULTS,
      inverse: true,
    });
    expectClose(inverse.chanceToWin, 1 - normal.chanceToWin, "1 − ctw");
  });
});

describe("Bayesian building blocks (PostHog's test_bayesian.py utils)", () => {
  it("an improper prior leaves the likelihood; a proper one pulls towards its mean", () => {
    const flat = posterior(0.1, 0.01, { mean: 0, variance: 1, proper: false });
    expectClose(flat.mean, 0.1, "μ");
    expectClose(flat.variance, 0.01, "σ²");
    const informed = posterior(0.1, 0.01, { mean: 0.05, variance: 0.02, proper: true });
    expect(informed.mean).toBeGreaterThan(0.05);
    expect(informed.mean).toBeLessThan(0.1);
    expect(informed.variance).toBeLessThan(0.01);
  });

  it("chance to win and credible interval", () => {
    expect(chanceToWin(0.1, 0.01)).toBeGreaterThan(0.99);
    expect(chanceToWin(-0.1, 0.01)).toBeLessThan(0.01);
    expect(chanceToWin(-0.1, 0.01, true)).toBeGreaterThan(0.99);
    const [lower, upper] = credibleInterval(0.1, 0.05, 0.05);
    expect(lower).toBeLessThan(0.1);
    expect(upper).toBeGreaterThan(0.1);
    const [lower99, upper99] = credibleInterval(0.1, 0.05, 0.01);
    expect(upper99 - lower99).toBeGreaterThan(upper - lower);
  });
});

describe("Bayesian failures (PostHog's messages, wrapped by the method)", () => {
  it("refuses a non-positive control mean for a relative difference", () => {
    const zero = new SampleMeanStatistic(100, 0, 0);
    const error = statisticError(() => runBayesianTest(new SampleMeanStatistic(100, 100, 100), zero));
    expect(error.message).toBe(
      "Bayesian test execution failed: Control mean must be positive for relative difference calculation",
    );
    expect((error.cause as Error).message).toBe(
      "Control mean must be positive for relative difference calculation",
    );
    const negative = new SampleMeanStatistic(10, -10, 20);
    expect(statisticError(() => runBayesianTest(SMALL_TREATMENT, negative)).message).toBe(
      "Bayesian test execution failed: Control mean must be positive for relative difference calculation",
    );
  });

  it("needs 5 successes and 5 failures per arm for proportions, treatment first", () => {
    const ok = new ProportionStatistic(100, 50);
    expect(statisticError(() => runBayesianTest(new ProportionStatistic(100, 3), ok)).message).toBe(
      "Bayesian test execution failed: Normal approximation invalid: treatment has only 3 successes (need ≥5). Consider using exact binomial methods.",
    );
    expect(statisticError(() => runBayesianTest(new ProportionStatistic(100, 98), ok)).message).toBe(
      "Bayesian test execution failed: Normal approximation invalid: treatment has only 2 failures (need ≥5). Consider using exact binomial methods.",
    );
    expect(statisticError(() => runBayesianTest(ok, new ProportionStatistic(100, 4))).message).toBe(
      "Bayesian test execution failed: Normal approximation invalid: control has only 4 successes (need ≥5). Consider using exact binomial methods.",
    );
    expect(statisticError(() => runBayesianTest(ok, new ProportionStatistic(100, 96))).message).toBe(
      "Bayesian test execution failed: Normal approximation invalid: control has only 4 failures (need ≥5). Consider using exact binomial methods.",
    );
    // Exactly 5 of each passes.
    expect(
      runBayesianTest(new ProportionStatistic(10, 5), new ProportionStatistic(10, 5)).chanceToWin,
    ).toBeCloseTo(0.5);
  });

  it("refuses a zero effect variance", () => {
    const constant = new SampleMeanStatistic(10, 20, 40);
    expect(statisticError(() => runBayesianTest(constant, constant)).message).toBe(
      "Bayesian test execution failed: Effect variance must be positive",
    );
  });

  it("refuses statistics of different kinds, unwrapped", () => {
    expect(
      statisticError(() => runBayesianTest(SMALL_TREATMENT, new ProportionStatistic(100, 50))).message,
    ).toBe("Treatment and control statistics must be the same type");
    expect(
      statisticError(() => bayesianGaussianTest(SMALL_TREATMENT, new ProportionStatistic(100, 50))).message,
    ).toBe("Treatment and control statistics must be the same type");
  });

  it("refuses a ci_level outside (0, 1) and a non-positive prior variance, unwrapped", () => {
    for (const ciLevel of [0, 1, 1.2, Number.NaN]) {
      expect(
        statisticError(() =>
          runBayesianTest(SMALL_TREATMENT, SMALL_CONTROL, { ...BAYESIAN_DEFAULTS, ciLevel }),
        ).message,
      ).toBe("ci_level must be between 0 and 1");
    }
    const prior = { mean: 0, variance: 0, proper: true };
    expect(
      statisticError(() => runBayesianTest(SMALL_TREATMENT, SMALL_CONTROL, { ...BAYESIAN_DEFAULTS, prior }))
        .message,
    ).toBe("Prior variance must be positive");
  });

  it("the building blocks refuse what PostHog's refuse", () => {
    expect(statisticError(() => varianceOfRatios(1, 1, 1e-11, 1, 0)).message).toBe(
      "Denominator mean cannot be zero for ratio variance calculation",
    );
    expect(statisticError(() => posterior(0.1, 0, BAYESIAN_DEFAULTS.prior)).message).toBe(
      "Effect variance must be positive",
    );
    expect(statisticError(() => chanceToWin(0.1, 0)).message).toBe(
      "Posterior standard deviation must be positive",
    );
    expect(statisticError(() => credibleInterval(0.1, 0.1, 1)).message).toBe("Alpha must be between 0 and 1");
    expect(statisticError(() => credibleInterval(0.1, 0)).message).toBe(
      "Posterior standard deviation must be positive",
    );
  });
});
