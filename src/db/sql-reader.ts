/**
 * Hot reads straight on the driver. The statements that every request runs (the key lookup, a flag,
 * a page of flags) are hand-written SQL already; sending them through Prisma's `$queryRaw` added its
 * query interpreter and typed result decoding, which cost each statement twice what node-postgres
 * alone does (issue 6 §4's profile of the single read). A `SqlReader` runs such a statement on the
 * same pool as Prisma, counted into the request's `SqlStats` like Prisma's.
 *
 * Decoding is node-postgres's own, on both backends (../db/database.ts): integers, booleans and
 * text as such, `timestamptz` as `Date`, `json`/`jsonb` parsed, arrays as arrays, `bigint` (e.g.
 * `count(*)`) as a string: readers convert it.
 *
 * Inside an interactive transaction, reads must see the transaction's own writes and, on the
 * embedded database (one connection), must not wait for it: they run on the transaction's client
 * (`prismaReader`).
 */
import type pg from "pg";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import { timed } from "./sql-stats.js";

/** Runs a read statement (values bound as parameters, never spliced into the text) and returns its rows. */
export interface SqlReader {
  rows<R>(query: Prisma.Sql): Promise<R[]>;
}

/**
 * A reader on a node-postgres pool, each distinct text a prepared statement named by `name` (the
 * same generator as Prisma's on this pool, so one name never means two texts on a connection).
 */
export function pgPoolReader(pool: pg.Pool, name: (query: { sql: string }) => string): SqlReader {
  return {
    rows: async <R>(query: Prisma.Sql) => {
      const result = await timed(
        () => pool.query({ name: name({ sql: query.text }), text: query.text, values: query.values }),
        query.text,
      );
      return result.rows as R[];
    },
  };
}

/** A Prisma client or transaction client, as far as a tagged-template read needs it (`$queryRaw`). */
export type QueryClient = Pick<PrismaClient, "$queryRaw">;

/** A reader on a Prisma client or interactive transaction (`$queryRaw`): reads inside a write's transaction. */
export function prismaReader(client: QueryClient): SqlReader {
  return { rows: <R>(query: Prisma.Sql) => client.$queryRaw<R[]>(query) };
}
