/**
 * How a materialized result is read: the read model of what `run` answers from a materialization (a
 * version's last completed result, its columns, types and rows). Writes, and the reads a write or a
 * refresh decides from, are materialization.store.ts's.
 *
 * Invariant: every statement filters by `project_id` and the version's UUID; values are bound
 * parameters, never text.
 */
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";

/** The database the reads run on: the client, or a transaction's. */
export type MaterializedResultDb = Pick<PrismaClient, "endpointMaterialization" | "$queryRaw">;

/** A version's last completed result as stored. */
export interface CompletedResult {
  /** The result's column names (the HogQLQueryResponse's `columns`). */
  columns: string[];
  /** `[name, ClickHouse type]` per column, as HogQLQueryResponse `types`. */
  types: unknown[];
  /** The rows, each an array in column order. */
  results: unknown[][];
  /** When the refresh that computed it started (`last_run_at`). */
  lastRunAt: Date;
}

/**
 * Version `versionId`'s stored result when its last refresh `Completed`, else null (no state, another
 * status, or never run). Two statements: the state, then the rows in row order (only when completed).
 * Whether the result is still fresh is the caller's rule (materialization.service.ts).
 */
export async function readCompletedResult(
  db: MaterializedResultDb,
  projectId: number,
  versionId: string,
): Promise<CompletedResult | null> {
  const stored = await db.endpointMaterialization.findFirst({
    where: { projectId, versionId, status: "Completed" },
    select: { columns: true, types: true, lastRunAt: true },
  });
  if (!stored?.lastRunAt) return null;
  return {
    columns: (stored.columns ?? []) as string[],
    types: (stored.types ?? []) as unknown[],
    results: await readRows(db, projectId, versionId),
    lastRunAt: stored.lastRunAt,
  };
}

/** The stored rows of `versionId`, in row order. One statement. */
async function readRows(
  db: Pick<PrismaClient, "$queryRaw">,
  projectId: number,
  versionId: string,
): Promise<unknown[][]> {
  const rows = await db.$queryRaw<Array<{ values: unknown[] }>>(Prisma.sql`
    SELECT r."values" FROM endpoint_materialized_rows r
    WHERE r.project_id = ${projectId} AND r.version_id = ${versionId}::uuid
    ORDER BY r.row_number`);
  return rows.map((row) => row.values);
}
