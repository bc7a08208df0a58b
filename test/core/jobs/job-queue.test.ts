/**
 * The job queue (src/core/jobs/) on both runners, with job definitions of the test's own: graphile-worker
 * on PostgreSQL and the in-process runner on PGlite, each on a fresh migrated database. The same
 * cases run on both, since both promise the same rules: a job runs once with its checked payload,
 * a failure is retried after its back-off and given up after `maxAttempts`, a job key keeps one
 * waiting job, a schedule keeps one waiting run, stop waits for a running job, and an enqueued
 * job survives the queue's restart. Waiting for a back-off is replaced by moving the job's `run_at`
 * to now, so no case waits on the wall clock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  backoffMs,
  type JobDefinition,
  type JobLogger,
  type JobQueue,
  scheduleKey,
  UnknownJobError,
} from "../../../src/core/jobs/jobs.js";
import { JOB_QUEUE_APPLICATION_NAME } from "../../../src/core/jobs/postgres-queue.js";
import { startJobQueue } from "../../../src/core/jobs/start.js";
import type { Database } from "../../../src/db/database.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { itWhere } from "../../support/it-where.js";
import { availableBackends, type Backend, openTestDatabase } from "../../support/server.js";

/** A promise with its resolve in hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls `check` until it returns a value other than undefined (every 25 ms, at most `timeoutMs`). */
async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** One waiting, running or given-up job as both runners' tables show it. */
interface JobRow {
  id: string;
  name: string;
  payload: unknown;
  key: string | null;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked: boolean;
  due: boolean;
}

/**
 * The queue's rows in id order (graphile-worker's jobs table on PostgreSQL, whose public view hides
 * payloads; `job_queue` on PGlite). Ordered by the numeric column, not the text `id` selected (as
 * text, job 10 would come before job 9).
 */
function jobRows(database: Database, name: string): Promise<JobRow[]> {
  return database.migrationTarget.kind === "postgres"
    ? database.reader.rows<JobRow>(Prisma.sql`SELECT j.id::text AS id, t.identifier AS name, j.payload, j.key,
        j.attempts::int AS attempts, j.max_attempts::int AS max_attempts, j.last_error,
        j.locked_at IS NOT NULL AS locked, j.run_at <= now() AS due
        FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = ${name} ORDER BY j.id`)
    : database.reader.rows<JobRow>(Prisma.sql`SELECT id::text AS id, name, payload, job_key AS key, attempts,
        max_attempts, last_error, locked_at IS NOT NULL AS locked, run_at <= now() AS due
        FROM job_queue WHERE name = ${name} ORDER BY job_queue.id`);
}

/** Makes a job due now (instead of waiting for its back-off or `delayMs`). */
async function makeDue(database: Database, id: string): Promise<void> {
  await database.autocommit.execute(
    database.migrationTarget.kind === "postgres"
      ? Prisma.sql`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE id = ${id}::bigint`
      : Prisma.sql`UPDATE job_queue SET run_at = now() WHERE id = ${id}::bigint`,
  );
}

/** A logger that keeps what it is told. */
function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const at =
    (level: string) =>
    (fields: object, message: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, message });
    };
  const logger: JobLogger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

const HOUR = 60 * 60_000;

