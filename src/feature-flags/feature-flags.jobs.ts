/**
 * The flag domain's jobs (src/core/jobs/): the roll-up of flag calls into `last_called_at`
 * (flag-calls.ts), scheduled every `FLAG_CALL_ROLLUP_INTERVAL_MS` (default 30 minutes, PostHog's
 * schedule). The queue runs each scheduled run once across server processes; the roll-up's advisory
 * lock still guards it against an on-demand `runNow` in another process.
 */
import type { JobModule } from "../core/jobs/jobs.js";
import { FLAG_CALL_ROLLUP } from "./flag-calls.js";

/** The flag domain's jobs. */
export const featureFlagJobs: JobModule = ({ services, transaction, config }) => [
  {
    name: FLAG_CALL_ROLLUP,
    everyMs: config.flagCallRollupIntervalMs,
    // A failed run rolls back and moves nothing; the next scheduled run covers its window (flag-calls.ts).
    maxAttempts: 1,
    handler: () => services.featureFlags.rollUpCalls(transaction),
  },
];
