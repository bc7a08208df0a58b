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
import { inTransaction } from "./transactional.js";
import { isUuid } from "./validation.js";

/**
 * The tables whose rows writes lock, each with the type of its `id` (`number`: an `integer` column;
 * `string`: a `uuid` one). Each domain adds its own tables by declaration merging, beside its
 * service: `declare module "../core/row-lock.js" { interface LockableTables { cohorts: number } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from each domain
export interface LockableTables {}

/** A table whose rows `lockRow` can lock (its SQL name). */
export type LockableTable = keyof LockableTables & string;

/** A SQL table name as the domains declare them (lower-case words joined by `_`): never caller input. */
const TABLE_NAME = /^[a-z][a-z_]*$/;

/**
 * Locks row `id` of `table` in `tx` until `tx` ends (`SELECT ... FOR UPDATE`): other writers of the
 * row wait here, and then see the row as this transaction leaves it.
 * @throws NotFoundError when there is no such row (never was, or a writer before us deleted it).
 */
export async function lockRow<T extends LockableTable>(
  tx: Prisma.TransactionClient,
  table: T,
  id: LockableTables[T],
): Promise<void> {
  if (!TABLE_NAME.test(table)) throw new Error(`not a table name: ${table}`);
  const type = typeof id === "number" ? "int" : "uuid";
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
export async function lockAndRead<R, T extends LockableTable>(
  tx: Prisma.TransactionClient,
  table: T,
  id: LockableTables[T],
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
 * a draft): the transaction rolls back and the outermost `retryWhileMoved` decides again from a new
 * first read.
 */
export class RowMoved extends Error {}

/** How many times a write decides again after its row moved (see `retryWhileMoved`). */
export const MAX_DECISIONS = 8;

/**
 * The one guarded-update loop (decide, lock, decide again, bounded retry; GrowthBook's casLoop.ts):
 * runs `attempt` (a first read, its decision, and the locked write in a `transactional`) again while
 * it throws RowMoved, at most MAX_DECISIONS times in all. Bounded because a row moves only when
 * another writer changed it between an attempt's read and its lock.
 *
 * Joined, it does not retry: called while a `transactional` is open (core/transactional.ts: this
 * write joins another domain's, e.g. a flag's filters rewritten inside an experiment's update), it
 * runs `attempt` once and lets RowMoved go up. Deciding again inside the outer transaction would be
 * wrong: the outer write decided from reads that may be as stale as this one's, and its locks stay
 * held (and its statements stay applied) until it ends. So RowMoved rolls the whole transaction back
 * to the outermost boundary, the `retryWhileMoved` around the outermost `transactional`, which
 * decides everything again from new first reads (and answers its own `exhausted()`). A write that
 * joins a guarded update is therefore run by `retryWhileMoved` itself.
 * @throws what `exhausted()` answers (a 409 ConflictError) when the last attempt moved too; RowMoved
 *   itself when joined; anything else `attempt` throws, unchanged.
 */
export async function retryWhileMoved<T>(
  attempt: () => Promise<T>,
  exhausted: () => Error | Promise<Error>,
): Promise<T> {
  if (inTransaction()) return attempt();
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RowMoved)) throw error;
      if (made >= MAX_DECISIONS) throw await exhausted();
    }
  }
}
