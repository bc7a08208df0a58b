/**
 * The job queue of the embedded database (PGlite): the same job definitions and rules as the
 * PostgreSQL runner (./jobs.ts), run in this process from the `job_queue` table. PGlite is one
 * process by construction (its data directory is locked: src/db/data-dir-lock.ts), so there is no
 * other worker to share with; the table is what makes an acknowledged job survive a restart.
 *
 * One job runs at a time (PGlite has one connection, so a second would only queue behind it):
 * the loop takes the earliest due job (`attempts` + 1, `locked_at` set), runs it, then deletes it
 * (done) or unlocks it with its error and `run_at` moved by the back-off (failed; given up once out
 * of attempts). It sleeps until the next job is due, at most `pollIntervalMs`, and wakes at once
 * when a job is enqueued here. At start every lock is cleared: a run the last process did not finish
 * (a crash) runs again, its begun attempt counted, as graphile-worker does after its lock expires.
 * So one database has one queue at a time: a second started beside a live one would clear the
 * locks of the jobs it is running (the data directory's lock already keeps other processes out).
 */
import { setImmediate } from "node:timers/promises";
import type { RunSqlTransaction, SqlStatements } from "../../db/sql-transaction.js";
import { Prisma } from "../../generated/prisma/client.js";
import {
  backoffMs,
  DEFAULT_MAX_ATTEMPTS,
  definitionsByName,
  type EnqueueOptions,
  InProcessRuns,
  type JobCounts,
  type JobDefinition,
  type JobLogger,
  type JobQueue,
  jobCountsSql,
  parsePayload,
  runAtOf,
  scheduleKey,
  UnknownJobError,
} from "./jobs.js";

/** What the embedded queue runs on. */
export interface EmbeddedQueueOptions {
  definitions: readonly JobDefinition[];
  /** The embedded database's transactions and single statements. */
  transaction: RunSqlTransaction;
  autocommit: SqlStatements;
  /** Longest sleep between looks at the table, in ms (a job enqueued in-process wakes the loop at once). */
  pollIntervalMs: number;
  logger: JobLogger;
}

interface TakenJob {
  id: string;
  name: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  job_key: string | null;
}

/** Adds a job to `job_queue` under the rules of ./jobs.ts (job keys: replace, preserve_run_at). */
async function insertJob(
  transaction: RunSqlTransaction,
  definition: JobDefinition,
  payload: unknown,
  options: EnqueueOptions,
): Promise<void> {
  const maxAttempts = definition.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const runAt = runAtOf(options);
  const json = JSON.stringify(payload);
  await transaction(async (tx) => {
    if (options.jobKey !== undefined) {
      const [held] = await tx.rows<{ id: string; locked: boolean }>(
        Prisma.sql`SELECT id::text AS id, locked_at IS NOT NULL AS locked FROM job_queue WHERE job_key = ${options.jobKey} FOR UPDATE`,
      );
      if (held && !held.locked) {
        const keepRunAt = options.jobKeyMode === "preserve_run_at";
        await tx.execute(Prisma.sql`UPDATE job_queue SET name = ${definition.name}, payload = ${json}::jsonb,
          run_at = CASE WHEN ${keepRunAt} AND attempts = 0 THEN run_at ELSE ${runAt}::timestamptz END,
          attempts = 0, max_attempts = ${maxAttempts}, last_error = NULL
          WHERE id = ${held.id}::bigint`);
        return;
      }
      // A running job gives its key up and is not retried: the new job carries the newer intent.
      if (held)
        await tx.execute(
          Prisma.sql`UPDATE job_queue SET job_key = NULL, max_attempts = attempts WHERE id = ${held.id}::bigint`,
        );
    }
    await tx.execute(Prisma.sql`INSERT INTO job_queue (name, payload, job_key, run_at, max_attempts)
      VALUES (${definition.name}, ${json}::jsonb, ${options.jobKey ?? null}, ${runAt}::timestamptz, ${maxAttempts})`);
  });
}

