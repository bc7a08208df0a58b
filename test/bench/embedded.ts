/**
 * The embedded database as `signalbox serve` opens it (PGlite on its own thread, in a data
 * directory: src/db/embedded/pglite-host.ts), in a fresh temporary directory, for the benchmarks.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "../../src/db/database.js";

/** A new, empty embedded database (not migrated) and what closes it and removes its directory. */
export async function openEmbeddedBenchDatabase(): Promise<{ database: Database; close(): Promise<void> }> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-bench-"));
  const database = await openDatabase({ kind: "embedded", dataDir: path.join(parent, "data") });
  return {
    database,
    close: async () => {
      await database.close();
      await fs.rm(parent, { recursive: true, force: true });
    },
  };
}
