/**
 * A fingerprint of the database's rows, to prove a refused request wrote nothing: for every table of
 * the public schema, its row count and an order-independent digest of its rows (the sum of
 * PostgreSQL's `hashtext` of each row's text form), computed by the database in one statement. Two
 * fingerprints are equal exactly when no table gained, lost or changed a row (up to a 64-bit
 * collision); when they differ, the comparison names the tables that changed. Walks of every route
 * take one before and after each request, so it must stay cheap as the database grows: the rows
 * themselves never leave the database.
 *
 * Two tables are left out on purpose: `_prisma_migrations` (migration bookkeeping) and
 * `personal_api_keys`, whose `last_used_at` authentication itself updates (at most hourly,
 * posthog-behavior.md §1.4) and which belong to users, not to projects. Everything a project owns
 * (projects, flags, tags and their links, activity) is in.
 */
import { expect } from "vitest";
import type { PrismaClient } from "../../src/generated/prisma/client.js";

/** Table name → `<count> rows, digest <sum of row hashes>`. */
export type RowDump = Record<string, string>;

const LEFT_OUT = new Set(["_prisma_migrations", "personal_api_keys"]);

const dumpQueries = new WeakMap<PrismaClient, string>();

/** One statement fingerprinting every table but those left out, a (table, fingerprint) row each; built once per client. */
async function dumpQuery(db: PrismaClient): Promise<string> {
  const known = dumpQueries.get(db);
  if (known) return known;
  const tables = await db.$queryRaw<Array<{ name: string }>>`
    SELECT table_name::text AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`;
  const query = tables
    .filter(({ name }) => !LEFT_OUT.has(name))
    .map(
      ({ name }) =>
        `SELECT '${name}' AS "table", count(*) || ' rows, digest ' || coalesce(sum(hashtext(t::text)::bigint), 0) AS fingerprint FROM "${name}" t`,
    )
    .join(" UNION ALL ");
  dumpQueries.set(db, query);
  return query;
}

/** The fingerprint of every table but those left out (see the module comment), on PGlite and PostgreSQL alike. */
export async function dumpRows(db: PrismaClient): Promise<RowDump> {
  const rows = await db.$queryRawUnsafe<Array<{ table: string; fingerprint: string }>>(await dumpQuery(db));
  return Object.fromEntries(rows.map(({ table, fingerprint }) => [table, fingerprint]));
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
