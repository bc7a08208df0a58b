/**
 * Per-request SQL accounting. A driver-adapter wrapper counts every statement Prisma sends and the
 * time it took (and `timed` every statement sent beside Prisma, ./sql-reader.ts, ./sql-transaction.ts),
 * into the `SqlStats` of the async context that issued it. The HTTP layer opens one context per
 * request and reports it in the `Server-Timing` header; tests use it to bound N+1.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from "@prisma/driver-adapter-utils";

/** Statements sent and the time spent on them (ms), for one request or one measured block. */
export interface SqlStats {
  statements: number;
  durationMs: number;
  /**
   * Told the text of each statement as it is sent, when set: what a GraphQL answer kept in memory
   * depends on (graphql/result-cache.ts). Transaction control (BEGIN, COMMIT) is not told.
   */
  observe?: (sql: string) => void;
}

const storage = new AsyncLocalStorage<SqlStats>();

/** The `Server-Timing` value for a request's SQL: `db;dur=<ms>;desc="<n> statements"`. */
export function serverTiming(stats: SqlStats): string {
  const noun = stats.statements === 1 ? "statement" : "statements";
  return `db;dur=${stats.durationMs.toFixed(1)};desc="${stats.statements} ${noun}"`;
}

/** Runs `fn` with a fresh `SqlStats` that collects every statement it causes; returns both. */
export async function measureSql<T>(fn: () => Promise<T>): Promise<{ result: T; stats: SqlStats }> {
  const stats: SqlStats = { statements: 0, durationMs: 0 };
  const result = await storage.run(stats, fn);
  return { result, stats };
}

/** Runs `fn` so that its statements are counted into `stats` (owned by the caller). */
export function runWithSqlStats<T>(stats: SqlStats, fn: () => T): T {
  return storage.run(stats, fn);
}

/**
 * Runs one statement (`run`, whose text is `sql`), counting it and its time into the current
 * context's `SqlStats`, if any, and telling its observer the text.
 */
export async function timed<T>(run: () => Promise<T>, sql?: string): Promise<T> {
  const stats = storage.getStore();
  if (!stats) return run();
  if (sql !== undefined) stats.observe?.(sql);
  const started = performance.now();
  try {
    return await run();
  } finally {
    stats.statements += 1;
    stats.durationMs += performance.now() - started;
  }
}

function countQueries<Q extends SqlQueryable>(target: Q): Q {
  const queryRaw = target.queryRaw.bind(target);
  const executeRaw = target.executeRaw.bind(target);
  target.queryRaw = (params: SqlQuery) => timed(() => queryRaw(params), params.sql);
  target.executeRaw = (params: SqlQuery) => timed(() => executeRaw(params), params.sql);
  return target;
}

function instrumentAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  countQueries(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const tx: Transaction = await timed(() => startTransaction(isolationLevel));
    countQueries(tx);
    const commit = tx.commit.bind(tx);
    const rollback = tx.rollback.bind(tx);
    tx.commit = () => timed(commit);
    tx.rollback = () => timed(rollback);
    return tx;
  };
  return adapter;
}

/** Wraps a driver-adapter factory so that every adapter it connects counts its statements. */
export function instrumentAdapterFactory<F extends SqlDriverAdapterFactory>(
  factory: F,
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => instrumentAdapter(await factory.connect()),
  };
}
