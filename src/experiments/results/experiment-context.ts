/**
 * An experiment's results context: what every metric computation of one experiment shares
 * (PostHog's `ExperimentQueryRunner.__init__`, `get_experiment_date_range`; query-and-experiments.md
 * 2b Step 1). Pure: the caller has read the experiment with its flag and holdout.
 */
import { ValidationError } from "../../core/errors.js";
import { EXPERIMENT_DATA_ERROR_MESSAGE } from "../stats/response.js";
import type { ExperimentResultsInput } from "./compute-results.js";

/** An experiment's results input without its metric. */
export type ExperimentContext = Omit<ExperimentResultsInput, "metric">;

/** What the context is read from: the experiment's own fields, its flag and its holdout id. */
export interface ExperimentContextSource {
  projectId: number;
  startDate: Date | null;
  endDate: Date | null;
  exposureCriteria: unknown;
  holdoutId: number | null;
  featureFlag: { key: string; filters: unknown };
}

/** The message for results of an experiment without a start date (PostHog's `timeseries_results` wording). */
export const NOT_STARTED_MESSAGE = "Experiment has not been started yet";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The flag's variant keys, in the flag's order (`feature_flag.variants`); non-string keys skipped. */
function variantKeys(filters: unknown): string[] {
  const multivariate = isObject(filters) ? filters["multivariate"] : undefined;
  const variants = isObject(multivariate) ? multivariate["variants"] : undefined;
  if (!Array.isArray(variants)) return [];
  return variants
    .map((variant) => (isObject(variant) ? variant["key"] : undefined))
    .filter((key): key is string => typeof key === "string" && key.length > 0);
}

/**
 * The flag's `aggregation_group_type_index` (0–4) when it aggregates by groups, else null (persons),
 * as the runner reads it: `feature_flag.filters.get("aggregation_group_type_index")`.
 */
function groupTypeIndex(filters: unknown): number | null {
  const value = isObject(filters) ? filters["aggregation_group_type_index"] : undefined;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 4 ? value : null;
}

/**
 * The results context of `experiment` in a project of time zone `timezone`: the flag's key, its
 * variant keys in order plus `holdout-<id>` when a holdout is attached, the flag's group type index,
 * the experiment's exact start and end (null: running, the computation uses now) and its stored
 * exposure criteria (validated by the computation).
 * @throws ValidationError `Experiment has not been started yet` without a start date (PostHog's runner
 *   would fall back to a relative range; its API refuses results of a draft with this message);
 *   PostHog's `ExperimentDataError` answer (`Unable to calculate experiment results from the collected
 *   data. ...`) when the flag has no variants (the runner then finds no control variant).
 */
export function experimentContext(experiment: ExperimentContextSource, timezone: string): ExperimentContext {
  if (experiment.startDate === null) throw new ValidationError(NOT_STARTED_MESSAGE, { code: "invalid" });
  const variants = variantKeys(experiment.featureFlag.filters);
  if (variants.length === 0) throw new ValidationError(EXPERIMENT_DATA_ERROR_MESSAGE, { code: "invalid" });
  if (experiment.holdoutId !== null) variants.push(`holdout-${experiment.holdoutId}`);
  return {
    projectId: experiment.projectId,
    timezone,
    flagKey: experiment.featureFlag.key,
    variants,
    aggregationGroupTypeIndex: groupTypeIndex(experiment.featureFlag.filters),
    startDate: experiment.startDate,
    endDate: experiment.endDate,
    exposureCriteria: experiment.exposureCriteria,
  };
}
