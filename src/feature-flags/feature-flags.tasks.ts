/**
 * The flag domain's background tasks: the roll-up of flag calls into `last_called_at`
 * (flag-calls.ts), every `FLAG_CALL_ROLLUP_INTERVAL_MS` (default 30 minutes, PostHog's schedule).
 */
import type { BackgroundTaskModule } from "../core/background-tasks.js";
import { FLAG_CALL_ROLLUP } from "./flag-calls.js";

/** The flag domain's background tasks. */
export const featureFlagTasks: BackgroundTaskModule = ({ services, transaction, config }) => [
  {
    name: FLAG_CALL_ROLLUP,
    intervalMs: config.flagCallRollupIntervalMs,
    run: () => services.featureFlags.rollUpCalls(transaction),
  },
];
