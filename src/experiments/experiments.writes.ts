/**
 * How an experiment is created and updated, for the experiment service: PostHog's rules in their
 * order (§5.3, §5.4), decided from a first read, then again under the row lock, and written with
 * the metric lists (their fingerprints), the saved-metric links and the activity entry in one
 * `transactional` (core/transactional.ts); a new experiment's flag is created, a draft's flag
 * rewritten, a launched one's flag turned on through the flag service, whose writes join that same
 * transaction (no transaction client crosses to the flag service). How it is stored is
 * experiments.store.ts. Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer`:
 * `create`, `update`, `validate_*`); posthog-behavior.md §5.3–5.4.
 * This module puts the two paths together: the create is experiment-create.writes.ts, the update
 * (a launch, an end, an archive or a soft delete among its transitions, and its concurrency)
 * experiment-update.writes.ts; the checks both make and the metrics both fingerprint are
 * experiment-write-checks.ts, what both record (the activity snapshot, the kept version)
 * experiment-write-records.ts.
 */
import type { ServiceDeps } from "../core/services.js";
import { createExperimentCreateWrites } from "./experiment-create.writes.js";
import { createExperimentUpdateWrites } from "./experiment-update.writes.js";
import type { ExperimentWriteCollaborators } from "./experiment-write-checks.js";

/** Creates the experiment writes over the clock and the collaborators they call. */
export function createExperimentWrites(deps: ServiceDeps, { featureFlags }: ExperimentWriteCollaborators) {
  return {
    ...createExperimentCreateWrites(deps, { featureFlags }),
    ...createExperimentUpdateWrites(deps, { featureFlags }),
  };
}
