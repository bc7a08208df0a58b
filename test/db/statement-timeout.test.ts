/**
 * Every session's default `statement_timeout` (`STATEMENT_TIMEOUT_MS`, src/db/database.ts
 * `sessionSetup`), on both backends: a statement that sets no timeout of its own is stopped at the
 * default with PostgreSQL's 57014 (on the embedded database by ending its process), one that sets
 * its own keeps it, and the database answers afterwards.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.js";
import { adminQuery, databaseUrl } from "../support/postgres.js";
import { availableBackends, type Backend, copyPgliteTemplate } from "../support/server.js";

/** Seconds of work on either backend: a count over 10^8 rows of a cross join. */
const SLOW = "SELECT count(*) FROM generate_series(1, 10000) a CROSS JOIN generate_series(1, 10000) b";

/** A fresh database of `backend` whose sessions default to a `timeoutMs` statement timeout. */
async function openWithTimeout(
  backend: Backend,
  timeoutMs: number,
): Promise<{ database: Database; close(): Promise<void> }> {
  if (backend === "pglite") {
    const { dataDir, drop } = await copyPgliteTemplate();
    const database = await openDatabase({ kind: "embedded", dataDir, statementTimeoutMs: timeoutMs });
    return {
      database,
      close: async () => {
        await database.close();
        await drop();
      },
    };
  }
  const name = `sbx_timeout_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const database = await openDatabase({
    kind: "postgres",
    url: databaseUrl(name),
    statementTimeoutMs: timeoutMs,
  });
  return {
    database,
    close: async () => {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

for (const backend of ["pglite", "postgres"] as const) {
  describe.skipIf(!availableBackends().includes(backend))(
    `the sessions' statement timeout [${backend}]`,
    () => {
      it("stops a statement that sets no timeout at the default, keeps one a transaction sets, and answers afterwards", async () => {
        const { database, close } = await openWithTimeout(backend, 300);
        try {
          await expect(database.pool.query(SLOW)).rejects.toMatchObject({ code: "57014" });
          const client = await database.pool.connect();
          try {
            await client.query("BEGIN");
            await client.query("SET LOCAL statement_timeout = 5000");
            const { rows } = await client.query(
              "SELECT count(*)::int AS n FROM generate_series(1, 1000) a CROSS JOIN generate_series(1, 1000) b",
            );
            expect(rows).toEqual([{ n: 1_000_000 }]);
            await client.query("COMMIT");
          } finally {
            client.release();
          }
          const { rows } = await database.pool.query("SHOW statement_timeout");
          expect(rows).toEqual([{ statement_timeout: "300ms" }]);
        } finally {
          await close();
        }
      });
    },
  );
}
