/**
 * A fingerprint of the database's rows, to prove a refused request wrote nothing: for every table of
 * the public schema, its row count and an order-independent digest of its rows (the sum of
 * PostgreSQL's `hashtext` of each row's text form), computed by the database in one statement. Two
 * fingerprints are equal exactly when no table gained, lost or changed a row (up to a 64-bit
 * collision); when they differ, the comparison names the tables that changed. Walks of every route
 * take one before and after each request, so it must stay cheap as the database grows: the rows
 * themselves never leave the database.
 *
 * A fingerprint is remembered with the MVCC snapshot it was computed under (`pg_current_snapshot()`,
 * in the same statement). A snapshot decides which rows a query sees, and it stays the same only
 * while no transaction that was given a transaction id (every write is) completes: while the current
 * snapshot is still that one, every table holds exactly the rows the fingerprint hashed, and the
 * remembered fingerprint is returned without reading them again. Any such transaction completing (a
 * write, a rollback, another database's on a shared PostgreSQL server) changes the snapshot and the
 * tables are read again, so the comparison is exactly as strict as reading them every time.
 *
 * Three tables are left out on purpose: `_prisma_migrations` (migration bookkeeping),
 * `personal_api_keys`, whose `last_used_at` authentication itself updates (at most hourly,
 * posthog-behavior.md §1.4) and which belong to users, not to projects, and `job_queue`, the embedded
 * job queue's bookkeeping, which its scheduled jobs rewrite on their own clock (the scheduled-change
 * sweep every minute), as graphile-worker's schema on PostgreSQL, never dumped, is. A job a write
 * enqueues comes with that write's own rows (a webhook delivery with its activity entry). Everything
 * a project owns (projects, flags, tags and their links, activity) is in.
 */
import { expect } from "vitest";
import type { PrismaClient } from "../../src/generated/prisma/client.js";

/** Table name → `<count> rows, digest <sum of row hashes>`. */
export type RowDump = Record<string, string>;

const LEFT_OUT = new Set(["_prisma_migrations", "personal_api_keys", "job_queue"]);

/** The dump's row that carries the snapshot (no table has this name: it is not an identifier). */
const SNAPSHOT_ROW = "(snapshot)";

const SNAPSHOT_QUERY = "SELECT pg_current_snapshot()::text AS snapshot";

const dumpQueries = new WeakMap<PrismaClient, string>();

/** Per client, its last fingerprint and the snapshot it was computed under. */
const lastDumps = new WeakMap<PrismaClient, { snapshot: string; dump: RowDump }>();

/**
 * One statement fingerprinting every table but those left out, a (table, fingerprint) row each, plus
 * the statement's snapshot as the row `SNAPSHOT_ROW`; built once per client.
 */
async function dumpQuery(db: PrismaClient): Promise<string> {
  const known = dumpQueries.get(db);
  if (known) return known;
  const tables = await db.$queryRaw<Array<{ name: string }>>`
    SELECT table_name::text AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`;
  const query = [
    `SELECT '${SNAPSHOT_ROW}' AS "table", pg_current_snapshot()::text AS fingerprint`,
    ...tables
      .filter(({ name }) => !LEFT_OUT.has(name))
      .map(
        ({ name }) =>
          `SELECT '${name}' AS "table", count(*) || ' rows, digest ' || coalesce(sum(hashtext(t::text)::bigint), 0) AS fingerprint FROM "${name}" t`,
      ),
  ].join(" UNION ALL ");
  dumpQueries.set(db, query);
  return query;
}

/**
 * The fingerprint of every table but those left out (see the module comment), on PGlite and
 * PostgreSQL alike; the remembered one while no transaction has completed since it was computed.
 */
export async function dumpRows(db: PrismaClient): Promise<RowDump> {
  const last = lastDumps.get(db);
  if (last) {
    const [current] = await db.$queryRawUnsafe<Array<{ snapshot: string }>>(SNAPSHOT_QUERY);
    if (current?.snapshot === last.snapshot) return last.dump;
  }
  const rows = await db.$queryRawUnsafe<Array<{ table: string; fingerprint: string }>>(await dumpQuery(db));
  const dump = Object.fromEntries(
    rows.filter(({ table }) => table !== SNAPSHOT_ROW).map(({ table, fingerprint }) => [table, fingerprint]),
  );
  const snapshot = rows.find(({ table }) => table === SNAPSHOT_ROW)?.fingerprint;
  if (snapshot === undefined) throw new Error("the fingerprint query returned no snapshot");
  lastDumps.set(db, { snapshot, dump });
  return dump;
}

/**
 * Runs `action` and asserts that the database's rows (see `dumpRows`) are the same afterwards.
 * `label` names the request in the failure message. Returns what `action` returned.
 */
export async function expectNothingWritten<T>(
  db: PrismaClient,
  label: string,
  action: () => Promise<T>,
): Promise<T> {
  const before = await dumpRows(db);
  const result = await action();
  expect(await dumpRows(db), `${label} wrote to the database`).toEqual(before);
  return result;
}
