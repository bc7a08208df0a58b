/**
 * PostHog's result of one metric (src/experiments/stats/response.ts; `get_{bayesian,frequentist}_experiment_result`,
 * query-and-experiments.md 2b Steps 4–5 and 2c): the runner vectors (the standard fixture with
 * `not-enough-exposures`, the timeseries day), key presence and nulls of both shapes, when statistics
 * are set and when they stay null, `stats_config` applied, and the errors that fail a whole result.
 */
import { describe, expect, it } from "vitest";
import {
  EXPERIMENT_DATA_ERROR_MESSAGE,
  ExperimentDataError,
  experimentErrorToValidationError,
  experimentResult,
  STATISTIC_ERROR_MESSAGE,
  splitBaselineAndTestVariants,
} from "../../../src/experiments/stats/response.js";
import { StatisticError } from "../../../src/experiments/stats/statistics.js";
import type { VariantAggregates } from "../../../src/experiments/stats/variant-aggregates.js";
import {
  expectClose,
  expectInterval,
  MEAN_CONTROL,
  MEAN_TREATMENT,
  RATIO_CONTROL,
  RATIO_TREATMENT,
} from "./vectors.js";

const BAYESIAN_KEYS = [
  "chance_to_win",
  "credible_interval",
  "denominator_sum",
  "denominator_sum_squares",
  "key",
  "method",
  "number_of_samples",
  "numerator_denominator_sum_product",
  "significant",
  "step_counts",
  "step_sessions",
  "sum",
  "sum_squares",
  "validation_failures",
];
const FREQUENTIST_KEYS = [
  "confidence_interval",
  "denominator_sum",
  "denominator_sum_squares",
  "key",
  "method",
  "number_of_samples",
  "numerator_denominator_sum_product",
  "p_value",
  "significant",
  "step_counts",
  "step_sessions",
  "sum",
  "sum_squares",
  "validation_failures",
];
const BASELINE_KEYS = [
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
];

/** Vector #1's arms as mean-metric aggregates. */
const MEAN_ARMS: VariantAggregates[] = [
  {
    key: "control",
    number_of_samples: MEAN_CONTROL.n,
    sum: MEAN_CONTROL.sum,
    sum_squares: MEAN_CONTROL.sumSquares,
  },
  {
    key: "test",
    number_of_samples: MEAN_TREATMENT.n,
    sum: MEAN_TREATMENT.sum,
    sum_squares: MEAN_TREATMENT.sumSquares,
  },
];

/** Vector #3's arms as ratio-metric aggregates. */
const RATIO_ARMS: VariantAggregates[] = [RATIO_CONTROL, RATIO_TREATMENT].map((arm, index) => ({
  key: index === 0 ? "control" : "test",
  number_of_samples: arm.n,
  sum: arm.m.sum,
  sum_squares: arm.m.sumSquares,
  denominator_sum: arm.d.sum,
  denominator_sum_squares: arm.d.sumSquares,
  numerator_denominator_sum_product: arm.md,
}));

/** A funnel arm: `converted` of `n` entities completed every step. */
const funnelArm = (key: string, n: number, converted: number): VariantAggregates => ({
  key,
  number_of_samples: n,
  sum: converted,
  sum_squares: converted,
  step_counts: [n, converted],
});

describe("runner vectors", () => {
  it("standard fixture (test_mean_metric.py): 10 persons per arm, sums 20/20 → not-enough-exposures, null statistics", () => {
    const aggregates: VariantAggregates[] = [
      { key: "control", number_of_samples: 10, sum: 20, sum_squares: 200 },
      { key: "test", number_of_samples: 10, sum: 20, sum_squares: 200 },
    ];
    const bayesian = experimentResult(aggregates, "mean", null);
    expect(bayesian.baseline).toMatchObject({
      key: "control",
      number_of_samples: 10,
      sum: 20,
      validation_failures: ["not-enough-exposures"],
    });
    expect(bayesian.variant_results).toEqual([
      expect.objectContaining({
        key: "test",
        method: "bayesian",
        number_of_samples: 10,
        sum: 20,
        chance_to_win: null,
        credible_interval: null,
        significant: null,
        validation_failures: ["not-enough-exposures"],
      }),
    ]);

    const frequentist = experimentResult(aggregates, "mean", { method: "frequentist" });
    expect(frequentist.variant_results).toEqual([
      expect.objectContaining({
        key: "test",
        method: "frequentist",
        p_value: null,
        confidence_interval: null,
        significant: null,
        validation_failures: ["not-enough-exposures"],
      }),
    ]);
  });

  it("timeseries day 2024-01-01 (test_experiment_timeseries.py): baseline 10/8, variant 10/9", () => {
    const result = experimentResult(
      [
        { key: "control", number_of_samples: 10, sum: 8, sum_squares: 8 },
        { key: "test", number_of_samples: 10, sum: 9, sum_squares: 9 },
      ],
      "mean",
      { method: "bayesian" },
    );
    expect(result.baseline).toEqual({
      denominator_sum: null,
      denominator_sum_squares: null,
      key: "control",
      number_of_samples: 10,
      numerator_denominator_sum_product: null,
      step_counts: null,
      step_sessions: null,
      sum: 8,
      sum_squares: 8,
      validation_failures: ["not-enough-exposures"],
    });
    expect(result.variant_results).toEqual([
      {
        chance_to_win: null,
        credible_interval: null,
        denominator_sum: null,
        denominator_sum_squares: null,
        key: "test",
        method: "bayesian",
        number_of_samples: 10,
        numerator_denominator_sum_product: null,
        significant: null,
        step_counts: null,
        step_sessions: null,
        sum: 9,
        sum_squares: 9,
        validation_failures: ["not-enough-exposures"],
      },
    ]);
  });
});

