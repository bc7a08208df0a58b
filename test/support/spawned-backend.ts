/**
 * A database prepared for a real `signalbox serve` process, as an operator prepares one: on PGlite
 * an empty data directory in a temp dir, on PostgreSQL a new database on the test server migrated
 * by `signalbox migrate`; then `signalbox bootstrap` gives the project, its public token and an
 * all-scopes personal API key. The fault suites (test/faults/) spawn, kill and restart servers on
 * it and read the stored rows back with SQL.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { lockDataDirectory } from "../../src/db/data-dir-lock.js";
import { cli, type ServeProcess, spawnServe } from "./cli.js";
import { adminQuery, databaseUrl, postgresAnswers } from "./postgres.js";
import type { Backend } from "./server.js";

/** Runs one SQL statement with `$n` parameters and returns its rows. */
export type SqlQuery = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

/** A prepared database and what `bootstrap` gave for it. */
export interface SpawnedBackend {
  backend: Backend;
  projectId: number;
  /** The project's public token (`phc_…`), for the SDK paths. */
  token: string;
  /** An all-scopes personal API key. */
  key: string;
  /** Starts `signalbox serve` on this database (not waiting for it); `env` goes over the defaults. */
  serve(env?: Record<string, string>): ServeProcess;
  /**
   * Runs `work` with a connection to the database. On PGlite it opens the data directory under its
   * lock, so it fails while a server holds it: call it once the servers are stopped.
   */
  withSql<T>(work: (query: SqlQuery) => Promise<T>): Promise<T>;
  /** Removes the data directory, or drops the PostgreSQL database. */
  remove(): Promise<void>;
}

/**
 * Whether PostgreSQL answers at the test server; when not, says loudly that `what` is skipped there.
 */
export async function postgresOrSkip(what: string): Promise<boolean> {
  if (await postgresAnswers()) return true;
  console.warn(
    `\n!!! No PostgreSQL answers at TEST_DATABASE_URL or 127.0.0.1:5432: ${what} is SKIPPED there. !!!\n`,
  );
  return false;
}

/**
 * Prepares a database of `backend` for spawned servers, which run `main` (a compiled src/main.ts;
 * the fault suite's global setup compiles one).
 * @throws Error with the CLI's output when `migrate` or `bootstrap` fails.
 */
export async function prepareSpawnedBackend(backend: Backend, main: string): Promise<SpawnedBackend> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-faults-"));
  const name = `sbx_faults_${randomBytes(6).toString("hex")}`;
  const url = backend === "postgres" ? databaseUrl(name) : null;
  const env: Record<string, string> = url ? { DATA_DIR: dataDir, DATABASE_URL: url } : { DATA_DIR: dataDir };
  if (url) {
    await adminQuery(`CREATE DATABASE ${name}`);
    const migrated = await cli(["migrate"], env, main);
    if (migrated.code !== 0) throw new Error(`signalbox migrate failed:\n${migrated.stderr}`);
  }
  const boot = await cli(["bootstrap"], env, main);
  if (boot.code !== 0) throw new Error(`signalbox bootstrap failed:\n${boot.stderr}`);
  const { project_id, project_api_token, personal_api_key } = JSON.parse(boot.stdout);

  return {
    backend,
    projectId: project_id,
    token: project_api_token,
    key: personal_api_key,
    serve: (extra = {}) => spawnServe(dataDir, { ...env, ...extra }, main),
    async withSql(work) {
      if (url) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return await work(async (sql, params = []) => (await client.query(sql, params)).rows);
        } finally {
          await client.end();
        }
      }
      const lock = await lockDataDirectory(dataDir);
      try {
        const pglite = new PGlite(dataDir);
        try {
          return await work(
            async <T>(sql: string, params: unknown[] = []) => (await pglite.query<T>(sql, params)).rows,
          );
        } finally {
          await pglite.close();
        }
      } finally {
        await lock.release();
      }
    },
    async remove() {
      if (url) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
