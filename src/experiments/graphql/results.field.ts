/**
 * `Experiment.results(metricUuid:)`: an experiment's metric results for GraphQL, each computed through
 * the query service as REST's `POST /query/` with `{kind: "ExperimentQuery", experiment_id, metric}`
 * (so scope `query:read`, the per-project cap, the statement timeout and PostHog's messages apply).
 * With `metricUuid`, the one metric of that uuid (primary, secondary or a saved metric's); without it,
 * every primary metric in order. Typed: per metric the baseline and each test variant's aggregates,
 * validation failures and statistics (chance to win and credible interval, or p-value and confidence
 * interval); `response` keeps PostHog's whole ExperimentQueryResponse. Failures are typed errors
 * (the first metric that fails fails the field).
 */
import { authorizeProject } from "../../core/auth/access.js";
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { QUERY_RUN_ERRORS } from "../../graphql/errors.graphql.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { ExperimentRecord } from "../experiments.queries.js";
import { ExperimentRef } from "./experiment.type.js";

type Obj = Record<string, unknown>;

/** One variant's entry of an ExperimentQueryResponse (baseline or test variant). */
type VariantEntry = Obj & { key: string };

/** One metric's result as the field answers it. */
interface MetricResult {
  metric: Obj;
  response: Obj;
}

const numberOrNull = (value: unknown): number | null => (typeof value === "number" ? value : null);
const intervalOf = (value: unknown): number[] | null =>
  Array.isArray(value) && value.every((x) => typeof x === "number") ? (value as number[]) : null;

const ExperimentVariantResultRef = builder.objectRef<VariantEntry>("ExperimentVariantResult").implement({
  description:
    "One variant's aggregates, validation and (test variants) statistics: PostHog's ExperimentStatsBaseValidated " +
    "and ExperimentVariantResultBayesian/Frequentist. Intervals are on the effect scale (relative lift by default).",
  fields: (t) => ({
    key: t.string({
      description: "The variant key (`control` for the baseline, `holdout-<id>` for a holdout).",
      resolve: (v) => String(v["key"]),
    }),
    numberOfSamples: t.int({
      description: "Exposed entities (persons or groups) counted in the variant.",
      resolve: (v) => Number(v["number_of_samples"] ?? 0),
    }),
    sum: t.float({
      description: "Σ of the per-entity metric values.",
      resolve: (v) => Number(v["sum"] ?? 0),
    }),
    sumSquares: t.float({
      description: "Σ of their squares.",
      resolve: (v) => Number(v["sum_squares"] ?? 0),
    }),
    stepCounts: t.intList({
      nullable: true,
      description: "Funnel metrics: entities reaching each step; null otherwise.",
      resolve: (v) => (Array.isArray(v["step_counts"]) ? (v["step_counts"] as number[]) : null),
    }),
    denominatorSum: t.float({
      nullable: true,
      description: "Ratio and retention metrics: Σ of the denominators; null otherwise.",
      resolve: (v) => numberOrNull(v["denominator_sum"]),
    }),
    denominatorSumSquares: t.float({
      nullable: true,
      description: "Ratio and retention metrics: Σ of the squared denominators; null otherwise.",
      resolve: (v) => numberOrNull(v["denominator_sum_squares"]),
    }),
    numeratorDenominatorSumProduct: t.float({
      nullable: true,
      description: "Ratio and retention metrics: Σ numerator × denominator; null otherwise.",
      resolve: (v) => numberOrNull(v["numerator_denominator_sum_product"]),
    }),
    validationFailures: t.stringList({
      description:
        "Why the variant has no statistics: `not-enough-exposures` (< 50), `not-enough-metric-data`, `baseline-mean-is-zero`.",
      resolve: (v) => (Array.isArray(v["validation_failures"]) ? (v["validation_failures"] as string[]) : []),
    }),
    method: t.string({
      nullable: true,
      description: "`bayesian` or `frequentist` (test variants); null for the baseline.",
      resolve: (v) => (typeof v["method"] === "string" ? v["method"] : null),
    }),
    significant: t.boolean({
      nullable: true,
      description:
        "Bayesian: chance to win beyond the credible level either way; frequentist: p-value < alpha. Null without statistics.",
      resolve: (v) => (typeof v["significant"] === "boolean" ? v["significant"] : null),
    }),
    chanceToWin: t.float({
      nullable: true,
      description: "Bayesian: P(effect > 0), 0–1; null otherwise or without statistics.",
      resolve: (v) => numberOrNull(v["chance_to_win"]),
    }),
    credibleInterval: t.floatList({
      nullable: true,
      description: "Bayesian: [lower, upper] credible interval of the effect; null otherwise.",
      resolve: (v) => intervalOf(v["credible_interval"]),
    }),
    pValue: t.float({
      nullable: true,
      description: "Frequentist: two-sided Welch t-test p-value; null otherwise or without statistics.",
      resolve: (v) => numberOrNull(v["p_value"]),
    }),
    confidenceInterval: t.floatList({
      nullable: true,
      description:
        "Frequentist: [lower, upper] (1 − alpha) confidence interval of the effect; null otherwise.",
      resolve: (v) => intervalOf(v["confidence_interval"]),
    }),
  }),
});

