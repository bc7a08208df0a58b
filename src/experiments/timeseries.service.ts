/**
 * Experiment timeseries (posthog-behavior.md §5.5, query-and-experiments.md 2c; PostHog's
 * `recalculate_timeseries` / `timeseries_results` in ee/clickhouse/views/experiments.py and its
 * `ExperimentTimeseriesRecalculation` / `ExperimentMetricResult` models). Part of the experiment service.
 *
 * - `recalculateTimeseries` records a request for one metric fingerprint (at most one pending or
 *   in_progress per experiment and fingerprint: a second request answers the first, 200), deletes the
 *   metric's stored days, and enqueues the `experiment-timeseries` job (job key per request).
 * - The job (`runTimeseriesRecalculation`) computes, for each day from the start's day to the end's day
 *   (or today) in the project's time zone, the cumulative ExperimentQueryResponse as of that day's end
 *   (the experiment's end on its last day), one results statement per day, and stores each day as
 *   `completed` (the response) or `failed` (the error's message). The request ends `completed`, or
 *   `failed` when no day could be computed.
 * - `timeseriesResults` answers PostHog's shape: every day from start to end (or today) keyed
 *   `YYYY-MM-DD`, each the stored response or null; errors by day; the overall status (no day → pending,
 *   only failures → failed, every day completed → completed, else partial).
 *
 * Days are in the project's time zone throughout (PostHog lists them from the UTC dates of start and
 * end and keys results in the project's zone; one zone for both keeps them aligned).
 *
 * Storage: both tables are derived data, rewritten by each recalculation and read only here, so they
 * are not tracked by the project's revision (a job's writes would otherwise invalidate every ETag and
 * the flag definitions cached by revision); `timeseries_results` is therefore not conditional. How
 * they are kept is timeseries.store.ts's, how they are read timeseries.queries.ts's.
 */
import { z } from "zod";
import { authorizeProject } from "../core/auth/access.js";
import {
  createServiceContext,
  type DataAccess,
  type ProjectAccess,
  type ServiceContext,
} from "../core/context.js";
import { NotFoundError, publicMessage, ValidationError } from "../core/errors.js";
import type { JobQueue } from "../core/jobs/jobs.js";
import { databaseOf, type ServiceDeps } from "../core/services.js";
import { parseInput } from "../core/validation.js";
import type { Prisma } from "../generated/prisma/client.js";
import { runReadOnly } from "../queries/run-sql.js";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { experimentContext } from "./results/experiment-context.js";
import { computeExperimentResult } from "./results/experiment-query-kind.js";
import {
  findActiveRecalculation,
  findExperimentSpan,
  selectExperimentDays,
  selectStoredDays,
} from "./timeseries.queries.js";
import {
  deleteStoredDays,
  findExperimentStart,
  findRunnableRecalculation,
  finishRecalculation,
  insertRecalculation,
  lockActiveRecalculation,
  type MetricDay,
  markRecalculationRunning,
  selectActiveRecalculationIds,
  writeCompletedDay,
  writeFailedDay,
} from "./timeseries.store.js";

/** The job that computes one timeseries recalculation (payload `{recalculationId}`). */
export const EXPERIMENT_TIMESERIES_JOB = "experiment-timeseries";

/** A recalculation request as `recalculate_timeseries` answers it. */
export interface TimeseriesRecalculation {
  id: string;
  experimentId: number;
  metricUuid: string | null;
  fingerprint: string;
  /** pending, in_progress, completed, failed. */
  status: string;
  createdAt: Date;
}

/** `timeseries_results`' answer (PostHog's keys). */
export interface TimeseriesResults {
  experiment_id: number;
  metric_uuid: string;
  status: "pending" | "failed" | "completed" | "partial";
  /** Every day from start to end (or today), project time zone: the stored response or null. */
  timeseries: Record<string, unknown>;
  /** Failed days' messages, or null when none. */
  errors: Record<string, string> | null;
  /** The latest `completed_at` of the stored days (ISO), or null. */
  computed_at: string | null;
  created_at: string;
  updated_at: string;
  recalculation_status: string | null;
  recalculation_created_at: string | null;
}

