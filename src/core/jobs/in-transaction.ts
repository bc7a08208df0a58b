/**
 * Enqueueing inside a caller's transaction (a transactional outbox without the outbox): the jobs
 * commit with the caller's write or roll back with it, and a committed one survives a crash, since
 * both runners keep jobs as rows of the same database (./jobs.ts):
 * - on PostgreSQL, graphile-worker's own `graphile_worker.add_job` SQL function, whose NOTIFY is
 *   sent at commit, so a worker of any process takes the job at once;
 * - on the embedded database, a row of `job_queue`; the in-process runner notices it within
 *   `JOB_POLL_INTERVAL_MS` (it is not woken: the transaction may still roll back when this returns).
 * Which one applies is read from the database itself (graphile-worker's schema is there, or not), so
 * the caller needs no queue object, only its transaction.
 */
import { Prisma } from "../../generated/prisma/client.js";
import { DEFAULT_MAX_ATTEMPTS } from "./jobs.js";

/** The job to add: its definition's name and attempts, and the payload its schema accepts. */
export interface TransactionalJob {
  name: string;
  payload: unknown;
  /** Runs before it is given up; default `DEFAULT_MAX_ATTEMPTS`. Keep it equal to the definition's. */
  maxAttempts?: number;
}

/**
 * Adds `jobs` in transaction `tx`: one statement to learn the runner, then one per job. The payload
 * is checked by the definition's schema when the job runs (not here: the definitions live in the queue).
 */
export async function enqueueInTransaction(
  tx: Prisma.TransactionClient,
  jobs: readonly TransactionalJob[],
): Promise<void> {
  if (jobs.length === 0) return;
  const [runner] = await tx.$queryRaw<Array<{ graphile: boolean }>>(
    Prisma.sql`SELECT to_regnamespace('graphile_worker') IS NOT NULL AS graphile`,
  );
  for (const job of jobs) {
    const json = JSON.stringify(job.payload ?? {});
    const maxAttempts = job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (runner?.graphile) {
      await tx.$executeRaw(Prisma.sql`SELECT graphile_worker.add_job(${job.name}::text,
        payload => ${json}::json, max_attempts => ${maxAttempts}::int)`);
    } else {
      await tx.$executeRaw(Prisma.sql`INSERT INTO job_queue (name, payload, max_attempts)
        VALUES (${job.name}, ${json}::jsonb, ${maxAttempts})`);
    }
  }
}
