/**
 * Properties of the statistics engine over generated arms (src/experiments/stats/): the interval holds
 * the estimate, ABSOLUTE and RELATIVE agree in sign, swapping arms flips the effect, the p-value and the
 * interval agree on significance, the chance to win sides with the effect, and the response never
 * gives statistics to a variant that failed validation. Arms are made of integer values, so their sums
 * are exact.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runBayesianTest } from "../../../src/experiments/stats/bayesian.js";
import { runFrequentistTest } from "../../../src/experiments/stats/frequentist.js";
import { experimentResult } from "../../../src/experiments/stats/response.js";
import {
  type DifferenceType,
  ProportionStatistic,
  SampleMeanStatistic,
  type Statistic,
  StatisticError,
} from "../../../src/experiments/stats/statistics.js";
import type {
  ExperimentMetricType,
  VariantAggregates,
} from "../../../src/experiments/stats/variant-aggregates.js";
import { propertyRuns } from "../../support/arbitraries.js";

/** Sufficient statistics of 5 to 80 integer values in [0, 200] with some spread. */
const meanArm = fc
  .array(fc.integer({ min: 0, max: 200 }), { minLength: 5, maxLength: 80 })
  .filter((values) => new Set(values).size > 1 && values.some((value) => value > 0))
  .map(
    (values) =>
      new SampleMeanStatistic(
        values.length,
        values.reduce((total, value) => total + value, 0),
        values.reduce((total, value) => total + value * value, 0),
      ),
  );

/** A conversion arm with at least 5 successes and 5 failures. */
const proportionArm = fc
  .integer({ min: 10, max: 5000 })
  .chain((n) => fc.integer({ min: 5, max: n - 5 }).map((successes) => new ProportionStatistic(n, successes)));

const arms = fc.oneof(fc.tuple(meanArm, meanArm), fc.tuple(proportionArm, proportionArm));
const differenceType = fc.constantFrom<DifferenceType>("RELATIVE", "ABSOLUTE");
/** The suite's seed (FAST_CHECK_SEED to vary it), so CI runs the same cases every time. */
const runs = propertyRuns(300);

/** The result of `run`, or null when the engine refuses the inputs with a StatisticError. */
function orRefused<T>(run: () => T): T | null {
  try {
    return run();
  } catch (error) {
    if (error instanceof StatisticError) return null;
    throw error;
  }
}

const frequentist = (treatment: Statistic, control: Statistic, type: DifferenceType) =>
  orRefused(() => runFrequentistTest(treatment, control, { alpha: 0.05, differenceType: type }));
const bayesian = (treatment: Statistic, control: Statistic, type: DifferenceType) =>
  orRefused(() =>
    runBayesianTest(treatment, control, {
      ciLevel: 0.95,
      inverse: false,
      differenceType: type,
      priorType: "RELATIVE",
      prior: { mean: 0, variance: 1, proper: false },
    }),
  );