describe("response shapes", () => {
  it("every key of PostHog's models, in their order, and nulls survive JSON", () => {
    const bayesian = experimentResult(MEAN_ARMS, "mean", {});
    expect(Object.keys(bayesian)).toEqual(["baseline", "variant_results"]);
    expect(Object.keys(bayesian.baseline)).toEqual(BASELINE_KEYS);
    expect(Object.keys(bayesian.variant_results[0] ?? {})).toEqual(BAYESIAN_KEYS);
    const frequentist = experimentResult(MEAN_ARMS, "mean", { method: "frequentist" });
    expect(Object.keys(frequentist.baseline)).toEqual(BASELINE_KEYS);
    expect(Object.keys(frequentist.variant_results[0] ?? {})).toEqual(FREQUENTIST_KEYS);
    const json = JSON.parse(
      JSON.stringify(
        experimentResult([{ ...funnelArm("control", 10, 1) }, funnelArm("test", 10, 1)], "funnel", {}),
      ),
    );
    expect(json.variant_results[0]).toMatchObject({
      chance_to_win: null,
      credible_interval: null,
      significant: null,
    });
  });

  it("Bayesian (default): vector #4 through the response, intervals on the effect scale", () => {
    const result = experimentResult(MEAN_ARMS, "mean", null);
    const [test] = result.variant_results;
    if (test?.method !== "bayesian") throw new Error("expected a Bayesian result");
    expectClose(test.chance_to_win ?? Number.NaN, 0.9575986091709435, "ctw");
    expectInterval(test.credible_interval, [-0.08733397602031734, 1.3602680753911922], "CI");
    expect(test.significant).toBe(true);
    expect(test.validation_failures).toEqual([]);
    expect(result.baseline.validation_failures).toEqual([]);
  });

  it("frequentist: vector #1 through the response; ABSOLUTE from stats_config gives vector #9", () => {
    const relative = experimentResult(MEAN_ARMS, "mean", { method: "frequentist" }).variant_results[0];
    if (relative?.method !== "frequentist") throw new Error("expected a frequentist result");
    expectClose(relative.p_value ?? Number.NaN, 0.08487808030253907, "p");
    expectInterval(relative.confidence_interval, [-0.08754744791751556, 1.3604815472883904], "CI");
    expect(relative.significant).toBe(false);

    const absolute = experimentResult(MEAN_ARMS, "mean", {
      method: "frequentist",
      frequentist: { difference_type: "ABSOLUTE" },
    }).variant_results[0];
    if (absolute?.method !== "frequentist") throw new Error("expected a frequentist result");
    expectClose(absolute.p_value ?? Number.NaN, 0.03719328866376581, "p");
    expectInterval(absolute.confidence_interval, [0.018043792148309534, 0.5896692654958943], "CI");
    expect(absolute.significant).toBe(true);
  });

  it("alpha and ci_level from stats_config set significance", () => {
    const strict = experimentResult(MEAN_ARMS, "mean", {
      method: "frequentist",
      frequentist: { alpha: 0.01 },
    });
    expect(strict.variant_results[0]?.significant).toBe(false);
    const loose = experimentResult(MEAN_ARMS, "mean", { method: "frequentist", frequentist: { alpha: 0.1 } });
    expect(loose.variant_results[0]?.significant).toBe(true);
    const wide = experimentResult(MEAN_ARMS, "mean", { bayesian: { ci_level: 0.99 } }).variant_results[0];
    if (wide?.method !== "bayesian") throw new Error("expected a Bayesian result");
    expect(wide.significant).toBe(false);
    expect((wide.credible_interval?.[0] ?? 0) < -0.0873).toBe(true);
  });

  it("ratio metric: vectors #3 and #7, with the ratio fields in both variants", () => {
    const frequentist = experimentResult(RATIO_ARMS, "ratio", { method: "frequentist" });
    const test = frequentist.variant_results[0];
    if (test?.method !== "frequentist") throw new Error("expected a frequentist result");
    expectClose(test.p_value ?? Number.NaN, 0.0032826732160771144, "p");
    expectInterval(test.confidence_interval, [0.013786092524817883, 0.06888035077577316], "CI");
    expect(test).toMatchObject({
      denominator_sum: 947,
      denominator_sum_squares: 947,
      numerator_denominator_sum_product: RATIO_TREATMENT.md,
    });
    expect(frequentist.baseline).toMatchObject({
      denominator_sum: 936,
      numerator_denominator_sum_product: RATIO_CONTROL.md,
    });

    const bayesian = experimentResult(RATIO_ARMS, "ratio", null).variant_results[0];
    if (bayesian?.method !== "bayesian") throw new Error("expected a Bayesian result");
    expectClose(bayesian.chance_to_win ?? Number.NaN, 0.998368099634437, "ctw");
  });

  it("funnel metric: proportions with step counts; vector #8", () => {
    const result = experimentResult(
      [funnelArm("control", 1529, 87), funnelArm("test", 1471, 62)],
      "funnel",
      null,
    );
    const [test] = result.variant_results;
    if (test?.method !== "bayesian") throw new Error("expected a Bayesian result");
    expectClose(test.chance_to_win ?? Number.NaN, 0.01544038102177514, "ctw");
    expect(test.significant).toBe(true);
    expect(test.step_counts).toEqual([1471, 62]);
    expect(result.baseline.step_counts).toEqual([1529, 87]);
  });

  it("retention metric: a ratio of retained entities, not-enough-metric-data below 5", () => {
    const arm = (key: string, n: number, retained: number): VariantAggregates => ({
      key,
      number_of_samples: n,
      sum: retained,
      sum_squares: retained,
      denominator_sum: n,
      denominator_sum_squares: n,
      numerator_denominator_sum_product: retained,
    });
    const result = experimentResult(
      [arm("control", 1000, 100), arm("test", 1000, 110), arm("low", 1000, 4)],
      "retention",
      null,
    );
    const [test, low] = result.variant_results;
    if (test?.method !== "bayesian" || low?.method !== "bayesian")
      throw new Error("expected Bayesian results");
    // Same δ as the proportions 110/1000 vs 100/1000 (#5), with sample variances (n − 1) instead of n.
    expectClose(
      test.credible_interval?.[0] !== undefined
        ? (test.credible_interval[0] + test.credible_interval[1]) / 2
        : Number.NaN,
      0.1,
      "δ",
    );
    expect(test.chance_to_win).toBeGreaterThan(0.75);
    expect(low.validation_failures).toEqual(["not-enough-metric-data"]);
    expect(low.chance_to_win).toBeNull();
  });
});

