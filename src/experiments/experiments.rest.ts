/**
 * Experiments, holdouts and saved metrics on PostHog's REST paths (spec "Experiments" rows;
 * posthog-behavior.md §5; `ee/clickhouse/views/experiments.py`, `experiment_holdouts.py`,
 * `experiment_saved_metrics.py`), each with and without its trailing slash. Request parsing and
 * PostHog's shapes only; behaviour lives in experiments.service.ts (timeseries: timeseries.service.ts).
 */
import { z } from "zod";
import { approvalHeldSchema } from "../approvals/approvals.responses.js";
import { cohortSchema, serializeCohort } from "../cohorts/cohorts.responses.js";
import type { ServiceContext } from "../core/context.js";
import { errorBodySchema } from "../core/error-body.js";
import type { OffsetPage } from "../core/paging.js";
import { featureFlagSchema, serializeFlag } from "../feature-flags/feature-flags.responses.js";
import { type CrudService, crudRoutes } from "../rest/crud-routes.js";
import { drfDateTime } from "../rest/date-time.js";
import { forbiddenDestroyRoute } from "../rest/forbidden-destroy.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import { versionRoutes } from "../rest/version-routes.js";
import {
  eligibleFlagsErrorSchema,
  experimentPageSchema,
  experimentSchema,
  experimentStatsSchema,
  holdoutPageSchema,
  holdoutSchema,
  savedMetricPageSchema,
  savedMetricSchema,
  serializeExperiment,
  serializeHoldout,
  serializeSavedMetric,
  serializeStats,
} from "./experiments.responses.js";
import {
  createExperimentSchema,
  duplicateExperimentSchema,
  holdoutSchema as holdoutBodySchema,
  savedMetricSchema as savedMetricBodySchema,
  updateExperimentSchema,
} from "./experiments.schemas.js";
import { EligibleFlagsError } from "./experiments.service.js";

const BASE = "/api/projects/:project_id/experiments/";
const HOLDOUTS = "/api/projects/:project_id/experiment_holdouts/";
const SAVED_METRICS = "/api/projects/:project_id/experiment_saved_metrics/";

/** The list's query parameters (§5.2). */
const listQuery = offsetPageQuerySchema.extend({
  status: z
    .enum(["draft", "running", "complete", "all"])
    .optional()
    .describe("draft, running, complete or all."),
  archived: z
    .boolean()
    .optional()
    .describe("Archived experiments only (true); by default they are left out."),
  created_by_id: z.int().optional(),
  search: z.string().optional().describe("Matches the name, case-insensitive."),
  order: z
    .string()
    .optional()
    .describe(
      "A field (`created_at`, `name`, `start_date`, `end_date`, `duration`, `status`, ...), `-` for descending.",
    ),
});

/** `eligible_feature_flags`' query parameters (§5.5). */
const eligibleQuery = z.object({
  search: z.string().optional(),
  active: z.boolean().optional(),
  created_by_id: z.int().optional(),
  evaluation_runtime: z.string().optional(),
  has_evaluation_tags: z.boolean().optional(),
  order: z.string().optional(),
  limit: z.int().optional().describe("Default 20, at most 100."),
  offset: z.int().optional(),
});

const eligiblePageSchema = z
  .object({ results: z.array(featureFlagSchema), count: z.int() })
  .meta({ id: "EligibleFeatureFlags" });

/** The `:id/timeseries_results` query. */
/** `requires_flag_implementation`'s query: the legacy insight filter, the parts it reads. */
const flagImplementationQuery = z.object({
  events: z.string().optional().describe("JSON list of event entities (`[{id, type, order}]`)."),
  actions: z
    .string()
    .optional()
    .describe(
      "JSON list of action entities: accepted, but this service has no actions, so they name no events.",
    ),
  limit: z.int().optional().describe("Events sampled per event name: default 20, at most 100."),
});

const flagImplementationSchema = z
  .object({ result: z.boolean().describe("True when no sampled event carries a `$feature/` property.") })
  .meta({ id: "ExperimentRequiresFlagImplementation" });

const exposureCohortSchema = z.object({ cohort: cohortSchema }).meta({ id: "ExperimentExposureCohort" });

const timeseriesQuery = z.object({
  metric_uuid: z.string().optional().describe("Required: the metric's uuid."),
  fingerprint: z.string().optional().describe("Required: the metric's fingerprint."),
});

/** The `:id/recalculate_timeseries` body. */
const recalculateBody = z.object({
  metric: z.looseObject({}).describe("Required: the full metric object (an ExperimentMetric with its uuid)."),
  fingerprint: z.string().describe("Required: the metric's fingerprint."),
});

/** A recalculation request (`recalculate_timeseries`' answer). */
const recalculationSchema = z
  .object({
    id: z.uuid(),
    experiment_id: z.int(),
    metric_uuid: z.string().nullable(),
    fingerprint: z.string(),
    status: z.enum(["pending", "in_progress", "completed", "failed"]),
    created_at: z.string(),
  })
  .meta({ id: "ExperimentTimeseriesRecalculation" });

