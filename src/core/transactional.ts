/**
 * One transaction per operation, however many domains write in it (issue 25; the pattern of
 * Unleash's `withTransactional`, src/lib/db/transaction.ts). `transactional(ctx, fn)` runs `fn(tx)`
 * in one transaction of the context's database and keeps `tx` in an AsyncLocalStorage for all of
 * `fn`'s async work: a `transactional` called anywhere inside it (another domain's service, a store)
 * with the same database JOINS that transaction instead of opening one. The outermost call commits
 * or rolls back every domain's rows at once; a service never hands a transaction client (or a
 * `within(tx)` callback) to another domain.
 *
 * Why join and never nest: on the embedded database there is one connection, held by the open
 * transaction, so a second `$transaction` (or any statement on `ctx.db` or `ctx.reader`) made
 * inside it would wait for it forever (until Prisma's `maxWait`, db/database.ts). On PostgreSQL it
 * would run on another connection: not atomic with the first, blind to its uncommitted rows, and
 * blocked by its own row locks. So the reads a write decides from take the ambient transaction too
 * (`clientOf`, `readerOf`): outside one they are the context's client and reader, unchanged.
 *
 * Rules for what runs inside:
 * - An error thrown by a joined part ends the whole transaction (it rolls back at the outermost
 *   call): never catch a database error and go on writing in it (PostgreSQL refuses every statement
 *   of a transaction after a failed one).
 * - A guarded update (core/row-lock.ts `retryWhileMoved`) joined into an outer transaction does not
 *   retry on its own: its RowMoved goes up to the outermost boundary, which decides again.
 * - Work that outlives `fn` (a promise not awaited) finds the transaction closed and opens its own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { prismaReader, type SqlReader } from "../db/sql-reader.js";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";

/** What `transactional` needs of a service context (`ServiceContext` has it): its database's client. */
export interface TransactionalContext {
  readonly db: PrismaClient;
}

/** What `readerOf` needs of a service context: the client and the driver's reader (`ServiceContext`). */
export interface ReadingContext extends TransactionalContext {
  readonly reader: SqlReader;
}

/** The transaction open in the current async context: its database, its client, and whether it is still open. */
interface Ambient {
  readonly db: PrismaClient;
  readonly tx: Prisma.TransactionClient;
  readonly state: { open: boolean };
}

const ambient = new AsyncLocalStorage<Ambient>();

/** The open transaction of `db` in the current async context, or null. */
function openOn(db: PrismaClient): Ambient | null {
  const store = ambient.getStore();
  return store?.state.open && store.db === db ? store : null;
}

/**
 * A refusal that must leave a record once the write it refused has rolled back (an approval gate's
 * change request): thrown inside a transaction, it ends it like any error; the outermost
 * `transactional` then calls `afterRollback()`, which writes in a transaction of its own, and throws
 * the error it returns instead (the refusal as the caller sees it).
 */
export interface RecordedAfterRollback {
  afterRollback(): Promise<Error>;
}

function isRecordedAfterRollback(error: unknown): error is RecordedAfterRollback {
  return (
    error instanceof Error && typeof (error as Partial<RecordedAfterRollback>).afterRollback === "function"
  );
}

/**
 * Runs `fn` with the transaction of `ctx.db` open in the current async context (joined: nothing is
 * committed until the outermost call ends), or in a new one that commits when `fn` resolves and
 * rolls back when it throws. Returns what `fn` returns.
 * @throws what `fn` throws, unchanged (the transaction then rolls back, at the outermost call), but a
 *   `RecordedAfterRollback`, which the outermost call replaces with what its `afterRollback` returns;
 *   Prisma's transaction errors (P2028: `maxWait`/`timeout` passed, db/database.ts).
 */
export async function transactional<T>(
  ctx: TransactionalContext,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const joined = openOn(ctx.db);
  if (joined) return fn(joined.tx);
  const state = { open: true };
  try {
    return await ctx.db.$transaction((tx) => ambient.run({ db: ctx.db, tx, state }, () => fn(tx)));
  } catch (error) {
    state.open = false;
    if (isRecordedAfterRollback(error)) throw await error.afterRollback();
    throw error;
  } finally {
    state.open = false;
  }
}

/** Whether a `transactional` call is open in the current async context (any database). */
export function inTransaction(): boolean {
  return ambient.getStore()?.state.open === true;
}

/**
 * The client the reads of a write go through: the open transaction of `ctx.db` (a write joined into
 * another domain's: it sees that transaction's rows and does not wait for its connection), else
 * `ctx.db` itself.
 */
export function clientOf(ctx: TransactionalContext): PrismaClient | Prisma.TransactionClient {
  return openOn(ctx.db)?.tx ?? ctx.db;
}

/**
 * The hand-written-SQL reader of a write's reads (db/sql-reader.ts): over the open transaction of
 * `ctx.db` (`prismaReader`), else the context's driver reader `ctx.reader`.
 */
export function readerOf(ctx: ReadingContext): SqlReader {
  const open = openOn(ctx.db);
  return open ? prismaReader(open.tx) : ctx.reader;
}

/**
 * Runs `fn` inside a savepoint of the transaction `tx` (PostgreSQL's `SAVEPOINT`): when `fn` throws,
 * what it wrote is rolled back to the savepoint and the error rethrown, and the transaction goes on
 * (a scheduled change's run records the failure of the change it could not apply). Returns what `fn`
 * returns, its writes kept.
 * @throws what `fn` throws, after the rollback to the savepoint.
 */
export async function inSavepoint<T>(tx: Prisma.TransactionClient, fn: () => Promise<T>): Promise<T> {
  await tx.$executeRawUnsafe("SAVEPOINT signalbox_savepoint");
  try {
    const result = await fn();
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT signalbox_savepoint");
    return result;
  } catch (error) {
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT signalbox_savepoint");
    throw error;
  }
}