for (const backend of ["pglite", "postgres"] as const satisfies readonly Backend[]) {
  describe.skipIf(!availableBackends().includes(backend))(`job queue [${backend}]`, () => {
    let database: Database;
    let drop: () => Promise<void>;
    let queue: JobQueue | undefined;
    const { logger, lines } = recordingLogger();
    /** Calls of each test definition, in order. */
    const calls: Array<{ name: string; payload: unknown; attempt: number; id: string }> = [];
    /** What a test wants a definition's next call to do, by name (default: resolve to "done"). */
    const behaviour = new Map<string, (attempt: number) => Promise<unknown>>();

    const define = (name: string, extra: Partial<JobDefinition> = {}): JobDefinition => ({
      name,
      handler: async (payload, run) => {
        calls.push({ name, payload, attempt: run.attempt, id: run.id });
        return (behaviour.get(name) ?? (async () => "done"))(run.attempt);
      },
      ...extra,
    });
    const definitions: JobDefinition[] = [
      define("echo", { payload: z.object({ n: z.number().int() }) }),
      define("flaky", { maxAttempts: 3 }),
      define("fragile", { maxAttempts: 1 }),
      define("slow"),
      define("tick", { everyMs: 150 }),
    ];
    const start = async () => {
      queue = await startJobQueue(database, definitions, { concurrency: 2, pollIntervalMs: 100 }, logger);
      return queue;
    };
    const callsOf = (name: string) => calls.filter((call) => call.name === name);

    beforeAll(async () => {
      ({ database, drop } = await openTestDatabase(backend));
    });
    afterEach(async () => {
      await queue?.stop();
      queue = undefined;
      behaviour.clear();
    });
    afterAll(async () => {
      await database.close();
      await drop();
    });

    it("runs an enqueued job once, with the payload its schema checked", async () => {
      const q = await start();
      await q.enqueue("echo", { n: 7 });
      await eventually(async () => (callsOf("echo").length ? true : undefined), "the echo job");
      await eventually(
        async () => ((await jobRows(database, "echo")).length === 0 ? true : undefined),
        "its row gone",
      );
      expect(callsOf("echo")).toEqual([
        { name: "echo", payload: { n: 7 }, attempt: 1, id: expect.any(String) },
      ]);
    });

    itWhere(backend === "postgres")(
      "keeps running when PostgreSQL terminates the queue's connections, and no error escapes",
      async () => {
        const q = await start();
        // The queue's connections (its pool, its LISTEN connection among them), as a restart would.
        await database.prisma.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = ${JOB_QUEUE_APPLICATION_NAME}`;
        await eventually(
          async () =>
            lines.some((line) => line.message.includes("job queue connection failed")) ? true : undefined,
          "the pool's failure logged",
        );
        // An enqueue may meet a connection killed before the pool heard of it and fail once; the
        // next one gets a new connection.
        await eventually(
          () =>
            q.enqueue("echo", { n: 9 }).then(
              () => true,
              () => undefined,
            ),
          "an enqueue after the connections were terminated",
        );
        await eventually(
          async () =>
            callsOf("echo").some((call) => (call.payload as { n: number }).n === 9) ? true : undefined,
          "the job run",
        );
        await eventually(
          async () => ((await jobRows(database, "echo")).length === 0 ? true : undefined),
          "its row gone",
        );
      },
    );

    it("refuses an unknown job and a payload its schema refuses, enqueueing nothing", async () => {
      const q = await start();
      await expect(q.enqueue("no-such-job")).rejects.toBeInstanceOf(UnknownJobError);
      await expect(q.enqueue("echo", { n: "seven" })).rejects.toThrow(z.ZodError);
      expect(await jobRows(database, "echo")).toEqual([]);
    });

    it("retries a failed job after graphile-worker's back-off, then completes it", async () => {
      expect([1, 2, 3, 10, 11].map(backoffMs)).toEqual([2718, 7389, 20086, 22026466, 22026466]);
      behaviour.set("flaky", async (attempt) => {
        if (attempt === 1) throw new Error("first try fails");
        return "second try";
      });
      const q = await start();
      await q.enqueue("flaky");
      const failed = await eventually(async () => {
        const [row] = await jobRows(database, "flaky");
        return row && !row.locked && row.attempts === 1 ? row : undefined;
      }, "the failed attempt");
      // Not due: it waits for its back-off; the test skips the wait.
      expect(failed).toMatchObject({
        attempts: 1,
        max_attempts: 3,
        last_error: "first try fails",
        due: false,
      });
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "warn", message: "job failed; it is retried after its back-off" }),
      );
      await makeDue(database, failed.id);
      await eventually(
        async () => ((await jobRows(database, "flaky")).length === 0 ? true : undefined),
        "the retry",
      );
      expect(callsOf("flaky").map((call) => call.attempt)).toEqual([1, 2]);
    });

    it("gives a job up after maxAttempts: it stays with its error and runs no more", async () => {
      behaviour.set("fragile", async () => {
        throw new Error("always fails");
      });
      const q = await start();
      await q.enqueue("fragile");
      const given = await eventually(async () => {
        const [row] = await jobRows(database, "fragile");
        return row && !row.locked && row.attempts === 1 ? row : undefined;
      }, "the only attempt");
      expect(given).toMatchObject({ attempts: 1, max_attempts: 1, last_error: "always fails" });
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "error", message: "job failed and is given up: out of attempts" }),
      );
      await makeDue(database, given.id);
      // A job enqueued after it runs; the given-up one still did not.
      await q.enqueue("echo", { n: 1 });
      await eventually(
        async () => ((await jobRows(database, "echo")).length === 0 ? true : undefined),
        "a later job",
      );
      expect(callsOf("fragile")).toHaveLength(1);
    });

    it("keeps one waiting job per key: a second enqueue replaces its payload, preserve_run_at keeps its time", async () => {
      const q = await start();
      await q.enqueue("echo", { n: 1 }, { jobKey: "echo-k", delayMs: HOUR });
      await q.enqueue("echo", { n: 2 }, { jobKey: "echo-k", jobKeyMode: "preserve_run_at" });
      const rows = await jobRows(database, "echo");
      expect(rows).toMatchObject([{ key: "echo-k", payload: { n: 2 }, due: false }]);
      await makeDue(database, rows[0]!.id);
      const before = callsOf("echo").length;
      await eventually(
        async () => ((await jobRows(database, "echo")).length === 0 ? true : undefined),
        "the keyed job",
      );
      expect(
        callsOf("echo")
          .slice(before)
          .map((call) => call.payload),
      ).toEqual([{ n: 2 }]);
    });

    it("gives a key held by a running job to a new job, and the running one is not retried", async () => {
      const release = deferred();
      const started = deferred();
      behaviour.set("slow", async () => {
        started.resolve();
        await release.promise;
        throw new Error("stale run fails");
      });
      const q = await start();
      await q.enqueue("slow", {}, { jobKey: "slow-k" });
      await started.promise;
      await q.enqueue("slow", {}, { jobKey: "slow-k", delayMs: HOUR });
      const rows = await jobRows(database, "slow");
      expect(rows).toMatchObject([
        { key: null, locked: true },
        { key: "slow-k", locked: false, attempts: 0 },
      ]);
      release.resolve();
      await eventually(async () => {
        const [old] = await jobRows(database, "slow");
        return old && !old.locked ? old : undefined;
      }, "the stale run's end");
      const after = await jobRows(database, "slow");
      // The stale run is out of attempts (not retried); the new job waits under the key.
      expect(after).toHaveLength(2);
      expect(after[0]).toMatchObject({ key: null, last_error: "stale run fails" });
      expect(after[0]!.attempts).toBeGreaterThanOrEqual(after[0]!.max_attempts);
      expect(after[1]).toMatchObject({ key: "slow-k", attempts: 0 });
      await database.autocommit.execute(
        backend === "postgres"
          ? Prisma.sql`DELETE FROM graphile_worker._private_jobs`
          : Prisma.sql`DELETE FROM job_queue`,
      );
    });

    it("stop waits for a running job to finish, and the job completes", async () => {
      const release = deferred();
      const started = deferred();
      behaviour.set("slow", async () => {
        started.resolve();
        await release.promise;
        return "finished";
      });
      const q = await start();
      await q.enqueue("slow");
      await started.promise;
      let stopped = false;
      const stopping = q.stop().then(() => {
        stopped = true;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(stopped).toBe(false);
      release.resolve();
      await stopping;
      expect(await jobRows(database, "slow"), JSON.stringify(await jobRows(database, "slow"))).toEqual([]);
      await expect(q.runNow("echo", { n: 1 })).rejects.toThrow("the job queue is stopped");
    });

    it("keeps an acknowledged job across a restart of the queue", async () => {
      let q = await start();
      await q.enqueue("echo", { n: 42 }, { delayMs: HOUR });
      await q.stop();
      const [row] = await jobRows(database, "echo");
      expect(row).toMatchObject({ payload: { n: 42 }, attempts: 0 });
      const before = callsOf("echo").length;
      q = await start();
      await makeDue(database, row!.id);
      await eventually(
        async () => ((await jobRows(database, "echo")).length === 0 ? true : undefined),
        "the job",
      );
      expect(
        callsOf("echo")
          .slice(before)
          .map((call) => call.payload),
      ).toEqual([{ n: 42 }]);
    });

    it("runs a schedule with one waiting run at a time, each run once", async () => {
      const before = callsOf("tick").length;
      const q = await start();
      // A second start keeps the one waiting run: another process beside it on PostgreSQL; on the
      // embedded database, whose directory one process holds, only a restart (its start clears the
      // locks a dead process left, so it must not run beside a live queue: src/core/jobs/embedded-queue.ts).
      if (backend === "pglite") await q.stop();
      const second = await startJobQueue(
        database,
        definitions,
        { concurrency: 1, pollIntervalMs: 100 },
        logger,
      );
      try {
        await eventually(async () => (callsOf("tick").length - before >= 4 ? true : undefined), "four ticks");
      } finally {
        await second.stop();
      }
      await q.stop();
      const ticks = callsOf("tick").slice(before);
      expect(new Set(ticks.map((tick) => tick.id)).size).toBe(ticks.length);
      const waiting = (await jobRows(database, "tick")).filter((row) => !row.locked);
      expect(waiting).toMatchObject([{ key: scheduleKey("tick"), attempts: 0 }]);
    });

    it("keeps a schedule going after a failed run, which is reported and not retried", async () => {
      const before = callsOf("tick").length;
      let failed = false;
      behaviour.set("tick", async () => {
        if (!failed) {
          failed = true;
          throw new Error("tick fails once");
        }
        return "ok";
      });
      await start();
      await eventually(
        async () => (callsOf("tick").length - before >= 3 ? true : undefined),
        "ticks after the failure",
      );
      expect(
        callsOf("tick")
          .slice(before)
          .every((tick) => tick.attempt === 1),
      ).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "error", message: "job failed and is given up: out of attempts" }),
      );
    });

    it("runNow runs a definition here after its run in progress and returns the handler's result", async () => {
      const release = deferred();
      const started = deferred();
      const order: string[] = [];
      behaviour.set("slow", async (attempt) => {
        if (order.length === 0) {
          order.push("queued run starts");
          started.resolve();
          await release.promise;
          order.push("queued run ends");
          return "queued";
        }
        order.push(`on demand (attempt ${attempt})`);
        return "on demand";
      });
      const q = await start();
      await q.enqueue("slow");
      await started.promise;
      const onDemand = q.runNow("slow");
      await new Promise((r) => setTimeout(r, 100));
      release.resolve();
      expect(await onDemand).toBe("on demand");
      expect(order).toEqual(["queued run starts", "queued run ends", "on demand (attempt 1)"]);
      await expect(q.runNow("no-such-job")).rejects.toBeInstanceOf(UnknownJobError);
    });
  });
}
