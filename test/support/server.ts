/**
 * Starts the real HTTP server (src/app.ts) on a fresh, migrated database for one test file, on
 * PGlite or on PostgreSQL, bootstraps an organization, a project, a user and an all-scopes key,
 * and offers a small `fetch` wrapper. Nothing is mocked: requests cross a real socket.
 */

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, inject } from "vitest";
import type { ClickHouseClient } from "../../src/analytics/clickhouse/client.js";
import { buildApp } from "../../src/app.js";
import { createServices } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { generateProjectApiToken } from "../../src/core/auth/api-keys.js";
import { dataAccessOf } from "../../src/core/context.js";
import { createLogger } from "../../src/core/logger.js";
import type { Services } from "../../src/core/services.js";
import { type Database, openDatabase } from "../../src/db/database.js";
import type { PrismaClient } from "../../src/generated/prisma/client.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { createPersonalApiKey } from "../../src/users/users.service.js";
import { adminQuery, databaseUrl } from "./postgres.js";
import { RATE_LIMITS_OFF } from "./rate-limits.js";

const execFileAsync = promisify(execFile);

/** A database backend the suite runs on. */
export type Backend = "pglite" | "postgres";

/** A response as tests read it. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  body: any;
}

/** Options of one request. */
export interface RequestOptions {
  body?: unknown;
  /** A raw body, text or bytes (sent as given, for malformed JSON or hostile bodies). */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  /** The key to send as Bearer; null sends none; default the all-scopes key. */
  key?: string | null;
  headers?: Record<string, string>;
}

/** A fetch response read whole, its body parsed when it is JSON. */
export async function readResponse(response: Response): Promise<TestResponse> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** The SQL statements a response cost, from its `Server-Timing` header (src/db/sql-stats.ts `serverTiming`). */
export function statementsOf(response: TestResponse): number {
  return Number(/desc="(\d+) statements?"/.exec(response.headers.get("server-timing") ?? "")?.[1]);
}

/** A running server on its own database. */
export interface TestServer {
  backend: Backend;
  baseUrl: string;
  db: PrismaClient;
  database: Database;
  /** The server's services (the same objects its doors call). */
  services: Services;
  /** The PostgreSQL database's URL (a second process can open it); null on PGlite. */
  databaseUrl: string | null;
  app: FastifyInstance;
  projectId: number;
  organizationId: string;
  userId: number;
  /** An all-scopes (`*`) key of the bootstrap user. */
  key: string;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** A key of the bootstrap user with these scopes, optionally limited to projects and organizations. */
  createKey(scopes: string[], projects?: number[], organizations?: string[]): Promise<string>;
  /** Another project in the bootstrap user's organization. */
  createProject(name: string): Promise<number>;
  /** A project in an organization the bootstrap user is not a member of. */
  createForeignProject(name: string): Promise<number>;
  /** The server's log records (parsed pino lines) at `error` level and above. */
  errorLogs: Array<Record<string, unknown>>;
  /** Every line the server logged at `logLevel` and above, as written. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * A copy of the global setup's migrated PGlite template in a fresh temporary `dataDir` (`cp -a`:
 * about 0.1 s for its 40 MB), and how to remove it (after closing what opened it).
 */
export async function copyPgliteTemplate(): Promise<{ dataDir: string; drop: () => Promise<void> }> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-pglite-"));
  const dataDir = path.join(parent, "data");
  await execFileAsync("cp", ["-a", inject("pgliteTemplate"), dataDir]);
  return { dataDir, drop: () => fs.rm(parent, { recursive: true, force: true }) };
}

/**
 * The embedded database as a server opens it (its own process, ../../src/db/embedded/pglite-host.ts)
 * on a copy of the migrated template's data directory, as a server restarting on its directory does.
 */
export async function openEmbeddedTestDatabase(): Promise<{
  database: Database;
  dataDir: string;
  drop: () => Promise<void>;
}> {
  const { dataDir, drop } = await copyPgliteTemplate();
  const database = await openDatabase({ kind: "embedded", dataDir }).catch(async (error: unknown) => {
    await drop();
    throw error;
  });
  return { database, dataDir, drop };
}

