/**
 * The PostgreSQL pool survives the server closing its idle connections (a restart, an administrator's
 * `pg_terminate_backend`): the process keeps running, says so in a warning, and the next statements,
 * Prisma's and the driver reader's, run on new connections (src/db/database.ts); the change feed's
 * listening connection comes back too (src/db/change-feed.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";

const answers = await postgresAnswers();
const name = `sbx_conn_${randomBytes(4).toString("hex")}`;
const warnings: string[] = [];
let database: Database;

beforeAll(async () => {
  if (!answers) return;
  await adminQuery(`CREATE DATABASE ${name}`);
  database = await openDatabase(
    { kind: "postgres", url: databaseUrl(name) },
    {
      warn: (_fields, message) => warnings.push(message),
      error: (_fields, message) => warnings.push(message),
    },
  );
});

afterAll(async () => {
  if (!answers) return;
  await database.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

it.skipIf(!answers)("keeps serving after PostgreSQL terminates its idle connections", async () => {
  await database.prisma.$queryRaw`SELECT 1`;
  await database.reader.rows(Prisma.sql`SELECT 1`);
  await adminQuery(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
  );
  await expect.poll(() => warnings.some((w) => /closed an idle connection/.test(w))).toBe(true);
  // The change feed's own connection was terminated too: it says so, and listens again.
  await expect
    .poll(() => warnings.some((w) => /change feed's PostgreSQL connection was lost/.test(w)))
    .toBe(true);
  await expect.poll(() => database.changes.live, { timeout: 10_000 }).toBe(true);
  const [row] = await database.reader.rows<{ one: number }>(Prisma.sql`SELECT 1 AS one`);
  expect(row).toEqual({ one: 1 });
  expect(await database.prisma.$queryRaw`SELECT 2 AS two`).toEqual([{ two: 2 }]);
});
