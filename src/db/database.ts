/**
 * Opens the one database the service uses, always in the PostgreSQL dialect:
 * - `embedded`: PGlite in-process on a data directory (the default; nothing else to run), its
 *   planner statistics refreshed periodically since PGlite has no autovacuum. Only one
 *   process may hold a data directory: a lock file in it makes a second opener fail clearly
 *   instead of corrupting the database (PGlite itself locks nothing), and a crashed holder's lock
 *   never delays a restart (./data-dir-lock.ts).
 * - `postgres`: a real PostgreSQL through `@prisma/adapter-pg`, every statement prepared once per
 *   connection (./statement-names.ts), on a node-postgres pool the hot write transactions
 *   (./sql-transaction.ts) share.
 * - `pglite`: a PGlite instance owned by the caller (tests load a migrated template into memory).
 * Every adapter is wrapped by `instrumentAdapterFactory`, so statements are counted per request.
 * Every kind listens to the database's change feed (./change-feed.ts), which per-process caches trust.
 * Every session runs in UTC (`UTC_SESSION`): Prisma's adapters write a Date as a time without an
 * offset and read a timestamptz without its offset, which is right only when the session's zone is
 * UTC; a server configured with another `timezone`, or PGlite on a machine whose zone is not UTC
 * (PGlite takes the process's), would otherwise shift every instant by the zone's offset.
 */
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../generated/prisma/client.js";
import { type ChangeFeed, pgliteChangeFeed, postgresChangeFeed } from "./change-feed.js";
import { type LockLogger, lockDataDirectory } from "./data-dir-lock.js";
import type { MigrationTarget } from "./migrations.js";
import { keepStatisticsFresh, PGLITE_ANALYZE_INTERVAL_MS } from "./pglite-statistics.js";
import { pgliteReader, pgPoolReader, type SqlReader } from "./sql-reader.js";
import { instrumentAdapterFactory } from "./sql-stats.js";
import {
  pgliteAutocommit,
  pgliteTransactions,
  pgPoolAutocommit,
  pgPoolTransactions,
  type RunSqlTransaction,
  type SqlStatements,
} from "./sql-transaction.js";
import { statementNames } from "./statement-names.js";

/** Where the data lives. */
export type DatabaseSource =
  /** `analyzeIntervalMs`: how often planner statistics are refreshed (./pglite-statistics.ts). */
  | { kind: "embedded"; dataDir: string; analyzeIntervalMs?: number }
  | { kind: "postgres"; url: string }
  | { kind: "pglite"; pglite: PGlite };

/** An open database: the Prisma client and what the migration runner needs to reach the same data. */
export interface Database {
  readonly kind: DatabaseSource["kind"];
  readonly prisma: PrismaClient;
  /** Hot hand-written reads on the same connections as `prisma`, outside its transactions (./sql-reader.ts). */
  readonly reader: SqlReader;
  /** Hand-written write transactions on the same connections as `prisma`, beside it (./sql-transaction.ts). */
  readonly transaction: RunSqlTransaction;
  /** Single hand-written statements outside any transaction, each committed on its own (./sql-transaction.ts). */
  readonly autocommit: SqlStatements;
  /** Committed changes announced by the database (./change-feed.ts): what per-process caches trust. */
  readonly changes: ChangeFeed;
  readonly migrationTarget: MigrationTarget;
  /** Where the data is, for logs and errors (never includes a password). */
  readonly description: string;
  /** Disconnects Prisma, closes PGlite when this module opened it, and releases the data-dir lock. */
  close(): Promise<void>;
}

/**
 * Sets a session's TimeZone to UTC (see the module comment). Transactions that need another zone (the
 * HogQL runner's, ../queries/run-sql.ts) set it with `set_config(..., true)`, which ends with them.
 */
const UTC_SESSION = "SET TIME ZONE 'UTC'";

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

/**
 * Opens the database described by `source`; `log` hears of an embedded lock taken over from a
 * process that died, and of idle PostgreSQL connections the server closed.
 * @throws DataDirectoryLockedError (./data-dir-lock.ts) when a live process holds an embedded data directory.
 */
export async function openDatabase(source: DatabaseSource, log?: LockLogger): Promise<Database> {
  switch (source.kind) {
    case "postgres": {
      // One pool and one set of statement names for Prisma, the reader and the hand-written
      // transactions and statements: a connection never holds two statements under one name.
      const changes = postgresChangeFeed(source.url, log);
      const pool = new pg.Pool({
        connectionString: source.url,
        onConnect: async (client) => {
          await client.query(UTC_SESSION);
          await changes.listenOn(client);
        },
      });
      // An idle connection the server closes (restart, admin termination) is dropped by the pool and
      // replaced on next use; without a listener its error event would end the process.
      pool.on("error", (error) =>
        log?.warn({ err: error }, "PostgreSQL closed an idle connection; the pool replaces it"),
      );
      try {
        await changes.start();
      } catch (error) {
        await pool.end();
        throw error;
      }
      const names = statementNames();
      const prisma = prismaFor(new PrismaPg(pool, { statementNameGenerator: names }));
      return {
        kind: "postgres",
        prisma,
        reader: pgPoolReader(pool, names),
        transaction: pgPoolTransactions(pool, names),
        autocommit: pgPoolAutocommit(pool, names),
        changes,
        migrationTarget: { kind: "postgres", url: source.url },
        description: redactUrl(source.url),
        close: async () => {
          await changes.close();
          await prisma.$disconnect();
          await pool.end();
        },
      };
    }
    case "pglite": {
      await source.pglite.exec(UTC_SESSION);
      const prisma = prismaFor(new PrismaPGlite(source.pglite));
      const changes = await pgliteChangeFeed(source.pglite);
      return {
        kind: "pglite",
        prisma,
        reader: pgliteReader(source.pglite),
        transaction: pgliteTransactions(source.pglite),
        autocommit: pgliteAutocommit(source.pglite),
        changes,
        migrationTarget: { kind: "pglite", pglite: source.pglite },
        description: "PGlite (in memory)",
        close: async () => {
          await changes.close();
          await prisma.$disconnect();
        },
      };
    }
    case "embedded": {
      const { release } = await lockDataDirectory(source.dataDir, log);
      let pglite: PGlite;
      try {
        pglite = new PGlite(source.dataDir);
        await pglite.waitReady;
        await pglite.exec(UTC_SESSION);
      } catch (error) {
        await release();
        throw error;
      }
      let changes: Awaited<ReturnType<typeof pgliteChangeFeed>>;
      try {
        changes = await pgliteChangeFeed(pglite);
      } catch (error) {
        await pglite.close();
        await release();
        throw error;
      }
      const prisma = prismaFor(new PrismaPGlite(pglite));
      const stopStatistics = keepStatisticsFresh(
        pglite,
        source.analyzeIntervalMs ?? PGLITE_ANALYZE_INTERVAL_MS,
        (error) => log?.warn({ err: error }, "ANALYZE of the embedded database failed; the next run retries"),
      );
      return {
        kind: "embedded",
        prisma,
        reader: pgliteReader(pglite),
        transaction: pgliteTransactions(pglite),
        autocommit: pgliteAutocommit(pglite),
        changes,
        migrationTarget: { kind: "pglite", pglite },
        description: `PGlite at ${source.dataDir}`,
        close: async () => {
          try {
            await changes.close();
            await stopStatistics();
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
