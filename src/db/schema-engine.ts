/**
 * Prisma's schema engine (diff, apply, status) compiled to WebAssembly and driven through driver
 * adapters, so that migrations need no native binary and no network (shared/docs/offline-prisma.md,
 * "Migrations without the native engine"). The engine runs its SQL through the adapter factory built
 * here, which carries the fixes for the traps that document lists:
 *
 * 1. the shadow database is never the main database: it is a fresh in-memory PGlite, or a throwaway
 *    database created through `SHADOW_DATABASE_URL` when that is set;
 * 2. node-postgres reports PostgreSQL's internal `"char"` type (OID 18) as text, which adapter-pg
 *    can decode, on the migration path only;
 * 3. scripts (migrations, shadow replays) run as one awaited simple-protocol call whose failure
 *    reaches the engine, on PGlite and on PostgreSQL alike.
 *
 * (Trap 4, PGlite resetting `process.exitCode` on close, concerns CLI entry points: they keep the
 * code and call `process.exit(code)` themselves.)
 *
 * These fixes lean on undocumented Prisma internals: a Prisma upgrade must move
 * `@prisma/schema-engine-wasm` to the build with the same engine hash and rerun test/db.
 */
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  DriverAdapterError,
  type ErrorRegistry,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";
import * as wasmBindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";

/**
 * The database a migration operation works on. A `pglite` instance stays owned by the caller and
 * is never closed here; a `postgres` URL is opened and closed by each operation.
 */
export type MigrationTarget =
  | { kind: "pglite"; pglite: PGlite }
  | { kind: "postgres"; url: string }
  /**
   * The embedded database in its own process (./embedded/pglite-host.ts): `run` runs the migration
   * runner's operation there, on a `pglite` target, passing `apply`'s progress to `onProgress`.
   */
  | {
      kind: "embedded";
      run(
        op: "apply" | "status",
        dir?: string,
        onProgress?: (step: MigrationProgress) => void,
      ): Promise<unknown>;
    };

/** One step of applying migrations: migration `name` is about to be applied, or was, in `ms` milliseconds. */
export type MigrationProgress =
  | { phase: "applying"; name: string }
  | { phase: "applied"; name: string; ms: number };

/** The lockfile Prisma keeps beside the migrations, naming their SQL dialect. */
export const MIGRATION_LOCKFILE = "migration_lock.toml";

/** No external tables or enums: every object in the database belongs to the migrations. */
export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

/**
 * Reads a migrations folder into the engine's input the way Prisma's CLI does
 * (prisma/prisma packages/migrate/src/utils/listMigrations.ts): every subfolder is a migration
 * whose script is its `migration.sql`, sorted by name; an unreadable script is passed on as an
 * error for the engine to report. A missing folder is an empty history.
 */
export async function readMigrationsDir(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lockfileContent = await readFile(path.join(baseDir, MIGRATION_LOCKFILE), "utf8").catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: await readFile(path.join(baseDir, name, "migration.sql"), "utf8").then(
          (value) => ({ tag: "ok" as const, value }),
          (error: Error) => ({ tag: "error" as const, value: error.message }),
        ),
      },
    })),
  );
  return {
    baseDir,
    lockfile: { path: MIGRATION_LOCKFILE, content: lockfileContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}

/** PostgreSQL's OIDs for the internal single-byte `"char"` type and for `text`. */
const CHAR_OID = 18;
const TEXT_OID = 25;

/** Prefix of the throwaway shadow databases created through `SHADOW_DATABASE_URL`. */
const SHADOW_DATABASE_PREFIX = "sbx_mig_shadow_";

/**
 * The one WebAssembly call used here. Node has the global, but the project's `lib` has no DOM and
 * @types/node 20 does not declare it.
 */
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: Record<string, object>): Promise<{ instance: { exports: object } }>;
};

let wasmReady: Promise<void> | undefined;

/**
 * Instantiates the engine's WebAssembly module once per process. The package's own entry point
 * imports the `.wasm` file as an ES module, which Node 20 cannot do; its `_bg` half takes the
 * instance through `__wbg_set_wasm` instead.
 */
function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const bindingsPath = createRequire(import.meta.url).resolve(
      "@prisma/schema-engine-wasm/schema_engine_bg",
    );
    const bytes = await readFile(bindingsPath.replace(/\.js$/, ".wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": wasmBindings });
    const exports = instance.exports as { __wbindgen_start(): void };
    wasmBindings.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
  })();
  return wasmReady;
}

