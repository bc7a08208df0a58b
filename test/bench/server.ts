/**
 * The bench's server process (forked by run.ts, one per backend, so the load generator never shares
 * its event loop and `--cpu-prof` profiles the servers alone). It opens a fresh database
 * (`pglite`: in memory; `postgres`: a new database on the test server), seeds one project with
 * `FLAGS` flags (each with two tags), starts our app and the hand-written baseline (baseline.ts) on
 * the same database and driver, sends `BenchReady` to the parent, and on "close" drops everything and exits.
 * On PostgreSQL it also starts PostGraphile 5 (Amber preset, no auth) on the same database as an
 * outside anchor for the GraphQL figure, or says why it could not. On both backends, where the test
 * PostgreSQL answers, it starts Unleash 7.5 (unleash.ts) on a throwaway database of its own with
 * `FLAGS` flags, the outside anchor of the list figure (Unleash has no embedded mode: on the PGlite
 * backend it still runs on PostgreSQL), or says loudly why it could not.
 * On `{ profile: path }` it starts V8's CPU profiler and on `{ stopProfile: true }` writes the profile
 * to that path (answering `"ok"` to each), so a profile covers one figure's load and nothing else;
 * on `{ cpu: true }` it answers its CPU time so far (µs, user + system), which run.ts reads around
 * each load to give the server's CPU time per request.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import { Session } from "node:inspector/promises";
import pg from "pg";
import pino from "pino";
import { type ClickHouseClient, openClickHouse } from "../../src/analytics/clickhouse/client.js";
import { buildApp } from "../../src/app.js";
import { createServices } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { generateProjectApiToken } from "../../src/core/auth/api-keys.js";
import { dataAccessOf } from "../../src/core/context.js";
import { type Database, openDatabase } from "../../src/db/database.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";
import { RATE_LIMITS_OFF } from "../support/rate-limits.js";
import { pgPoolSql, type Sql, startBaseline } from "./baseline.js";
import { openEmbeddedBenchDatabase } from "./embedded.js";
import { startStaticBytes } from "./static-bytes.js";
import { startUnleash } from "./unleash.js";

/** Flags seeded in the bench project. */
const FLAGS = 100;
/** Persons seeded in the bench project, each with two distinct ids and three events. */
const PERSONS = 100;

/** What the server process tells the parent once everything listens. */
export interface BenchReady {
  /**
   * Our app with the REST door's answers by ETag and GraphQL's kept results off
   * (RESPONSE_CACHE_BYTES=0, GRAPHQL_RESULT_CACHE_BYTES=0): every read runs.
   */
  ours: string;
  /** Our app as configured by default, on the same database: repeated reads answered by ETag. */
  oursKeeping: string;
  /** Our app as `ours`, capturing without the event catalogue (`SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP`). */
  oursWithoutCatalogue: string;
  /**
   * Our app as `ours` with events in ClickHouse (issue 30: capture writes them there, persons stay
   * in PostgreSQL and are mirrored), when the parent started chdb (`BENCH_CLICKHOUSE_URL`).
   */
  oursClickHouse?: string;
  baseline: string;
  key: string;
  projectId: number;
  /** The project's public token (capture's `api_key`). */
  projectToken: string;
  /** Ids of the seeded flags, oldest first. */
  flagIds: number[];
  /** How many persons were seeded. */
  persons: number;
  /** A second, empty project of the same organization, where the create figure writes (so the list stays as seeded). */
  createProjectId: number;
  /** PostGraphile's GraphQL endpoint on the same database (PostgreSQL only), when it started. */
  postgraphile?: string;
  /**
   * Unleash 7.5's admin list of its `FLAGS` flags and its admin token, its frontend API with its
   * token, and where it updates a flag (`features` + `bench-<i>`), when it started (unleash.ts).
   */
  unleash?: { list: string; token: string; frontend: { url: string; token: string }; features: string };
  /**
   * The local-evaluation figures: the public token of a third project holding a copy of the seeded
   * flags and a cohort (no other figure writes there, so its payload stays the same), the payload's
   * ETag, and the plain `node:http` server answering the same bytes (static-bytes.ts).
   */
  localEvaluation: { token: string; etag: string; baseline: string };
  /** A plain `node:http` server answering the bytes and headers of our list of `FLAGS` flags (static-bytes.ts). */
  listBytes: string;
}

/** The headers of one of our answers that a plain server would write itself as well (node writes the others). */
function answerHeaders(headers: Headers): Record<string, string> {
  const written = new Set(["date", "connection", "keep-alive", "transfer-encoding", "x-request-id"]);
  return Object.fromEntries([...headers].filter(([name]) => !written.has(name)));
}

/**
 * Starts PostGraphile 5 with its Amber preset on `url` (a free port), or returns why it could not.
 * PostGraphile 5 declares Node 22; on Node 20 it needs only `Promise.withResolvers`, supplied here
 * for this process alone (the bench server, never the app).
 */
