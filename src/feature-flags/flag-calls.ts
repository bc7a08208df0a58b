/**
 * `last_called_at` kept current from captured `$feature_flag_called` events (posthog-behavior.md
 * §2.12), rolled up on an interval as PostHog does (a scheduled task every 30 minutes,
 * `sync_feature_flag_last_called`), never per event.
 *
 * Why not per event: `feature_flags` is tracked by the project revision (migration
 * `project_revision`), so every write to a flag row bumps the project's revision, which is the ETag
 * of every conditional GET of the project and of the local-evaluation payload SDKs poll. SDKs send
 * `$feature_flag_called` on most flag reads: writing per event would turn a write per event into a
 * changed ETag per event, and every SDK's next poll into a full download. A roll-up writes a flag at
 * most once per run, and only when its last call moved.
 *
 * One run, in one transaction:
 * 1. `pg_try_advisory_xact_lock`: the run is single-flight across processes (API nodes on one
 *    PostgreSQL); a process that does not get the lock skips the run, as PostHog's lock does.
 * 2. The window: from the last run's end (`task_checkpoints`, less `LATE_EVENTS_MS` for events that
 *    arrive after their timestamp) to now (the service clock, read once the lock is held: a run
 *    that was picked earlier but got the lock later must not end before the run it follows); the
 *    first run looks back
 *    `FIRST_RUN_LOOKBACK_MS` (PostHog's default lookback, one day). Events stamped in the future are
 *    left for the run whose window reaches them.
 * 3. One statement per project that has flags: each flag's `last_called_at` becomes the latest
 *    event timestamp of its key in the window where that is newer (feature-flags.queries.ts
 *    `rollUpProjectFlagCalls`); a project whose flags did not move is not written, so its revision stays.
 * 4. The window's end becomes the checkpoint, which never moves back (another process's clock may
 *    be behind). A failed run rolls back and moves nothing.
 */

import type { RunSqlTransaction } from "../db/sql-transaction.js";
import { Prisma } from "../generated/prisma/client.js";
import { rollUpProjectFlagCalls, selectProjectsWithFlags } from "./feature-flags.queries.js";

/** The roll-up's name: its checkpoint row and its job (feature-flags.jobs.ts). */
export const FLAG_CALL_ROLLUP = "flag-call-rollup";

/** How far before the last run's end a run reads again, for events that arrive late (ms). */
export const LATE_EVENTS_MS = 60 * 60_000;

/** How far back the first run reads (ms): PostHog's `FEATURE_FLAG_LAST_CALLED_AT_SYNC_LOOKBACK_DAYS`, 1. */
export const FIRST_RUN_LOOKBACK_MS = 24 * 60 * 60_000;

/**
 * The advisory lock of the roll-up: PostgreSQL's two-key form, (namespace, task). The namespace is
 * Signalbox's (`0x5342` "SB"), so no other application's lock on the same database collides.
 */
const LOCK = { namespace: 0x5342, task: 1 } as const;

/** What one run did. */
export interface FlagCallRollup {
  /** True when another process held the roll-up: this run read and wrote nothing. */
  skipped: boolean;
  /** The events' timestamps the run read, (`since`, `until`]; absent when skipped. */
  window?: { since: Date; until: Date };
  /** Projects visited (those with flags). */
  projects: number;
  /** Flags whose `last_called_at` moved. */
  flagsUpdated: number;
}

/** Rolls flag calls up once (see the module comment); `now` (the service clock) gives the window's end. */
export function rollUpFlagCalls(transaction: RunSqlTransaction, now: () => Date): Promise<FlagCallRollup> {
  return transaction(async (tx) => {
    const [lock] = await tx.rows<{ locked: boolean }>(
      Prisma.sql`SELECT pg_try_advisory_xact_lock(${LOCK.namespace}::int, ${LOCK.task}::int) AS locked`,
    );
    if (!lock?.locked) return { skipped: true, projects: 0, flagsUpdated: 0 };
    const [last] = await tx.rows<{ checkpoint: Date }>(
      Prisma.sql`SELECT checkpoint FROM task_checkpoints WHERE name = ${FLAG_CALL_ROLLUP}`,
    );
    const until = now();
    const since = last
      ? new Date(last.checkpoint.getTime() - LATE_EVENTS_MS)
      : new Date(until.getTime() - FIRST_RUN_LOOKBACK_MS);
    const projects = await selectProjectsWithFlags(tx);
    let flagsUpdated = 0;
    for (const projectId of projects) {
      flagsUpdated += await rollUpProjectFlagCalls(tx, projectId, { since, until });
    }
    await tx.execute(Prisma.sql`INSERT INTO task_checkpoints (name, checkpoint, updated_at)
      VALUES (${FLAG_CALL_ROLLUP}, ${until}, now())
      ON CONFLICT (name) DO UPDATE
      SET checkpoint = GREATEST(task_checkpoints.checkpoint, EXCLUDED.checkpoint), updated_at = EXCLUDED.updated_at`);
    return { skipped: false, window: { since, until }, projects: projects.length, flagsUpdated };
  });
}
