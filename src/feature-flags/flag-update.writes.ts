/**
 * How a flag is updated (spec row 4, §2.7), for the flag writes (feature-flags.writes.ts): PostHog's
 * rules in their order (flag-write-checks.ts for the checks a create makes too), decided from a
 * first read, then again under the row lock, and written with the version bump, the tags, the
 * approval gate and the activity entry in one transaction; and the filter rewrite another domain
 * asks for, decided once under the lock (`updateLockedFilters`). Source:
 * `posthog/api/feature_flag.py` (`FeatureFlagSerializer.update`); posthog-behavior.md §2.4–2.9.
 *
 * Concurrency: as PostHog's `FeatureFlagSerializer.update` (`select_for_update`, then the version
 * bump), an update decides from a first read (so PostHog's refusals come before any write), then
 * locks the flag's row (`SELECT ... FOR UPDATE`) in its transaction and decides again from the
 * locked state. Concurrent writers of one flag so take turns, each applied on top of the one before
 * it: none is lost, none is refused but by the conflict rules (PostHog's `original_flag` rule on
 * REST, the strict `expectedVersion` on GraphQL), which are judged against the state the write
 * replaces.
 */
import { changesBetween, recordActivity, softDeleteActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, ValidationError } from "../core/errors.js";
import { RowMoved, retryWhileMoved } from "../core/row-lock.js";
import { normalizeTags } from "../core/tags.js";
import { clientOf, readerOf, transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import { isUniqueViolation } from "../db/database-error.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type FlagRecord, readFlag } from "./feature-flags.queries.js";
import { type UpdateFlagInput, updateFlagSchema } from "./feature-flags.schemas.js";
import {
  type LookupDb,
  lockFlag,
  type NamedFlagSummary,
  readFlagIn,
  readFlagSummaries,
  replaceFlagTags,
  writeFlagRow,
} from "./feature-flags.store.js";
import { createFlagWriteChecks, duplicateKey, type FlagWriteCollaborators } from "./flag-write-checks.js";
import { gatedChange, recordFlagVersion, snapshot } from "./flag-write-records.js";
import { CONFLICT_FIELDS, conflictingFields } from "./rules/conflicts.js";
import type { FeatureFlagFilters } from "./rules/filter-types.js";
import { filtersForUpdate } from "./rules/filters.js";
import { checkActivationChange, checkDeletion } from "./rules/flag-dependencies.js";

/** PostHog's conflict message, naming who changed the flag last (§2.7). */
const conflict = (current: FlagRecord) =>
  new ConflictError(
    `The feature flag was updated by ${current.lastModifiedBy?.email ?? "another user"} since you started editing it. Please refresh and try again.`,
  );

/**
 * Refuses soft-deleting a flag that non-deleted experiments run on (`posthog/api/feature_flag.py`
 * `FeatureFlagSerializer.update`, checked after early-access features and before dependent flags).
 * @throws ValidationError `Cannot delete a feature flag that is linked to active experiment(s) with ID(s): 1, 2. ...`
 */
function checkExperimentsBeforeDeletion(experimentIds: readonly number[]): void {
  if (experimentIds.length === 0) return;
  throw new ValidationError(
    `Cannot delete a feature flag that is linked to active experiment(s) with ID(s): ${experimentIds.join(", ")}. ` +
      "Please delete the experiment(s) before deleting the flag.",
  );
}

/**
 * The reads of an update's rules that do not depend on the flag's row, each made at most once, so
 * the decision can be made again under the row lock without reading again (`updateLookups`).
 */
interface UpdateLookups {
  /** The key rules for a new `key` (§2.4). @throws ValidationError */
  key(key: string): Promise<void>;
  /** The request's `analytics_dashboards` rule. @throws ValidationError, NotImplementedError */
  dashboards(): Promise<void>;
  /** The project's flags as the dependency rules see them. */
  summaries(): Promise<Map<number, NamedFlagSummary>>;
  /** The request's `filters`, validated for the flag keyed `flagKey` (§2.5). @throws ValidationError */
  filters(flagKey: string): Promise<FeatureFlagFilters>;
}

/**
 * How an update guards against concurrent edits.
 * - `posthog` (REST): a body `version` other than the stored one is refused only when the body's
 *   `original_flag` shows the caller changed a field that someone else also changed (§2.7,
 *   `_get_conflicting_changes`); otherwise the change applies on top of the newer flag.
 * - `expectedVersion` (GraphQL): any other stored version is a conflict, whatever changed.
 */
export type ConflictRule = { kind: "posthog" } | { kind: "expectedVersion"; version: number | null };
/** Creates the flag update over the collaborators it calls. */
export function createFlagUpdateWrites(others: FlagWriteCollaborators) {
  const { dashboards, approvals } = others;
  const { validateKey, checkAnalyticsDashboards, checkFieldsBesideFilters, validatedFilters } =
    createFlagWriteChecks(others);

  /**
   * The lookups of one update of flag `id` (see `UpdateLookups`), read through `db`. A lookup asked
   * again with the same argument answers its first answer; once `sealed()` is true, a lookup not
   * made yet, or asked with another argument, is refused with RowMoved (core/row-lock.ts: another
   * writer changed the flag's key, `active` or `deleted` in between; decide again) instead of
   * reading, so the decision under the row lock issues no query outside its transaction (PGlite
   * has one connection).
   */
  function updateLookups(
    ctx: ServiceContext,
    db: LookupDb,
    projectId: number,
    id: number,
    input: UpdateFlagInput,
    sealed: () => boolean,
  ): UpdateLookups {
    const lookup = <A, T>(load: (arg: A) => Promise<T>) => {
      let made: { arg: A; answer: Promise<T> } | undefined;
      return (arg: A): Promise<T> => {
        if (made !== undefined && made.arg === arg) return made.answer;
        if (sealed()) return Promise.reject(new RowMoved());
        made = { arg, answer: load(arg) };
        return made.answer;
      };
    };
    const summaries = lookup((_: null) => readFlagSummaries(db, projectId));
    const dashboards = lookup((_: null) => checkAnalyticsDashboards(db, projectId, input));
    return {
      key: lookup((key: string) => validateKey(db, projectId, key, id)),
      dashboards: () => dashboards(null),
      summaries: () => summaries(null),
      filters: lookup((flagKey: string) =>
        validatedFilters(ctx, projectId, input.filters, { id, key: flagKey }, false, () => summaries(null)),
      ),
    };
  }

  /**
   * Decides an update of `current` by PostHog's rules in their order (§2.4–2.7): the new row, its
   * filters and the activity changes (none: nothing to write). The conflict rule is judged only when
   * `judgeConflict` (on the locked state: a 409 must be decided from the state the write replaces).
   * @throws ValidationError, NotImplementedError, ConflictError; RowMoved (see `updateLookups`).
   */
  async function decideUpdate(
    current: FlagRecord,
    input: UpdateFlagInput,
    rule: ConflictRule,
    lookups: UpdateLookups,
    judgeConflict: boolean,
  ) {
    const key = input.key ?? current.key;
    if (input.key !== undefined && input.key !== current.key) await lookups.key(key);
    await lookups.dashboards();
    checkFieldsBesideFilters(input);

    // A PATCH whose `filters` has no `groups` keeps the stored filters (§2.5 rule 1).
    const incoming =
      input.filters === undefined ? undefined : filtersForUpdate(current.filters, input.filters);
    const filters =
      incoming === undefined || incoming.keepStored
        ? (current.filters as FeatureFlagFilters)
        : await lookups.filters(current.key);

    const active = input.active ?? current.active;
    const deleted = input.deleted ?? current.deleted;
    if (active !== current.active || (deleted && !current.deleted)) {
      const flags = await lookups.summaries();
      if (active !== current.active) checkActivationChange({ ...current, filters }, active, flags.values());
      if (deleted && !current.deleted) {
        checkExperimentsBeforeDeletion(current.experimentSet);
        checkDeletion(current.id, flags.values());
      }
    }

    const next: FlagRecord = {
      ...current,
      key,
      name: input.name ?? current.name,
      filters: filters as Prisma.JsonValue,
      active,
      deleted,
      ensureExperienceContinuity: input.ensure_experience_continuity ?? current.ensureExperienceContinuity,
      rollbackConditions:
        input.rollback_conditions === undefined
          ? current.rollbackConditions
          : ((input.rollback_conditions ?? null) as Prisma.JsonValue),
      // Re-enabling a flag clears a performed rollback (§2.7).
      performedRollback:
        input.active === true
          ? false
          : input.performed_rollback === undefined
            ? current.performedRollback
            : input.performed_rollback,
      hasEnrichedAnalytics: input.has_enriched_analytics ?? current.hasEnrichedAnalytics,
      isRemoteConfiguration: input.is_remote_configuration ?? current.isRemoteConfiguration,
      evaluationRuntime: input.evaluation_runtime ?? current.evaluationRuntime,
      bucketingIdentifier: input.bucketing_identifier ?? current.bucketingIdentifier,
      tags: input.tags === undefined ? current.tags : normalizeTags(input.tags),
      evaluationTags:
        input.evaluation_tags === undefined ? current.evaluationTags : normalizeTags(input.evaluation_tags),
    };

    if (judgeConflict && rule.kind === "expectedVersion") {
      if (rule.version !== null && rule.version !== current.version) throw conflict(current);
    } else if (
      judgeConflict &&
      input.version !== undefined &&
      input.version !== current.version &&
      input.original_flag
    ) {
      const intended = snapshot(next);
      const sent = Object.fromEntries(
        CONFLICT_FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, intended[f]]),
      );
      if (conflictingFields(input.original_flag, sent, snapshot(current)).length > 0) throw conflict(current);
    }
    return { next, filters, changes: changesBetween("FeatureFlag", snapshot(current), snapshot(next)) };
  }

  /**
   * Decides an update of `current`, the flag locked in `tx` (`lockFlag`, inside a `transactional`),
   * and writes it: the row with its version bumped, its tags, its usage dashboard's insights on a
   * key rename (the dashboards service joins `tx`), the activity entry. When nothing changes (an
   * empty body, or only the values already stored) nothing is written. Returns the flag as written
   * (`current` when unchanged). @throws as `decideUpdate`.
   */
  async function writeUpdate(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    projectId: number,
    current: FlagRecord,
    input: UpdateFlagInput,
    rule: ConflictRule,
    lookups: UpdateLookups,
  ): Promise<FlagRecord> {
    const { next, filters, changes } = await decideUpdate(current, input, rule, lookups, true);
    if (changes.length === 0) return current;
    await approvals.gate(tx, ctx, projectId, gatedChange(current, input, filters));
    const userId = ctx.actor.user.id;
    // The row is locked since `current` was read: no other writer moved its version.
    await writeFlagRow(tx, next, filters, current.version + 1, userId);
    // A key rename rewrites the usage dashboard's insights to the new key (§2.7).
    if (next.key !== current.key && current.usageDashboardId !== null) {
      await dashboards.renameUsageDashboardKey(
        ctx,
        projectId,
        current.usageDashboardId,
        current.key,
        next.key,
      );
    }
    if (input.tags !== undefined) await replaceFlagTags(tx, projectId, current.id, next.tags, "tags");
    if (input.evaluation_tags !== undefined) {
      await replaceFlagTags(tx, projectId, current.id, next.evaluationTags, "evaluationTags");
    }
    const updated = await readFlagIn(tx, projectId, current.id);
    const activity = softDeleteActivity(current, next);
    await recordActivity(tx, {
      projectId,
      userId,
      scope: "FeatureFlag",
      itemId: String(current.id),
      activity,
      name: updated.key,
      changes: changesBetween("FeatureFlag", snapshot(current), snapshot(updated)),
    });
    await recordFlagVersion(tx, updated, activity, userId);
    return updated;
  }

  /**
   * One attempt of an update: decides from a first read (PostHog's serializer validates before its
   * `update` locks the row, so refusals come before any write; the conflict rule waits for the
   * lock), then locks the row in a transaction (the caller's, when joined) and decides again from
   * the locked state. @throws RowMoved when the locked flag needs a lookup the first decision did not make.
   */
  async function updateOnce(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    input: UpdateFlagInput,
    rule: ConflictRule,
  ): Promise<FlagRecord> {
    let sealed = false;
    const lookups = updateLookups(ctx, clientOf(ctx), projectId, id, input, () => sealed);
    await decideUpdate(await readFlag(readerOf(ctx), projectId, { id }), input, rule, lookups, false);
    sealed = true;
    return transactional(ctx, async (tx) => {
      const current = await lockFlag(tx, projectId, id);
      return writeUpdate(tx, ctx, projectId, current, input, rule, lookups);
    });
  }

  /**
   * Updates a flag (spec row 4, §2.7) from a parsed body, under its row lock: concurrent updates
   * are applied one after another, each to the state the one before it left. `deleted`
   * soft-deletes or restores it. Returns the flag as written (unchanged, with no version bump and
   * no activity entry, when nothing changes). Inside another domain's `transactional` it joins that
   * transaction and makes one attempt (core/row-lock.ts `retryWhileMoved`).
   * @throws NotFoundError, ValidationError, NotImplementedError; ConflictError by the conflict rule,
   * or when the flag kept moving under the first decision (8 times over); RowMoved when joined and
   * the flag moved (the caller's loop decides again).
   */
  async function applyUpdate(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    input: UpdateFlagInput,
    rule: ConflictRule,
  ): Promise<FlagRecord> {
    try {
      // Only a key, `active` or `deleted` changed between the first read and the lock moves it.
      return await retryWhileMoved(
        () => updateOnce(ctx, projectId, id, input, rule),
        async () => conflict(await readFlag(ctx.reader, projectId, { id })),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKey();
      throw error;
    }
  }

  return {
    applyUpdate,
    /**
     * Rewrites flag `id`'s `filters` in a `transactional` (the caller's, joined, when one is open):
     * locks the flag's row first, then writes `rewrite` of the filters as stored there, by the same
     * rules, version bump and activity entry as a flag PATCH; nothing when they are unchanged. Every
     * read runs inside the transaction (its client may be the only connection: PGlite); decided once,
     * under the lock, so it never moves.
     * @throws ValidationError, NotFoundError: the caller's transaction then rolls back whole.
     */
    updateLockedFilters(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      rewrite: (stored: Record<string, unknown>) => Record<string, unknown>,
    ): Promise<FlagRecord> {
      return transactional(ctx, async (tx) => {
        const current = await lockFlag(tx, projectId, id);
        const filters = rewrite(current.filters as Record<string, unknown>);
        const input = parseInput(updateFlagSchema, { filters }, ctx.limits);
        const lookups = updateLookups(ctx, tx, projectId, id, input, () => false);
        return writeUpdate(tx, ctx, projectId, current, input, { kind: "posthog" }, lookups);
      });
    },
  };
}
