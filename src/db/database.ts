/**
 * Opens the one database the service uses, always in the PostgreSQL dialect and always through
 * node-postgres (`@prisma/adapter-pg` for Prisma, ./sql-reader.ts and ./sql-transaction.ts beside
 * it), every statement prepared once per connection (./statement-names.ts):
 * - `embedded`: PGlite on a data directory (the default; nothing else to run), in a process of its own
 *   behind PostgreSQL's wire protocol (./embedded/pglite-host.ts), so that the request thread never
 *   runs the database and a statement is bounded by its `statement_timeout` as on PostgreSQL. One
 *   connection (PGlite has one session). Its planner statistics are refreshed periodically since
 *   PGlite has no autovacuum. Only one process may hold a data directory: a lock file in it makes a
 *   second opener fail clearly instead of corrupting the database (PGlite itself locks nothing), and
 *   a crashed holder's lock never delays a restart (./data-dir-lock.ts).
 * - `postgres`: a real PostgreSQL, on a node-postgres pool.
 * Every adapter is wrapped by `instrumentAdapterFactory`, so statements are counted per request.
 * Every kind listens to the database's change feed (./change-feed.ts), which per-process caches trust.
 * Every session runs in UTC (`sessionSetup`): Prisma's adapter writes a Date as a time without an
 * offset and reads a timestamptz without its offset, which is right only when the session's zone is
 * UTC; a server configured with another `timezone`, or PGlite on a machine whose zone is not UTC
 * (PGlite takes the process's), would otherwise shift every instant by the zone's offset.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client.js";
import { type ChangeFeed, embeddedChangeFeed, postgresChangeFeed } from "./change-feed.js";
import { type LockLogger, lockDataDirectory } from "./data-dir-lock.js";
import { type EmbeddedHostLogger, startEmbeddedHost } from "./embedded/pglite-host.js";
import type { MigrationTarget } from "./migrations.js";
import { keepStatisticsFresh, PGLITE_ANALYZE_INTERVAL_MS } from "./pglite-statistics.js";
import { pgPoolReader, type SqlReader } from "./sql-reader.js";
import { instrumentAdapterFactory } from "./sql-stats.js";
import {
  pgPoolAutocommit,
  pgPoolTransactions,
  type RunSqlTransaction,
  type SqlStatements,
} from "./sql-transaction.js";
import { statementNames } from "./statement-names.js";

/** Where the data lives, and the sessions' default `statement_timeout` (ms; absent or 0: none). */
export type DatabaseSource = (
  | {
      kind: "embedded";
      dataDir: string;
      /** How often planner statistics are refreshed, in ms (./pglite-statistics.ts). */
      analyzeIntervalMs?: number;
    }
  | { kind: "postgres"; url: string }
) & { statementTimeoutMs?: number };