/**
 * Turns a PostgreSQL error (node-postgres and PGlite share pg-protocol's shape) into the adapter
 * error the engine understands, so that its message names the failing statement's cause.
 */
function toAdapterError(error: unknown): unknown {
  if (!(error instanceof Error) || !("code" in error) || typeof error.code !== "string") return error;
  const fields = error as Error & Partial<Record<"severity" | "detail" | "column" | "hint", string>>;
  return new DriverAdapterError({
    kind: "postgres",
    code: error.code,
    severity: fields.severity ?? "ERROR",
    message: error.message,
    detail: fields.detail,
    column: fields.column,
    hint: fields.hint,
  });
}

/**
 * The same adapter with `executeScript` (and optionally `dispose`) replaced. Both adapters' own
 * `executeScript` are unfit for migrations: pglite-prisma-adapter 0.7.2 does not await `exec`, so
 * a failing migration is recorded as applied (trap 3); adapter-pg splits the script on every `;`
 * (breaking literals and `DO $$ … $$` bodies) and sends the pieces to any pooled connection one by
 * one, so a failure leaves the first half applied. Sending the whole script as one simple-protocol
 * call is what Prisma's native engine does: PostgreSQL then runs it as one implicit transaction.
 */
function withScriptRunner(
  adapter: SqlDriverAdapter,
  runScript: (script: string) => Promise<unknown>,
  dispose: () => Promise<void> = () => adapter.dispose(),
): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: adapter.queryRaw.bind(adapter),
    executeRaw: adapter.executeRaw.bind(adapter),
    startTransaction: adapter.startTransaction.bind(adapter),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    executeScript: async (script) => {
      try {
        await runScript(script);
      } catch (error) {
        throw toAdapterError(error);
      }
    },
    dispose,
  };
}

/**
 * A node-postgres client that reports columns of type `"char"` (OID 18) as `text` (trap 2). The
 * engine reads such columns from `pg_constraint` and adapter-pg rejects OID 18 as an unsupported
 * native type; the values are single ASCII letters, so text is lossless. Rewriting the row
 * description before the client's own listener sees it also makes node-postgres parse them as text.
 * Used only in the pools this module opens, never by the application's client.
 */
class CharAsTextClient extends pg.Client {
  /** Positions of the `"char"` columns in the latest result (`pgAdapter` reports them as characters). */
  charColumns: number[] = [];

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.connection.on("rowDescription", (message: { fields: { dataTypeID: number }[] }) => {
      this.charColumns = [];
      message.fields.forEach((field, position) => {
        if (field.dataTypeID !== CHAR_OID) return;
        field.dataTypeID = TEXT_OID;
        this.charColumns.push(position);
      });
    });
  }
}

/**
 * A one-connection pool on `url` for the engine. One connection, as with Prisma's native engine:
 * session state (advisory locks, `SET`) then lives where the engine expects it.
 */
function enginePool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 1, Client: CharAsTextClient });
}

/**
 * An adapter on a pool this module opened: scripts go through `runScript`, `dispose` ends the pool.
 * `"char"` columns come back typed as characters, as the engine reads them (`get_expect_char`):
 * adapter-pg types every character column as text, and the engine then panics (and its promise
 * never settles) on any `pg_constraint` row other than a key, e.g. a CHECK or a constraint trigger.
 */
async function pgAdapter(pool: pg.Pool, dispose: () => Promise<void>): Promise<SqlDriverAdapter> {
  let client: CharAsTextClient | undefined;
  pool.on("connect", (connected) => {
    client = connected as unknown as CharAsTextClient;
  });
  const adapter = await new PrismaPg(pool).connect();
  const queryRaw = adapter.queryRaw.bind(adapter);
  // One connection (`enginePool`), so the latest row description is this query's.
  adapter.queryRaw = async (query) => {
    const result = await queryRaw(query);
    const chars = client?.charColumns ?? [];
    if (chars.length === 0) return result;
    const columnTypes = result.columnTypes.map((type, i) =>
      chars.includes(i) ? ColumnTypeEnum.Character : type,
    );
    return { ...result, columnTypes };
  };
  return withScriptRunner(adapter, (script) => pool.query(script), dispose);
}

/** An adapter on a PGlite instance, with an awaited `exec` for scripts. */
async function pgliteAdapter(pglite: PGlite, dispose?: () => Promise<void>): Promise<SqlDriverAdapter> {
  const adapter = await new PrismaPGlite(pglite).connect();
  return withScriptRunner(adapter, (script) => pglite.exec(script), dispose);
}

