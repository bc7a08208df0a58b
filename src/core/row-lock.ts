/**
 * Row locks for "lock, then decide" writes (issue 13 item 1), the one way every domain serialises
 * the writers of one object: a write first decides from a plain read (so PostHog's refusals come
 * before any write), then, in its transaction, locks the object's row (`SELECT ... FOR UPDATE`,
 * PostHog's `select_for_update`), reads it again and decides from that locked state. Writers of one
 * row so take turns: each is applied on top of the one before it (its activity entry's "before" is
 * what the previous writer left), and one that finds the row deleted by an earlier writer gets a
 * 404 instead of a failed delete-by-id.
 *
 * Lock order, to avoid deadlocks: a flag's row before any other domain's rows (an experiment's, a
 * holdout's), and rows of one table in id order.
 */
import { Prisma } from "../generated/prisma/client.js";
import { NotFoundError } from "./errors.js";
import { isUuid } from "./validation.js";

/** The tables whose rows writes lock, with the SQL type of their `id` column (prisma/schema.prisma). */
const LOCKABLE_TABLES = {
  feature_flags: "int",
  experiments: "int",
  experiment_holdouts: "int",
  experiment_saved_metrics: "int",
  cohorts: "int",
  dashboards: "int",
  webhooks: "int",
  endpoints: "uuid",
  event_definitions: "uuid",
  schema_property_groups: "uuid",
  event_schemas: "uuid",
  property_definitions: "uuid",
} as const;

/** A table whose rows `lockRow` can lock (its SQL name). */
export type LockableTable = keyof typeof LOCKABLE_TABLES;

/**
 * Locks row `id` of `table` in `tx` until `tx` ends (`SELECT ... FOR UPDATE`): other writers of the
 * row wait here, and then see the row as this transaction leaves it.
 * @throws NotFoundError when there is no such row (never was, or a writer before us deleted it).
 */
export async function lockRow(
  tx: Prisma.TransactionClient,
  table: LockableTable,
  id: number | string,
): Promise<void> {
  const type = LOCKABLE_TABLES[table];
  if (type === "uuid" && !(typeof id === "string" && isUuid(id))) throw new NotFoundError();
  const locked = await tx.$queryRaw<Array<{ id: unknown }>>(
    Prisma.sql`SELECT id FROM ${Prisma.raw(table)} WHERE id = ${id}::${Prisma.raw(type)} FOR UPDATE`,
  );
  if (locked.length === 0) throw new NotFoundError();
}

/**
 * Locks row `id` of `table` in `tx` (`lockRow`), then reads it again with `read` (which reads
 * through `tx`, scoped to the caller's project): the state to decide from, which no other writer can
 * change until `tx` ends.
 * @throws NotFoundError when the row is gone, or `read` finds none (null, or its own NotFoundError).
 */
export async function lockAndRead<R>(
  tx: Prisma.TransactionClient,
  table: LockableTable,
  id: number | string,
  read: () => Promise<R | null>,
): Promise<R> {
  await lockRow(tx, table, id);
  const row = await read();
  if (row === null) throw new NotFoundError();
  return row;
}

/**
 * Thrown inside a write's transaction when the locked row no longer fits the decision made from the
 * first read (another writer changed what that decision read, e.g. launched the draft it treated as
 * a draft): the transaction rolls back and `retryWhileMoved` decides again from a new first read.
 */
export class RowMoved extends Error {}

/** How many times a write decides again after its row moved (see `retryWhileMoved`). */
export const MAX_DECISIONS = 8;

/**
 * Runs `attempt` (a first read, its decision and the locked write) again while it throws RowMoved,
 * at most MAX_DECISIONS times in all. Bounded because a row moves only when another writer changed
 * it between an attempt's read and its lock.
 * @throws what `exhausted()` answers (a 409 ConflictError) when the last attempt moved too; anything
 *   else `attempt` throws, unchanged.
 */
export async function retryWhileMoved<T>(
  attempt: () => Promise<T>,
  exhausted: () => Error | Promise<Error>,
): Promise<T> {
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RowMoved)) throw error;
      if (made >= MAX_DECISIONS) throw await exhausted();
    }
  }
}
