/**
 * Instants are the same instants whatever zone the database session would default to
 * (src/db/database.ts, `sessionSetup`): PGlite's session takes the zone of the process it starts in,
 * and a database may be configured with any `timezone`, while Prisma's adapter writes and reads
 * timestamptz as if the session were in UTC. Before sessions were set to UTC, a process in
 * America/New_York read a key's hourly `last_used_at` stamp five hours off and never renewed it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { adminQuery } from "../support/postgres.js";
import {
  availableBackends,
  type Backend,
  openEmbeddedTestDatabase,
  openTestDatabase,
} from "../support/server.js";

/** A zone five hours from UTC in November. */
const ZONE = "America/New_York";

/** An instant with milliseconds, in November. */
const AT = new Date("2026-11-26T12:00:00.123Z");

/**
 * A database of `backend` whose sessions default to `ZONE` before the service opens it (as PGlite's
 * does in a process started in that zone, or a server configured so): the database configured with
 * `ALTER DATABASE ... SET timezone`, then opened again.
 */
async function openInZone(backend: Backend): Promise<{ database: Database; close: () => Promise<void> }> {
  if (backend === "pglite") {
    const opened = await openEmbeddedTestDatabase();
    await opened.database.prisma.$executeRawUnsafe(`ALTER DATABASE template1 SET timezone = '${ZONE}'`);
    await opened.database.close();
    const database = await openDatabase({ kind: "embedded", dataDir: opened.dataDir });
    return {
      database,
      close: async () => {
        await database.close();
        await opened.drop();
      },
    };
  }
  const opened = await openTestDatabase(backend);
  const name = new URL(opened.url!).pathname.slice(1);
  await opened.database.close();
  await adminQuery(`ALTER DATABASE ${name} SET timezone = '${ZONE}'`);
  const database = await openDatabase({ kind: "postgres", url: opened.url! });
  return {
    database,
    close: async () => {
      await database.close();
      await opened.drop();
    },
  };
}

for (const backend of ["pglite", "postgres"] as const) {
  describe.skipIf(!availableBackends().includes(backend))(`time zones [${backend}]`, () => {
    let database: Database;
    let close: () => Promise<void>;
    let projectId: number;

    beforeAll(async () => {
      ({ database, close } = await openInZone(backend));
      const boot = await bootstrap(database.prisma, {
        email: "ada@example.com",
        organizationName: "Acme",
        projectName: "Web",
      });
      projectId = boot.project_id;
    });

    afterAll(async () => close());

    it("the session the service uses is in UTC, though the database's default is not", async () => {
      const [row] = await database.prisma.$queryRaw<
        Array<{ zone: string }>
      >`SELECT current_setting('TimeZone') AS zone`;
      expect(row!.zone).toBe("UTC");
    });

    it("an instant written by Prisma is that instant in SQL, in Prisma's reads and in the driver's", async () => {
      await database.prisma.project.update({ where: { id: projectId }, data: { createdAt: AT } });
      const stored = await database.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
      expect(stored.createdAt.toISOString()).toBe(AT.toISOString());
      const [sql] = await database.prisma.$queryRaw<Array<{ utc: string; at: Date }>>`
        SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS utc, created_at AS at
        FROM projects WHERE id = ${projectId}`;
      expect(sql!.utc).toBe(AT.toISOString());
      expect(sql!.at.toISOString()).toBe(AT.toISOString());
      const [driver] = await database.reader.rows<{ at: Date }>(
        Prisma.sql`SELECT created_at AS at FROM projects WHERE id = ${projectId}`,
      );
      expect(new Date(driver!.at).toISOString()).toBe(AT.toISOString());
    });

    it("an instant SQL writes (a literal with its offset, now()) reads back as that instant", async () => {
      const before = Date.now();
      const [row] = await database.prisma.$queryRaw<Array<{ literal: Date; now: Date }>>`
        SELECT '2026-11-26 07:00:00.123-05'::timestamptz AS literal, now() AS now`;
      expect(row!.literal.toISOString()).toBe(AT.toISOString());
      expect(row!.now.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(row!.now.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    });
  });
}
