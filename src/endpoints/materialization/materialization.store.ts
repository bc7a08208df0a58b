/**
 * How an endpoint version's materialization is stored (prisma `EndpointMaterialization`,
 * `EndpointMaterializedRow`): the enabled flag and frequency stay on `endpoint_versions`
 * (`is_materialized`, `sync_frequency`, PostHog's fields), the refresh state in
 * `endpoint_materializations` (one row per materialized version), the result in
 * `endpoint_materialized_rows` (one row per result row, so a large result is many small values).
 *
 * Invariant: a version is materialized exactly when its `endpoint_materializations` row exists and
 * `endpoint_versions.is_materialized` is true; both are written together in the caller's transaction.
 * Every statement filters by `project_id` or by the version's UUID (itself project-owned).
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

/** The stored rows of `versionId`, in row order. */
export async function readRows(
  db: MaterializationDb,
  projectId: number,
  versionId: string,
): Promise<unknown[][]> {
  const rows = await db.$queryRaw<Array<{ values: unknown[] }>>(Prisma.sql`
    SELECT r."values" FROM endpoint_materialized_rows r
    WHERE r.project_id = ${projectId} AND r.version_id = ${versionId}::uuid
    ORDER BY r.row_number`);
  return rows.map((row) => row.values);
}
