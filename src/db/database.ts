/**
 * Opens the one database the service uses, always in the PostgreSQL dialect:
 * - `embedded`: PGlite in-process on a data directory (the default; nothing else to run). Only one
 *   process may hold a data directory: a lock file in it makes a second opener fail clearly
 *   instead of corrupting the database (PGlite itself locks nothing).
 * - `postgres`: a real PostgreSQL through `@prisma/adapter-pg`.
 * - `pglite`: a PGlite instance owned by the caller (tests load a migrated template into memory).
 * Every adapter is wrapped by `instrumentAdapterFactory`, so statements are counted per request.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import lockfile from "proper-lockfile";
import { PrismaClient } from "../generated/prisma/client.js";
import type { MigrationTarget } from "./migrations.js";
import { instrumentAdapterFactory } from "./sql-stats.js";

/** Where the data lives. */
export type DatabaseSource =
  | { kind: "embedded"; dataDir: string }
  | { kind: "postgres"; url: string }
  | { kind: "pglite"; pglite: PGlite };

/** An open database: the Prisma client and what the migration runner needs to reach the same data. */
export interface Database {
  readonly kind: DatabaseSource["kind"];
  readonly prisma: PrismaClient;
  readonly migrationTarget: MigrationTarget;
  /** Where the data is, for logs and errors (never includes a password). */
  readonly description: string;
  /** Disconnects Prisma, closes PGlite when this module opened it, and releases the data-dir lock. */
  close(): Promise<void>;
}

/** A second process tried to open an embedded data directory that is in use. */
export class DataDirectoryLockedError extends Error {
  constructor(dataDir: string) {
    super(
      `The data directory ${dataDir} is in use by another Signalbox process (is 'signalbox serve' running?). ` +
        "The embedded database admits one process at a time: stop the server, run this command, then start " +
        "the server again; or use PostgreSQL (DATABASE_URL) for both.",
    );
    this.name = "DataDirectoryLockedError";
  }
}

const LOCK_FILE = ".signalbox.lock";

/** Interactive transactions: PGlite has one connection, so a long wait means a bug; fail loudly. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

function prismaFor(factory: SqlDriverAdapterFactory): PrismaClient {
  return new PrismaClient({
    adapter: instrumentAdapterFactory(factory),
    transactionOptions: TRANSACTION_OPTIONS,
  });
}

/** Hides a password in a connection URL. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgresql://(unparseable url)";
  }
}

async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await fs.mkdir(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: path.join(dataDir, LOCK_FILE),
      stale: 15_000,
      update: 5_000,
      retries: 0,
      realpath: false,
      onCompromised: (error) => {
        // Another process took the lock over (ours looked stale): stop before two writers share the files.
        console.error(`signalbox: lost the lock on ${dataDir}: ${error.message}`);
        process.exit(1);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") throw new DataDirectoryLockedError(dataDir);
    throw error;
  }
}

/**
 * Opens the database described by `source`.
 * @throws DataDirectoryLockedError when an embedded data directory is held by another process.
 */
export async function openDatabase(source: DatabaseSource): Promise<Database> {
  switch (source.kind) {
    case "postgres": {
      const prisma = prismaFor(new PrismaPg({ connectionString: source.url }));
      return {
        kind: "postgres",
        prisma,
        migrationTarget: { kind: "postgres", url: source.url },
        description: redactUrl(source.url),
        close: () => prisma.$disconnect(),
      };
    }
    case "pglite": {
      const prisma = prismaFor(new PrismaPGlite(source.pglite));
      return {
        kind: "pglite",
        prisma,
        migrationTarget: { kind: "pglite", pglite: source.pglite },
        description: "PGlite (in memory)",
        close: () => prisma.$disconnect(),
      };
    }
    case "embedded": {
      const release = await lockDataDir(source.dataDir);
      let pglite: PGlite;
      try {
        pglite = new PGlite(source.dataDir);
        await pglite.waitReady;
      } catch (error) {
        await release();
        throw error;
      }
      const prisma = prismaFor(new PrismaPGlite(pglite));
      return {
        kind: "embedded",
        prisma,
        migrationTarget: { kind: "pglite", pglite },
        description: `PGlite at ${source.dataDir}`,
        close: async () => {
          try {
            await prisma.$disconnect();
            await pglite.close();
          } finally {
            await release();
          }
        },
      };
    }
  }
}
