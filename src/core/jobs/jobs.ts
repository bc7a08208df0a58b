/**
 * Scheduled and queued work, declared by the domains as `JobDefinition`s and run by a `JobQueue`:
 * - on PostgreSQL, graphile-worker (./postgres-queue.ts): jobs are rows in its `graphile_worker`
 *   schema, taken with `FOR UPDATE SKIP LOCKED` and announced with LISTEN/NOTIFY, so each job runs
 *   once across every server process on the database;
 * - on the embedded database (PGlite, one process by construction: the data directory is locked),
 *   the same definitions run in-process from the `job_queue` table (./embedded-queue.ts), with the
 *   same rules: retries with the same back-off, job keys, schedules, persistence across restarts.
 *
 * The rules both runners share:
 * - **Retries**: a job that throws is retried until it has run `maxAttempts` times, the n-th retry
 *   `backoffMs(n)` after the failure (graphile-worker's `exp(least(10, attempts))` seconds); a job out
 *   of attempts stays in the queue with its last error, runs no more, and is reported.
 * - **Job keys**: at most one waiting job per key. Enqueueing with a key that a waiting job holds
 *   replaces its payload and time (`jobKeyMode: "replace"`) or only its payload
 *   (`"preserve_run_at"`); a key held by a running job is taken from it and given to the new job,
 *   and the running job is not retried (graphile-worker's `add_jobs`).
 * - **Schedules**: a definition with `everyMs` runs every `everyMs` after its last run began, as one
 *   job under the key `schedule:<name>`: each run enqueues the next before it does its work, and each
 *   start of the queue enqueues it with `preserve_run_at` (so a restart neither loses nor moves it).
 *   One waiting job per key means one run per period across processes. Since the running job has
 *   handed its key on, a failed scheduled run is not retried: the next run is its retry.
 * - **Stop** waits for the jobs in progress (graceful drain) and starts no new one.
 */
import type { z } from "zod";
import type { Config } from "../../config.js";
import type { RunSqlTransaction } from "../../db/sql-transaction.js";
import type { Services } from "../services.js";

/** What a job's handler is told about the run. */
export interface JobRun {
  /** The queue's id of the job (text: graphile-worker's ids are bigint); `"now"` for `runNow`. */
  id: string;
  /** This run's number, from 1. */
  attempt: number;
  maxAttempts: number;
}

/** One kind of job, declared by a domain. */
export interface JobDefinition<P = unknown> {
  /** Unique among the server's jobs, e.g. `flag-call-rollup` (also the graphile-worker task identifier). */
  name: string;
  /** The payload's shape: checked when a job is enqueued and again when it runs. Absent: no payload (`{}`). */
  payload?: z.ZodType<P>;
  /** Runs one job; what it resolves to is logged (debug) and returned by `runNow`. Throwing fails the run. */
  handler(payload: P, run: JobRun): Promise<unknown>;
  /** Runs (tries) per job before it is given up, at least 1; default `DEFAULT_MAX_ATTEMPTS`. */
  maxAttempts?: number;
  /** A schedule: the job runs every `everyMs` milliseconds (see the module comment). */
  everyMs?: number;
}

/** Attempts of a job whose definition names none (graphile-worker's default, 25). */
export const DEFAULT_MAX_ATTEMPTS = 25;

/** The key a definition's scheduled job is kept under. */
export function scheduleKey(name: string): string {
  return `schedule:${name}`;
}

/**
 * The wait before the retry that follows failed attempt `attempt` (1-based), in ms: graphile-worker's
 * `exp(least(10, attempts))` seconds (2.7 s, 7.4 s, 20 s, ... at most 6 h 7 min), in both runners.
 */
export function backoffMs(attempt: number): number {
  return Math.round(Math.exp(Math.min(10, attempt)) * 1000);
}

/** Options of `enqueue`. */
export interface EnqueueOptions {
  /** At most one waiting job per key (see the module comment). */
  jobKey?: string;
  /** What a key held by a waiting job keeps: default `"replace"` (payload and time are replaced). */
  jobKeyMode?: "replace" | "preserve_run_at";
  /**
   * How long from now the job waits before it may run, in ms; default 0. Counted on the queue's own
   * clock (the process's), never as an instant: a caller whose clock differs (a service clock a test
   * moves) says how long, and the job is not due at once merely because that clock lags the queue's.
   */
  delayMs?: number;
}

/** When a job enqueued with `options` may run, on the queue's clock (the process's). */
export function runAtOf(options: EnqueueOptions): Date {
  return new Date(Date.now() + Math.max(0, options.delayMs ?? 0));
}

