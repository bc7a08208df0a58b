/**
 * Write transactions straight on the driver, for the hot write path whose statements are all
 * hand-written SQL already (capture: person state, group state, the events, the catalogue). Through
 * Prisma's interactive `$transaction` each of those statements also went through Prisma's query
 * interpreter and typed result decoding, and the transaction through its transaction manager: the
 * capture bench's profile (issue 7) showed Prisma's runtime as a sixth of the request's CPU, more than
 * the database driver itself. A `SqlTransaction` runs `Prisma.sql` statements (values bound as
 * parameters, never spliced into the text) on the same pool as Prisma, counted into the request's
 * `SqlStats` as Prisma's statements are (BEGIN and COMMIT too).
 *
 * Decoding is node-postgres's own, on both backends (./database.ts): integers up to `integer`,
 * booleans, text and uuids as such, `timestamptz` as `Date`, `json`/`jsonb` parsed, `bigint` as a
 * string (callers select such columns `::text`).
 */
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

/**
 * Single statements outside any transaction, each committed on its own (autocommit), on any
 * connection of `pool` (named as `pgPoolTransactions` names them). For a write that one statement
 * says whole, where BEGIN and COMMIT would be two more round trips: capture's steady state
 * (ingestion/ingestion.service.ts).
 */
export function pgPoolAutocommit(pool: pg.Pool, name: (query: { sql: string }) => string): SqlStatements {
  return pgStatements(pool, name);
}

/** Statements on a pool (each on any of its connections) or on one client, prepared under `name`. */
function pgStatements(
  target: Pick<pg.Pool, "query"> | pg.PoolClient,
  name: (query: { sql: string }) => string,
): SqlStatements {
  const run = (query: Prisma.Sql) =>
    timed(
      () => target.query({ name: name({ sql: query.text }), text: query.text, values: query.values }),
      query.text,
    );
  return {
    rows: async <R>(query: Prisma.Sql) => (await run(query)).rows as R[],
    execute: async (query) => (await run(query)).rowCount ?? 0,
  };
}
