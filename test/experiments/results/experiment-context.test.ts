/**
 * An experiment's results context (PostHog's `ExperimentQueryRunner.__init__`): variants in the
 * flag's order with the holdout's, the flag's group type index, the dates, and the 400s for a draft
 * and a flag without variants. Pure.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/core/errors.js";
import {
  type ExperimentContextSource,
  experimentContext,
} from "../../../src/experiments/results/experiment-context.js";

const flag = (filters: unknown) => ({ key: "exp-flag", filters });
const variants = (...keys: string[]) => ({
  groups: [{ properties: [], rollout_percentage: 100 }],
  multivariate: { variants: keys.map((key) => ({ key, rollout_percentage: 100 / keys.length })) },
});
const source = (extra: Partial<ExperimentContextSource> = {}): ExperimentContextSource => ({
  projectId: 7,
  startDate: new Date("2024-01-01T00:00:00Z"),
  endDate: null,
  exposureCriteria: { filterTestAccounts: false },
  holdoutId: null,
  featureFlag: flag(variants("control", "b", "a")),
  ...extra,
});

describe("experimentContext", () => {
  it("keeps the flag's variant order and every field the computation needs", () => {
    expect(experimentContext(source(), "Europe/Paris")).toEqual({
      projectId: 7,
      timezone: "Europe/Paris",
      flagKey: "exp-flag",
      variants: ["control", "b", "a"],
      aggregationGroupTypeIndex: null,
      startDate: new Date("2024-01-01T00:00:00Z"),
      endDate: null,
      exposureCriteria: { filterTestAccounts: false },
    });
  });

  it("appends holdout-<id> after the flag's variants and reads the flag's group type index", () => {
    const context = experimentContext(
      source({
        holdoutId: 42,
        endDate: new Date("2024-02-01T00:00:00Z"),
        featureFlag: flag({ ...variants("control", "test"), aggregation_group_type_index: 2 }),
      }),
      "UTC",
    );
    expect(context.variants).toEqual(["control", "test", "holdout-42"]);
    expect(context.aggregationGroupTypeIndex).toBe(2);
    expect(context.endDate).toEqual(new Date("2024-02-01T00:00:00Z"));
  });

  it("refuses a draft with PostHog's message, and a flag without variants with its data error", () => {
    const draft = () => experimentContext(source({ startDate: null }), "UTC");
    expect(draft).toThrow(ValidationError);
    expect(draft).toThrow("Experiment has not been started yet");
    for (const filters of [
      { groups: [] },
      { multivariate: null },
      { multivariate: { variants: [] } },
      null,
    ]) {
      expect(() => experimentContext(source({ featureFlag: flag(filters) }), "UTC")).toThrow(
        "Unable to calculate experiment results from the collected data. This usually resolves once more exposures are recorded.",
      );
    }
  });
});
