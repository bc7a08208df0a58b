/**
 * How a flag is created and updated, for the flag service and for the domains that write flags
 * inside their own operations (experiments, holdouts): PostHog's rules in their order, decided
 * from a first read, then again under the row lock, and written with the version bump, the tags
 * and the activity entry in one transaction. Source: `posthog/api/feature_flag.py`
 * (`FeatureFlagSerializer.create`, `update`); posthog-behavior.md §2.4–2.9.
 *
 * Concurrency: as PostHog's `FeatureFlagSerializer.update` (`select_for_update`, then the version
 * bump), an update decides from a first read (so PostHog's refusals come before any write), then
 * locks the flag's row (`SELECT ... FOR UPDATE`) in its transaction and decides again from the
 * locked state. Concurrent writers of one flag so take turns, each applied on top of the one before
 * it: none is lost, none is refused but by the conflict rules (PostHog's `original_flag` rule on
 * REST, the strict `expectedVersion` on GraphQL), which are judged against the state the write
 * replaces.
 *
 * Other domains' writes (an experiment's create and update, a holdout's update) call these inside
 * their own `transactional` (core/transactional.ts): the flag's write joins that transaction, its
 * reads go through it (`clientOf`, `readerOf`), and the flag's row is locked before the caller's
 * rows are (the lock order of core/row-lock.ts). Joined, an update does not decide again on its own:
 * its RowMoved goes up to the caller's `retryWhileMoved`.
 */

