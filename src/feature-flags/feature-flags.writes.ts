/**
 * How a flag is created and updated, for the flag service and for the domains that write flags
 * inside their own operations (experiments, holdouts): PostHog's rules in their order, decided
 * from a first read, then again under the row lock, and written with the version bump, the tags
 * and the activity entry in one transaction. Source: `posthog/api/feature_flag.py`
 * (`FeatureFlagSerializer.create`, `update`); posthog-behavior.md §2.4–2.9.
 * This module puts the two paths together: the create is flag-create.writes.ts, the update (and
 * its concurrency) flag-update.writes.ts; the checks both make are flag-write-checks.ts, what both
 * record (the fields compared, the kept version, the approval gate's view) flag-write-records.ts.
 *
 * Other domains' writes (an experiment's create and update, a holdout's update) call these inside
 * their own `transactional` (core/transactional.ts): the flag's write joins that transaction, its
 * reads go through it (`clientOf`, `readerOf`), and the flag's row is locked before the caller's
 * rows are (the lock order of core/row-lock.ts). Joined, an update does not decide again on its own:
 * its RowMoved goes up to the caller's `retryWhileMoved`.
 */
import { createFlagCreateWrites } from "./flag-create.writes.js";
import { createFlagUpdateWrites } from "./flag-update.writes.js";
import type { FlagWriteCollaborators } from "./flag-write-checks.js";

/** The flag writes (see the module comment). */
export type FlagWrites = ReturnType<typeof createFlagWrites>;

/** Creates the flag writes over the collaborators they call. */
export function createFlagWrites(others: FlagWriteCollaborators) {
  return { ...createFlagCreateWrites(others), ...createFlagUpdateWrites(others) };
}