describe("when statistics stay null", () => {
  it("a baseline failure leaves every variant without statistics", () => {
    const result = experimentResult(
      [{ ...MEAN_ARMS[0], number_of_samples: 49 } as VariantAggregates, MEAN_ARMS[1] as VariantAggregates],
      "mean",
      { method: "frequentist" },
    );
    expect(result.baseline.validation_failures).toEqual(["not-enough-exposures"]);
    expect(result.variant_results[0]).toMatchObject({
      validation_failures: [],
      p_value: null,
      confidence_interval: null,
      significant: null,
    });
  });

  it("baseline-mean-is-zero", () => {
    const result = experimentResult(
      [{ key: "control", number_of_samples: 100, sum: 0, sum_squares: 0 }, MEAN_ARMS[1] as VariantAggregates],
      "mean",
      null,
    );
    expect(result.baseline.validation_failures).toEqual(["baseline-mean-is-zero"]);
    expect(result.variant_results[0]).toMatchObject({
      chance_to_win: null,
      credible_interval: null,
      significant: null,
    });
  });

  it("a failing test variant gets none, the others theirs, in the given order", () => {
    const result = experimentResult(
      [
        funnelArm("test-a", 1000, 110),
        funnelArm("control", 1000, 100),
        funnelArm("test-b", 30, 10),
        funnelArm("holdout-1", 1000, 90),
      ],
      "funnel",
      null,
    );
    expect(result.variant_results.map((variant) => variant.key)).toEqual(["test-a", "test-b", "holdout-1"]);
    const [a, b, holdout] = result.variant_results;
    if (a?.method !== "bayesian" || b?.method !== "bayesian" || holdout?.method !== "bayesian") {
      throw new Error("expected Bayesian results");
    }
    expectClose(a.chance_to_win ?? Number.NaN, 0.7565926771113489, "ctw (#5)");
    expect(b).toMatchObject({
      validation_failures: ["not-enough-exposures"],
      chance_to_win: null,
      significant: null,
    });
    expect(holdout.chance_to_win).toBeLessThan(0.5);
  });

  it("a StatisticError leaves that variant's statistics null without a validation failure", () => {
    // 58 of 60 converted: 2 failures, too few for the normal approximation.
    const result = experimentResult(
      [funnelArm("control", 1000, 100), funnelArm("test", 60, 58)],
      "funnel",
      null,
    );
    expect(result.variant_results[0]).toMatchObject({
      validation_failures: [],
      chance_to_win: null,
      credible_interval: null,
      significant: null,
    });
    // Zero variance in both arms: PostHog's division by zero, caught the same way.
    const constant = { number_of_samples: 100, sum: 200, sum_squares: 400 };
    const frequentist = experimentResult(
      [
        { key: "control", ...constant },
        { key: "test", ...constant },
      ],
      "mean",
      { method: "frequentist" },
    );
    expect(frequentist.variant_results[0]).toMatchObject({
      validation_failures: [],
      p_value: null,
      significant: null,
    });
  });

  it("aggregates no statistic can hold (a ratio without denominators) leave the statistics null", () => {
    const result = experimentResult(
      [
        { key: "control", number_of_samples: 100, sum: 50, sum_squares: 60 },
        { key: "test", number_of_samples: 100, sum: 55, sum_squares: 65 },
      ],
      "ratio",
      null,
    );
    expect(result.baseline.validation_failures).toEqual([]);
    expect(result.variant_results[0]).toMatchObject({ chance_to_win: null, significant: null });
  });

  it("a baseline alone gives no variant results", () => {
    expect(experimentResult([MEAN_ARMS[0] as VariantAggregates], "mean", null).variant_results).toEqual([]);
  });
});