/** A fresh, migrated database of `backend` (the embedded database from the template, or a PostgreSQL copy of it), and how to drop it (after closing it). */
export async function openTestDatabase(
  backend: Backend,
): Promise<{ database: Database; url: string | null; drop: () => Promise<void> }> {
  if (backend === "pglite") {
    const { database, drop } = await openEmbeddedTestDatabase();
    return { database, url: null, drop };
  }
  const template = inject("postgresTemplate");
  if (!template) throw new Error("no PostgreSQL template: the postgres backend should have been skipped");
  const name = `sbx_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = databaseUrl(name);
  const database = await openDatabase({ kind: "postgres", url });
  return { database, url, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Options of a test server. */
export interface TestServerOptions {
  /** Overrides the services' clock. */
  now?: () => Date;
  /** Environment variables for `loadConfig`, beside the test defaults (e.g. a limit to tighten). */
  env?: Record<string, string>;
  /** The server logger's level (default `error`): its lines are in `logLines`. */
  logLevel?: pino.Level;
  /** The ClickHouse analytics store capture writes events to (support/clickhouse.ts); none: PostgreSQL. */
  clickhouse?: ClickHouseClient;
}

/** Starts a server on a fresh database of `backend`. */
export async function startTestServer(
  backend: Backend,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const { database, url, drop } = await openTestDatabase(backend);
  const db = database.prisma;
  const boot = await bootstrap(db, {
    email: "admin@example.com",
    organizationName: "Acme",
    projectName: "Web",
  });
  const user = await db.user.findUniqueOrThrow({ where: { email: "admin@example.com" } });
  const project = await db.project.findUniqueOrThrow({ where: { id: boot.project_id } });
  // The configuration this backend loads in service (DATABASE_URL names PostgreSQL).
  const config = loadConfig({
    LOG_LEVEL: "silent",
    PORT: "0",
    ...(backend === "postgres" && url ? { DATABASE_URL: url } : {}),
    ...RATE_LIMITS_OFF,
    ...options.env,
  });
  const errorLogs: Array<Record<string, unknown>> = [];
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        logLines.push(line);
        const record = JSON.parse(line) as Record<string, unknown>;
        // Levels are written by name (core/logger.ts).
        if ((pino.levels.values[record["level"] as string] ?? 0) >= pino.levels.values["error"]!) {
          errorLogs.push(record);
        }
      }
      done();
    },
  });
  const services = createServices({
    now: options.now ?? (() => new Date()),
    config,
    data: dataAccessOf(database),
    ...(options.clickhouse ? { clickhouse: options.clickhouse } : {}),
  });
  const app = await buildApp({
    config,
    database,
    logger: createLogger(options.logLevel ?? "error", sink),
    services,
    ...(options.now ? { now: options.now } : {}),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("server has no port");
  const baseUrl = `http://127.0.0.1:${address.port}`;

  return {
    backend,
    baseUrl,
    db,
    database,
    services,
    databaseUrl: url,
    app,
    projectId: project.id,
    organizationId: project.organizationId,
    userId: user.id,
    key: boot.personal_api_key,
    errorLogs,
    logLines,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? boot.personal_api_key : opts.key;
      if (key) headers["authorization"] ??= `Bearer ${key}`;
      let body: string | Uint8Array<ArrayBuffer> | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined) headers["content-type"] ??= "application/json";
      return readResponse(await fetch(`${baseUrl}${path}`, { method, headers, body }));
    },
    async createKey(scopes, projects, organizations) {
      const { key: raw } = await createPersonalApiKey(db, {
        userId: user.id,
        label: "test",
        scopes,
        scopedTeams: projects ?? [],
        scopedOrganizations: organizations ?? [],
      });
      return raw;
    },
    async createProject(name) {
      const created = await db.project.create({
        data: { organizationId: project.organizationId, name, apiToken: generateProjectApiToken() },
      });
      return created.id;
    },
    async createForeignProject(name) {
      const org = await db.organization.create({ data: { name: `Other ${name}` } });
      const created = await db.project.create({
        data: { organizationId: org.id, name, apiToken: generateProjectApiToken() },
      });
      return created.id;
    },
    async close() {
      await app.close();
      await database.close();
      await drop();
    },
  };
}

/** Backends this run covers: PGlite always, PostgreSQL when its template was made. */
export function availableBackends(): Backend[] {
  return inject("postgresTemplate") ? ["pglite", "postgres"] : ["pglite"];
}

/**
 * Declares `body` once per backend, each with its own server on a fresh database for the file.
 * The PostgreSQL copy is skipped (and reported as skipped) where no PostgreSQL answers.
 */
export function describeEachBackend(
  name: string,
  body: (server: () => TestServer, backend: Backend) => void,
  options: TestServerOptions = {},
): void {
  for (const backend of ["pglite", "postgres"] as const) {
    describe.skipIf(!availableBackends().includes(backend))(`${name} [${backend}]`, () => {
      let server: TestServer | undefined;
      beforeAll(async () => {
        server = await startTestServer(backend, options);
      });
      afterAll(async () => {
        await server?.close();
      });
      body(() => {
        if (!server) throw new Error("server not started");
        return server;
      }, backend);
    });
  }
}
