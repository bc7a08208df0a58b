/**
 * PostHog's statistic objects (src/experiments/stats/statistics.ts, `shared/statistics.py`): means,
 * variances, the delta-method ratio, what their constructors refuse, and the statistic each metric type
 * makes of a variant's aggregates (`metric_variant_to_statistic`).
 */
import { describe, expect, it } from "vitest";
import {
  InvalidStatisticError,
  ProportionStatistic,
  RatioStatistic,
  SampleMeanStatistic,
  StatisticError,
  statisticFromAggregates,
  statisticMean,
} from "../../../src/experiments/stats/statistics.js";
import { expectClose } from "./vectors.js";

/** The InvalidStatisticError message `build` throws. */
function invalid(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidStatisticError);
    expect(error).toBeInstanceOf(StatisticError);
    return (error as Error).message;
  }
  throw new Error("expected an InvalidStatisticError");
}

describe("SampleMeanStatistic", () => {
  it("mean and sample variance from n, sum and sum of squares", () => {
    const statistic = new SampleMeanStatistic(100, 550, 3050);
    expect(statistic.mean).toBe(5.5);
    expectClose(statistic.variance, (3050 - 550 ** 2 / 100) / 99, "s²");
  });

  it("a single observation has variance 0", () => {
    expect(new SampleMeanStatistic(1, 3, 9).variance).toBe(0);
  });

  it("refuses what PostHog refuses", () => {
    expect(invalid(() => new SampleMeanStatistic(0, 0, 0))).toBe("Sample size must be positive");
    expect(invalid(() => new SampleMeanStatistic(1, 3, 8))).toBe(
      "sum_squares must be >= sum^2 for single observation",
    );
    expect(invalid(() => new SampleMeanStatistic(10, 10, 9))).toBe("sum_squares incompatible with sum and n");
  });
});

describe("ProportionStatistic", () => {
  it("proportion and per-unit variance p(1 − p)", () => {
    const statistic = new ProportionStatistic(1000, 110);
    expect(statistic.proportion).toBe(0.11);
    expectClose(statistic.variance, 0.11 * 0.89, "p(1−p)");
  });

  it("refuses what PostHog refuses", () => {
    expect(invalid(() => new ProportionStatistic(0, 0))).toBe("Sample size must be positive");
    expect(invalid(() => new ProportionStatistic(10, -1))).toBe("Number of successes cannot be negative");
    expect(invalid(() => new ProportionStatistic(10, 11))).toBe(
      "Number of successes cannot exceed sample size",
    );
  });
});

describe("RatioStatistic (delta method)", () => {
  it("ratio of sums, covariance and variance", () => {
    // Entities (m, d): (2, 1), (4, 2), (3, 1), (5, 2).
    const m = new SampleMeanStatistic(4, 14, 54);
    const d = new SampleMeanStatistic(4, 6, 10);
    const statistic = new RatioStatistic(4, m, d, 2 + 8 + 3 + 10);
    expectClose(statistic.ratio, 14 / 6, "R");
    expectClose(statistic.covariance, (23 - (14 * 6) / 4) / 3, "cov");
    const mMean = 3.5;
    const dMean = 1.5;
    expectClose(
      statistic.variance,
      m.variance / dMean ** 2 +
        (mMean ** 2 * d.variance) / dMean ** 4 -
        (2 * mMean * statistic.covariance) / dMean ** 3,
      "Var",
    );
    expect(statisticMean(statistic)).toBe(statistic.ratio);
  });

  it("a retention-shaped ratio (denominator 1 per entity) has the 0/1 sample variance", () => {
    const n = 100;
    const retained = 30;
    const statistic = new RatioStatistic(
      n,
      new SampleMeanStatistic(n, retained, retained),
      new SampleMeanStatistic(n, n, n),
      retained,
    );
    expectClose(statistic.ratio, 0.3, "R");
    expectClose(statistic.variance, (retained - retained ** 2 / n) / (n - 1), "Var");
  });

  it("refuses what PostHog refuses", () => {
    const m = new SampleMeanStatistic(4, 14, 54);
    expect(invalid(() => new RatioStatistic(0, m, m, 1))).toBe("Sample size must be positive");
    expect(invalid(() => new RatioStatistic(4, m, new SampleMeanStatistic(5, 5, 5), 1))).toBe(
      "All statistics must have same sample size",
    );
    expect(invalid(() => new RatioStatistic(4, m, new SampleMeanStatistic(4, 0, 0), 0))).toBe(
      "Denominator mean cannot be zero for ratio calculation",
    );
  });
});

describe("statisticFromAggregates (PostHog's metric_variant_to_statistic)", () => {
  const base = { key: "test", number_of_samples: 100, sum: 30, sum_squares: 30 };

  it("mean → SampleMean, funnel → Proportion (sum truncated), ratio and retention → Ratio", () => {
    expect(statisticFromAggregates("mean", base)).toEqual(new SampleMeanStatistic(100, 30, 30));
    expect(statisticFromAggregates("funnel", { ...base, sum: 30.9 })).toEqual(
      new ProportionStatistic(100, 30),
    );
    const withRatio = {
      ...base,
      denominator_sum: 100,
      denominator_sum_squares: 100,
      numerator_denominator_sum_product: 30,
    };
    for (const metricType of ["ratio", "retention"] as const) {
      const statistic = statisticFromAggregates(metricType, withRatio);
      expect(statistic).toBeInstanceOf(RatioStatistic);
      expectClose(statisticMean(statistic), 0.3, metricType);
    }
  });

  it("missing ratio fields count as 0, so the ratio is refused", () => {
    expect(invalid(() => statisticFromAggregates("ratio", base))).toBe(
      "Denominator mean cannot be zero for ratio calculation",
    );
    expect(invalid(() => statisticFromAggregates("ratio", { ...base, denominator_sum: null }))).toBe(
      "Denominator mean cannot be zero for ratio calculation",
    );
  });

  it("refuses aggregates no statistic can hold", () => {
    expect(invalid(() => statisticFromAggregates("funnel", { ...base, sum: 101 }))).toBe(
      "Number of successes cannot exceed sample size",
    );
    expect(invalid(() => statisticFromAggregates("mean", { ...base, number_of_samples: 0 }))).toBe(
      "Sample size must be positive",
    );
  });
});