describe("errors that fail the whole result", () => {
  it("no control, or two", () => {
    expect(() => experimentResult([MEAN_ARMS[1] as VariantAggregates], "mean", null)).toThrow(
      new ExperimentDataError("No control variant found"),
    );
    expect(() => splitBaselineAndTestVariants([MEAN_ARMS[0], MEAN_ARMS[0]] as VariantAggregates[])).toThrow(
      "Multiple control variants found",
    );
  });

  it("another baseline key when asked", () => {
    const result = experimentResult(
      [
        { ...MEAN_ARMS[1], key: "test" } as VariantAggregates,
        { ...MEAN_ARMS[0], key: "holdout-7" } as VariantAggregates,
      ],
      "mean",
      null,
      { baselineKey: "holdout-7" },
    );
    expect(result.baseline.key).toBe("holdout-7");
    expect(result.variant_results.map((variant) => variant.key)).toEqual(["test"]);
  });

  it("ci_level or alpha of exactly 0 or 1: kept by the parser, refused by the method (PostHog's StatisticError)", () => {
    expect(() => experimentResult(MEAN_ARMS, "mean", { bayesian: { ci_level: 1 } })).toThrow(
      new StatisticError("ci_level must be between 0 and 1"),
    );
    expect(() =>
      experimentResult(MEAN_ARMS, "mean", { method: "frequentist", frequentist: { alpha: 0 } }),
    ).toThrow(new StatisticError("Alpha must be between 0 and 1"));
    // Only the method in use is built.
    expect(() =>
      experimentResult(MEAN_ARMS, "mean", { method: "frequentist", bayesian: { ci_level: 1 } }),
    ).not.toThrow();
  });

  it("map to PostHog's user-facing 400s; anything else is not mapped", () => {
    const statistic = experimentErrorToValidationError(
      new StatisticError("ci_level must be between 0 and 1"),
    );
    expect(statistic).toMatchObject({
      httpStatus: 400,
      type: "validation_error",
      code: "invalid",
      detail: STATISTIC_ERROR_MESSAGE,
      attr: null,
    });
    const data = experimentErrorToValidationError(new ExperimentDataError("No control variant found"));
    expect(data?.detail).toBe(EXPERIMENT_DATA_ERROR_MESSAGE);
    expect(experimentErrorToValidationError(new Error("boom"))).toBeNull();
  });
});
