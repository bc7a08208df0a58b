/**
 * How an endpoint version's materialization is stored (prisma `EndpointMaterialization`,
 * `EndpointMaterializedRow`): the enabled flag and frequency stay on `endpoint_versions`
 * (`is_materialized`, `sync_frequency`, PostHog's fields), the refresh state in
 * `endpoint_materializations` (one row per materialized version), the result in
 * `endpoint_materialized_rows` (one row per result row, so a large result is many small values).
 * Every write is here, and every read a write or a refresh job decides from (the schedules to
 * restore, the version a refresh runs, its failures in a row). The service says what happens
 * (materialization.service.ts); the stored result `run` answers is read by materialization.queries.ts.
 *
 * Invariant: a version is materialized exactly when its `endpoint_materializations` row exists and
 * `endpoint_versions.is_materialized` is true; both are written together in the caller's transaction.
 * Every statement filters by `project_id` or by the version's UUID (itself project-owned); the
 * queue's recovery (`selectScheduledRefreshes`) reads every project's schedules. A refresh job's
 * statements are single statements on the client, in no transaction, but its result's (`storeResult`).
 */
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";
import type { SyncFrequency } from "../rules/materialization.js";

/** A transaction's (or the database's) Prisma client. */
export type MaterializationDb = Pick<
  PrismaClient,
  "endpointVersion" | "endpointMaterialization" | "endpointMaterializedRow" | "$queryRaw"
>;

/** PostHog's saved-query statuses a refresh writes. */
export type MaterializationStatusValue = "Running" | "Completed" | "Failed" | "Modified";

/** The refresh state of a materialized version. */
export interface MaterializationState {
  /** PostHog's saved-query status; null before the first refresh (shown as `Unknown`). */
  status: string | null;
  syncFrequency: string;
  /** When the last successful refresh started; null before one. */
  lastRunAt: Date | null;
  /** The last failed refresh's message; null after a success. */
  latestError: string | null;
  /** The schedule is paused after failures in a row (`latestError` says so), until it is set again. */
  paused: boolean;
}

/** Rows inserted per statement when a refresh replaces a result. */
const INSERT_BATCH = 1000;

/**
 * Turns materialization on for `versionId` with `frequency` (or changes its frequency when it is on),
 * keeping any stored state; `status` is the state a newly made row starts in (null: never run;
 * `Modified`: moved from an earlier version whose query changed).
 */
export async function enableMaterialization(
  db: MaterializationDb,
  projectId: number,
  versionId: string,
  frequency: SyncFrequency,
  status: MaterializationStatusValue | null = null,
): Promise<void> {
  await db.endpointVersion.update({
    where: { id: versionId },
    data: { isMaterialized: true, syncFrequency: frequency },
  });
  await db.endpointMaterialization.upsert({
    where: { versionId },
    create: { projectId, versionId, syncFrequency: frequency, status },
    // Setting the materialization again resumes a paused schedule (PostHog: "until you modify the
    // query and reset the sync schedule").
    update: { syncFrequency: frequency, paused: false, consecutiveFailures: 0, updatedAt: new Date() },
  });
}

/** Turns materialization off for these versions of the project, deleting their state and rows. */
export async function disableMaterialization(
  db: MaterializationDb,
  projectId: number,
  versionIds: readonly string[],
): Promise<void> {
  if (versionIds.length === 0) return;
  await db.endpointVersion.updateMany({
    where: { projectId, id: { in: [...versionIds] } },
    data: { isMaterialized: false, syncFrequency: null },
  });
  // Rows go with their materialization (ON DELETE CASCADE).
  await db.endpointMaterialization.deleteMany({ where: { projectId, versionId: { in: [...versionIds] } } });
}

