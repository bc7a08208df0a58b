/**
 * Endpoint materialization (issue 10 part 3; posthog-behavior.md §4.6, query-and-experiments.md 1e):
 * a materialized endpoint version's HogQL result is computed on a schedule by the job queue
 * (src/core/jobs/) and stored (materialization.store.ts), so that `run` can answer it while fresh.
 *
 * Scheduling: one job of `ENDPOINT_MATERIALIZE_JOB` (payload `{versionId}`) per materialized version,
 * under the job key `endpoint-materialize:<versionId>`. Enabling enqueues it to run now; each run
 * enqueues its successor at `last run + sync interval` under the same key (the queue keeps one
 * waiting job per key, so across server processes each scheduled refresh runs once: graphile-worker's
 * job keys on PostgreSQL). Disabling or deleting re-enqueues the key to run now: the run finds the
 * version no longer materialized and ends without a successor, which leaves no job behind. At queue
 * start every materialized version's job is enqueued with `preserve_run_at` (a job lost between a
 * commit and its enqueue is restored; one waiting keeps its time).
 *
 * A refresh that fails (a query error, its statement timeout) is tried again at its next scheduled
 * time, never at once; after `ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE` (5) failures in a row the
 * schedule is paused, with PostHog's message in `materialization_status.error`, and stays paused
 * across restarts until the endpoint's materialization is set again (PATCH `is_materialized` or
 * `sync_frequency`, or a query change moving it to a new version).
 *
 * A refresh runs the version's query through the query service (its statement timeout and per-project
 * cap) as a system actor limited to the version's project with scope `query:read` only, with the query
 * engine's largest row count (`MAX_SELECT_RETURNED_ROWS`, 50,000): PostHog's materialization has no
 * row limit, and a result that reaches the cap fails the refresh rather than storing a truncated table.
 */
import type { DataAccess, ProjectAccess, ServiceContext } from "../../core/context.js";
import { createServiceContext } from "../../core/context.js";
import { publicMessage, ValidationError } from "../../core/errors.js";
import type { JobQueue } from "../../core/jobs/jobs.js";
import { databaseOf, type ServiceDeps } from "../../core/services.js";
import { MAX_SELECT_RETURNED_ROWS } from "../../lib/hogql/limits.js";
import { readProject } from "../../projects/projects.queries.js";
import type { QueryService } from "../../queries/query.service.js";
import { DEFAULT_SYNC_FREQUENCY, type SyncFrequency, syncIntervalMs } from "../rules/materialization.js";
import { readCompletedResult } from "./materialization.queries.js";
import {
  findRefreshTarget,
  type MaterializationDb,
  markRefreshRunning,
  pauseRefreshes,
  type RefreshTarget,
  recordRefreshFailure,
  selectScheduledRefreshes,
  storeResult,
} from "./materialization.store.js";

/** The job that refreshes one materialized version. */
export const ENDPOINT_MATERIALIZE_JOB = "endpoint-materialize";

/** The job key of version `versionId`'s refresh: one waiting refresh per version. */
export function materializeJobKey(versionId: string): string {
  return `${ENDPOINT_MATERIALIZE_JOB}:${versionId}`;
}

/** What one refresh did (logged by the queue as the job's result). */
export type RefreshOutcome =
  | { outcome: "gone"; versionId: string }
  | { outcome: "completed"; versionId: string; rows: number; nextRunAt: string }
  | { outcome: "failed"; versionId: string; error: string; nextRunAt: string }
  /** Failed `failures` times in a row: the schedule is paused (no next refresh). */
  | { outcome: "paused"; versionId: string; error: string; failures: number };

/**
 * The error a paused schedule shows (`materialization_status.error`): PostHog's words when it pauses
 * a saved query's schedule (products/data_modeling/backend/temporal `_maybe_pause_schedule_on_timeout`).
 */
export function pausedMessage(error: string): string {
  return `This materialized view sync schedule has been paused until you modify the query and reset the sync schedule. Error: ${error}`;
}

/** A stored result `run` may answer (see `freshMaterializedResult`). */
export interface MaterializedResult {
  columns: string[];
  /** `[name, ClickHouse type]` per column, as HogQLQueryResponse `types`. */
  types: unknown[];
  /** The rows, each an array in column order. */
  results: unknown[][];
  /** When the refresh that computed it started (PostHog's `last_run_at`, `endpoint_materialized_at`). */
  materializedAt: Date;
}