/** `timeseries_results`' answer. */
const timeseriesResultsSchema = z
  .object({
    experiment_id: z.int(),
    metric_uuid: z.string(),
    status: z.enum(["pending", "failed", "completed", "partial"]),
    timeseries: z
      .record(z.string(), z.unknown())
      .describe(
        "Every day (YYYY-MM-DD, project time zone) from start to end or today: an ExperimentQueryResponse or null.",
      ),
    errors: z.record(z.string(), z.string()).nullable(),
    computed_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    recalculation_status: z.string().nullable(),
    recalculation_created_at: z.string().nullable(),
  })
  .meta({ id: "ExperimentTimeseriesResults" });

/** The routes. */
export const experimentRoutes: RestModule = (services, limits) => {
  const experiments = services.experiments;
  const flags = services.featureFlags;
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const id = (params: Record<string, string>) => pathId(params, "id");
  /** A holdout's or saved metric's routes: its list, then `crudRoutes`', summaries named by `noun`. */
  const objectRoutes = <R>(
    base: string,
    noun: string,
    scope: "experiment_holdout" | "experiment_saved_metric",
    schemas: { record: z.ZodType; page: z.ZodType; body: z.ZodType },
    service: CrudService<R, R> & {
      list(
        ctx: ServiceContext,
        projectId: number,
        page: OffsetPage,
      ): Promise<{ count: number; results: R[] }>;
    },
    serialize: (record: R) => unknown,
  ): RestRoute[] => [
    offsetListRoute(limits, {
      path: base,
      summary: `List the project's ${noun}s, newest first; limit/offset pages.`,
      scopes: [`${scope}:read`],
      query: offsetPageQuerySchema,
      pageSchema: schemas.page,
      load: ({ ctx, projectId }, page) => service.list(ctx, projectId, page),
      serialize,
    }),
    ...crudRoutes({
      base,
      read: `${scope}:read`,
      write: `${scope}:write`,
      service,
      record: { schema: schemas.record, serialize },
      bodies: { create: schemas.body, patch: schemas.body, put: schemas.body },
      summaries: {
        create: `Create a ${noun}.`,
        get: `One ${noun}.`,
        patch: `Change a ${noun} (fields optional).`,
        put: `Replace a ${noun}'s fields.`,
        remove: `Delete a ${noun}.`,
      },
    }),
  ];

  return [
    offsetListRoute(limits, {
      path: BASE,
      summary:
        "List the project's experiments, newest first: not deleted, archived only with archived=true; status, " +
        "created_by_id, search, order (incl. duration, status); limit/offset pages.",
      scopes: ["experiment:read"],
      query: listQuery,
      pageSchema: experimentPageSchema,
      load: ({ ctx, projectId, query }, page) =>
        experiments.list(ctx, projectId, Object.fromEntries(query), page),
      serialize: serializeExperiment,
    }),
    {
      method: "POST",
      path: BASE,
      summary:
        "Create an experiment on `feature_flag_key`: an eligible flag is reused, else an inactive multivariate flag " +
        "is created (active when start_date is given); metric fingerprints are computed.",
      scopes: ["experiment:write"],
      request: { body: createExperimentSchema },
      responses: { 201: experimentSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeExperiment(await experiments.create(ctx, project(params), body), ctx),
      }),
    },
    {
      method: "GET",
      path: `${BASE}eligible_feature_flags/`,
      summary:
        "Flags an experiment can run on (≥2 variants, control first), filtered as the flag list: `{results, count}`.",
      scopes: ["feature_flag:read"],
      request: { query: eligibleQuery },
      responses: { 200: eligiblePageSchema, 400: z.union([eligibleFlagsErrorSchema, errorBodySchema]) },
      errorBody: (error) => (error instanceof EligibleFlagsError ? { error: error.detail } : undefined),
      handler: async ({ params, query, ctx }) => {
        const { count, results } = await experiments.eligibleFlags(ctx, project(params), query);
        return {
          body: { results: results.map((flag) => serializeFlag(flag, ctx, flags.status(flag))), count },
        };
      },
    },
    {
      method: "GET",
      path: `${BASE}requires_flag_implementation/`,
      summary:
        "Whether the latest events (last 7 days) of the legacy filter's `events` lack `$feature/` properties: `{result}`.",
      scopes: ["experiment:read"],
      request: { query: flagImplementationQuery },
      responses: { 200: flagImplementationSchema },
      // It reads events, which do not bump the project's revision: no ETag, never 304.
      conditional: false,
      handler: async ({ params, query, ctx }) => ({
        body: { result: await experiments.requiresFlagImplementation(ctx, project(params), query) },
      }),
    },
    {
      method: "GET",
      path: `${BASE}stats/`,
      summary:
        "Experimentation velocity over the last 30 days (project time zone): launched, previous window, percent change, active, completed.",
      scopes: ["experiment:read"],
      responses: { 200: experimentStatsSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeStats(await experiments.stats(ctx, project(params))),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One experiment (deleted ones too).",
      scopes: ["experiment:read"],
      responses: { 200: experimentSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeExperiment(await experiments.get(ctx, project(params), id(params)), ctx),
      }),
    },
    {
      method: "PATCH",
      path: `${BASE}:id/`,
      summary:
        "Change an experiment: PostHog's updatable keys only; start_date on a draft launches it (activates the flag); " +
        "variants and holdout frozen after launch; deleted true/false soft-deletes and restores.",
      scopes: ["experiment:write"],
      request: { body: updateExperimentSchema },
      // A launch, or a draft's new variants, are flag writes the approval gate may hold.
      responses: { 200: experimentSchema, 409: z.union([errorBodySchema, approvalHeldSchema]) },
      handler: async ({ params, body, ctx }) => ({
        body: serializeExperiment(await experiments.update(ctx, project(params), id(params), body), ctx),
      }),
    },
    forbiddenDestroyRoute(`${BASE}:id/`, "experiment:write", experiments.destroy),
    ...versionRoutes(limits, {
      base: BASE,
      noun: "experiment",
      scopes: { read: "experiment:read", write: "experiment:write" },
      service: experiments,
      serialize: serializeExperiment,
      objectSchema: experimentSchema,
      // A restore is an update: the approval gate may hold the flag write it makes.
      conflictSchema: z.union([errorBodySchema, approvalHeldSchema]),
    }),
    {
      method: "POST",
      path: `${BASE}:id/duplicate/`,
      summary:
        "Copy an experiment as a draft named `<name> (Copy)` (then `(Copy) 1`, ...), on the same flag or `feature_flag_key`.",
      scopes: ["experiment:write"],
      request: { body: duplicateExperimentSchema },
      responses: { 201: experimentSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeExperiment(await experiments.duplicate(ctx, project(params), id(params), body), ctx),
      }),
    },
    {
      method: "POST",
      path: `${BASE}:id/create_exposure_cohort_for_experiment/`,
      summary:
        'Create the dynamic cohort `Users exposed to experiment "<name>"` (performed the exposure event since the start) and link it: `{cohort}`.',
      scopes: ["experiment:write"],
      responses: { 201: exposureCohortSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: {
          cohort: serializeCohort(
            await experiments.createExposureCohort(ctx, project(params), id(params), body),
          ),
        },
      }),
    },
    {
      method: "POST",
      path: `${BASE}:id/recalculate_timeseries/`,
      summary:
        "Queue a recalculation of a metric's daily results (`{metric, fingerprint}`): 201 with the new request, " +
        "or 200 with the pending one for that fingerprint.",
      scopes: ["experiment:write"],
      request: { body: recalculateBody },
      responses: { 200: recalculationSchema, 201: recalculationSchema },
      handler: async ({ params, body, ctx }) => {
        const { recalculation, created } = await experiments.recalculateTimeseries(
          ctx,
          project(params),
          id(params),
          body,
        );
        return {
          status: created ? 201 : 200,
          body: {
            id: recalculation.id,
            experiment_id: recalculation.experimentId,
            metric_uuid: recalculation.metricUuid,
            fingerprint: recalculation.fingerprint,
            status: recalculation.status,
            created_at: drfDateTime(recalculation.createdAt),
          },
        };
      },
    },
    {
      method: "GET",
      path: `${BASE}:id/timeseries_results/`,
      summary:
        "A metric's stored daily results from the start to the end (or today), project time zone, with their status.",
      scopes: ["experiment:read"],
      request: { query: timeseriesQuery },
      responses: { 200: timeseriesResultsSchema },
      // Daily results are derived data, not tracked by the project's revision (timeseries.service.ts).
      conditional: false,
      handler: async ({ params, query, ctx }) => ({
        body: await experiments.timeseriesResults(ctx, project(params), id(params), {
          metric_uuid: query.getAll("metric_uuid").at(-1),
          fingerprint: query.getAll("fingerprint").at(-1),
        }),
      }),
    },
    ...objectRoutes(
      HOLDOUTS,
      "holdout",
      "experiment_holdout",
      { record: holdoutSchema, page: holdoutPageSchema, body: holdoutBodySchema },
      {
        list: experiments.listHoldouts,
        get: experiments.getHoldout,
        create: experiments.createHoldout,
        update: experiments.updateHoldout,
        remove: experiments.deleteHoldout,
      },
      serializeHoldout,
    ),
    ...objectRoutes(
      SAVED_METRICS,
      "saved metric",
      "experiment_saved_metric",
      { record: savedMetricSchema, page: savedMetricPageSchema, body: savedMetricBodySchema },
      {
        list: experiments.listSavedMetrics,
        get: experiments.getSavedMetric,
        create: experiments.createSavedMetric,
        update: experiments.updateSavedMetric,
        remove: experiments.deleteSavedMetric,
      },
      serializeSavedMetric,
    ),
  ];
};
