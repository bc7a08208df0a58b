/**
 * The dynamic-cohort figure of `npm run bench` (issue 7): how long counting a dynamic cohort over
 * 100,000 persons takes, beside a hand-written SQL count of the same persons, on each backend.
 *
 * Per backend (the embedded PGlite; PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432, skipped loudly
 * when none answers): a fresh migrated database, `PERSONS` persons inserted by one
 * `INSERT ... SELECT generate_series`, our app on it, and a dynamic cohort created over REST. Then,
 * one request or query at a time, the median of `BENCH_COHORT_RUNS` runs (default 9) of:
 * - `REST recalculation`: `PATCH cohorts/:id/ {}`, which recalculates the count (PostHog enqueues a
 *   calculation on every update) in a transaction with the activity entry;
 * - `translated count`: the count statement the service runs (criteria through src/lib/property-filters/'s
 *   translation, through Prisma);
 * - `hand-written SQL`: the same count written by hand for these criteria, on the raw driver.
 * Both counts must agree (checked) with the cohort's `count`. The ratio is translated / hand-written.
 *
 * Environment: BENCH_BACKENDS (default `pglite,postgres`), BENCH_ONLY (runs when it names
 * `cohort-count`), BENCH_COHORT_RUNS.
 */
import os from "node:os";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { loadCohortDefinitions } from "../../src/lib/property-filters/cohort-definitions.js";
import { type PropertyGroup, propertyGroupSchema } from "../../src/lib/property-filters/property-filters.js";
import { toSql } from "../../src/lib/property-filters/to-sql.js";
import { postgresAnswers } from "../support/postgres.js";
import { RATE_LIMITS_OFF } from "../support/rate-limits.js";
import { openBootstrappedBench, timed } from "./sequential.js";

const PERSONS = 100_000;
const RUNS = Number(process.env["BENCH_COHORT_RUNS"] ?? 9);
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "pglite,postgres").split(",").map((name) => name.trim());
const ONLY = process.env["BENCH_ONLY"]?.split(",").map((name) => name.trim());

/** The cohort's criteria: (plan is pro AND age > 30) OR email contains @acme.com. */
const CRITERIA = {
  type: "OR",
  values: [
    {
      type: "AND",
      values: [
        { type: "person", key: "plan", value: "pro", operator: "exact" },
        { type: "person", key: "age", value: "30", operator: "gt" },
      ],
    },
    { type: "AND", values: [{ type: "person", key: "email", value: "@acme.com", operator: "icontains" }] },
  ],
};

/** The same count, by hand, for persons whose `age` is always a number (as seeded). */
const HAND_WRITTEN = `SELECT count(*) AS count FROM persons
  WHERE project_id = $1
    AND ((lower(properties ->> 'plan') = 'pro' AND (properties ->> 'age')::numeric > 30)
      OR strpos(lower(properties ->> 'email'), '@acme.com') > 0)`;

async function benchBackend(label: string, backend: string): Promise<void> {
  const { database, raw: rawRows, close, boot } = await openBootstrappedBench(backend);
  const raw = async (sql: string, params: unknown[]) =>
    Number((await rawRows<{ count: number | bigint | string }>(sql, params))[0]!.count);
  try {
    const db = database.prisma;
    const projectId = boot.project_id;
    await db.$executeRaw`INSERT INTO persons (project_id, properties)
      SELECT ${projectId}, jsonb_build_object(
        'email', 'user' || g || CASE WHEN g % 7 = 0 THEN '@acme.com' ELSE '@example.com' END,
        'plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END,
        'age', g % 80)
      FROM generate_series(1, ${PERSONS}) AS g`;
    await db.$executeRawUnsafe("ANALYZE persons");

    const app = await buildApp({
      config: loadConfig({ PORT: "0", ...RATE_LIMITS_OFF }),
      database,
      logger: pino({ level: "silent" }),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      if (!address || typeof address === "string") throw new Error("no port");
      const base = `http://127.0.0.1:${address.port}/api/projects/${projectId}/cohorts/`;
      const headers = {
        authorization: `Bearer ${boot.personal_api_key}`,
        "content-type": "application/json",
      };
      const created = await fetch(base, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "bench", filters: { properties: CRITERIA } }),
      });
      const cohort = (await created.json()) as { id: number; count: number };
      if (created.status !== 201) throw new Error(`create answered ${created.status}`);

      const rest = await timed(RUNS, async () => {
        const response = await fetch(`${base}${cohort.id}/`, { method: "PATCH", headers, body: "{}" });
        const body = (await response.json()) as { count: number };
        if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
        return body.count;
      });
      const tree = propertyGroupSchema.parse(CRITERIA) as PropertyGroup;
      const translated = await timed(RUNS, async () => {
        const cohorts = await loadCohortDefinitions(db, projectId, tree);
        const where = toSql(tree, { projectId, now: new Date(), targets: { person: "p" }, cohorts });
        const [row] = await db.$queryRaw<Array<{ count: bigint }>>(
          Prisma.sql`SELECT count(*) AS count FROM persons p WHERE p.project_id = ${projectId} AND ${where}`,
        );
        return Number(row!.count);
      });
      const hand = await timed(RUNS, () => raw(HAND_WRITTEN, [projectId]));
      const counts = [cohort.count, rest.last, translated.last, hand.last];
      if (new Set(counts).size !== 1) throw new Error(`counts disagree: ${counts.join(", ")}`);

      const [load1] = os.loadavg();
      console.log(
        `\n${label}: dynamic cohort over ${PERSONS.toLocaleString("en")} persons (${cohort.count} members), ` +
          `median of ${RUNS} runs, one at a time; load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
      );
      const row = (name: string, ms: number, note = "") =>
        console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms ${note}`);
      row("REST recalculation (PATCH {})", rest.ms);
      row(
        "translated count (service SQL)",
        translated.ms,
        `| ratio ${(translated.ms / hand.ms).toFixed(2)}× of hand-written`,
      );
      row("hand-written SQL count", hand.ms);
    } finally {
      await app.close();
    }
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  if (ONLY && !ONLY.includes("cohort-count")) return;
  if (BACKENDS.includes("pglite")) await benchBackend("PGlite (embedded, on its own thread)", "pglite");
  if (!BACKENDS.includes("postgres")) return;
  if (!(await postgresAnswers())) {
    console.warn(
      "\n!! No PostgreSQL at 127.0.0.1:5432 (or TEST_DATABASE_URL): PostgreSQL cohort figures SKIPPED",
    );
    return;
  }
  await benchBackend("PostgreSQL 127.0.0.1", "postgres");
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