/** The version fields `freshMaterializedResult` reads (an `EndpointVersionRecord` has them). */
export interface MaterializedVersion {
  id: string;
  projectId: number;
  isMaterialized: boolean;
  materialization: { status: string | null; syncFrequency: string; lastRunAt: Date | null } | null;
}

/** Creates the materialization service (built once per process by the composition root). */
export function createMaterializationService(deps: ServiceDeps, queries: QueryService) {
  let queue: JobQueue | null = null;
  const scale = deps.config.materializationIntervalScale;
  const data = (): DataAccess => databaseOf(deps, "materialization service");
  /** `frequency`'s interval in ms, scaled by the test-only `materializationIntervalScale`. */
  const intervalMs = (frequency: string) => syncIntervalMs(frequency) * scale;

  const jobs = (): JobQueue => {
    if (!queue) throw new Error("the job queue is not started: materialization cannot be scheduled");
    return queue;
  };

  /**
   * How long until `at` on the service clock (`deps.now`), in ms, at least 0. The queue counts time on
   * its own clock, so a schedule is handed over as a wait, never as an instant: an instant from a
   * service clock that lags the queue's (a test's clock set in the past) would make every refresh due
   * at once, each run enqueueing the next, forever.
   */
  const msUntil = (at: Date) => Math.max(0, at.getTime() - deps.now().getTime());

  /** Enqueues version `versionId`'s refresh to run after `delayMs` (replacing the waiting one). */
  async function schedule(versionId: string, delayMs: number): Promise<void> {
    await jobs().enqueue(
      ENDPOINT_MATERIALIZE_JOB,
      { versionId },
      { jobKey: materializeJobKey(versionId), delayMs },
    );
  }

  /** A service context for a refresh: a system actor that may only read queries of `target`'s project. */
  function systemContext(target: RefreshTarget & { project: ProjectAccess }): ServiceContext {
    return createServiceContext(
      data(),
      {
        user: {
          id: 0,
          uuid: "00000000-0000-0000-0000-000000000000",
          distinctId: "signalbox-materialization",
          firstName: "Materialization",
          lastName: "",
          email: "",
          isEmailVerified: null,
          hedgehogConfig: null,
          roleAtOrganization: null,
          currentProjectId: target.projectId,
        },
        apiKey: {
          id: "system:endpoint-materialize",
          label: "endpoint materialization",
          maskValue: "",
          scopes: ["query:read"],
          scopedTeams: [target.projectId],
          scopedOrganizations: [],
        },
        organizationIds: [target.organizationId],
        projects: [target.project],
      },
      deps.config.limits,
    );
  }

  return {
    /** Hands the started job queue to the service (src/app.ts, once the queue runs), and restores every schedule. */
    async attachQueue(started: JobQueue): Promise<void> {
      queue = started;
      // A paused schedule stays paused across restarts: it is not run again until it is set again.
      const rows = await selectScheduledRefreshes(data().prisma);
      for (const row of rows) {
        const delayMs = row.lastRunAt
          ? msUntil(new Date(row.lastRunAt.getTime() + intervalMs(row.syncFrequency)))
          : 0;
        await started.enqueue(
          ENDPOINT_MATERIALIZE_JOB,
          { versionId: row.versionId },
          { jobKey: materializeJobKey(row.versionId), jobKeyMode: "preserve_run_at", delayMs },
        );
      }
    },

    /** Schedules a refresh of each version now (just enabled, or moved to a new version). */
    async refreshSoon(versionIds: readonly string[]): Promise<void> {
      for (const versionId of versionIds) await schedule(versionId, 0);
    },

    /**
     * Reschedules version `versionId` after a frequency change: `lastRunAt + interval`, or now when it
     * never ran.
     */
    async reschedule(versionId: string, frequency: string, lastRunAt: Date | null): Promise<void> {
      await schedule(
        versionId,
        lastRunAt ? msUntil(new Date(lastRunAt.getTime() + intervalMs(frequency))) : 0,
      );
    },

    /**
     * Ends the schedule of versions no longer materialized: their job is re-enqueued to run now, finds
     * nothing to refresh and enqueues no successor (the queue offers no removal; see the module comment).
     */
    async unschedule(versionIds: readonly string[]): Promise<void> {
      for (const versionId of versionIds) await schedule(versionId, 0);
    },

    /**
     * One refresh of version `versionId` (the job's handler): marks it `Running`, runs its query,
     * replaces the stored result in one transaction and marks it `Completed` with `last_run_at` = the
     * run's start (or `Failed` with `latest_error`), then enqueues the next refresh at start + interval.
     * A version no longer materialized (disabled, deleted) or whose schedule is paused is `gone`:
     * nothing runs, nothing is enqueued.
     */
    async refresh(versionId: string): Promise<RefreshOutcome> {
      const db = data().prisma;
      const target = await findRefreshTarget(db, versionId);
      if (!target) return { outcome: "gone", versionId };
      const startedAt = deps.now();
      const nextRunAt = new Date(startedAt.getTime() + intervalMs(target.syncFrequency));
      await markRefreshRunning(db, target.projectId, versionId, startedAt);
      try {
        const project = await readProject(db, target.projectId);
        const ctx = systemContext({ ...target, project });
        const response = await queries.run(ctx, target.projectId, target.query, {
          limit: MAX_SELECT_RETURNED_ROWS,
          timeoutMs: deps.config.limits.queryTimeoutMs,
        });
        const rows = response["results"] as unknown[][];
        if (response["hasMore"] === true || rows.length >= MAX_SELECT_RETURNED_ROWS) {
          throw new ValidationError(
            `The result has ${MAX_SELECT_RETURNED_ROWS} rows or more, the most the query engine answers; ` +
              "a materialized result is never stored truncated.",
          );
        }
        const stored = await db.$transaction((tx) =>
          storeResult(
            tx as MaterializationDb,
            target.projectId,
            versionId,
            { columns: response["columns"], types: response["types"], rows },
            startedAt,
          ),
        );
        if (!stored) return { outcome: "gone", versionId };
        await schedule(versionId, msUntil(nextRunAt));
        return { outcome: "completed", versionId, rows: rows.length, nextRunAt: nextRunAt.toISOString() };
      } catch (error) {
        // The job's result (logged) keeps the cause; the stored error is what clients read.
        const message = error instanceof Error ? error.message : String(error);
        const failures = await recordRefreshFailure(
          db,
          target.projectId,
          versionId,
          publicMessage(error),
          deps.now(),
        );
        if (failures === null) return { outcome: "gone", versionId };
        if (failures >= deps.config.materializationFailuresToPause) {
          await pauseRefreshes(db, target.projectId, versionId, pausedMessage(publicMessage(error)));
          // A refresh still waiting (this one ran on demand) runs now, finds the schedule paused
          // and ends without a successor: the queue offers no removal (see `unschedule`).
          await schedule(versionId, 0);
          return { outcome: "paused", versionId, error: message, failures };
        }
        await schedule(versionId, msUntil(nextRunAt));
        return { outcome: "failed", versionId, error: message, nextRunAt: nextRunAt.toISOString() };
      }
    },

    /**
     * The stored result of `version` when `run` may answer it, else null (query-and-experiments.md 1e):
     * the version is materialized, its last refresh `Completed`, and `now < last_run_at + sync interval`.
     * The caller decides the rest (PostHog: no variables or overrides given, `refresh` is not `direct`).
     * `columns`/`types`/`results` are as the HogQLQueryResponse of the refresh; `materializedAt` its start.
     */
    async freshMaterializedResult(
      ctx: Pick<ServiceContext, "db">,
      version: MaterializedVersion,
      now: Date,
    ): Promise<MaterializedResult | null> {
      const state = version.materialization;
      if (!version.isMaterialized || !state || state.status !== "Completed" || !state.lastRunAt) return null;
      if (now.getTime() >= state.lastRunAt.getTime() + intervalMs(state.syncFrequency)) return null;
      const stored = await readCompletedResult(ctx.db, version.projectId, version.id);
      if (!stored) return null;
      return {
        columns: stored.columns,
        types: stored.types,
        results: stored.results,
        materializedAt: stored.lastRunAt,
      };
    },

    /** The frequency a newly enabled materialization uses when none is given (PostHog's default). */
    defaultFrequency: DEFAULT_SYNC_FREQUENCY as SyncFrequency,
  };
}

/** The materialization service's operations. */
export type MaterializationService = ReturnType<typeof createMaterializationService>;

declare module "../../core/services.js" {
  interface Services {
    /** See `createMaterializationService`. */
    endpointMaterialization: MaterializationService;
  }
}
