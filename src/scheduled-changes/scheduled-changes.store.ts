/**
 * How scheduled changes are kept: every write of `scheduled_changes` and every read a write or a run
 * decides from (the row locked for an update, the due row a run claims, the due ids a sweep walks,
 * what a run acts as). The service says what happens (scheduled-changes.service.ts); this module says
 * how it is stored. Reads that answer callers are the read model's (scheduled-changes.queries.ts).
 *
 * Invariant: every statement filters by `project_id`, or by a row id read under it (a run's row,
 * whose project it then reads). A write takes the transaction it belongs to (`tx`).
 */
import type { ActorUser } from "../core/auth/actor.js";
import type { ProjectRecord } from "../core/records.js";
import { USER_BASIC_SELECT } from "../core/records.js";
import { lockAndRead } from "../core/row-lock.js";
import { Prisma, type ScheduledChange } from "../generated/prisma/client.js";
import type { ScheduleFields } from "./rules/schedule.js";
import {
  type Db,
  findScheduledChange,
  SCHEDULED_CHANGE_INCLUDE,
  type ScheduledChangeRecord,
} from "./scheduled-changes.queries.js";

/** The columns `fields` sets, as Prisma writes them. */
function columns(fields: ScheduleFields) {
  return {
    recordId: fields.recordId,
    modelName: fields.modelName,
    payload: fields.payload as Prisma.InputJsonValue,
    scheduledAt: fields.scheduledAt,
    isRecurring: fields.isRecurring,
    recurrenceInterval: fields.recurrenceInterval,
    cronExpression: fields.cronExpression,
    endDate: fields.endDate,
  };
}

/**
 * Inserts a scheduled change of the project with `fields`, bound to `changeRequestId` (or none),
 * created by `userId` at `now`, reading cron fields in `timezone` (the project's, kept from now on).
 * Returns it as written, its creator included.
 */
export function insertScheduledChange(
  tx: Db,
  projectId: number,
  fields: ScheduleFields,
  changeRequestId: string | null,
  userId: number,
  timezone: string,
  now: Date,
): Promise<ScheduledChangeRecord> {
  return tx.scheduledChange.create({
    data: {
      projectId,
      ...columns(fields),
      changeRequestId,
      timezone,
      createdById: userId,
      createdAt: now,
      updatedAt: now,
    },
    include: SCHEDULED_CHANGE_INCLUDE,
  });
}

/**
 * Locks scheduled change `id`'s row in `tx` (core/row-lock.ts) and reads it again, its creator
 * included: the state an update or a delete decides from.
 * @throws NotFoundError when the project has no such change (or a writer before deleted it).
 */
export function lockScheduledChange(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
): Promise<ScheduledChangeRecord> {
  return lockAndRead(tx, "scheduled_changes", id, () => findScheduledChange(tx, projectId, id));
}

/**
 * Writes `fields` and the change request binding over scheduled change `id`'s row, locked in `tx`,
 * updated at `now`. Returns it as written.
 */
export function writeScheduledChange(
  tx: Prisma.TransactionClient,
  id: number,
  fields: ScheduleFields,
  changeRequestId: string | null,
  now: Date,
): Promise<ScheduledChangeRecord> {
  return tx.scheduledChange.update({
    where: { id },
    data: { ...columns(fields), changeRequestId, updatedAt: now },
    include: SCHEDULED_CHANGE_INCLUDE,
  });
}

/** Removes scheduled change `id`'s row, locked in `tx`. */
export async function deleteScheduledChangeRow(tx: Prisma.TransactionClient, id: number): Promise<void> {
  await tx.scheduledChange.delete({ where: { id } });
}

/** What a run of one change acts with: the row, its project, and the user who scheduled it (null when deleted). */
export interface RunTarget {
  change: ScheduledChange;
  project: ProjectRecord;
  /** The creator as an actor's user; null when that user was deleted. */
  creator: ActorUser | null;
}

/**
 * Scheduled change `id` with its project and its creator, or null when there is no such row. One
 * statement, outside any transaction: what a run builds its context from before it claims the row.
 */
export async function readRunTarget(db: Db, id: number): Promise<RunTarget | null> {
  const row = await db.scheduledChange.findUnique({
    where: { id },
    include: {
      project: true,
      createdBy: { select: { ...USER_BASIC_SELECT, currentProjectId: true } },
    },
  });
  if (!row) return null;
  const { project, createdBy, ...change } = row;
  return { change, project, creator: createdBy };
}

/**
 * Claims scheduled change `id` in `tx` when it is due at `now` and not executed: locks its row
 * (`FOR UPDATE SKIP LOCKED`, so a run in another process holding it is not waited for) and reads it.
 * Null when the row is gone, executed, not due, or held by another run; the claim lasts until `tx`
 * ends, and a run that commits moves `executed_at` or `scheduled_at`, so no other run claims it again.
 */
export async function claimDueScheduledChange(
  tx: Prisma.TransactionClient,
  id: number,
  now: Date,
): Promise<ScheduledChange | null> {
  const claimed = await tx.$queryRaw<Array<{ id: number }>>(Prisma.sql`SELECT id FROM scheduled_changes
    WHERE id = ${id} AND executed_at IS NULL AND scheduled_at <= ${now}::timestamptz
    FOR UPDATE SKIP LOCKED`);
  if (claimed.length === 0) return null;
  return tx.scheduledChange.findUnique({ where: { id } });
}

/**
 * The ids of the changes due at `now` that are not executed and not paused (`is_recurring` false
 * with a recurrence kept), earliest first, at most `limit`: what a sweep runs. One statement, on the
 * `(scheduled_at, executed_at)` index.
 */
export async function selectDueIds(db: Db, now: Date, limit: number): Promise<number[]> {
  const rows = await db.$queryRaw<Array<{ id: number }>>(Prisma.sql`SELECT id FROM scheduled_changes
    WHERE executed_at IS NULL AND scheduled_at <= ${now}::timestamptz
      AND (is_recurring OR (COALESCE(recurrence_interval, '') = '' AND COALESCE(cron_expression, '') = ''))
    ORDER BY scheduled_at, id LIMIT ${limit}`);
  return rows.map((row) => row.id);
}

/** What a run writes over its claimed row: an absent field keeps its value. */
export interface RunOutcomeColumns {
  scheduledAt?: Date;
  executedAt?: Date;
  lastExecutedAt?: Date;
  /** PostHog's failure context, as JSON text. */
  failureReason?: string;
  failureCount?: number;
  /** The change request the next run waits for (a recurring schedule gated again), or none. */
  changeRequestId?: string | null;
}

/** Writes a run's outcome over scheduled change `id`, claimed in `tx`, updated at `now`. */
export async function writeRunOutcome(
  tx: Prisma.TransactionClient,
  id: number,
  outcome: RunOutcomeColumns,
  now: Date,
): Promise<void> {
  await tx.scheduledChange.update({ where: { id }, data: { ...outcome, updatedAt: now } });
}
