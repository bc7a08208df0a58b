/**
 * The approval domain's jobs (src/core/jobs/): closing the change requests whose time is up
 * (PostHog's hourly `expire_old_change_requests`; here every minute, so that a request is refused
 * soon after `expires_at`). A failed run closes nothing; the next one covers it.
 */
import type { JobModule } from "../core/jobs/jobs.js";

/** The job that expires due change requests. */
export const CHANGE_REQUEST_EXPIRY_JOB = "change-request-expiry";

/** How often it runs. */
export const CHANGE_REQUEST_EXPIRY_INTERVAL_MS = 60_000;

/** The approval domain's jobs. */
export const approvalJobs: JobModule = ({ services }) => [
  {
    name: CHANGE_REQUEST_EXPIRY_JOB,
    everyMs: CHANGE_REQUEST_EXPIRY_INTERVAL_MS,
    maxAttempts: 1,
    handler: async () => {
      await services.approvals.expireDue();
    },
  },
];
