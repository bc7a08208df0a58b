/**
 * The flag operations other domains call inside operations they have authorised themselves (no
 * flag scope is asked): an experiment's flag create, filters and launch, a holdout's filters
 * rewrite, a scheduled change's view for the approval gate. The writes join the caller's
 * `transactional` (core/transactional.ts), so the caller's rows and the flag's are written together
 * or not at all. Part of the feature-flag service (feature-flags.service.ts), which spreads these
 * into its operations; the writes they run are feature-flags.writes.ts. Source of the rules:
 * `posthog/api/feature_flag.py` (`FeatureFlagSerializer`), ee/clickhouse/views/experiments.py,
 * experiment_holdouts.py, PostHog's `gate_scheduled_change`; posthog-behavior.md §2.4–2.7.
 */
import type { FlagChange } from "../approvals/rules/actions.js";
import { changesBetween, recordActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError } from "../core/errors.js";
import { transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import { updateFlagSchema } from "./feature-flags.schemas.js";
import { activateIfInactive, readFlagIn } from "./feature-flags.store.js";
import type { FlagWrites } from "./feature-flags.writes.js";
import type { FlagWriteCollaborators } from "./flag-write-checks.js";
import { gatedChange, recordFlagVersion } from "./flag-write-records.js";

/** What a scheduled change does to its flag: sets `active`, or rewrites the stored filters. */
export type ScheduledFlagChange =
  | { active: boolean }
  | { rewrite: (stored: Record<string, unknown>) => Record<string, unknown> };

/** Creates the flag operations other domains call after authorising their own (see the module comment). */
export function createAuthorizedFlagOperations(
  others: Pick<FlagWriteCollaborators, "approvals">,
  { createFlag, applyUpdate, updateLockedFilters }: FlagWrites,
) {
  return {
    /**
     * Creates a flag for another domain that has already authorised its own operation (PostHog's
     * experiment create runs `FeatureFlagSerializer` directly: every flag rule applies, no flag scope
     * is asked). Called inside the caller's `transactional` (core/transactional.ts), the flag's reads
     * and writes join that transaction, so the caller's rows commit or roll back with the flag.
     * Returns the flag as read in the transaction.
     * @throws ValidationError for any flag rule (attrs as on flag create); NotImplementedError.
     */
    createAuthorized(ctx: ServiceContext, projectId: number, body: unknown): Promise<FlagRecord> {
      return createFlag(ctx, projectId, body);
    },

    /**
     * Rewrites a flag's `filters` for an operation another domain has authorised (a holdout's new
     * groups copied to its draft experiments' flags, ee/clickhouse/views/experiment_holdouts.py, which
     * saves each flag through the flag serializer): locks the flag's row, then writes `rewrite` of the
     * filters as stored there, by the same rules, version bump and activity entry as a flag PATCH.
     * Nothing is written when the filters are unchanged. Joins the caller's `transactional`, whose
     * own rows it locks after the flag's (lock order: flag, then the others).
     * @throws ValidationError, NotFoundError: the caller's transaction then rolls back whole.
     */
    rewriteFiltersAuthorized(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      rewrite: (stored: Record<string, unknown>) => Record<string, unknown>,
    ): Promise<FlagRecord> {
      return updateLockedFilters(ctx, projectId, id, rewrite);
    },

    /**
     * Sets a flag's `filters` for another domain that has authorised its own operation (an
     * experiment's draft variants or holdout, ee/clickhouse/views/experiments.py `update`, which runs
     * the flag serializer's partial update): every filter rule, the version bump and the flag's
     * activity entry apply as on a flag PATCH, decided from a first read, then again under the flag's
     * row lock. Called inside the caller's `transactional`, it joins it (its reads included) before
     * the caller locks its own rows: both are written or neither; the flag moving under the first
     * decision throws RowMoved up to the caller's `retryWhileMoved` (core/row-lock.ts).
     * @throws ValidationError, NotFoundError, ConflictError; RowMoved when joined (see above).
     */
    updateFiltersAuthorized(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      filters: Record<string, unknown>,
    ): Promise<FlagRecord> {
      const input = parseInput(updateFlagSchema, { filters }, ctx.limits);
      return applyUpdate(ctx, projectId, id, input, { kind: "posthog" });
    },

    /**
     * What a change another domain schedules for flag `id` is to the approval gate, read now in `tx`
     * (a scheduled change, PostHog's `gate_scheduled_change`): the flag as it is and what the change
     * would set, `{active}` or the stored filters rewritten by `rewrite`; null when the flag is gone or
     * `rewrite` refuses it (the run reports that). No write; the caller has authorised its operation.
     */
    async scheduledChangeOf(
      tx: Prisma.TransactionClient,
      projectId: number,
      id: number,
      change: ScheduledFlagChange,
    ): Promise<FlagChange | null> {
      const current = await readFlagIn(tx, projectId, id).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
      if (!current || current.deleted) return null;
      if ("active" in change) return gatedChange(current, { active: change.active }, undefined);
      let filters: Record<string, unknown>;
      try {
        filters = change.rewrite(structuredClone(current.filters) as Record<string, unknown>);
      } catch {
        return null;
      }
      return gatedChange(current, { filters }, filters);
    },

    /**
     * Turns a flag on for another domain's authorised operation (an experiment's launch: PostHog sets
     * `feature_flag.active = True` and saves the model, no serializer rule), in the caller's
     * `transactional` when one is open: bumps the version, stamps the modifier (the context's user)
     * and writes the flag's `updated` activity entry. No-op when already active.
     * The update is conditional on the flag being inactive and increments the stored version, so a
     * concurrent flag write is neither overwritten nor given the same version, and a flag turned on
     * by two transactions at once is turned on (and logged) once.
     */
    activateAuthorized(ctx: ServiceContext, projectId: number, id: number): Promise<void> {
      const userId = ctx.actor.user.id;
      return transactional(ctx, async (tx) => {
        const current = await readFlagIn(tx, projectId, id);
        if (current.active) return;
        // An experiment's launch is `experiment.launch` to the approval gate (issue 27).
        await others.approvals.gate(tx, ctx, projectId, gatedChange(current, { active: true }, undefined));
        if (!(await activateIfInactive(tx, projectId, id, userId))) return;
        const updated = await readFlagIn(tx, projectId, id);
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "FeatureFlag",
          itemId: String(id),
          activity: "updated",
          name: updated.key,
          changes: changesBetween(
            "FeatureFlag",
            { active: false, version: updated.version - 1 },
            { active: true, version: updated.version },
          ),
        });
        await recordFlagVersion(tx, updated, "updated", userId);
      });
    },
  };
}