/** Starts the embedded queue: clears stale locks, keeps each schedule's job, and starts the loop. */
export async function startEmbeddedQueue(options: EmbeddedQueueOptions): Promise<JobQueue> {
  const { transaction, autocommit, logger, pollIntervalMs } = options;
  const definitions = definitionsByName(options.definitions);
  const runs = new InProcessRuns();
  const definitionOf = (name: string) => {
    const definition = definitions.get(name);
    if (!definition) throw new UnknownJobError(name);
    return definition;
  };
  const enqueue = async (name: string, payload?: unknown, enqueueOptions: EnqueueOptions = {}) => {
    const definition = definitionOf(name);
    await insertJob(transaction, definition, parsePayload(definition, payload), enqueueOptions);
    wake();
  };

  await autocommit.execute(Prisma.sql`UPDATE job_queue SET locked_at = NULL WHERE locked_at IS NOT NULL`);
  for (const definition of definitions.values()) {
    if (definition.everyMs === undefined) continue;
    await insertJob(
      transaction,
      definition,
      {},
      {
        jobKey: scheduleKey(definition.name),
        jobKeyMode: "preserve_run_at",
        delayMs: definition.everyMs,
      },
    );
  }

  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wakeUp: (() => void) | null = null;
  /** A wake-up that came while the loop was not sleeping: its next sleep returns at once. */
  let woken = false;
  function wake() {
    woken = true;
    wakeUp?.();
  }
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      wakeUp = () => {
        if (timer) clearTimeout(timer);
        timer = null;
        wakeUp = null;
        woken = false;
        resolve();
      };
      timer = setTimeout(wakeUp, ms);
      timer.unref();
    });

  const take = async (): Promise<TakenJob | undefined> => {
    const [job] =
      await autocommit.rows<TakenJob>(Prisma.sql`UPDATE job_queue SET locked_at = now(), attempts = attempts + 1
      WHERE id = (SELECT id FROM job_queue WHERE locked_at IS NULL AND attempts < max_attempts AND run_at <= now()
                  ORDER BY run_at, id LIMIT 1)
      RETURNING id::text AS id, name, payload, attempts, max_attempts, job_key`);
    return job;
  };

  const runOne = async (job: TakenJob) => {
    const run = { id: job.id, attempt: job.attempts, maxAttempts: job.max_attempts };
    // A scheduled run hands its key to the next run, and with it any retry of its own (./jobs.ts).
    const handsOver =
      job.job_key === scheduleKey(job.name) && definitions.get(job.name)?.everyMs !== undefined;
    try {
      const definition = definitionOf(job.name);
      if (definition.everyMs !== undefined && job.attempts === 1) {
        await insertJob(
          transaction,
          definition,
          {},
          {
            jobKey: scheduleKey(definition.name),
            delayMs: definition.everyMs,
          },
        );
      }
      const result = await runs.track(job.name, () =>
        definition.handler(parsePayload(definition, job.payload), run),
      );
      await autocommit.execute(Prisma.sql`DELETE FROM job_queue WHERE id = ${job.id}::bigint`);
      logger.debug({ job: job.name, jobId: job.id, attempt: job.attempts, result }, "job completed");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const delayMs = backoffMs(job.attempts);
      await autocommit.execute(Prisma.sql`UPDATE job_queue SET locked_at = NULL, last_error = ${message},
        run_at = now() + ${delayMs} * interval '1 millisecond' WHERE id = ${job.id}::bigint`);
      const given = handsOver || job.attempts >= job.max_attempts;
      (given ? logger.error : logger.warn).call(
        logger,
        { err: error, job: job.name, jobId: job.id, attempt: job.attempts, maxAttempts: job.max_attempts },
        given
          ? "job failed and is given up: out of attempts"
          : "job failed; it is retried after its back-off",
      );
    }
  };

  const nextDueInMs = async (): Promise<number> => {
    const [next] = await autocommit.rows<{ ms: number | null }>(Prisma.sql`SELECT
      (EXTRACT(EPOCH FROM (min(run_at) - clock_timestamp())) * 1000)::float8 AS ms
      FROM job_queue WHERE locked_at IS NULL AND attempts < max_attempts`);
    return next?.ms ?? Number.POSITIVE_INFINITY;
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        woken = false;
        for (let job = await take(); job; job = stopped ? undefined : await take()) {
          await runOne(job);
          // PGlite answers through promises alone (no I/O), so a queue that always has a job due
          // would never let timers or sockets run: give the event loop a turn between jobs.
          await setImmediate();
        }
        if (stopped) break;
        const dueMs = await nextDueInMs();
        if (stopped) break;
        await sleep(Math.max(0, Math.min(pollIntervalMs, dueMs)));
      } catch (error) {
        logger.error({ err: error }, "the embedded job queue could not read its table; it tries again");
        if (!stopped) await sleep(pollIntervalMs);
      }
    }
  })();

  return {
    kind: "embedded",
    enqueue,
    async counts() {
      const [counts] = await autocommit.rows<JobCounts>(Prisma.raw(jobCountsSql("job_queue")));
      return counts ?? { due: 0, scheduled: 0, running: 0 };
    },
    async runNow(name, payload) {
      if (stopped) throw new Error(`the job queue is stopped: ${name} cannot run`);
      const definition = definitionOf(name);
      return runs.exclusive(name, () =>
        definition.handler(parsePayload(definition, payload), {
          id: "now",
          attempt: 1,
          maxAttempts: 1,
        }),
      );
    },
    async stop() {
      stopped = true;
      wake();
      await loop;
      await runs.drain();
    },
  };
}
