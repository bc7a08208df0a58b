/**
 * What the one-request-at-a-time figures of `npm run bench` share (cohort-count.ts, queries.ts): a
 * fresh database per backend with a raw driver beside it for the hand-written baseline, the
 * median of timed runs, and ours beside the baseline in alternating rounds.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../../src/db/database.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { createProjectForUser } from "../../src/projects/create-project.js";
import { bootstrap } from "../../src/users/bootstrap.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";
import { openEmbeddedBenchDatabase } from "./embedded.js";

/** Runs a hand-written query on the backend's own driver (not through our code), returning its rows. */
export type RawRows = <R = Record<string, unknown>>(sql: string, params: unknown[]) => Promise<R[]>;

/** The median of `values`. */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `action` once to warm up, then `runs` times: the median time in ms and the last result. */
export async function timed<T>(runs: number, action: () => Promise<T>): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last = await action();
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    last = await action();
    times.push(performance.now() - start);
  }
  return { ms: median(times), last };
}

/** Two actions timed in alternation (see `timedPair`). */
export interface TimedPair<A, B> {
  ours: { ms: number; last: A };
  hand: { ms: number; last: B };
  /** The median over rounds of hand ms / ours ms (higher is better for ours). */
  ratio: number;
}

/**
 * Runs each action once to warm up, then `runs` rounds of both, alternating which goes first:
 * the medians, the last results and the median per-round ratio. Interleaving matters on a shared
 * machine: a load that comes and goes falls on both sides of a round instead of on one whole side.
 */
export async function timedPair<A, B>(
  runs: number,
  ours: () => Promise<A>,
  hand: () => Promise<B>,
): Promise<TimedPair<A, B>> {
  let lastOurs = await ours();
  let lastHand = await hand();
  const oursMs: number[] = [];
  const handMs: number[] = [];
  const time = async <T>(action: () => Promise<T>, into: number[]): Promise<T> => {
    const start = performance.now();
    const result = await action();
    into.push(performance.now() - start);
    return result;
  };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      lastOurs = await time(ours, oursMs);
      lastHand = await time(hand, handMs);
    } else {
      lastHand = await time(hand, handMs);
      lastOurs = await time(ours, oursMs);
    }
  }
  return {
    ours: { ms: median(oursMs), last: lastOurs },
    hand: { ms: median(handMs), last: lastHand },
    ratio: median(oursMs.map((ms, i) => handMs[i]! / ms)),
  };
}

/**
 * A fresh, empty database of `backend` (`pglite` in memory, or a new PostgreSQL database dropped
 * on close) and a raw driver on it.
 */
export async function openBenchDatabase(
  backend: string,
): Promise<{ database: Database; raw: RawRows; close(): Promise<void> }> {
  if (backend === "pglite") {
    const { database, close } = await openEmbeddedBenchDatabase();
    return {
      database,
      raw: async <R>(sql: string, params: unknown[]) => (await database.pool.query(sql, params)).rows as R[],
      close,
    };
  }
  const name = `sbx_bench_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const database = await openDatabase({ kind: "postgres", url: databaseUrl(name) });
  const pool = new pg.Pool({ connectionString: databaseUrl(name), max: 2 });
  return {
    database,
    raw: async <R>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as R[],
    close: async () => {
      await pool.end();
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * `openBenchDatabase`, migrated, with the bench's user, personal API key and project
 * (`bench@example.com`, project "Bench": `boot`), and `otherProject()` to add a second project of the
 * same user (what each bench seeds to prove it counts one project only).
 */
export async function openBootstrappedBench(backend: string) {
  const opened = await openBenchDatabase(backend);
  try {
    await applyMigrations(opened.database.migrationTarget);
    const db = opened.database.prisma;
    const boot = await bootstrap(db, {
      email: "bench@example.com",
      organizationName: "Bench",
      projectName: "Bench",
    });
    const otherProject = async () =>
      (await createProjectForUser(db, { email: "bench@example.com", name: "Other" })).project_id;
    return { ...opened, boot, otherProject };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/**
 * The entry point of a PostgreSQL-only bench script: runs `bench` unless `BENCH_ONLY` is set without
 * `name`, and skips it with a loud warning (naming `figures`) where no PostgreSQL answers; the
 * process then exits 0, or 1 after printing the error.
 */
export function runPostgresBench(name: string, figures: string, bench: () => Promise<void>): void {
  const only = process.env["BENCH_ONLY"]?.split(",").map((entry) => entry.trim());
  const main = async () => {
    if (only && !only.includes(name)) return;
    if (!(await postgresAnswers())) {
      console.warn(`\n!! No PostgreSQL at 127.0.0.1:5432 (or TEST_DATABASE_URL): ${figures} figures SKIPPED`);
      return;
    }
    await bench();
  };
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
