/**
 * The job queue on PostgreSQL: graphile-worker (its `graphile_worker` schema, taken with
 * `FOR UPDATE SKIP LOCKED`, new jobs announced with LISTEN/NOTIFY), so that each job runs once across
 * every server process on the database; the rules it shares with the embedded runner are in ./jobs.ts.
 *
 * Its schema is graphile-worker's own, migrated by the library: by `signalbox migrate` (after ours,
 * `migrateJobQueue`) and again, idempotently and under the library's own lock, each time a queue
 * starts, so `npm start` on a database whose jobs schema is missing or older still works.
 *
 * graphile-worker's own crontab is not used for schedules: they are milliseconds (the flag-call
 * roll-up's `FLAG_CALL_ROLLUP_INTERVAL_MS`), finer than cron's minute, and the embedded runner must
 * keep them the same way; a schedule is one keyed job that enqueues its successor (./jobs.ts).
 */
import { Logger, type LogLevel, run, runMigrations, type Task } from "graphile-worker";
import pg from "pg";
import {
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

/** The `application_name` of the queue's connections, as `pg_stat_activity` shows them. */
export const JOB_QUEUE_APPLICATION_NAME = "signalbox-jobs";

/** The first wait before a runner that ended by itself is replaced, in ms (doubling while it fails). */
const RESTART_FIRST_DELAY_MS = 1_000;
/** The longest wait between attempts to replace the runner, in ms. */
const RESTART_MAX_DELAY_MS = 30_000;

/** What the PostgreSQL queue runs on. */
export interface PostgresQueueOptions {
  definitions: readonly JobDefinition[];
  /** The database's URL (the queue keeps its own small pool and its LISTEN connection). */
  url: string;
  /** Jobs run at once by this process. */
  concurrency: number;
  /** How often the worker looks for jobs that became due (retries, delayed jobs) besides NOTIFY, in ms. */
  pollIntervalMs: number;
  logger: JobLogger;
}

/** graphile-worker's log lines into ours: its `info` (a line per job) at debug. */
function graphileLogger(logger: JobLogger): Logger {
  return new Logger((scope) => (level: LogLevel, message: string, meta?: object) => {
    const fields = { ...scope, ...meta, source: "graphile-worker" };
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else if (level === "info") logger.debug(fields, message);
  });
}

/**
 * Creates or updates graphile-worker's schema in the database at `url` (what `signalbox migrate`
 * runs after our migrations); idempotent.
 */
export async function migrateJobQueue(url: string, logger: JobLogger): Promise<void> {
  await runMigrations({ connectionString: url, maxPoolSize: 1, logger: graphileLogger(logger) });
}

/**
 * Starts a graphile-worker runner for `definitions` (migrating its schema), keeps each schedule's
 * job (enqueued with `preserve_run_at`, so every process's start agrees on one), and returns the queue.
 */
export async function startPostgresQueue(options: PostgresQueueOptions): Promise<JobQueue> {
  const { logger } = options;
  const definitions = definitionsByName(options.definitions);
  const runs = new InProcessRuns();
  const definitionOf = (name: string) => {
    const definition = definitions.get(name);
    if (!definition) throw new UnknownJobError(name);
    return definition;
  };
  const specOf = (definition: JobDefinition, enqueueOptions: EnqueueOptions) => ({
    maxAttempts: definition.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    ...(enqueueOptions.jobKey !== undefined ? { jobKey: enqueueOptions.jobKey } : {}),
    ...(enqueueOptions.jobKeyMode !== undefined ? { jobKeyMode: enqueueOptions.jobKeyMode } : {}),
    runAt: runAtOf(enqueueOptions),
  });

  const taskList: Record<string, Task> = {};
  for (const definition of definitions.values()) {
    taskList[definition.name] = async (payload, helpers) => {
      const { job } = helpers;
      const attempt = job.attempts;
      // A scheduled run hands its key to the next run, and with it any retry of its own (./jobs.ts).
      const handsOver = definition.everyMs !== undefined && job.key === scheduleKey(definition.name);
      if (definition.everyMs !== undefined && attempt === 1) {
        await helpers.addJob(
          definition.name,
          {},
          specOf(definition, {
            jobKey: scheduleKey(definition.name),
            delayMs: definition.everyMs,
          }),
        );
      }
      try {
        const result = await runs.track(definition.name, () =>
          definition.handler(parsePayload(definition, payload), {
            id: job.id,
            attempt,
            maxAttempts: job.max_attempts,
          }),
        );
        logger.debug({ job: definition.name, jobId: job.id, attempt, result }, "job completed");
      } catch (error) {
        const given = handsOver || attempt >= job.max_attempts;
        (given ? logger.error : logger.warn).call(
          logger,
          { err: error, job: definition.name, jobId: job.id, attempt, maxAttempts: job.max_attempts },
          given
            ? "job failed and is given up: out of attempts"
            : "job failed; it is retried after its back-off",
        );
        throw error;
      }
    };
  }

  // The queue's own pool, which it ends itself once the worker has stopped: graphile-worker does not
  // wait for a pool it made to close, so a database dropped or restarted right after `stop()` killed
  // connections still closing, and an idle connection PostgreSQL terminates (a restart, an admin) is
  // an `error` event that must have a listener, or it takes the process down.
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.concurrency + 2,
    application_name: JOB_QUEUE_APPLICATION_NAME,
  });
  const connectionFailed = (error: Error) =>
    logger.warn({ err: error }, "a job queue connection failed; the pool replaces it");
  // Both listeners graphile-worker asks of a pool it is given (an idle client's error reaches the
  // pool; a checked-out client's reaches the client).
  pool.on("error", connectionFailed);
  pool.on("connect", (client) => client.on("error", connectionFailed));
  const startRunner = () =>
    run({
      pgPool: pool,
      concurrency: options.concurrency,
      pollInterval: options.pollIntervalMs,
      noHandleSignals: true,
      // Completions and failures go through graphile-worker's batchers (flushed at once, delay 0): its
      // graceful shutdown flushes those before it returns, while the unbatched path does not
      // await them, so a job finishing during `stop()` could stay locked (and run again hours later).
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      logger: graphileLogger(logger),
      taskList,
      // No crontab: schedules are ours (see the module comment), and a `crontab` file in the working
      // directory must not start jobs.
      crontab: "",
    });
  let runner: Awaited<ReturnType<typeof run>>;
  try {
    runner = await startRunner();
  } catch (error) {
    await pool.end();
    throw error;
  }

  // graphile-worker's runner stops itself when its worker pool exits, as it does when PostgreSQL
  // terminates its connections (a restart, an admin), and its `promise` then resolves as if told to
  // stop: jobs would never run again in this process. While the queue is not stopped, a runner that
  // ended is replaced, after a back-off that doubles while the database does not answer.
  let stopped = false;
  let restartTimer: NodeJS.Timeout | undefined;
  const supervise = (current: typeof runner) => {
    current.promise.then(
      () => restart(current, null, RESTART_FIRST_DELAY_MS),
      (error: unknown) => restart(current, error, RESTART_FIRST_DELAY_MS),
    );
  };
  const restart = (ended: typeof runner, error: unknown, delayMs: number) => {
    if (stopped || ended !== runner) return;
    logger.warn({ err: error, delayMs }, "the job queue's worker stopped; it starts again after a delay");
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopped) return;
      startRunner().then(
        (next) => {
          if (stopped) {
            void next.stop().catch(() => undefined);
            return;
          }
          runner = next;
          supervise(next);
        },
        (startError: unknown) => restart(ended, startError, Math.min(delayMs * 2, RESTART_MAX_DELAY_MS)),
      );
    }, delayMs);
    restartTimer.unref();
  };
  supervise(runner);

  const enqueue = async (name: string, payload?: unknown, enqueueOptions: EnqueueOptions = {}) => {
    const definition = definitionOf(name);
    await runner.addJob(name, parsePayload(definition, payload), specOf(definition, enqueueOptions));
  };
  try {
    for (const definition of definitions.values()) {
      if (definition.everyMs === undefined) continue;
      await enqueue(
        definition.name,
        {},
        {
          jobKey: scheduleKey(definition.name),
          jobKeyMode: "preserve_run_at",
          delayMs: definition.everyMs,
        },
      );
    }
  } catch (error) {
    stopped = true;
    await runner.stop().catch(() => undefined);
    await pool.end();
    throw error;
  }

  return {
    kind: "postgres",
    enqueue,
    async counts() {
      const { rows } = await pool.query<JobCounts>(jobCountsSql("graphile_worker.jobs"));
      return rows[0] ?? { due: 0, scheduled: 0, running: 0 };
    },
    async runNow(name, payload) {
      if (stopped) throw new Error(`the job queue is stopped: ${name} cannot run`);
      const definition = definitionOf(name);
      return runs.exclusive(name, () =>
        definition.handler(parsePayload(definition, payload), { id: "now", attempt: 1, maxAttempts: 1 }),
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(restartTimer);
      // A runner that ended by itself (and was not replaced yet) is already stopped.
      await runner.stop().catch(() => undefined);
      await runs.drain();
      await pool.end();
    },
  };
}
