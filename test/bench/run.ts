/**
 * `npm run bench`: latency and SQL statements per request of the main flag operations, through the
 * real HTTP server, on PGlite (in memory) and on PostgreSQL when one answers at 127.0.0.1:5432 (or
 * TEST_DATABASE_URL). Requests are sequential from one client on loopback, in bounded loops.
 * Prints p50/p95 in ms, requests per second, statements per request, and GraphQL-to-REST ratios.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { type Database, openDatabase } from "../../src/db/database.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";

const ITERATIONS = Number(process.env["BENCH_ITERATIONS"] ?? 200);
const WARMUP = 20;
const FLAGS = 100;

interface Figure {
  name: string;
  p50: number;
  p95: number;
  perSecond: number;
  statements: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(name: string, send: (i: number) => Promise<Response>): Promise<Figure> {
  for (let i = 0; i < WARMUP; i++) await (await send(-1 - i)).arrayBuffer();
  const times: number[] = [];
  let statements = 0;
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    const response = await send(i);
    await response.arrayBuffer();
    times.push(performance.now() - t0);
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    statements = Number(response.headers.get("server-timing")?.match(/desc="(\d+)/)?.[1] ?? Number.NaN);
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    name,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    perSecond: (ITERATIONS / total) * 1000,
    statements,
  };
}

async function benchBackend(label: string, database: Database): Promise<void> {
  await applyMigrations(database.migrationTarget);
  const boot = await bootstrap(database.prisma, {
    email: "bench@example.com",
    organizationName: "Bench",
    projectName: "Bench",
  });
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email: "bench@example.com" } });
  await database.prisma.featureFlag.createMany({
    data: Array.from({ length: FLAGS }, (_, i) => ({
      projectId: boot.project_id,
      key: `bench-${i}`,
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
  const app = await buildApp({
    config: loadConfig({ PORT: "0" }),
    database,
    logger: pino({ level: "silent" }),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const base = `http://127.0.0.1:${address.port}`;
  const headers = { authorization: `Bearer ${boot.personal_api_key}`, "content-type": "application/json" };
  const flags = `${base}/api/projects/${boot.project_id}/feature_flags/`;
  const one = (await database.prisma.featureFlag.findFirstOrThrow({ where: { key: "bench-0" } })).id;
  const graphqlList = JSON.stringify({
    query: `query($id: ID!) { project(id: $id) { featureFlags(first: ${FLAGS}) { totalCount edges { node { id key active version tags createdBy { email } lastModifiedBy { email } } } } } }`,
    variables: { id: String(boot.project_id) },
  });
  const run = randomBytes(3).toString("hex");
  const figures = [
    await measure(`REST list ${FLAGS} flags`, () => fetch(`${flags}?limit=${FLAGS}`, { headers })),
    await measure(`GraphQL list ${FLAGS} flags + users`, () =>
      fetch(`${base}/graphql`, { method: "POST", headers, body: graphqlList }),
    ),
    await measure("REST retrieve one flag", () => fetch(`${flags}${one}/`, { headers })),
    await measure("REST create flag", (i) =>
      fetch(flags, {
        method: "POST",
        headers,
        body: JSON.stringify({ key: `created-${run}-${i < 0 ? `w${-i}` : i}` }),
      }),
    ),
    await measure("REST patch flag", (i) =>
      fetch(`${flags}${one}/`, { method: "PATCH", headers, body: JSON.stringify({ name: `n${i}` }) }),
    ),
  ];
  await app.close();
  console.log(`\n${label}  (${ITERATIONS} sequential requests each, after ${WARMUP} warm-up)`);
  console.log(
    "operation".padEnd(34),
    "p50 ms".padStart(8),
    "p95 ms".padStart(8),
    "req/s".padStart(8),
    "SQL/req".padStart(8),
  );
  for (const f of figures) {
    console.log(
      f.name.padEnd(34),
      f.p50.toFixed(2).padStart(8),
      f.p95.toFixed(2).padStart(8),
      f.perSecond.toFixed(0).padStart(8),
      String(f.statements).padStart(8),
    );
  }
  const [rest, graphql] = figures;
  console.log(`ratio GraphQL/REST list p50: ${(graphql!.p50 / rest!.p50).toFixed(2)}x`);
}

async function main(): Promise<void> {
  const pglite = new PGlite();
  const embedded = await openDatabase({ kind: "pglite", pglite });
  try {
    await benchBackend("PGlite (in memory)", embedded);
  } finally {
    await embedded.close();
    await pglite.close();
  }
  if (!(await postgresAnswers())) {
    console.warn("\n!! No PostgreSQL at 127.0.0.1:5432 (or TEST_DATABASE_URL): PostgreSQL figures SKIPPED");
    return;
  }
  const name = `sbx_bench_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const postgres = await openDatabase({ kind: "postgres", url: databaseUrl(name) });
  try {
    await benchBackend("PostgreSQL 127.0.0.1", postgres);
  } finally {
    await postgres.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