import type { ApprovalGate } from "../approvals/approvals.gate.js";
import type { FlagChange } from "../approvals/rules/actions.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import { changesBetween, recordActivity, softDeleteActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotImplementedError, ValidationError } from "../core/errors.js";
import { recordVersion } from "../core/object-versions.js";
import { RowMoved, retryWhileMoved } from "../core/row-lock.js";
import { normalizeTags } from "../core/tags.js";
import { clientOf, readerOf, transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import { existingDashboardIds } from "../dashboards/dashboards.queries.js";
import type { DashboardService } from "../dashboards/dashboards.service.js";
import { isUniqueViolation } from "../db/database-error.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type FlagRecord, readFlag } from "./feature-flags.queries.js";
import {
  type CreateFlagInput,
  createFlagSchema,
  type UpdateFlagInput,
  updateFlagSchema,
} from "./feature-flags.schemas.js";
import {
  insertFlag,
  isKeyTaken,
  type LookupDb,
  lockFlag,
  lockSoftDeletedHolder,
  type NamedFlagSummary,
  readFlagIn,
  readFlagSummaries,
  removeFlagRow,
  renameFlagKey,
  replaceFlagTags,
  setUsageDashboard,
  writeFlagRow,
} from "./feature-flags.store.js";
import { CONFLICT_FIELDS, conflictingFields } from "./rules/conflicts.js";
import type { FeatureFlagFilters, FlagSummary } from "./rules/filter-types.js";
import { filtersForUpdate, validateFilters } from "./rules/filters.js";
import { checkActivationChange, checkDeletion, referencedFlagIds } from "./rules/flag-dependencies.js";
import { flagCohortIds } from "./rules/stored-filters.js";

const KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;

/**
 * A flag's fields as PostHog's model names them: what the activity log compares (PostHog's fields
 * less its exclusions, §2.9) and what the `original_flag` conflict rule compares (§2.7).
 */
function snapshot(flag: FlagRecord): Record<string, unknown> {
  return {
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    rollout_percentage: flag.rolloutPercentage,
    deleted: flag.deleted,
    active: flag.active,
    version: flag.version,
    rollback_conditions: flag.rollbackConditions,
    performed_rollback: flag.performedRollback,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    usage_dashboard: flag.usageDashboardId,
    has_enriched_analytics: flag.hasEnrichedAnalytics,
    is_remote_configuration: flag.isRemoteConfiguration,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    tags: flag.tags,
    evaluation_tags: flag.evaluationTags,
  };
}

/**
 * Keeps `flag`, as written in `tx` by `userId`, as its version `flag.version` (core/object-versions.ts):
 * its `snapshot` less the version number, which numbers the row.
 */
export async function recordFlagVersion(
  tx: Prisma.TransactionClient,
  flag: FlagRecord,
  activity: string,
  userId: number | null,
): Promise<void> {
  const { version, ...fields } = snapshot(flag);
  await recordVersion(tx, {
    scope: "FeatureFlag",
    projectId: flag.projectId,
    itemId: String(flag.id),
    version: flag.version,
    activity,
    snapshot: fields,
    userId,
  });
}

const duplicateKey = () =>
  new ValidationError("There is already a feature flag with this key.", { attr: "key", code: "unique" });

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

/** The other domains' services a flag write calls. */
export interface FlagWriteCollaborators {
  /** Tells the filter rules about the cohorts a flag names (existence, PostHog's `behavioral_cohort_found`). */
  cohorts: Pick<CohortService, "summariesForFlags">;
  /** Writes a new flag's usage dashboard and renames its insights with the key (§2.4, §2.7, §2.11). */
  dashboards: Pick<DashboardService, "writeUsageDashboard" | "renameUsageDashboardKey">;
  /** Holds writes an approval policy matches (issue 27): called under the row lock, before writing. */
  approvals: { gate: ApprovalGate };
}

/**
 * The write of `current` the approval gate looks at (approvals/rules/actions.ts): what `input` sets
 * of `active` and `filters` (as they would be stored), and the body an approved request replays
 * (the parsed input, less the conflict fields: the replay checks the version itself).
 */
export function gatedChange(
  current: FlagRecord,
  input: Record<string, unknown> & { active?: boolean | undefined; filters?: unknown },
  filters: unknown,
): FlagChange {
  const { version: _version, original_flag: _original, ...body } = input;
  return {
    flagId: current.id,
    flagKey: current.key,
    version: current.version,
    updatedAt: current.updatedAt.toISOString(),
    ownedByExperiment: current.experimentSet.length > 0,
    before: { active: current.active, filters: current.filters },
    sent: {
      ...(input.active === undefined ? {} : { active: input.active }),
      ...(input.filters === undefined ? {} : { filters }),
    },
    body,
  };
}

/**
 * A flag create as the approval gate sees it (PostHog's create gate,
 * products/approvals/backend/tests/test_create_feature_flag_gate.py): from an empty baseline, an
 * inactive flag without filters, to the flag as it would be stored (`active` true unless sent false,
 * the model's default); `body` is replayed by the create when approved.
 */
export function createdChange(input: CreateFlagInput, filters: unknown, body: unknown): FlagChange {
  return {
    flagId: null,
    flagKey: input.key,
    version: 0,
    updatedAt: new Date(0).toISOString(),
    ownedByExperiment: false,
    before: { active: false, filters: {} },
    sent: { active: input.active !== false, filters },
    body: body as Record<string, unknown>,
  };
}

/** The flag writes (see the module comment). */
export type FlagWrites = ReturnType<typeof createFlagWrites>;

/** Creates the flag writes over the collaborators they call. */
export function createFlagWrites(others: FlagWriteCollaborators) {
  const { cohorts, dashboards, approvals } = others;
  /** Key rules in PostHog's order: unique among non-deleted flags, then the character set (§2.4). */
  async function validateKey(db: LookupDb, projectId: number, key: string, exceptId: number | null) {
    if (await isKeyTaken(db, projectId, key, exceptId)) throw duplicateKey();
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationError("Only letters, numbers, hyphens (-) & underscores (_) are allowed.", {
        attr: "key",
        code: "invalid_key",
      });
    }
  }

  /**
   * `analytics_dashboards` (§2.4): an id that is no dashboard of the project is DRF's "does not
   * exist"; linking existing ones (PostHog's `FeatureFlagDashboards`) is not built: 501.
   */
  async function checkAnalyticsDashboards(db: LookupDb, projectId: number, input: UpdateFlagInput) {
    const ids = input.analytics_dashboards ?? [];
    if (ids.length === 0) return;
    const known = await existingDashboardIds(db, projectId, ids);
    const missing = ids.find((id) => !known.has(id));
    if (missing !== undefined) {
      throw new ValidationError(`Invalid pk "${missing}" - object does not exist.`, {
        attr: "analytics_dashboards",
        code: "does_not_exist",
      });
    }
    throw new NotImplementedError(
      "Linking analytics dashboards to a flag is not supported by this service yet: only its usage dashboard is kept.",
    );
  }

  /**
   * Rules on the fields beside `filters`: encrypted payloads (not built), evaluation tags a subset
   * of the same request's tags.
   */
  function checkFieldsBesideFilters(input: UpdateFlagInput) {
    if (input.has_encrypted_payloads) {
      throw new NotImplementedError(
        "Encrypted payloads are not supported by this service yet: payloads are stored as given.",
      );
    }
    if (input.evaluation_tags?.length) {
      // Checked against the tags of the same request, as PostHog does (EvaluationTagSerializerMixin.validate).
      const tags = new Set(normalizeTags(input.tags ?? []));
      const invalid = normalizeTags(input.evaluation_tags).filter((tag) => !tags.has(tag));
      if (invalid.length > 0) {
        throw new ValidationError(
          `Evaluation tags must be a subset of tags. Invalid evaluation tags: ${invalid.join(", ")}`,
        );
      }
    }
  }

  /**
   * `raw` filters validated by §2.5's rules for flag `flag` (`id` null on create). The cohorts they
   * name are read through the cohort service, in the write's transaction when it has one.
   * @throws ValidationError
   */
  async function validatedFilters(
    ctx: ServiceContext,
    projectId: number,
    raw: unknown,
    flag: { id: number | null; key: string },
    isCreate: boolean,
    summaries: () => Promise<Map<number, FlagSummary>>,
  ): Promise<FeatureFlagFilters> {
    const flags = referencedFlagIds(raw).length > 0 ? await summaries() : new Map<number, FlagSummary>();
    const cohortIds = flagCohortIds(raw);
    const cohortSummaries = await cohorts.summariesForFlags(ctx, projectId, cohortIds);
    return validateFilters(raw, {
      isCreate,
      flagId: flag.id,
      flagKey: flag.key,
      flags,
      cohorts: cohortSummaries,
      maxValuesPerProperty: ctx.limits.flagMaxPropertyValues,
      maxGroups: ctx.limits.flagMaxConditionGroups,
      maxVariants: ctx.limits.flagMaxVariants,
    });
  }

  /**
   * Frees `key` from the project's soft-deleted flag holding it (§2.4): the row is removed, unless
   * experiments still reference it (their flag is never removed): then, as PostHog's
   * `_delete_soft_deleted_flags_with_key`, a non-deleted experiment refuses the key, and deleted ones
   * only keep the old row under a tombstoned key.
   * Concurrent creates of the key take turns on the old row's lock (src/core/row-lock.ts): the ones
   * after the first find it gone or renamed and leave the key to the unique constraint (400).
   * @throws ValidationError `Cannot reuse key '<key>': a soft-deleted flag with this key is still referenced by active experiment(s) with ID(s): …`
   */
  async function freeSoftDeletedKey(tx: Prisma.TransactionClient, projectId: number, key: string) {
    const old = await lockSoftDeletedHolder(tx, projectId, key);
    if (!old) return;
    if (old.experiments.length === 0) {
      await removeFlagRow(tx, old.id);
      return;
    }
    const active = old.experiments.filter((x) => !x.deleted).map((x) => x.id);
    if (active.length > 0) {
      throw new ValidationError(
        `Cannot reuse key '${key}': a soft-deleted flag with this key is still referenced by active ` +
          `experiment(s) with ID(s): ${active.join(", ")}. Please contact support.`,
      );
    }
    await renameFlagKey(tx, old.id, `${key}:deleted:${old.id}`);
  }

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

  /**
   * Creates a flag (spec row 2, §2.4) after the caller authorised it, in one `transactional` with
   * its tags, its usage dashboard (the dashboards service joins it) and its activity entry; inside
   * another domain's `transactional` (an experiment's create) it joins that one, its reads included,
   * so the caller's rows commit or roll back with the flag. Returns the flag as read in the
   * transaction. `gated`: the create is a flag create of its own (REST, GraphQL, an approved request's),
   * which the approval gate sees (`createdChange`); another domain's flag (an experiment's) is not.
   * @throws ValidationError for any rule of §2.4–2.6; NotImplementedError for encrypted payloads;
   *   the approval gate's refusals when `gated`.
   */
  async function createFlag(
    ctx: ServiceContext,
    projectId: number,
    body: unknown,
    gated = false,
  ): Promise<FlagRecord> {
    const input: CreateFlagInput = parseInput(createFlagSchema, body, ctx.limits);
    const db = clientOf(ctx);
    await validateKey(db, projectId, input.key, null);
    await checkAnalyticsDashboards(db, projectId, input);
    checkFieldsBesideFilters(input);
    const filters =
      input.filters === undefined
        ? ({} as FeatureFlagFilters)
        : await validatedFilters(ctx, projectId, input.filters, { id: null, key: input.key }, true, () =>
            readFlagSummaries(db, projectId),
          );
    const tags = normalizeTags(input.tags ?? []);
    const evaluationTags = normalizeTags(input.evaluation_tags ?? []);
    const userId = ctx.actor.user.id;
    try {
      return await transactional(ctx, async (tx) => {
        // The (project, key) constraint covers soft-deleted rows too: a new flag replaces a deleted one (§2.4).
        await freeSoftDeletedKey(tx, projectId, input.key);
        if (gated) await approvals.gate(tx, ctx, projectId, createdChange(input, filters, body));
        const flag = await insertFlag(tx, projectId, input, filters, userId);
        if (tags.length) await replaceFlagTags(tx, projectId, flag.id, tags, "tags");
        if (evaluationTags.length)
          await replaceFlagTags(tx, projectId, flag.id, evaluationTags, "evaluationTags");
        // PostHog's create writes the usage dashboard unless asked not to (§2.4, §2.11).
        if (input._should_create_usage_dashboard !== false) {
          const usageDashboardId = await dashboards.writeUsageDashboard(ctx, { projectId, key: flag.key });
          await setUsageDashboard(ctx, flag.id, usageDashboardId);
        }
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "FeatureFlag",
          itemId: String(flag.id),
          activity: "created",
          name: flag.key,
          changes: [],
        });
        const created = await readFlagIn(tx, projectId, flag.id);
        await recordFlagVersion(tx, created, "created", userId);
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKey();
      throw error;
    }
  }

  return {
    createFlag,
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