/** An open database: the Prisma client and what the migration runner needs to reach the same data. */
export interface Database {
  readonly kind: DatabaseSource["kind"];
  readonly prisma: PrismaClient;
  /** The node-postgres pool every statement goes through (one connection on the embedded database). */
  readonly pool: pg.Pool;
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
 * What every new session runs first: its TimeZone set to UTC (see the module comment) and, when
 * given, its default `statement_timeout`, so that no statement the service sends runs without a
 * bound (on the embedded database, the bound is enforced by stopping its process). Transactions that
 * need another zone or timeout (the query runner's, ../queries/run-sql.ts) set them with
 * `set_config(..., true)`, which ends with them.
 */
function sessionSetup(statementTimeoutMs: number | undefined): string {
  const timeout = statementTimeoutMs ? `; SET statement_timeout = ${Math.trunc(statementTimeoutMs)}` : "";
  return `SET TIME ZONE 'UTC'${timeout}`;
}

/** Interactive transactions: the embedded database has one connection, so a long wait means a bug; fail loudly. */
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

/** Where the database reports what happens outside any caller (warnings, a reopened embedded database). */
export type DatabaseLogger = LockLogger & EmbeddedHostLogger;

/** The parts of an open database that differ by backend; `openDatabase` builds the rest alike. */
interface Connections {
  pool: pg.Pool;
  changes: ChangeFeed;
  migrationTarget: MigrationTarget;
  description: string;
  /** Closes what the backend opened beside the pool (after Prisma and the pool are closed). */
  close(): Promise<void>;
}

/** The database over `connections`: Prisma, the readers and the transactions on its pool. */
function databaseOn(kind: DatabaseSource["kind"], connections: Connections): Database {
  const { pool } = connections;
  // One pool and one set of statement names for Prisma, the reader and the hand-written
  // transactions and statements: a connection never holds two statements under one name.
  const names = statementNames();
  const prisma = prismaFor(new PrismaPg(pool, { statementNameGenerator: names }));
  return {
    kind,
    prisma,
    pool,
    reader: pgPoolReader(pool, names),
    transaction: pgPoolTransactions(pool, names),
    autocommit: pgPoolAutocommit(pool, names),
    changes: connections.changes,
    migrationTarget: connections.migrationTarget,
    description: connections.description,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
      await connections.close();
    },
  };
}

/** Opens a PostgreSQL database at `url`. */
async function openPostgres(
  source: Extract<DatabaseSource, { kind: "postgres" }>,
  log?: DatabaseLogger,
): Promise<Connections> {
  const { url } = source;
  const changes = postgresChangeFeed(url, log);
  const setup = sessionSetup(source.statementTimeoutMs);
  const pool = new pg.Pool({
    connectionString: url,
    onConnect: async (client) => {
      await client.query(setup);
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
  return {
    pool,
    changes,
    migrationTarget: { kind: "postgres", url },
    description: redactUrl(url),
    close: () => changes.close(),
  };
}

/** Opens the embedded database in `source.dataDir` in its own process (./embedded/pglite-host.ts). */
async function openEmbedded(
  source: Extract<DatabaseSource, { kind: "embedded" }>,
  log?: DatabaseLogger,
): Promise<Connections> {
  const { release, ownerSocket } = await lockDataDirectory(source.dataDir, log);
  let host: Awaited<ReturnType<typeof startEmbeddedHost>>;
  try {
    host = await startEmbeddedHost({
      dataDir: source.dataDir,
      lockSocket: ownerSocket,
      ...(log ? { log } : {}),
    });
  } catch (error) {
    await release();
    throw error;
  }
  const changes = embeddedChangeFeed();
  const setup = sessionSetup(source.statementTimeoutMs);
  // One connection: PGlite has one session. It stays open while idle (it is the feed's listener).
  const pool = new pg.Pool({
    max: 1,
    idleTimeoutMillis: 0,
    user: "postgres",
    database: "template1",
    stream: () => host.connect(),
    onConnect: async (client) => {
      await client.query(setup);
      await changes.listenOn(client);
    },
  });
  pool.on("error", (error) =>
    log?.warn({ err: error }, "the embedded database ended an idle connection; the pool replaces it"),
  );
  const connectNow = () => pool.query("SELECT 1");
  // A reopened database (a statement stopped past its timeout) is listened to again at once.
  const stopListening = host.onRestart(() => {
    connectNow().catch((error: unknown) =>
      log?.warn({ err: error }, "the reopened embedded database did not answer yet"),
    );
  });
  const stopStatistics = keepStatisticsFresh(
    () => pool.query("ANALYZE"),
    source.analyzeIntervalMs ?? PGLITE_ANALYZE_INTERVAL_MS,
    (error) => log?.warn({ err: error }, "ANALYZE of the embedded database failed; the next run retries"),
  );
  const closeAll = async () => {
    try {
      stopListening();
      changes.close();
      await stopStatistics();
      await host.close();
    } finally {
      await release();
    }
  };
  try {
    await connectNow();
  } catch (error) {
    await pool.end();
    await closeAll();
    throw error;
  }
  return {
    pool,
    changes,
    migrationTarget: { kind: "embedded", run: (op, dir, onProgress) => host.migrations(op, dir, onProgress) },
    description: `PGlite at ${source.dataDir}`,
    close: closeAll,
  };
}

/**
 * Opens the database described by `source`; `log` hears of an embedded lock taken over from a
 * process that died, of an embedded statement stopped past its timeout, and of idle connections the
 * server closed.
 * @throws DataDirectoryLockedError (./data-dir-lock.ts) when a live process holds an embedded data directory.
 */
export async function openDatabase(source: DatabaseSource, log?: DatabaseLogger): Promise<Database> {
  const connections =
    source.kind === "postgres" ? await openPostgres(source, log) : await openEmbedded(source, log);
  return databaseOn(source.kind, connections);
}
