/**
 * PostHog's frequentist method (src/experiments/stats/frequentist.ts): the Welch t-test vectors #1, #2,
 * #3, #6, #9, #10 of query-and-experiments.md 2b at 1e-6, and its failures with PostHog's messages.
 */
import { describe, expect, it } from "vitest";
import {
  pointEstimate,
  runFrequentistTest,
  twoSidedTTest,
  welchSatterthwaiteDf,
} from "../../../src/experiments/stats/frequentist.js";
import { SampleMeanStatistic, StatisticError } from "../../../src/experiments/stats/statistics.js";
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

const RELATIVE = { alpha: 0.05, differenceType: "RELATIVE" } as const;
const ABSOLUTE = { alpha: 0.05, differenceType: "ABSOLUTE" } as const;

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

describe("Welch t-test vectors", () => {
  it("#1 mean, relative: δ, CI, p, df and the standard error", () => {
    const result = runFrequentistTest(mean(MEAN_TREATMENT), mean(MEAN_CONTROL), RELATIVE);
    expectClose(result.pointEstimate, 0.6364670496854374, "δ");
    expectInterval(result.confidenceInterval, [-0.08754744791751556, 1.3604815472883904], "CI");
    expectClose(result.pValue, 0.08487808030253907, "p");
    expectClose(result.degreesOfFreedom, 4105.070480863958, "df");
    expectClose(Math.sqrt(result.variance), 0.36929302345094345, "SE");
    expect(result.isSignificant).toBe(false);
  });

  it("#1 intermediate means and variances", () => {
    const treatment = mean(MEAN_TREATMENT);
    const control = mean(MEAN_CONTROL);
    expectClose(treatment.mean, 0.7812677773262902, "μT");
    expectClose(treatment.variance, 37.88461237582713, "VT");
    expectClose(control.mean, 0.47741124850418826, "μC");
    expectClose(control.variance, 14.687381284518274, "VC");
  });

  it("#2 proportion, relative", () => {
    const result = runFrequentistTest(proportion(62, 1471), proportion(87, 1529), RELATIVE);
    expectClose(result.pointEstimate, -0.2592575228361347, "δ");
    expectInterval(result.confidenceInterval, [-0.49475342160153, -0.023761624070739368], "CI");
    expectClose(result.pValue, 0.030960728938889792, "p");
    expectClose(result.degreesOfFreedom, 2966.5207225002227, "df");
    expect(result.isSignificant).toBe(true);
  });

  it("#3 ratio (delta method), relative, with the ratios and their variances", () => {
    const treatment = ratio(RATIO_TREATMENT);
    const control = ratio(RATIO_CONTROL);
    expectClose(treatment.ratio, 105.25230879298512, "RT");
    expectClose(treatment.variance, 1833.1005326986124, "VarT");
    expectClose(control.ratio, 101.07457114081332, "RC");
    expectClose(control.variance, 2022.665430880821, "VarC");
    const result = runFrequentistTest(treatment, control, RELATIVE);
    expectClose(result.pointEstimate, 0.04133322165029552, "δ");
    expectInterval(result.confidenceInterval, [0.013786092524817883, 0.06888035077577316], "CI");
    expectClose(result.pValue, 0.0032826732160771144, "p");
    expectClose(result.degreesOfFreedom, 3970.5615240253373, "df");
    expect(result.isSignificant).toBe(true);
  });

  it("#6 proportion 110/1000 vs 100/1000, relative", () => {
    const result = runFrequentistTest(proportion(110, 1000), proportion(100, 1000), RELATIVE);
    expectClose(result.pointEstimate, 0.1, "δ");
    expectClose(result.pValue, 0.4868956553922099, "p");
    expectInterval(result.confidenceInterval, [-0.18202459939195173, 0.38202459939195166], "CI");
    expectClose(result.degreesOfFreedom, 1994.4744319997108, "df");
    expect(result.isSignificant).toBe(false);
  });

  it("#9 mean, absolute", () => {
    const result = runFrequentistTest(mean(MEAN_TREATMENT), mean(MEAN_CONTROL), ABSOLUTE);
    expectClose(result.pointEstimate, 0.3038565288221019, "δ");
    expectInterval(result.confidenceInterval, [0.018043792148309534, 0.5896692654958943], "CI");
    expectClose(result.pValue, 0.03719328866376581, "p");
    expectClose(result.degreesOfFreedom, 4105.070480863958, "df (does not depend on the difference type)");
    expect(result.isSignificant).toBe(true);
  });

  it("#10 proportion, absolute", () => {
    const result = runFrequentistTest(proportion(62, 1471), proportion(87, 1529), ABSOLUTE);
    expectClose(result.pointEstimate, -0.014751736093357566, "δ");
    expectInterval(result.confidenceInterval, [-0.03025807566509134, 0.000754603478376208], "CI");
    expectClose(result.pValue, 0.06223170962711522, "p");
    expect(result.isSignificant).toBe(false);
  });

  it("defaults to alpha 0.05 and a relative difference", () => {
    const result = runFrequentistTest(mean(MEAN_TREATMENT), mean(MEAN_CONTROL));
    expect(result.alpha).toBe(0.05);
    expectClose(result.pointEstimate, 0.6364670496854374, "δ");
  });

  it("a smaller alpha widens the interval and raises the bar", () => {
    const result = runFrequentistTest(proportion(62, 1471), proportion(87, 1529), {
      ...RELATIVE,
      alpha: 0.01,
    });
    expect(result.confidenceInterval[0]).toBeLessThan(-0.49475342160153);
    expect(result.confidenceInterval[1]).toBeGreaterThan(-0.023761624070739368);
    expect(result.isSignificant).toBe(false);
  });
});

