/**
 * The scheduled changes' jobs (src/core/jobs/):
 * - `scheduled-change-run` (payload `{id}`): runs one scheduled change when it is due, enqueued for
 *   its `scheduled_at` under the job key `scheduled-change-run:<id>` by the service's writes and by
 *   each recurring run for the next one;
 * - `scheduled-changes-sweep`: runs every due change, every `SWEEP_INTERVAL_MS` (a minute, PostHog's
 *   task schedule) and once at queue start (scheduled-changes.service.ts `attachQueue`).
 * A run records its own failure on the schedule's row and the sweep retries it (PostHog's five
 * tries), so the queue retries neither job; a run is safe beside any other (exactly once: the row's claim).
 */
import type { JobModule } from "../core/jobs/jobs.js";
import {
  SCHEDULED_CHANGE_RUN_JOB,
  SCHEDULED_CHANGES_SWEEP_JOB,
  SWEEP_INTERVAL_MS,
} from "./scheduled-changes.runs.js";
import { runJobSchema } from "./scheduled-changes.schemas.js";

/** The scheduled-change job definitions. */
export const scheduledChangeJobs: JobModule = ({ services }) => [
  {
    name: SCHEDULED_CHANGE_RUN_JOB,
    payload: runJobSchema,
    maxAttempts: 1,
    // The queue parsed the payload with the schema already; parsing again types it.
    handler: (payload) => services.scheduledChanges.runOne(runJobSchema.parse(payload).id),
  },
  {
    name: SCHEDULED_CHANGES_SWEEP_JOB,
    everyMs: SWEEP_INTERVAL_MS,
    maxAttempts: 1,
    handler: () => services.scheduledChanges.sweep(),
  },
];
