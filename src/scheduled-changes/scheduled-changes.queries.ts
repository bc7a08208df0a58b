/**
 * How scheduled changes are read: the read model of the service's answers (a page with PostHog's
 * `model_name` / `record_id` filters, a batch, one change), each with its creator. One Prisma read
 * per record or batch; a page is two statements run together (its rows and its total). Writes, and
 * the reads a write or a run decides from, are scheduled-changes.store.ts's.
 *
 * Invariant: every statement filters by `project_id`.
 */
import type { OffsetPage } from "../core/paging.js";
import { USER_BASIC_SELECT } from "../core/records.js";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { ScheduledChangeFilters } from "./scheduled-changes.schemas.js";

/** A database client or an interactive transaction's client. */
export type Db = Prisma.TransactionClient | PrismaClient;

/** What a scheduled-change read includes: its creator. */
export const SCHEDULED_CHANGE_INCLUDE = {
  createdBy: { select: USER_BASIC_SELECT },
} as const satisfies Prisma.ScheduledChangeInclude;

/** A scheduled change with its creator, as both doors show it (`failure_reason` as stored: JSON text). */
export type ScheduledChangeRecord = Prisma.ScheduledChangeGetPayload<{
  include: typeof SCHEDULED_CHANGE_INCLUDE;
}>;

/** Scheduled change `id` of project `projectId`, or null. One statement. */
export function findScheduledChange(
  db: Db,
  projectId: number,
  id: number,
): Promise<ScheduledChangeRecord | null> {
  return db.scheduledChange.findFirst({ where: { projectId, id }, include: SCHEDULED_CHANGE_INCLUDE });
}

/**
 * One page of the project's scheduled changes matching `filters` (exact `model_name`, `record_id`),
 * in creation order (id ascending: PostHog's queryset has no ordering, and reads back in insertion
 * order), with the number of all that match: two statements, run concurrently.
 */
export async function selectScheduledChangePage(
  db: Db,
  projectId: number,
  filters: ScheduledChangeFilters,
  page: OffsetPage,
): Promise<{ count: number; results: ScheduledChangeRecord[] }> {
  const where: Prisma.ScheduledChangeWhereInput = {
    projectId,
    ...(filters.modelName === undefined ? {} : { modelName: filters.modelName }),
    ...(filters.recordId === undefined ? {} : { recordId: filters.recordId }),
  };
  const [count, results] = await Promise.all([
    db.scheduledChange.count({ where }),
    db.scheduledChange.findMany({
      where,
      include: SCHEDULED_CHANGE_INCLUDE,
      orderBy: { id: "asc" },
      take: page.limit,
      skip: page.offset,
    }),
  ]);
  return { count, results };
}

/** The project's scheduled changes among `ids` (duplicates read once), in no particular order. One statement. */
export function selectScheduledChanges(
  db: Db,
  projectId: number,
  ids: readonly number[],
): Promise<ScheduledChangeRecord[]> {
  return db.scheduledChange.findMany({
    where: { projectId, id: { in: [...new Set(ids)] } },
    include: SCHEDULED_CHANGE_INCLUDE,
  });
}
