/**
 * The `ExperimentQuery` kind of the query service (src/queries/query-kinds.ts): PostHog's
 * `ExperimentQueryRunner` (posthog/hogql_queries/experiments/experiment_query_runner.py, newest) over
 * this service's results engine. `{kind: "ExperimentQuery", experiment_id, metric}` reads the
 * experiment of the project, computes the metric's per-variant aggregates in one statement
 * (./compute-results.ts) and answers PostHog's `ExperimentQueryResponse` (`baseline`,
 * `variant_results`) with the statistics the experiment's `stats_config` selects
 * (../stats/response.ts; query-and-experiments.md 2b, 2c), plus the cached-response fields.
 *
 * `metric` is required, as in PostHog's schema (`ExperimentQuery.metric`); it need not be one of the
 * experiment's stored metrics (the UI sends the metric it shows, saved metrics included).
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import type { ProjectRecord } from "../../core/records.js";
import { parseInput } from "../../core/validation.js";
import { cachedResponseFields, type QueryKind, type QueryRunDeps } from "../../queries/query-kinds.js";
import { selectExperiment } from "../experiments.queries.js";
import {
  type ExperimentResult,
  experimentErrorToValidationError,
  experimentResult,
} from "../stats/response.js";
import { computeVariantAggregates } from "./compute-results.js";
import { type ExperimentContext, experimentContext } from "./experiment-context.js";
import { parseExperimentMetric } from "./experiment-metric.schema.js";

/** PostHog's `ExperimentQuery` node (fields this kind reads; others, e.g. `name`, `modifiers`, accepted). */
export const experimentQuerySchema = z.looseObject({
  kind: z.literal("ExperimentQuery"),
  experiment_id: z.int().nullish(),
  metric: z.looseObject({}),
  name: z.string().nullish(),
});

/**
 * One metric's result for an experiment context: the aggregates computed on the query engine, then
 * PostHog's validation and statistics with `statsConfig` (the experiment's stored `stats_config`).
 * `asOf`, when given, replaces the context's end (the timeseries' day ends).
 * @throws ValidationError for a bad metric or exposure criteria, a failed statement, or PostHog's
 *   user-facing messages for an `ExperimentDataError` / `StatisticError` of the statistics;
 *   NotImplementedError for metric constructs not computed here.
 */
export async function computeExperimentResult(
  deps: QueryRunDeps,
  context: ExperimentContext,
  metric: unknown,
  statsConfig: unknown,
): Promise<ExperimentResult> {
  const aggregates = await computeVariantAggregates(deps, { ...context, metric });
  const metricType = parseExperimentMetric(metric).type;
  try {
    return experimentResult(aggregates, metricType, statsConfig);
  } catch (error) {
    throw experimentErrorToValidationError(error) ?? error;
  }
}

/**
 * Loads experiment `experimentId` of `project` (deleted ones too, as PostHog's runner) and returns its
 * results context and `stats_config`.
 * @throws ValidationError `Experiment with id <id> not found` (PostHog's runner answers a 400, not a
 *   404); the context's errors (not started, no variants).
 */
export async function loadExperimentContext(
  deps: Pick<QueryRunDeps, "ctx">,
  project: Pick<ProjectRecord, "id" | "timezone">,
  experimentId: number,
): Promise<{ context: ExperimentContext; statsConfig: unknown }> {
  const experiment = await selectExperiment(deps.ctx.db, project.id, experimentId);
  if (!experiment) {
    throw new ValidationError(`Experiment with id ${experimentId} not found`, { code: "invalid" });
  }
  return { context: experimentContext(experiment, project.timezone), statsConfig: experiment.statsConfig };
}

/** The `ExperimentQuery` kind. */
export const experimentQueryKind: QueryKind = {
  kind: "ExperimentQuery",
  async run(deps, project, query) {
    const node = parseInput(experimentQuerySchema, query);
    if (node.experiment_id === undefined || node.experiment_id === null) {
      throw new ValidationError("experiment_id is required", { code: "invalid", attr: "experiment_id" });
    }
    const { context, statsConfig } = await loadExperimentContext(deps, project, node.experiment_id);
    const result = await computeExperimentResult(deps, context, node.metric, statsConfig);
    return { ...result, ...cachedResponseFields(project, query, deps.now()) };
  },
};