/** A started job queue. */
export interface JobQueue {
  /** Which runner: graphile-worker on PostgreSQL, or in-process on the embedded database. */
  readonly kind: "postgres" | "embedded";
  /**
   * Adds a job of definition `name` (durably: once this resolves, a restart does not lose it).
   * @throws UnknownJobError for a name no definition has; zod's error for a payload its schema refuses.
   */
  enqueue(name: string, payload?: unknown, options?: EnqueueOptions): Promise<void>;
  /**
   * Runs definition `name`'s handler now in this process, outside the queue (tests, an operator),
   * after a run of the same definition in progress in this process, and resolves to its result.
   * Across processes the handler guards itself where that matters (the flag-call roll-up's advisory lock).
   * @throws UnknownJobError; what the handler throws; an Error once the queue is stopped.
   */
  runNow(name: string, payload?: unknown): Promise<unknown>;
  /** Stops taking jobs and waits for those in progress; idempotent. */
  stop(): Promise<void>;
  /** How many jobs the queue holds now (every process's, on PostgreSQL), by state (the metrics' queue depth). */
  counts(): Promise<JobCounts>;
}

/**
 * A queue's jobs by state: `due` (waiting, their time come), `scheduled` (waiting for a later
 * time: a delayed job, a schedule's next run, a retry's back-off), `running` (taken by a worker).
 * Jobs given up (out of attempts) are in none.
 */
export interface JobCounts {
  due: number;
  scheduled: number;
  running: number;
}

/** The statement that counts `table`'s jobs by state (both runners' tables have these columns). */
export function jobCountsSql(table: string): string {
  return `SELECT
    count(*) FILTER (WHERE locked_at IS NULL AND run_at <= now())::int AS due,
    count(*) FILTER (WHERE locked_at IS NULL AND run_at > now())::int AS scheduled,
    count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS running
    FROM ${table} WHERE attempts < max_attempts OR locked_at IS NOT NULL`;
}

/** What a domain's jobs are built from: the services, the database's transactions, the configuration. */
export interface JobDeps {
  services: Services;
  transaction: RunSqlTransaction;
  config: Config;
}

/** A domain's job definitions (the composition root lists the modules). */
export type JobModule = (deps: JobDeps) => JobDefinition[];

/** A job name that no definition has. */
export class UnknownJobError extends Error {
  constructor(name: string) {
    super(`no job is defined with the name "${name}"`);
    this.name = "UnknownJobError";
  }
}

/** Where a runner reports what happens outside any caller: a failed run, a job given up. */
export interface JobLogger {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * The definitions by name, each checked: names unique, `maxAttempts` ≥ 1, `everyMs` ≥ 1.
 * @throws Error naming the first bad definition.
 */
export function definitionsByName(definitions: readonly JobDefinition[]): Map<string, JobDefinition> {
  const byName = new Map<string, JobDefinition>();
  for (const definition of definitions) {
    if (byName.has(definition.name))
      throw new Error(`two jobs are defined with the name "${definition.name}"`);
    if (
      definition.maxAttempts !== undefined &&
      !(Number.isInteger(definition.maxAttempts) && definition.maxAttempts >= 1)
    )
      throw new Error(`job "${definition.name}": maxAttempts must be an integer of at least 1`);
    if (definition.everyMs !== undefined && !(definition.everyMs >= 1))
      throw new Error(`job "${definition.name}": everyMs must be at least 1`);
    byName.set(definition.name, definition);
  }
  return byName;
}

/** The payload of a job of `definition`, checked by its schema (`{}` when it declares none). */
export function parsePayload(definition: JobDefinition, payload: unknown): unknown {
  return definition.payload ? definition.payload.parse(payload) : (payload ?? {});
}

/**
 * The runs in progress in this process, by definition: `runNow` starts only when no run of its
 * definition is in progress here (so it sees what an earlier run committed, and two on-demand runs
 * never overlap), while the queue's own runs start when the runner takes them; `drain` waits for all.
 * Both runners route every run through one of these.
 */
export class InProcessRuns {
  private readonly running = new Map<string, Set<Promise<unknown>>>();

  /** Runs `work` as one of definition `name`'s runs, at once. */
  async track<T>(name: string, work: () => Promise<T>): Promise<T> {
    const run = work();
    const runs = this.running.get(name) ?? new Set<Promise<unknown>>();
    this.running.set(name, runs);
    runs.add(run);
    try {
      return await run;
    } finally {
      runs.delete(run);
      if (!runs.size && this.running.get(name) === runs) this.running.delete(name);
    }
  }

  /** Runs `work` as definition `name`'s run once no run of it is in progress here. */
  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    for (let runs = this.running.get(name); runs?.size; runs = this.running.get(name)) {
      await Promise.allSettled([...runs]);
    }
    return this.track(name, work);
  }

  /** Waits until no run is in progress. */
  async drain(): Promise<void> {
    while (this.running.size)
      await Promise.allSettled([...this.running.values()].flatMap((runs) => [...runs]));
  }
}