/** The materialized versions among an endpoint's, by UUID. */
export async function materializedVersionIds(
  db: MaterializationDb,
  projectId: number,
  endpointId: string,
): Promise<string[]> {
  const rows = await db.endpointVersion.findMany({
    where: { projectId, endpointId, isMaterialized: true },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/**
 * Replaces the stored result of `versionId` with `rows` and marks it `Completed` at `ranAt`, in the
 * caller's transaction. Returns false when the version is no longer materialized (nothing written).
 */
export async function storeResult(
  db: MaterializationDb,
  projectId: number,
  versionId: string,
  result: { columns: unknown; types: unknown; rows: readonly unknown[][] },
  ranAt: Date,
): Promise<boolean> {
  const { count } = await db.endpointMaterialization.updateMany({
    where: { projectId, versionId },
    data: {
      status: "Completed",
      lastRunAt: ranAt,
      latestError: null,
      consecutiveFailures: 0,
      columns: result.columns as Prisma.InputJsonValue,
      types: result.types as Prisma.InputJsonValue,
      rowCount: result.rows.length,
      updatedAt: new Date(),
    },
  });
  if (count === 0) return false;
  await db.endpointMaterializedRow.deleteMany({ where: { projectId, versionId } });
  for (let start = 0; start < result.rows.length; start += INSERT_BATCH) {
    await db.endpointMaterializedRow.createMany({
      data: result.rows.slice(start, start + INSERT_BATCH).map((values, index) => ({
        projectId,
        versionId,
        rowNumber: start + index,
        values: values as Prisma.InputJsonValue,
      })),
    });
  }
  return true;
}

/** A materialized version's schedule, as the queue's recovery restores it. */
export interface ScheduledRefresh {
  versionId: string;
  /** When its last successful refresh started; null before one. */
  lastRunAt: Date | null;
  syncFrequency: string;
}

/**
 * Every project's materialized versions whose schedule is not paused (a paused one stays paused
 * across restarts), in no order: those whose refresh the queue's recovery enqueues again. One statement.
 */
export function selectScheduledRefreshes(db: MaterializationDb): Promise<ScheduledRefresh[]> {
  return db.endpointMaterialization.findMany({
    where: { paused: false },
    select: { versionId: true, lastRunAt: true, syncFrequency: true },
  });
}

/** What a refresh of a materialized version runs: its project, query and frequency. */
export interface RefreshTarget {
  projectId: number;
  /** The version's HogQL query, as stored. */
  query: Record<string, unknown>;
  syncFrequency: string;
  /** The project's organization (UUID), the refresh's system actor's only one. */
  organizationId: string;
}

/**
 * What a refresh of version `versionId` runs, or null when the version is no longer materialized
 * (disabled, deleted) or its schedule is paused. One statement (the version, its state and its
 * project's organization).
 */
export async function findRefreshTarget(
  db: Pick<PrismaClient, "$queryRaw">,
  versionId: string,
): Promise<RefreshTarget | null> {
  const [target] = await db.$queryRaw<RefreshTarget[]>(Prisma.sql`
    SELECT m.project_id AS "projectId", v.query, m.sync_frequency AS "syncFrequency",
      p.organization_id::text AS "organizationId"
    FROM endpoint_materializations m
    JOIN endpoint_versions v ON v.id = m.version_id AND v.is_materialized
    JOIN projects p ON p.id = m.project_id
    WHERE m.version_id = ${versionId}::uuid AND NOT m.paused`);
  return target ?? null;
}

/** Marks version `versionId`'s refresh `Running` and counts the run, updated at `startedAt`. One statement. */
export async function markRefreshRunning(
  db: MaterializationDb,
  projectId: number,
  versionId: string,
  startedAt: Date,
): Promise<void> {
  await db.endpointMaterialization.updateMany({
    where: { projectId, versionId },
    data: { status: "Running", runCount: { increment: 1 }, updatedAt: startedAt },
  });
}

/**
 * Marks version `versionId`'s refresh `Failed` with `error` (the message clients read) and counts
 * one more failure in a row, updated at `now`. Returns the failures in a row now, or null when the
 * version is no longer materialized (nothing written). One statement.
 */
export async function recordRefreshFailure(
  db: Pick<PrismaClient, "$queryRaw">,
  projectId: number,
  versionId: string,
  error: string,
  now: Date,
): Promise<number | null> {
  const [failed] = await db.$queryRaw<Array<{ consecutiveFailures: number }>>(Prisma.sql`
    UPDATE endpoint_materializations SET status = 'Failed', latest_error = ${error},
      consecutive_failures = consecutive_failures + 1, updated_at = ${now}
    WHERE project_id = ${projectId} AND version_id = ${versionId}::uuid
    RETURNING consecutive_failures AS "consecutiveFailures"`);
  return failed ? failed.consecutiveFailures : null;
}

/**
 * Pauses version `versionId`'s schedule with `message` as its `latest_error` (PostHog's words, the
 * service's `pausedMessage`): no refresh runs until its materialization is set again
 * (`enableMaterialization`). One statement.
 */
export async function pauseRefreshes(
  db: MaterializationDb,
  projectId: number,
  versionId: string,
  message: string,
): Promise<void> {
  await db.endpointMaterialization.updateMany({
    where: { projectId, versionId },
    data: { paused: true, latestError: message },
  });
}
