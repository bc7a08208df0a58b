/**
 * Starts the job queue that fits the open database: graphile-worker on PostgreSQL
 * (./postgres-queue.ts), the in-process runner on the embedded PGlite (./embedded-queue.ts).
 */
import type { Database } from "../../db/database.js";
import { startEmbeddedQueue } from "./embedded-queue.js";
import type { JobDefinition, JobLogger, JobQueue } from "./jobs.js";
import { startPostgresQueue } from "./postgres-queue.js";

/** The queue's settings (src/config.ts `jobs`). */
export interface JobQueueSettings {
  /** Jobs one process runs at once on PostgreSQL (the embedded runner runs one at a time). */
  concurrency: number;
  /** Longest wait before a job that became due (a retry, a `runAt`, a schedule) is noticed, in ms. */
  pollIntervalMs: number;
}

/** Starts the queue of `database` for `definitions`. @throws what the runner's start throws (e.g. PostgreSQL unreachable). */
export function startJobQueue(
  database: Pick<Database, "migrationTarget" | "transaction" | "autocommit">,
  definitions: readonly JobDefinition[],
  settings: JobQueueSettings,
  logger: JobLogger,
): Promise<JobQueue> {
  const target = database.migrationTarget;
  if (target.kind === "postgres") {
    return startPostgresQueue({ definitions, url: target.url, ...settings, logger });
  }
  return startEmbeddedQueue({
    definitions,
    transaction: database.transaction,
    autocommit: database.autocommit,
    pollIntervalMs: settings.pollIntervalMs,
    logger,
  });
}