describe("frequentist failures (PostHog's messages, wrapped by the method)", () => {
  const ok = new SampleMeanStatistic(10, 50, 300);

  it("refuses fewer than 5 samples per arm", () => {
    const small = new SampleMeanStatistic(4, 8, 20);
    expect(statisticError(() => runFrequentistTest(small, ok)).message).toBe(
      "Test execution failed: Treatment sample size (4) below minimum (5)",
    );
    expect(statisticError(() => runFrequentistTest(ok, small)).message).toBe(
      "Test execution failed: Control sample size (4) below minimum (5)",
    );
  });

  it("refuses a zero control mean for a relative difference, not for an absolute one", () => {
    const zero = new SampleMeanStatistic(10, 0, 0);
    const error = statisticError(() => runFrequentistTest(ok, zero, RELATIVE));
    expect(error.message).toBe(
      "Test execution failed: Control mean cannot be zero for relative difference calculation",
    );
    expect((error.cause as Error).message).toBe(
      "Control mean cannot be zero for relative difference calculation",
    );
    expect(
      statisticError(() => pointEstimate(ok, new SampleMeanStatistic(10, 1e-10, 1e-20), "RELATIVE")).message,
    ).toBe("Control mean cannot be zero for relative difference calculation");
    expect(runFrequentistTest(ok, zero, ABSOLUTE).pointEstimate).toBe(5);
  });

  it("refuses a zero pooled variance", () => {
    // Treatment all zeros (mean 0, variance 0): relative Var(δ) = 0 while df stays finite.
    const zeros = new SampleMeanStatistic(10, 0, 0);
    expect(statisticError(() => runFrequentistTest(zeros, ok, RELATIVE)).message).toBe(
      "Test execution failed: Pooled variance must be positive",
    );
  });

  it("fails as Python divides by zero when neither arm varies", () => {
    const constant = new SampleMeanStatistic(10, 20, 40);
    expect(statisticError(() => welchSatterthwaiteDf(constant, constant)).message).toBe(
      "float division by zero",
    );
    expect(statisticError(() => runFrequentistTest(constant, constant)).message).toBe(
      "Test execution failed: float division by zero",
    );
  });

  it("needs two samples per group for the degrees of freedom", () => {
    const one = new SampleMeanStatistic(1, 2, 4);
    expect(statisticError(() => welchSatterthwaiteDf(one, ok)).message).toBe(
      "Welch-Satterthwaite requires n ≥ 2 per group.",
    );
  });

  it("refuses an alpha outside (0, 1), unwrapped", () => {
    for (const alpha of [0, 1, -0.1, 1.5, Number.NaN]) {
      expect(statisticError(() => runFrequentistTest(ok, ok, { ...RELATIVE, alpha })).message).toBe(
        "Alpha must be between 0 and 1",
      );
      expect(statisticError(() => twoSidedTTest(ok, ok, { ...RELATIVE, alpha })).message).toBe(
        "Alpha must be between 0 and 1",
      );
    }
  });

  it("the unwrapped test keeps the inner message", () => {
    expect(statisticError(() => twoSidedTTest(new SampleMeanStatistic(3, 3, 5), ok)).message).toBe(
      "Treatment sample size (3) below minimum (5)",
    );
  });
});