/** What one job run did (logged by the queue). */
export type RecalculationOutcome =
  | { outcome: "gone"; recalculationId: string }
  | { outcome: "completed" | "failed"; recalculationId: string; days: number; failedDays: number };

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** "Empty" as Python's `not value` reads a JSON value: null, false, 0, "", [] and {}. */
function falsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** `recalculate_timeseries`' body as read before PostHog's checks: any object. */
const recalculateBodySchema = z.looseObject({});

/** Creates the timeseries operations of the experiment service. */
export function createTimeseriesOperations(deps: ServiceDeps) {
  let queue: JobQueue | null = null;
  const data = (): DataAccess => databaseOf(deps, "experiment timeseries service");

  async function enqueue(recalculationId: string): Promise<void> {
    if (!queue) throw new Error("the job queue is not started: a timeseries recalculation cannot be queued");
    await queue.enqueue(
      EXPERIMENT_TIMESERIES_JOB,
      { recalculationId },
      { jobKey: `${EXPERIMENT_TIMESERIES_JOB}:${recalculationId}` },
    );
  }

  /** A system context for a recalculation: reads of one project's events only. */
  function systemContext(project: ProjectAccess): ServiceContext {
    const projectId = project.id;
    return createServiceContext(
      data(),
      {
        user: {
          id: 0,
          uuid: "00000000-0000-0000-0000-000000000000",
          distinctId: "signalbox-experiment-timeseries",
          firstName: "Experiment timeseries",
          lastName: "",
          email: "",
          isEmailVerified: null,
          hedgehogConfig: null,
          roleAtOrganization: null,
          currentProjectId: projectId,
        },
        apiKey: {
          id: "system:experiment-timeseries",
          label: "experiment timeseries",
          maskValue: "",
          scopes: ["query:read"],
          scopedTeams: [projectId],
          scopedOrganizations: [],
        },
        organizationIds: [project.organizationId],
        projects: [project],
      },
      deps.config.limits,
    );
  }

  return {
    /** Hands the started job queue over, and re-enqueues every active recalculation (one lost between its commit and its enqueue). */
    async attachTimeseriesQueue(started: JobQueue): Promise<void> {
      queue = started;
      const active = await selectActiveRecalculationIds(data().prisma);
      for (const id of active) {
        await started.enqueue(
          EXPERIMENT_TIMESERIES_JOB,
          { recalculationId: id },
          { jobKey: `${EXPERIMENT_TIMESERIES_JOB}:${id}`, jobKeyMode: "preserve_run_at" },
        );
      }
    },

    /**
     * Requests a recalculation of one metric's timeseries (`POST :id/recalculate_timeseries`, body
     * `{metric, fingerprint}`). Scope `experiment:write`. When a pending or in_progress request exists
     * for the experiment and fingerprint it is answered (`created: false`, PostHog's 200); otherwise the
     * metric's stored days (its `uuid` and the fingerprint) are deleted, a pending request is created
     * and its job queued (`created: true`, 201).
     * @throws NotFoundError (experiment), ValidationError `metric is required` / `fingerprint is
     *   required` (empty values too, as Python's `not`), `Cannot recalculate timeseries for experiment
     *   that hasn't started`.
     */
    async recalculateTimeseries(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<{ recalculation: TimeseriesRecalculation; created: boolean }> {
      const project = await authorizeProject(ctx, projectId, "experiment:write");
      const experiment = await findExperimentStart(ctx.db, project.id, id);
      if (!experiment) throw new NotFoundError();
      // Bounded nesting and storable text first (parseInput's checks), then PostHog's own messages.
      const input = parseInput(recalculateBodySchema, body, ctx.limits);
      const metric = input["metric"];
      const fingerprint = input["fingerprint"];
      if (falsy(metric)) throw new ValidationError("metric is required", { code: "invalid" });
      if (falsy(fingerprint)) throw new ValidationError("fingerprint is required", { code: "invalid" });
      if (!isObject(metric))
        throw new ValidationError("metric must be an object", { code: "invalid", attr: "metric" });
      if (typeof fingerprint !== "string")
        throw new ValidationError("fingerprint must be a string", { code: "invalid", attr: "fingerprint" });
      if (experiment.startDate === null) {
        throw new ValidationError("Cannot recalculate timeseries for experiment that hasn't started", {
          code: "invalid",
        });
      }
      const metricUuid = typeof metric["uuid"] === "string" && metric["uuid"] ? metric["uuid"] : null;
      const { row, created } = await ctx.db.$transaction(async (tx) => {
        // One active request per experiment and fingerprint: the experiment row is the lock.
        const existing = await lockActiveRecalculation(tx, experiment.id, fingerprint);
        if (existing) return { row: existing, created: false };
        if (metricUuid !== null) await deleteStoredDays(tx, experiment.id, { metricUuid, fingerprint });
        const inserted = await insertRecalculation(tx, {
          projectId: project.id,
          experimentId: experiment.id,
          metric,
          metricUuid,
          fingerprint,
          createdAt: deps.now(),
          updatedAt: deps.now(),
        });
        return { row: inserted, created: true };
      });
      if (created) await enqueue(row.id);
      return {
        recalculation: {
          id: row.id,
          experimentId: experiment.id,
          metricUuid: row.metricUuid,
          fingerprint,
          status: row.status,
          createdAt: row.createdAt,
        },
        created,
      };
    },

    /**
     * One metric's stored timeseries (`GET :id/timeseries_results?metric_uuid=&fingerprint=`), PostHog's
     * shape (see `TimeseriesResults` and the module comment). Scope `experiment:read`.
     * @throws NotFoundError (experiment), ValidationError `metric_uuid query parameter is required`,
     *   `fingerprint query parameter is required`, `Experiment has not been started yet`.
     */
    async timeseriesResults(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      query: { metric_uuid?: string | undefined; fingerprint?: string | undefined },
    ): Promise<TimeseriesResults> {
      const project = await authorizeProject(ctx, projectId, "experiment:read");
      const experiment = await findExperimentSpan(ctx.db, project.id, id);
      if (!experiment) throw new NotFoundError();
      const metricUuid = query.metric_uuid;
      const fingerprint = query.fingerprint;
      if (!metricUuid)
        throw new ValidationError("metric_uuid query parameter is required", { code: "invalid" });
      if (!fingerprint)
        throw new ValidationError("fingerprint query parameter is required", { code: "invalid" });
      if (experiment.startDate === null) {
        throw new ValidationError("Experiment has not been started yet", { code: "invalid" });
      }
      const days = await selectExperimentDays(
        ctx.db,
        project.timezone,
        experiment.startDate,
        experiment.endDate ?? deps.now(),
      );
      // The active request is read before the days: a job writes every day before it finishes, so a
      // request found finished here has all its days in the read below (read the other way round, a
      // job finishing in between showed some days and no active request).
      const active = await findActiveRecalculation(ctx.db, experiment.id, fingerprint);
      const rows = await selectStoredDays(
        ctx.db,
        project.id,
        experiment.id,
        { metricUuid, fingerprint },
        project.timezone,
      );
      const byDay = new Map(rows.map((row) => [row.day, row]));
      const timeseries: Record<string, unknown> = {};
      const errors: Record<string, string> = {};
      let completed = 0;
      let failed = 0;
      let pending = 0;
      let latest: Date | null = null;
      for (const { day } of days) {
        timeseries[day] = null;
        const row = byDay.get(day);
        if (!row) continue;
        if (row.status === "completed") {
          timeseries[day] = row.result;
          completed += 1;
        } else if (row.status === "failed") {
          if (row.errorMessage) errors[day] = row.errorMessage;
          failed += 1;
        } else if (row.status === "pending") {
          pending += 1;
        }
        if (row.completedAt && (latest === null || row.completedAt > latest)) latest = row.completedAt;
      }
      const calculated = completed + failed + pending;
      const status =
        calculated === 0
          ? "pending"
          : completed === 0 && failed > 0
            ? "failed"
            : completed === days.length
              ? "completed"
              : "partial";
      const first = rows[0];
      const last = rows[rows.length - 1];
      return {
        experiment_id: experiment.id,
        metric_uuid: metricUuid,
        status,
        timeseries,
        errors: Object.keys(errors).length > 0 ? errors : null,
        computed_at: drfDateTimeOrNull(latest),
        created_at: drfDateTime(first?.createdAt ?? experiment.createdAt),
        updated_at: drfDateTime(last?.updatedAt ?? experiment.updatedAt),
        recalculation_status: active?.status ?? null,
        recalculation_created_at: drfDateTimeOrNull(active?.createdAt),
      };
    },

    /**
     * Computes recalculation `recalculationId` (the job's handler; see the module comment). A request no
     * longer active (done, or its experiment gone) is `gone`. The experiment is read as it is now (its
     * flag's variants, exposure criteria, stats_config, dates); the metric is the request's.
     */
    async runTimeseriesRecalculation(recalculationId: string): Promise<RecalculationOutcome> {
      const db = data().prisma;
      const request = await findRunnableRecalculation(db, recalculationId);
      if (!request) return { outcome: "gone", recalculationId };
      await markRecalculationRunning(db, request.id, deps.now());
      const { experiment, project } = request;
      const finish = async (status: "completed" | "failed", errorMessage: string | null) => {
        await finishRecalculation(db, request.id, status, errorMessage, deps.now());
      };
      let context: ReturnType<typeof experimentContext>;
      try {
        context = experimentContext(experiment, project.timezone);
      } catch (error) {
        await finish("failed", publicMessage(error));
        return { outcome: "failed", recalculationId, days: 0, failedDays: 0 };
      }
      const ctx = systemContext(project);
      const timeoutMs = deps.config.limits.queryTimeoutMs;
      const runDeps = {
        ctx,
        now: deps.now,
        execute: <R>(sql: Prisma.Sql, timezone: string) =>
          runReadOnly<R>(ctx.db, sql, { timeoutMs, timezone, maxCost: ctx.limits.queryMaxCost }),
      };
      const end = experiment.endDate ?? deps.now();
      const days = await selectExperimentDays(db, project.timezone, context.startDate, end);
      const metricUuid = request.metricUuid ?? "";
      let failedDays = 0;
      for (const { queryTo } of days) {
        // Cumulative as of the day's end (exclusive), or the experiment's end on its last day.
        const asOf = new Date(Math.min(queryTo.getTime() - 1, end.getTime()));
        const day: MetricDay = {
          projectId: project.id,
          experimentId: experiment.id,
          metricUuid,
          fingerprint: request.fingerprint,
          queryFrom: context.startDate,
          queryTo,
        };
        try {
          const result = await computeExperimentResult(
            runDeps,
            { ...context, endDate: asOf },
            request.metric,
            experiment.statsConfig,
          );
          await writeCompletedDay(db, day, result, deps.now());
        } catch (error) {
          failedDays += 1;
          await writeFailedDay(db, day, publicMessage(error), deps.now());
        }
      }
      const outcome = days.length > 0 && failedDays === days.length ? "failed" : "completed";
      await finish(outcome, outcome === "failed" ? "Every day of the timeseries failed to compute" : null);
      return { outcome, recalculationId, days: days.length, failedDays };
    },
  };
}