describe("statistics engine properties", () => {
  it("the confidence interval holds δ, and the credible interval holds the posterior mean", () => {
    fc.assert(
      fc.property(arms, differenceType, ([treatment, control], type) => {
        const f = frequentist(treatment, control, type);
        if (f !== null) {
          expect(f.confidenceInterval[0]).toBeLessThanOrEqual(f.pointEstimate);
          expect(f.pointEstimate).toBeLessThanOrEqual(f.confidenceInterval[1]);
          expect(f.pValue).toBeGreaterThanOrEqual(0);
          expect(f.pValue).toBeLessThanOrEqual(1);
        }
        const b = bayesian(treatment, control, type);
        if (b !== null) {
          expect(b.credibleInterval[0]).toBeLessThanOrEqual(b.posteriorMean);
          expect(b.posteriorMean).toBeLessThanOrEqual(b.credibleInterval[1]);
          expect(b.chanceToWin).toBeGreaterThanOrEqual(0);
          expect(b.chanceToWin).toBeLessThanOrEqual(1);
        }
      }),
      runs,
    );
  });

  it("ABSOLUTE and RELATIVE agree in sign (the control mean being positive)", () => {
    fc.assert(
      fc.property(arms, ([treatment, control]) => {
        const absolute = frequentist(treatment, control, "ABSOLUTE");
        const relative = frequentist(treatment, control, "RELATIVE");
        if (absolute === null || relative === null) return;
        expect(Math.sign(relative.pointEstimate)).toBe(Math.sign(absolute.pointEstimate));
        const bayesAbsolute = bayesian(treatment, control, "ABSOLUTE");
        const bayesRelative = bayesian(treatment, control, "RELATIVE");
        if (bayesAbsolute === null || bayesRelative === null) return;
        expect(Math.sign(bayesRelative.posteriorMean)).toBe(Math.sign(bayesAbsolute.posteriorMean));
      }),
      runs,
    );
  });

  it("swapping the arms flips the sign of δ (exactly its negative for ABSOLUTE, with the same p-value)", () => {
    fc.assert(
      fc.property(arms, differenceType, ([treatment, control], type) => {
        const forward = frequentist(treatment, control, type);
        const backward = frequentist(control, treatment, type);
        if (forward === null || backward === null) return;
        // `+ 0` makes -0 and 0 one value: equal arms give δ 0 either way.
        expect(Math.sign(backward.pointEstimate) + 0).toBe(-Math.sign(forward.pointEstimate) + 0);
        if (type === "ABSOLUTE") {
          expect(backward.pointEstimate + 0).toBe(-forward.pointEstimate + 0);
          expect(Math.abs(backward.pValue - forward.pValue)).toBeLessThan(1e-12);
        }
      }),
      runs,
    );
  });

  it("p < alpha exactly when the confidence interval leaves out 0", () => {
    fc.assert(
      fc.property(arms, differenceType, ([treatment, control], type) => {
        const result = frequentist(treatment, control, type);
        if (result === null || Math.abs(result.pValue - 0.05) < 1e-9) return;
        const excludesZero = result.confidenceInterval[0] > 0 || result.confidenceInterval[1] < 0;
        expect(result.isSignificant).toBe(excludesZero);
      }),
      runs,
    );
  });

  it("the chance to win sides with the effect, and inverse is its complement", () => {
    fc.assert(
      fc.property(arms, differenceType, ([treatment, control], type) => {
        const result = bayesian(treatment, control, type);
        if (result === null || result.posteriorMean === 0) return;
        expect(result.chanceToWin > 0.5).toBe(result.posteriorMean > 0);
        const inverse = runBayesianTest(treatment, control, {
          ciLevel: 0.95,
          inverse: true,
          differenceType: type,
          priorType: "RELATIVE",
          prior: { mean: 0, variance: 1, proper: false },
        });
        expect(Math.abs(inverse.chanceToWin + result.chanceToWin - 1)).toBeLessThan(1e-12);
      }),
      runs,
    );
  });
});

/** Aggregates of any size, funnel-consistent (sum ≤ n), including empty and failing variants. */
const variantAggregates = (key: string) =>
  fc.integer({ min: 0, max: 400 }).chain((n) =>
    fc.integer({ min: 0, max: n }).map(
      (sum): VariantAggregates => ({
        key,
        number_of_samples: n,
        sum,
        sum_squares: sum,
        denominator_sum: n,
        denominator_sum_squares: n,
        numerator_denominator_sum_product: sum,
      }),
    ),
  );

describe("response properties", () => {
  it("one result per test variant; statistics all set or all null, and null whenever a variant or the baseline failed", () => {
    fc.assert(
      fc.property(
        variantAggregates("control"),
        fc
          .array(fc.integer({ min: 1, max: 99 }), { maxLength: 4 })
          .chain((ids) => fc.tuple(...[...new Set(ids)].map((id) => variantAggregates(`test-${id}`)))),
        fc.constantFrom<ExperimentMetricType>("mean", "funnel", "ratio", "retention"),
        fc.constantFrom("bayesian", "frequentist"),
        (control, tests, metricType, method) => {
          const result = experimentResult([control, ...tests], metricType, { method });
          expect(result.variant_results.map((variant) => variant.key)).toEqual(
            tests.map((variant) => variant.key),
          );
          for (const variant of result.variant_results) {
            const values =
              variant.method === "bayesian"
                ? [variant.chance_to_win, variant.credible_interval, variant.significant]
                : [variant.p_value, variant.confidence_interval, variant.significant];
            const set = values.filter((value) => value !== null).length;
            expect([0, 3]).toContain(set);
            if (variant.validation_failures.length > 0 || result.baseline.validation_failures.length > 0) {
              expect(set).toBe(0);
            }
            expect(variant.method).toBe(method);
            for (const number of values.flat()) {
              if (typeof number === "number") expect(Number.isFinite(number), String(number)).toBe(true);
            }
          }
        },
      ),
      runs,
    );
  });
});
