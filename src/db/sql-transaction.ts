/**
 * Write transactions straight on the driver, for the hot write path whose statements are all
 * hand-written SQL already (capture: person state, group state, the events, the catalogue). Through
 * Prisma's interactive `$transaction` each of those statements also went through Prisma's query
 * interpreter and typed result decoding, and the transaction through its transaction manager: the
 * capture bench's profile (issue 7) showed Prisma's runtime as a sixth of the request's CPU, more than
 * the database driver itself. A `SqlTransaction` runs `Prisma.sql` statements (values bound as
 * parameters, never spliced into the text) on the same pool or PGlite instance as Prisma, counted
 * into the request's `SqlStats` as Prisma's statements are (BEGIN and COMMIT too on PostgreSQL; PGlite
 * sends its own).
 *
 * Decoding is the driver's own and the same on both for the types the callers read: integers up to
 * `integer`, booleans, text and uuids as such, `timestamptz` as `Date`, `json`/`jsonb` parsed.
 * `bigint` columns differ (node-postgres: string; PGlite: bigint): callers select them `::text`.
 */
import type { PGlite, Transaction as PGliteTransaction } from "@electric-sql/pglite";
import type pg from "pg";
import type { Prisma } from "../generated/prisma/client.js";
import type { SqlReader } from "./sql-reader.js";
import { timed } from "./sql-stats.js";

/** Statements on the driver: reads as a `SqlReader` (./sql-reader.ts), and writes. */
export interface SqlStatements extends SqlReader {
  /** Runs `query` and returns how many rows it wrote. */
  execute(query: Prisma.Sql): Promise<number>;
}

/** The statements of one open transaction (`RunSqlTransaction`). */
export type SqlTransaction = SqlStatements;

/**
 * Runs `work` in one transaction (READ COMMITTED, the database's default, as Prisma's): committed
 * when it resolves, rolled back when it throws (the error is rethrown).
 */
export type RunSqlTransaction = <T>(work: (tx: SqlTransaction) => Promise<T>) => Promise<T>;

/**
 * Transactions on a node-postgres pool: one client per transaction, BEGIN/COMMIT/ROLLBACK by hand,
 * each statement prepared once per connection under the name `name` gives its text (the generator
 * Prisma's adapter uses on the same pool, ./statement-names.ts, so a name never means two texts).
 */
export function pgPoolTransactions(
  pool: pg.Pool,
  name: (query: { sql: string }) => string,
): RunSqlTransaction {
  return async (work) => {
    const client = await pool.connect();
    let released = false;
    try {
      await timed(() => client.query("BEGIN"));
      const result = await work(pgStatements(client, name));
      await timed(() => client.query("COMMIT"));
      return result;
    } catch (error) {
      try {
        await timed(() => client.query("ROLLBACK"));
      } catch (rollbackError) {
        // The connection is broken: destroy it rather than return it to the pool.
        client.release(rollbackError as Error);
        released = true;
      }
      throw error;
    } finally {
      if (!released) client.release();
    }
  };
}

/** Transactions on a PGlite instance (its own `transaction`, which Prisma's PGlite adapter uses too). */
export function pgliteTransactions(pglite: PGlite): RunSqlTransaction {
  return (work) => pglite.transaction((tx) => work(pgliteStatements(tx)));
}

/**
 * Single statements outside any transaction, each committed on its own (autocommit), on any
 * connection of `pool` (named as `pgPoolTransactions` names them). For a write that one statement
 * says whole, where BEGIN and COMMIT would be two more round trips: capture's steady state
 * (ingestion/ingestion.service.ts).
 */
export function pgPoolAutocommit(pool: pg.Pool, name: (query: { sql: string }) => string): SqlStatements {
  return pgStatements(pool, name);
}

/** Single statements on a PGlite instance outside any transaction (each waits for an open one to end). */
export function pgliteAutocommit(pglite: PGlite): SqlStatements {
  return pgliteStatements(pglite);
}

/** Statements on a pool (each on any of its connections) or on one client, prepared under `name`. */
function pgStatements(
  target: Pick<pg.Pool, "query"> | pg.PoolClient,
  name: (query: { sql: string }) => string,
): SqlStatements {
  const run = (query: Prisma.Sql) =>
    timed(() => target.query({ name: name({ sql: query.text }), text: query.text, values: query.values }));
  return {
    rows: async <R>(query: Prisma.Sql) => (await run(query)).rows as R[],
    execute: async (query) => (await run(query)).rowCount ?? 0,
  };
}

/** Statements on a PGlite instance or one of its transactions. */
function pgliteStatements(target: Pick<PGlite, "query"> | PGliteTransaction): SqlStatements {
  return {
    rows: async <R>(query: Prisma.Sql) => (await timed(() => target.query<R>(query.text, query.values))).rows,
    execute: async (query) => (await timed(() => target.query(query.text, query.values))).affectedRows ?? 0,
  };
}