async function startPostGraphile(
  url: string,
): Promise<{ endpoint: string; close(): Promise<void> } | string> {
  try {
    const promises = Promise as unknown as { withResolvers?: unknown };
    promises.withResolvers ??= <T>() => {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    };
    process.env["GRAPHILE_ENV"] ??= "production";
    const { postgraphile } = await import("postgraphile");
    const { PostGraphileAmberPreset } = await import("postgraphile/presets/amber");
    const { makePgService } = await import("postgraphile/adaptors/pg");
    const { grafserv } = await import("postgraphile/grafserv/node");
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // `pool.end()` resolves before its connections are closed; dropping the database at exit then
    // terminates them, an error event that must not crash the process.
    pool.on("error", () => {});
    const instance = postgraphile({
      extends: [PostGraphileAmberPreset],
      pgServices: [makePgService({ pool, schemas: ["public"] })],
      grafserv: { graphqlPath: "/graphql" },
    });
    const server = http.createServer();
    instance.createServ(grafserv).addTo(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (!address || typeof address === "string") return "no port";
    return {
      endpoint: `http://127.0.0.1:${address.port}/graphql`,
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await instance.release();
        await pool.end();
      },
    };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `PERSONS` persons with an email, two distinct ids each and three events under the first. */
async function seedPersons(db: Database["prisma"], projectId: number): Promise<void> {
  const start = Date.now() - 24 * 60 * 60 * 1000;
  for (let i = 0; i < PERSONS; i++) {
    const person = await db.person.create({
      data: {
        projectId,
        properties: { email: `person-${i}@example.com`, plan: i % 2 === 0 ? "pro" : "free" },
        isIdentified: true,
        createdAt: new Date(start + i * 1000),
        distinctIds: {
          create: [
            { distinctId: `user-${i}` },
            { distinctId: `0190aa00-0000-0000-0000-${String(i).padStart(12, "0")}` },
          ],
        },
      },
      select: { uuid: true },
    });
    await db.event.createMany({
      data: [0, 1, 2].map((n) => ({
        projectId,
        uuid: randomUUID(),
        event: "$pageview",
        distinctId: `user-${i}`,
        personId: person.uuid,
        timestamp: new Date(start + i * 1000 + n * 60_000),
      })),
    });
  }
}

/** A copy of `projectId`'s flags in a new project, with a person-property cohort one of them names; its token. */
async function seedLocalEvaluation(db: Database["prisma"], projectId: number, organizationId: string) {
  const project = await db.project.create({
    data: { organizationId, name: "Bench local evaluation", apiToken: generateProjectApiToken() },
  });
  const cohort = await db.cohort.create({
    data: {
      projectId: project.id,
      name: "Pro users",
      filters: {
        properties: {
          type: "OR",
          values: [
            { type: "AND", values: [{ key: "plan", type: "person", value: "pro", operator: "exact" }] },
          ],
        },
      },
    },
  });
  const flags = await db.featureFlag.findMany({ where: { projectId }, orderBy: { id: "asc" } });
  await db.featureFlag.createMany({
    data: flags.map((flag, i) => ({
      projectId: project.id,
      key: flag.key,
      name: flag.name,
      filters:
        i === 0
          ? {
              groups: [
                { properties: [{ key: "id", type: "cohort", value: cohort.id }], rollout_percentage: 100 },
              ],
            }
          : (flag.filters ?? {}),
    })),
  });
  return project.apiToken;
}

async function seed(database: Database): Promise<
  Omit<
    BenchReady,
    "ours" | "oursKeeping" | "oursWithoutCatalogue" | "baseline" | "localEvaluation" | "listBytes"
  > & {
    localEvaluationToken: string;
  }
> {
  const boot = await bootstrap(database.prisma, {
    email: "bench@example.com",
    organizationName: "Bench",
    projectName: "Bench",
  });
  const db = database.prisma;
  const user = await db.user.findUniqueOrThrow({ where: { email: "bench@example.com" } });
  const projectId = boot.project_id;
  await db.featureFlag.createMany({
    data: Array.from({ length: FLAGS }, (_, i) => ({
      projectId,
      key: `bench-${i}`,
      name: `Bench flag ${i}`,
      createdById: user.id,
      lastModifiedById: user.id,
      filters: {
        groups: [
          {
            properties: [{ key: "email", type: "person", value: "@example.com", operator: "icontains" }],
            rollout_percentage: 50,
          },
        ],
      },
    })),
  });
  await db.tag.createMany({ data: ["beta", "checkout", "mobile"].map((name) => ({ projectId, name })) });
  const tags = await db.tag.findMany({ where: { projectId }, orderBy: { name: "asc" } });
  const flags = await db.featureFlag.findMany({
    where: { projectId },
    orderBy: { id: "asc" },
    select: { id: true },
  });
  await db.featureFlagTag.createMany({
    data: flags.flatMap((flag, i) =>
      [tags[i % 3]!, tags[(i + 1) % 3]!].map((tag) => ({ projectId, featureFlagId: flag.id, tagId: tag.id })),
    ),
  });
  await seedPersons(db, projectId);
  const { organizationId, apiToken } = await db.project.findUniqueOrThrow({ where: { id: projectId } });
  const createProject = await db.project.create({
    data: { organizationId, name: "Bench creates", apiToken: generateProjectApiToken() },
  });
  return {
    key: boot.personal_api_key,
    projectId,
    projectToken: apiToken,
    flagIds: flags.map((f) => f.id),
    persons: PERSONS,
    createProjectId: createProject.id,
    localEvaluationToken: await seedLocalEvaluation(db, projectId, organizationId),
  };
}

/** Settings every app of this server takes (`BENCH_SERVER_ENV`, a JSON object; the abuse bench's `QUERY_TIMEOUT_MS`). */
const SERVER_ENV = JSON.parse(process.env["BENCH_SERVER_ENV"] ?? "{}") as Record<string, string>;

async function main(backend: string): Promise<void> {
  let database: Database;
  let sql: { plain: Sql; prepared: Sql };
  let postgraphile: string | undefined;
  let unleash: BenchReady["unleash"];
  let pgUrl: string | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  if (backend === "pglite") {
    const embedded = await openEmbeddedBenchDatabase();
    database = embedded.database;
    // The same driver and the same one connection as the app's statements.
    sql = { plain: pgPoolSql(database.pool), prepared: pgPoolSql(database.pool, true) };
    cleanups.push(() => embedded.close());
  } else {
    const name = `sbx_bench_${randomBytes(4).toString("hex")}`;
    pgUrl = databaseUrl(name);
    await adminQuery(`CREATE DATABASE ${name}`);
    cleanups.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    database = await openDatabase({ kind: "postgres", url: databaseUrl(name) });
    const pool = new pg.Pool({ connectionString: databaseUrl(name), max: 10 });
    pool.on("error", () => {}); // as PostGraphile's pool: connections terminated by the drop at exit
    sql = { plain: pgPoolSql(pool), prepared: pgPoolSql(pool, true) };
    cleanups.unshift(() => pool.end());
  }
  if (backend !== "pglite") cleanups.unshift(() => database.close());
  await applyMigrations(database.migrationTarget);
  const { localEvaluationToken, ...seeded } = await seed(database);
  // A database in service has planner statistics: PostgreSQL's autovacuum gathers them (the test
  // server runs with it off), the embedded PGlite refreshes them (src/db/pglite-statistics.ts).
  // Without any, the planner guesses tables empty and may look 100 keys up by scanning a project's
  // rows once per key (capture's person lookup), which is not what serving measures.
  await database.prisma.$executeRawUnsafe("ANALYZE");
  // Figures measure the read path with the REST door's answers by ETag off; a second app on the
  // same database keeps them (the default) for the figure of a repeated read.
  /**
   * An app on `database` with `env` as its configuration (and `clickhouse` as its analytics store,
   * when given), listening on a free port: its base URL.
   */
  const listening = async (env: Record<string, string>, clickhouse?: ClickHouseClient): Promise<string> => {
    // The configuration this backend loads in service (DATABASE_URL names PostgreSQL).
    const config = loadConfig({
      PORT: "0",
      ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
      ...RATE_LIMITS_OFF,
      ...SERVER_ENV,
      ...env,
    });
    const app = await buildApp({
      config,
      database,
      logger: pino({ level: "silent" }),
      ...(clickhouse
        ? {
            services: createServices({
              now: () => new Date(),
              config,
              data: dataAccessOf(database),
              clickhouse,
            }),
          }
        : {}),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    cleanups.unshift(() => app.close());
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    return `http://127.0.0.1:${address.port}`;
  };
  const ours = await listening({ RESPONSE_CACHE_BYTES: "0", GRAPHQL_RESULT_CACHE_BYTES: "0" });
  const oursKeeping = await listening({});
  // The catalogue figure's "without": capture as PostHog's SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP runs it.
  const oursWithoutCatalogue = await listening({
    RESPONSE_CACHE_BYTES: "0",
    SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP: "true",
  });
  const clickhouseUrl = process.env["BENCH_CLICKHOUSE_URL"];
  let oursClickHouse: string | undefined;
  if (clickhouseUrl) {
    const clickhouse = openClickHouse(clickhouseUrl);
    cleanups.push(() => clickhouse.close());
    oursClickHouse = await listening({ RESPONSE_CACHE_BYTES: "0" }, clickhouse);
  }
  const baseline = await startBaseline(sql, seeded.projectId);
  cleanups.unshift(() => baseline.close());
  // Twice: the first poll reads the key and builds the payload, the second is answered as every
  // poll after it (its headers, Server-Timing's statement count included, are what the baseline sends).
  const poll = () =>
    fetch(`${ours}/flags/definitions?token=${localEvaluationToken}&send_cohorts`, {
      headers: { authorization: `Bearer ${seeded.key}` },
    });
  await (await poll()).arrayBuffer();
  const payload = await poll();
  if (payload.status !== 200) throw new Error(`local evaluation answered ${payload.status}`);
  const etag = payload.headers.get("etag") ?? "";
  const revalidated = await fetch(`${ours}/flags/definitions?token=${localEvaluationToken}&send_cohorts`, {
    headers: { authorization: `Bearer ${seeded.key}`, "if-none-match": etag },
  });
  if (revalidated.status !== 304) throw new Error(`local evaluation revalidated with ${revalidated.status}`);
  const staticBytes = await startStaticBytes({
    body: Buffer.from(await payload.arrayBuffer()),
    etag,
    headers200: answerHeaders(payload.headers),
    headers304: answerHeaders(revalidated.headers),
  });
  cleanups.unshift(() => staticBytes.close());
  // Twice, as the poll above: the second answer is the kept one every repeated read gets.
  const readList = () =>
    fetch(`${oursKeeping}/api/projects/${seeded.projectId}/feature_flags/?limit=${FLAGS}`, {
      headers: { authorization: `Bearer ${seeded.key}` },
    });
  await (await readList()).arrayBuffer();
  const list = await readList();
  if (list.status !== 200) throw new Error(`the list answered ${list.status}`);
  const listBytes = await startStaticBytes(
    {
      body: Buffer.from(await list.arrayBuffer()),
      etag: list.headers.get("etag") ?? "",
      headers200: answerHeaders(list.headers),
      headers304: {},
    },
    "/api/feature_flags/",
  );
  cleanups.unshift(() => listBytes.close());
  if (backend === "postgres") {
    const started = await startPostGraphile(pgUrl!);
    if (typeof started === "string") console.warn(`!! PostGraphile skipped: ${started}`);
    else {
      postgraphile = started.endpoint;
      cleanups.unshift(() => started.close());
    }
  }
  // Only the list, PATCH and remote-evaluation figures use Unleash, which takes some 30 s to migrate and seed.
  const only = process.env["BENCH_ONLY"]?.split(",").map((name) => name.trim());
  if (only && !["list", "patch", "flags"].some((id) => only.includes(id))) {
    // Not measured in this run.
  } else if (backend === "postgres" || (await postgresAnswers())) {
    const name = `sbx_bench_unleash_${randomBytes(4).toString("hex")}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    // After Unleash has stopped (cleanups run first to last; `unshift` puts a later start first).
    cleanups.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const started = await startUnleash(databaseUrl(name), FLAGS);
    if (typeof started === "string") console.warn(`!! Unleash skipped: ${started}`);
    else {
      unleash = {
        list: started.list,
        token: started.token,
        frontend: started.frontend,
        features: started.features,
      };
      cleanups.unshift(() => started.close());
    }
  } else {
    console.warn("!! Unleash skipped: no PostgreSQL answers, and Unleash has no embedded mode");
  }
  const ready: BenchReady = {
    ...seeded,
    ours,
    oursKeeping,
    oursWithoutCatalogue,
    ...(oursClickHouse ? { oursClickHouse } : {}),
    baseline: `http://127.0.0.1:${baseline.port}`,
    localEvaluation: { token: localEvaluationToken, etag, baseline: staticBytes.url },
    listBytes: listBytes.url,
    ...(postgraphile ? { postgraphile } : {}),
    ...(unleash ? { unleash } : {}),
  };
  process.send?.(ready);
  const inspector = new Session();
  let profilePath: string | undefined;
  process.on("message", async (message: unknown) => {
    if (message === "close") {
      for (const cleanup of cleanups) await cleanup();
      process.exit(0);
    }
    const command = message as { profile?: string; stopProfile?: boolean; cpu?: boolean };
    if (command.cpu) {
      const { user, system } = process.cpuUsage();
      process.send?.(user + system);
    } else if (command.profile) {
      profilePath = command.profile;
      inspector.connect();
      await inspector.post("Profiler.enable");
      await inspector.post("Profiler.setSamplingInterval", { interval: 200 });
      await inspector.post("Profiler.start");
      process.send?.("ok");
    } else if (command.stopProfile && profilePath) {
      const { profile } = await inspector.post("Profiler.stop");
      inspector.disconnect();
      await fs.writeFile(profilePath, JSON.stringify(profile));
      process.send?.("ok");
    }
  });
}

main(process.argv[2] ?? "pglite").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