const ExperimentMetricResultRef = builder.objectRef<MetricResult>("ExperimentMetricResult").implement({
  description: "One metric's result (PostHog's ExperimentQueryResponse, typed).",
  fields: (t) => ({
    metricUuid: t.string({
      nullable: true,
      description: "The metric's uuid.",
      resolve: (r) => (typeof r.metric["uuid"] === "string" ? r.metric["uuid"] : null),
    }),
    metricName: t.string({
      nullable: true,
      description: "The metric's name.",
      resolve: (r) => (typeof r.metric["name"] === "string" ? r.metric["name"] : null),
    }),
    metricType: t.string({
      nullable: true,
      description: "`mean`, `funnel`, `ratio` or `retention`.",
      resolve: (r) => (typeof r.metric["metric_type"] === "string" ? r.metric["metric_type"] : null),
    }),
    fingerprint: t.string({
      nullable: true,
      description: "The metric's fingerprint (its timeseries key).",
      resolve: (r) => (typeof r.metric["fingerprint"] === "string" ? r.metric["fingerprint"] : null),
    }),
    baseline: t.field({
      type: ExperimentVariantResultRef,
      description: "The control variant.",
      resolve: (r) => r.response["baseline"] as VariantEntry,
    }),
    variantResults: t.field({
      type: [ExperimentVariantResultRef],
      description: "Each test variant (holdouts included) against the control, in the flag's order.",
      resolve: (r) => (r.response["variant_results"] as VariantEntry[]) ?? [],
    }),
    lastRefresh: t.field({
      type: "DateTime",
      description: "When the result was computed.",
      resolve: (r) => new Date(String(r.response["last_refresh"])),
    }),
    response: t.field({
      type: "JSON",
      description: "REST's whole ExperimentQueryResponse (PostHog's shape).",
      resolve: (r) => r.response,
    }),
  }),
});

/** The metrics `results` computes: the one of `uuid` (primary, secondary, saved), or every primary metric. */
function metricsOf(experiment: ExperimentRecord, uuid: string | null | undefined): Obj[] {
  const list = (value: unknown): Obj[] =>
    Array.isArray(value)
      ? value.filter((m): m is Obj => m !== null && typeof m === "object" && !Array.isArray(m))
      : [];
  if (uuid === null || uuid === undefined) return list(experiment.metrics);
  const candidates = [
    ...list(experiment.metrics),
    ...list(experiment.metricsSecondary),
    ...list(experiment.savedMetricLinks.map((link) => link.savedMetric.query)),
  ];
  const found = candidates.find((metric) => metric["uuid"] === uuid);
  if (!found) throw new NotFoundError(`The experiment has no metric with uuid ${uuid}.`);
  return [found];
}

builder.objectFields(ExperimentRef, (t) => ({
  results: t.field({
    type: [ExperimentMetricResultRef],
    description:
      "The experiment's results (REST `POST /query/` with an ExperimentQuery per metric): the metric of " +
      "`metricUuid` (primary, secondary or saved), or every primary metric in order. Scope `query:read`.",
    extensions: requiresScopes("query:read"),
    args: {
      metricUuid: t.arg.string({ description: "One metric's uuid; every primary metric when absent." }),
    },
    errors: {
      types: QUERY_RUN_ERRORS,
      union: { name: "ExperimentResultsOutcome", description: "The metrics' results, or why they failed." },
      result: { name: "ExperimentResultsSuccess", description: "The results were computed." },
      dataField: { name: "results", description: "One result per metric." },
    },
    resolve: async (experiment, args, ctx) => {
      const serviceContext = await ctx.serviceContext();
      // `query:read` first, as REST's query door, even when there is no metric to run.
      const project = await authorizeProject(serviceContext, experiment.projectId, "query:read");
      const results: MetricResult[] = [];
      for (const metric of metricsOf(experiment, args.metricUuid)) {
        const response = await ctx.services.queries.runAuthorized(serviceContext, project, {
          kind: "ExperimentQuery",
          experiment_id: experiment.id,
          metric,
        });
        results.push({ metric, response });
      }
      return results;
    },
  }),
}));
