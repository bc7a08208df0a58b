/**
 * The embedded database refreshes its planner statistics by itself (src/db/pglite-statistics.ts):
 * PGlite has no autovacuum, so a table it never analyzed keeps `reltuples = -1` and the planner
 * guesses. Opened with a short interval, a table filled after opening gets analyzed.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.js";

let dir: string;
let database: Database;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-analyze-"));
  database = await openDatabase({ kind: "embedded", dataDir: dir, analyzeIntervalMs: 100 });
});
afterAll(async () => {
  await database.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it("analyzes tables filled after opening, without being asked", async () => {
  await database.prisma.$executeRawUnsafe("CREATE TABLE readings (id int PRIMARY KEY, value text)");
  await database.prisma.$executeRawUnsafe(
    "INSERT INTO readings SELECT n, 'v' || n FROM generate_series(1, 5000) AS n",
  );
  await vi.waitFor(
    async () => {
      const [row] = await database.prisma.$queryRawUnsafe<Array<{ reltuples: number }>>(
        "SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'readings'",
      );
      expect(row?.reltuples).toBe(5000);
    },
    { timeout: 10_000, interval: 100 },
  );
});
