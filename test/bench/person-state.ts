/**
 * `npx tsx test/bench/person-state.ts`: what person state costs a capture request, per batch of 100
 * events, beside a hand-written baseline on the same database and driver (raw statements in one
 * transaction on the driver, src/db/sql-transaction.ts, as capture's request transaction). Figures, per backend (PGlite in
 * memory; PostgreSQL at 127.0.0.1:5432, skipped loudly when none answers):
 * - `create`: 100 events of 100 new distinct ids, each with a `$set`; baseline: one multi-row
 *   `INSERT` of 100 persons and one of their 100 distinct ids;
 * - `update`: 100 events of those ids, each changing a `$set` value; baseline: one `SELECT` of the
 *   100 persons by distinct id and one `UPDATE … FROM (VALUES …)`;
 * - `identify`: 100 `$identify` events, each merging an anonymous person into a known one
 *   (no baseline; shows what merges cost).
 * Rounds alternate ours and the baseline; the table shows median milliseconds per batch, events per
 * second, statements per batch, and the ratio of ours to the baseline.
 * Environment: BENCH_ROUNDS (default 15), BENCH_BACKENDS (default `pglite,postgres`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { type Database, openDatabase } from "../../src/db/database.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { measureSql } from "../../src/db/sql-stats.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import type { IngestEvent } from "../../src/ingestion/ingest-event.js";
import { applyPersonState } from "../../src/ingestion/person-state.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { ingestEvent } from "../support/ingest.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";
import { openEmbeddedBenchDatabase } from "./embedded.js";

const BATCH = 100;
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 15);
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "pglite,postgres").split(",").map((name) => name.trim());

/** One timed batch: wall time (ms) and statements sent. */
interface Sample {
  ms: number;
  statements: number;
}