/**
 * A fresh, empty shadow database (trap 1). The engine replays the migrations into whatever it is
 * given and does not empty it first, and `PrismaPg.connectToShadowDb()` builds its pool from the
 * connection string, which wins over the shadow database name: the "shadow" was the main database,
 * and a diff proposed dropping its real tables. So the shadow is never derived from the target:
 * an in-memory PGlite, or, with `SHADOW_DATABASE_URL`, a database created for this use on that
 * server and dropped afterwards (which needs the CREATEDB privilege there).
 */
async function openShadow(
  track: (close: () => Promise<void>) => () => Promise<void>,
): Promise<SqlDriverAdapter> {
  const serverUrl = process.env.SHADOW_DATABASE_URL;
  if (!serverUrl) {
    const pglite = new PGlite();
    return pgliteAdapter(
      pglite,
      track(() => pglite.close()),
    );
  }
  const name = SHADOW_DATABASE_PREFIX + randomUUID().replaceAll("-", "");
  const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
  const shadowUrl = new URL(serverUrl);
  shadowUrl.pathname = `/${name}`;
  const pool = enginePool(shadowUrl.toString());
  const close = track(async () => {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } catch (error) {
    await close();
    throw error;
  }
  return pgAdapter(pool, close);
}

/** An adapter factory for the engine on `target`, and what closes everything it opened. */
interface MigrationAdapterFactory {
  factory: SqlMigrationAwareDriverAdapterFactory;
  close(): Promise<void>;
}

function migrationAdapterFactory(
  target: Exclude<MigrationTarget, { kind: "embedded" }>,
): MigrationAdapterFactory {
  const openResources = new Set<() => Promise<void>>();
  /** Registers a closer; the returned function runs it once and forgets it. */
  const track = (close: () => Promise<void>) => {
    let closing: Promise<void> | undefined;
    const once = () => {
      openResources.delete(once);
      closing ??= close();
      return closing;
    };
    openResources.add(once);
    return once;
  };
  const connect = async (): Promise<SqlDriverAdapter> => {
    // The caller owns the PGlite instance: disposing the adapter must leave it open.
    if (target.kind === "pglite") return pgliteAdapter(target.pglite, async () => {});
    const pool = enginePool(target.url);
    return pgAdapter(
      pool,
      track(() => pool.end()),
    );
  };
  return {
    factory: {
      provider: "postgres",
      adapterName: "signalbox-migrations",
      connect,
      connectToShadowDb: () => openShadow(track),
    },
    close: async () => {
      const results = await Promise.allSettled([...openResources].map((close) => close()));
      const failure = results.find((result) => result.status === "rejected");
      if (failure) throw failure.reason;
    },
  };
}

/**
 * The error a failed engine call should surface. Adapter failures reach the engine as
 * `External error id#N` and stay in the error registry; engine errors carry a Prisma code
 * (e.g. P3018 "A migration failed to apply").
 */
function engineError(error: unknown, registry: ErrorRegistry): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const external = /External error id#(\d+)/.exec(error.message);
  const recorded = external ? registry.consumeError(Number(external[1])) : undefined;
  if (recorded) {
    const cause = recorded.error;
    return cause instanceof Error ? cause : new Error(String(cause));
  }
  if ("code" in error && typeof error.code === "string") {
    return new Error(`${error.code}: ${error.message}`, { cause: error });
  }
  return error;
}

/**
 * Runs `operation` with a schema engine connected to `target`, then frees the engine and closes
 * every connection, pool and shadow database opened for it (never the caller's PGlite). Engine and
 * database failures are rethrown as `Error`s carrying the engine's message (Prisma's error code
 * first when it has one) or, for a failure inside the adapter, the original error.
 */
export async function withSchemaEngine<T>(
  target: Exclude<MigrationTarget, { kind: "embedded" }>,
  operation: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  await loadWasm();
  const { factory, close } = migrationAdapterFactory(target);
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  let engine: SchemaEngine | undefined;
  try {
    // No datamodels: every operation here passes its schema and migrations explicitly. The log
    // callback receives the engine's tracing lines; failures come back as rejections instead.
    engine = await wasmBindings.SchemaEngine.new({ datamodels: undefined }, () => {}, bound);
    return await operation(engine);
  } catch (error) {
    throw engineError(error, bound.errorRegistry);
  } finally {
    engine?.free();
    await close();
  }
}