async function timed(run: () => Promise<unknown>): Promise<Sample> {
  const started = performance.now();
  const { stats } = await measureSql(run);
  return { ms: performance.now() - started, statements: stats.statements };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The baseline's `create`: the same persons and distinct ids, hand-written, two statements. */
async function baselineCreate(db: Database, projectId: number, ids: string[]): Promise<void> {
  const now = new Date().toISOString();
  await db.transaction(async (tx) => {
    const persons = ids
      .map(
        (id, i) =>
          `(${projectId}, ${quote(randomUUID())}, ${quote(JSON.stringify({ i, id }))}, ${quote(now)})`,
      )
      .join(",");
    const rows = await tx.rows<{ id: string }>(
      Prisma.raw(
        `INSERT INTO persons (project_id, uuid, properties, created_at) VALUES ${persons} RETURNING id::text AS id`,
      ),
    );
    const distinctIds = ids.map((id, i) => `(${projectId}, ${quote(id)}, ${rows[i]!.id})`).join(",");
    await tx.execute(
      Prisma.raw(
        `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES ${distinctIds}`,
      ),
    );
  });
}

/** The baseline's `update`: read the persons of the ids, write their new properties, two statements. */
async function baselineUpdate(db: Database, projectId: number, ids: string[], value: number): Promise<void> {
  await db.transaction(async (tx) => {
    const list = ids.map(quote).join(",");
    const rows = await tx.rows<{ id: string; properties: Record<string, unknown> }>(
      Prisma.raw(`SELECT p.id::text AS id, p.properties FROM person_distinct_ids d
       JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
       WHERE d.project_id = ${projectId} AND d.distinct_id IN (${list}) FOR UPDATE OF p`),
    );
    const values = rows
      .map((row) => `(${row.id}, ${quote(JSON.stringify({ ...row.properties, value }))}::jsonb)`)
      .join(",");
    await tx.execute(
      Prisma.raw(`UPDATE persons p SET properties = v.properties, version = p.version + 1
       FROM (VALUES ${values}) AS v(id, properties) WHERE p.project_id = ${projectId} AND p.id = v.id`),
    );
  });
}

async function ours(db: Database, projectId: number, events: IngestEvent[]): Promise<void> {
  await db.transaction((tx) => applyPersonState(tx, projectId, events));
}

const batchIds = (label: string) => Array.from({ length: BATCH }, (_, i) => `${label}-${i}-${randomUUID()}`);

interface Row {
  figure: string;
  ours: Sample[];
  baseline: Sample[];
}

async function measureBackend(db: Database, projectId: number): Promise<Row[]> {
  const rows: Row[] = [
    { figure: "create", ours: [], baseline: [] },
    { figure: "update", ours: [], baseline: [] },
    { figure: "identify", ours: [], baseline: [] },
  ];
  const [create, update, identify] = rows as [Row, Row, Row];
  for (let round = 0; round < ROUNDS; round++) {
    const oursIds = batchIds("ours");
    const baseIds = batchIds("base");
    create.ours.push(
      await timed(() =>
        ours(
          db,
          projectId,
          oursIds.map((id) => ingestEvent(id, { $set: { id } })),
        ),
      ),
    );
    create.baseline.push(await timed(() => baselineCreate(db, projectId, baseIds)));
    update.ours.push(
      await timed(() =>
        ours(
          db,
          projectId,
          oursIds.map((id) => ingestEvent(id, { $set: { value: round } })),
        ),
      ),
    );
    update.baseline.push(await timed(() => baselineUpdate(db, projectId, baseIds, round)));
    const anonIds = batchIds("anon");
    await ours(
      db,
      projectId,
      anonIds.map((id) => ingestEvent(id, { $set: { anon: true } })),
    );
    identify.ours.push(
      await timed(() =>
        ours(
          db,
          projectId,
          oursIds.map((id, i) => ingestEvent(id, { $anon_distinct_id: anonIds[i] }, { event: "$identify" })),
        ),
      ),
    );
  }
  return rows;
}

function print(backend: string, rows: Row[]): void {
  console.log(`\n${backend} (median of ${ROUNDS} rounds, batches of ${BATCH} events)`);
  console.log("figure    | ours ms | events/s | stmts | baseline ms | events/s | stmts | ours/baseline");
  for (const row of rows) {
    const oursMs = median(row.ours.map((s) => s.ms));
    const oursStmts = median(row.ours.map((s) => s.statements));
    const base =
      row.baseline.length > 0
        ? (() => {
            const ms = median(row.baseline.map((s) => s.ms));
            const stmts = median(row.baseline.map((s) => s.statements));
            return `${ms.toFixed(1).padStart(11)} | ${Math.round((BATCH / ms) * 1000)
              .toString()
              .padStart(8)} | ${String(stmts).padStart(5)} | ${(oursMs / ms).toFixed(2)}`;
          })()
        : "          – |        – |     – | –";
    console.log(
      `${row.figure.padEnd(9)} | ${oursMs.toFixed(1).padStart(7)} | ${Math.round((BATCH / oursMs) * 1000)
        .toString()
        .padStart(8)} | ${String(oursStmts).padStart(5)} | ${base}`,
    );
  }
}

async function openBackend(backend: string): Promise<{ db: Database; drop: () => Promise<void> } | null> {
  if (backend === "pglite") {
    const { database, close } = await openEmbeddedBenchDatabase();
    return { db: database, drop: close };
  }
  if (!(await postgresAnswers())) {
    console.log("\npostgres: SKIPPED, no PostgreSQL answers at 127.0.0.1:5432");
    return null;
  }
  const name = `sbx_bench_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const db = await openDatabase({ kind: "postgres", url: databaseUrl(name) });
  return {
    db,
    drop: async () => {
      await db.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

for (const backend of BACKENDS) {
  const opened = await openBackend(backend);
  if (!opened) continue;
  try {
    await applyMigrations(opened.db.migrationTarget);
    const boot = await bootstrap(opened.db.prisma, {
      email: "bench@example.com",
      organizationName: "Bench",
      projectName: "Bench",
    });
    print(backend, await measureBackend(opened.db, boot.project_id));
  } finally {
    await opened.drop();
  }
}
