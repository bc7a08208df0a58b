/**
 * The feature-flag service: every flag operation of both front doors. It checks scopes and project
 * access, validates input, applies PostHog's rules, writes the change, the version bump and the
 * activity-log entry in one transaction, and returns records. It knows nothing of HTTP or GraphQL:
 * ids arrive parsed, bodies arrive as PostHog's snake_case JSON (GraphQL re-encodes its inputs).
 * Source of the rules: `posthog/api/feature_flag.py`; posthog-behavior.md §2.3–2.9.
 *
 * Concurrency: as PostHog's `FeatureFlagSerializer.update` (`select_for_update`, then the version
 * bump), an update decides from a first read (so PostHog's refusals come before any write), then
 * locks the flag's row (`SELECT ... FOR UPDATE`) in its transaction and decides again from the
 * locked state. Concurrent writers of one flag so take turns, each applied on top of the one before
 * it: none is lost, none is refused but by the conflict rules (PostHog's `original_flag` rule on
 * REST, the strict `expectedVersion` on GraphQL), which are judged against the state the write
 * replaces. Another domain's write joins the flag's transaction after the flag's row is locked
 * (`within`, `updateFiltersIn`): the flag's row first, then the other domain's rows.
 */

import type { CohortRecord } from "../cohorts/cohorts.queries.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import {
  type ActivityPage,
  changesBetween,
  listActivity,
  recordActivity,
  softDeleteActivity,
} from "../core/activity-log.js";
import { authorizeProject, authorizeProjectScopes, authorizeProjectStream } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotFoundError, NotImplementedError, ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import { checkNestingDepth, checkStorableString } from "../core/json-input.js";
import { objectChanges } from "../core/live-changes.js";
import type { ActivityPaging, OffsetPage } from "../core/paging.js";
import { lockAndRead, RowMoved, retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { sharedRead } from "../core/shared-reads.js";
import { ensureTags, normalizeTags } from "../core/tags.js";
import { inIdOrder, parseInput, parseIntegerId } from "../core/validation.js";
import type { DashboardService } from "../dashboards/dashboards.service.js";
import type { ObjectChange } from "../db/change-feed.js";
import { prismaReader } from "../db/sql-reader.js";
import type { RunSqlTransaction } from "../db/sql-transaction.js";
import { Prisma } from "../generated/prisma/client.js";
import type { GroupService } from "../groups/groups.service.js";
import type { PersonService } from "../persons/persons.service.js";
import type { FlagEvaluationService } from "./evaluation/evaluation.service.js";
import {
  ALL_FLAG_PARTS,
  type Db,
  type FlagPart,
  type FlagRecord,
  type FlagRecordWith,
  flagListWhere,
  selectFlagKeys,
  selectFlagPage,
  selectFlags,
} from "./feature-flags.queries.js";
import {
  type CreateFlagInput,
  createFlagSchema,
  flagListFiltersSchema,
  replaceFlagSchema,
  type UpdateFlagInput,
  updateFlagSchema,
} from "./feature-flags.schemas.js";
import { type FlagCallRollup, rollUpFlagCalls } from "./flag-calls.js";
import { readBlastRadiusQuery } from "./rules/blast-radius.js";
import { bulkKeysBodySchema, readFlagIds } from "./rules/bulk-keys.js";
import { CONFLICT_FIELDS, conflictingFields } from "./rules/conflicts.js";
import type { FeatureFlagFilters, FlagSummary } from "./rules/filter-types.js";
import { filtersForUpdate, validateFilters } from "./rules/filters.js";
import {
  checkActivationChange,
  checkDeletion,
  type DependentFlagEntry,
  dependentFlagEntry,
  dependentFlags,
  dependentsWarning,
  referencedFlagIds,
} from "./rules/flag-dependencies.js";
import { remoteConfigPayload } from "./rules/remote-config.js";
import { staticCohortName } from "./rules/static-cohort.js";
import { type FlagStatusResult, flagStatus, isFullyRolledOut } from "./rules/status.js";
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

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
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

/** A database the flag rules read through: the client, or a transaction's (a write inside another domain's). */
type LookupDb = Pick<Prisma.TransactionClient, "featureFlag" | "dashboard" | "cohort">;

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
  summaries(): Promise<Map<number, FlagSummary & { name: string }>>;
  /** The request's `filters`, validated for the flag keyed `flagKey` (§2.5). @throws ValidationError */
  filters(flagKey: string): Promise<FeatureFlagFilters>;
}

/** An error of another domain's write run inside a flag update's transaction, carried out unchanged. */
class WithinFailed extends Error {
  constructor(readonly reason: unknown) {
    super("the write run within the flag update failed");
  }
}

/**
 * How an update guards against concurrent edits.
 * - `posthog` (REST): a body `version` other than the stored one is refused only when the body's
 *   `original_flag` shows the caller changed a field that someone else also changed (§2.7,
 *   `_get_conflicting_changes`); otherwise the change applies on top of the newer flag.
 * - `expectedVersion` (GraphQL): any other stored version is a conflict, whatever changed.
 */
export type ConflictRule = { kind: "posthog" } | { kind: "expectedVersion"; version: number | null };

/** The other domains' services the flag service calls. */
export interface FlagServiceCollaborators {
  /**
   * Tells the filter rules about the cohorts a flag names (existence, PostHog's
   * `behavioral_cohort_found`); writes the static cohort of `create_static_cohort_for_flag`.
   */
  cohorts: Pick<CohortService, "summariesForFlags" | "createStaticWithPersons">;
  /** Evaluates a flag for every person (`create_static_cohort_for_flag`). */
  evaluation: Pick<FlagEvaluationService, "personsWithFlag">;
  /** Counts the persons a condition selects (blast radius). */
  persons: Pick<PersonService, "countMatching">;
  /** Counts the groups a condition selects (blast radius of a group flag). */
  groups: Pick<GroupService, "countMatching">;
  /** Writes a new flag's usage dashboard and renames its insights with the key (§2.4, §2.7, §2.11). */
  dashboards: Pick<DashboardService, "writeUsageDashboard" | "renameUsageDashboardKey">;
}

/** `POST :id/has_active_dependents`'s answer (§2.6): the flags that depend on a flag, and PostHog's warning. */
export interface ActiveDependents {
  hasActiveDependents: boolean;
  dependentFlags: DependentFlagEntry[];
  /** Present only when there are dependents (`dependentsWarning`). */
  warning?: string;
}

/** `POST bulk_keys/`'s answer (§2.10): key by id (as text) of the project's non-deleted flags asked for. */
export interface FlagKeys {
  keys: Record<string, string>;
  /** PostHog's warning naming the items that were not ids, when some were. */
  warning?: string;
}

/** A condition's blast radius (§2.10): persons (or groups) it selects, of all the project has. */
export interface BlastRadius {
  usersAffected: number;
  totalUsers: number;
}

/** Creates the feature-flag service. */
export function createFeatureFlagService(deps: ServiceDeps, others: FlagServiceCollaborators) {
  const { cohorts, dashboards } = others;
  /** Key rules in PostHog's order: unique among non-deleted flags, then the character set (§2.4). */
  async function validateKey(db: LookupDb, projectId: number, key: string, exceptId: number | null) {
    const clash = await db.featureFlag.findFirst({
      where: { projectId, key, deleted: false, ...(exceptId === null ? {} : { id: { not: exceptId } }) },
      select: { id: true },
    });
    if (clash) throw duplicateKey();
    if (!KEY_PATTERN.test(key)) {
      throw new ValidationError("Only letters, numbers, hyphens (-) & underscores (_) are allowed.", {
        attr: "key",
        code: "invalid_key",
      });
    }
  }

  /** The project's flags as the dependency rules see them; loaded only when a rule needs them. */
  async function loadFlagSummaries(
    db: LookupDb,
    projectId: number,
  ): Promise<Map<number, FlagSummary & { name: string }>> {
    const rows = await db.featureFlag.findMany({
      where: { projectId, deleted: false },
      select: { id: true, key: true, name: true, active: true, deleted: true, filters: true },
    });
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * `analytics_dashboards` (§2.4): an id that is no dashboard of the project is DRF's "does not
   * exist"; linking existing ones (PostHog's `FeatureFlagDashboards`) is not built: 501.
   */
  async function checkAnalyticsDashboards(db: LookupDb, projectId: number, input: UpdateFlagInput) {
    const ids = input.analytics_dashboards ?? [];
    if (ids.length === 0) return;
    const found = await db.dashboard.findMany({
      where: { projectId, deleted: false, id: { in: ids } },
      select: { id: true },
    });
    const known = new Set(found.map((d) => d.id));
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

  async function validatedFilters(
    ctx: ServiceContext,
    db: LookupDb,
    projectId: number,
    raw: unknown,
    flag: { id: number | null; key: string },
    isCreate: boolean,
    summaries: () => Promise<Map<number, FlagSummary>>,
  ): Promise<FeatureFlagFilters> {
    const flags = referencedFlagIds(raw).length > 0 ? await summaries() : new Map<number, FlagSummary>();
    const cohortIds = flagCohortIds(raw);
    const cohortSummaries = await cohorts.summariesForFlags(db, projectId, cohortIds);
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

  /** Replaces a flag's links of one tag kind with `names` (creating missing project tags). */
  async function setTags(
    tx: Prisma.TransactionClient,
    projectId: number,
    flagId: number,
    names: string[],
    relation: "tags" | "evaluationTags",
  ) {
    const links = (await ensureTags(tx, projectId, names)).map((tagId) => ({
      projectId,
      featureFlagId: flagId,
      tagId,
    }));
    if (relation === "tags") {
      await tx.featureFlagTag.deleteMany({ where: { featureFlagId: flagId } });
      if (links.length) await tx.featureFlagTag.createMany({ data: links });
    } else {
      await tx.featureFlagEvaluationTag.deleteMany({ where: { featureFlagId: flagId } });
      if (links.length) await tx.featureFlagEvaluationTag.createMany({ data: links });
    }
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
    const holder = { projectId, key, deleted: true };
    const found = await tx.featureFlag.findFirst({ where: holder, select: { id: true } });
    if (!found) return;
    const old = await lockAndRead(tx, "feature_flags", found.id, () =>
      tx.featureFlag.findFirst({
        where: { id: found.id, ...holder },
        select: { id: true, experiments: { select: { id: true, deleted: true }, orderBy: { id: "asc" } } },
      }),
    ).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (!old) return;
    if (old.experiments.length === 0) {
      await tx.featureFlag.delete({ where: { id: old.id } });
      return;
    }
    const active = old.experiments.filter((x) => !x.deleted).map((x) => x.id);
    if (active.length > 0) {
      throw new ValidationError(
        `Cannot reuse key '${key}': a soft-deleted flag with this key is still referenced by active ` +
          `experiment(s) with ID(s): ${active.join(", ")}. Please contact support.`,
      );
    }
    await tx.featureFlag.update({ where: { id: old.id }, data: { key: `${key}:deleted:${old.id}` } });
  }

  /** One flag of the project, soft-deleted ones included. @throws NotFoundError */
  async function readOne(
    db: Db,
    projectId: number,
    by: { id: number } | { key: string },
  ): Promise<FlagRecord> {
    const [flag] = await selectFlags(db, projectId, "id" in by ? { ids: [by.id] } : { keys: [by.key] });
    if (!flag) throw new NotFoundError();
    return flag;
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
    const summaries = lookup((_: null) => loadFlagSummaries(db, projectId));
    const dashboards = lookup((_: null) => checkAnalyticsDashboards(db, projectId, input));
    return {
      key: lookup((key: string) => validateKey(db, projectId, key, id)),
      dashboards: () => dashboards(null),
      summaries: () => summaries(null),
      filters: lookup((flagKey: string) =>
        validatedFilters(ctx, db, projectId, input.filters, { id, key: flagKey }, false, () =>
          summaries(null),
        ),
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
   * Locks flag `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it:
   * the writers of one flag take turns from here until their transactions end.
   * @throws NotFoundError
   */
  function lockFlag(tx: Prisma.TransactionClient, projectId: number, id: number): Promise<FlagRecord> {
    return lockAndRead(tx, "feature_flags", id, () => readOne(prismaReader(tx), projectId, { id }));
  }

  /**
   * Decides an update of `current`, the flag locked in `tx` (`lockFlag`), and writes it: the row with
   * its version bumped, its tags, its usage dashboard's insights on a key rename, the activity entry,
   * then `within`. When nothing changes (an empty body, or only the values already stored) nothing
   * is written but `within`. Returns the flag as written (`current` when unchanged).
   * @throws as `decideUpdate`; WithinFailed carrying what `within` threw.
   */
  async function writeUpdate(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    projectId: number,
    current: FlagRecord,
    input: UpdateFlagInput,
    rule: ConflictRule,
    lookups: UpdateLookups,
    within?: (tx: Prisma.TransactionClient) => Promise<void>,
  ): Promise<FlagRecord> {
    const { next, filters, changes } = await decideUpdate(current, input, rule, lookups, true);
    // Another domain's write joins the flag's transaction; its errors leave as they are (see applyUpdate).
    const runWithin = async () => {
      if (!within) return;
      try {
        await within(tx);
      } catch (error) {
        throw new WithinFailed(error);
      }
    };
    if (changes.length === 0) {
      await runWithin();
      return current;
    }
    const userId = ctx.actor.user.id;
    // The row is locked since `current` was read: no other writer moved its version.
    await tx.featureFlag.updateMany({
      where: { id: current.id, projectId },
      data: {
        key: next.key,
        name: next.name,
        filters: filters as Prisma.InputJsonValue,
        active: next.active,
        deleted: next.deleted,
        version: current.version + 1,
        ensureExperienceContinuity: next.ensureExperienceContinuity,
        rollbackConditions: (next.rollbackConditions ?? Prisma.DbNull) as Prisma.InputJsonValue,
        performedRollback: next.performedRollback,
        hasEnrichedAnalytics: next.hasEnrichedAnalytics,
        isRemoteConfiguration: next.isRemoteConfiguration,
        evaluationRuntime: next.evaluationRuntime,
        bucketingIdentifier: next.bucketingIdentifier,
        variantCount: filters.multivariate?.variants?.length ?? 0,
        fullyRolledOut: isFullyRolledOut(filters),
        lastModifiedById: userId,
      },
    });
    // A key rename rewrites the usage dashboard's insights to the new key (§2.7).
    if (next.key !== current.key && current.usageDashboardId !== null) {
      await dashboards.renameUsageDashboardKey(
        tx,
        projectId,
        current.usageDashboardId,
        current.key,
        next.key,
      );
    }
    if (input.tags !== undefined) await setTags(tx, projectId, current.id, next.tags, "tags");
    if (input.evaluation_tags !== undefined) {
      await setTags(tx, projectId, current.id, next.evaluationTags, "evaluationTags");
    }
    const updated = await readOne(prismaReader(tx), projectId, { id: current.id });
    await recordActivity(tx, {
      projectId,
      userId,
      scope: "FeatureFlag",
      itemId: String(current.id),
      activity: softDeleteActivity(current, next),
      name: updated.key,
      changes: changesBetween("FeatureFlag", snapshot(current), snapshot(updated)),
    });
    await runWithin();
    return updated;
  }

  /**
   * One attempt of an update: decides from a first read (PostHog's serializer validates before its
   * `update` locks the row, so refusals come before any write; the conflict rule waits for the
   * lock), then locks the row in a transaction and decides again from the locked state.
   * @throws RowMoved when the locked flag needs a lookup the first decision did not make.
   */
  async function updateOnce(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    input: UpdateFlagInput,
    rule: ConflictRule,
    within?: (tx: Prisma.TransactionClient) => Promise<void>,
  ): Promise<FlagRecord> {
    let sealed = false;
    const lookups = updateLookups(ctx, ctx.db, projectId, id, input, () => sealed);
    await decideUpdate(await readOne(ctx.reader, projectId, { id }), input, rule, lookups, false);
    sealed = true;
    return ctx.db.$transaction(async (tx) => {
      const current = await lockFlag(tx, projectId, id);
      return writeUpdate(tx, ctx, projectId, current, input, rule, lookups, within);
    });
  }

  /**
   * Updates a flag (spec row 4, §2.7) from a parsed body, under its row lock: concurrent updates
   * are applied one after another, each to the state the one before it left. `deleted`
   * soft-deletes or restores it. Returns the flag as written (unchanged, with no version bump and
   * no activity entry, when nothing changes).
   * @throws NotFoundError, ValidationError, NotImplementedError; ConflictError by the conflict rule,
   * or when the flag kept moving under the first decision (8 times over); whatever `within` throws.
   */
  async function applyUpdate(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    input: UpdateFlagInput,
    rule: ConflictRule,
    within?: (tx: Prisma.TransactionClient) => Promise<void>,
  ): Promise<FlagRecord> {
    try {
      // Only a key, `active` or `deleted` changed between the first read and the lock moves it.
      return await retryWhileMoved(
        () => updateOnce(ctx, projectId, id, input, rule, within),
        async () => conflict(await readOne(ctx.reader, projectId, { id })),
      );
    } catch (error) {
      if (error instanceof WithinFailed) throw error.reason;
      if (isUniqueViolation(error)) throw duplicateKey();
      throw error;
    }
  }

  /**
   * The non-deleted, active flags depending on each of `ids` (§2.6 `dependentFlags`), by key, from
   * one read of the project's flags. Flags of `ids` not in the project have none.
   */
  async function dependentsByFlag(
    ctx: ServiceContext,
    projectId: number,
    ids: readonly number[],
  ): Promise<Map<number, Array<FlagSummary & { name: string }>>> {
    const flags = await loadFlagSummaries(ctx.db, projectId);
    return new Map(ids.map((id) => [id, dependentFlags(id, flags.values())]));
  }

  /** One flag's dependents (§2.6), after checking it is in the project. @throws NotFoundError */
  async function dependentsOfOne(ctx: ServiceContext, projectId: number, id: number) {
    await readOne(ctx.reader, projectId, { id });
    return (await dependentsByFlag(ctx, projectId, [id])).get(id) ?? [];
  }

  /**
   * Creates a flag (spec row 2, §2.4) after the caller authorised it, and runs `within` in the same
   * transaction. @throws ValidationError for any rule of §2.4–2.6; NotImplementedError for encrypted payloads.
   */
  async function createFlag<T>(
    ctx: ServiceContext,
    projectId: number,
    body: unknown,
    within: (tx: Prisma.TransactionClient, flag: { id: number; key: string }) => Promise<T>,
  ): Promise<{ flag: FlagRecord; result: T }> {
    const project = { id: projectId };
    const input: CreateFlagInput = parseInput(createFlagSchema, body, ctx.limits);
    await validateKey(ctx.db, project.id, input.key, null);
    await checkAnalyticsDashboards(ctx.db, project.id, input);
    checkFieldsBesideFilters(input);
    const filters =
      input.filters === undefined
        ? ({} as FeatureFlagFilters)
        : await validatedFilters(
            ctx,
            ctx.db,
            project.id,
            input.filters,
            { id: null, key: input.key },
            true,
            () => loadFlagSummaries(ctx.db, project.id),
          );
    const tags = normalizeTags(input.tags ?? []);
    const evaluationTags = normalizeTags(input.evaluation_tags ?? []);
    const userId = ctx.actor.user.id;
    try {
      return await ctx.db.$transaction(async (tx) => {
        // The (project, key) constraint covers soft-deleted rows too: a new flag replaces a deleted one (§2.4).
        await freeSoftDeletedKey(tx, project.id, input.key);
        const flag = await tx.featureFlag.create({
          data: {
            projectId: project.id,
            key: input.key,
            name: input.name ?? "",
            filters: filters as Prisma.InputJsonValue,
            active: input.active ?? true,
            ensureExperienceContinuity: input.ensure_experience_continuity ?? false,
            rollbackConditions: (input.rollback_conditions ?? Prisma.DbNull) as Prisma.InputJsonValue,
            performedRollback: input.performed_rollback ?? null,
            hasEnrichedAnalytics: input.has_enriched_analytics ?? false,
            isRemoteConfiguration: input.is_remote_configuration ?? false,
            hasEncryptedPayloads: false,
            evaluationRuntime: input.evaluation_runtime ?? "all",
            bucketingIdentifier: input.bucketing_identifier ?? "distinct_id",
            creationContext: input.creation_context ?? "feature_flags",
            createInFolder: input._create_in_folder ?? null,
            shouldCreateUsageDashboard: input._should_create_usage_dashboard ?? true,
            variantCount: filters.multivariate?.variants?.length ?? 0,
            fullyRolledOut: isFullyRolledOut(filters),
            createdById: userId,
            lastModifiedById: userId,
          },
          select: { id: true, key: true },
        });
        if (tags.length) await setTags(tx, project.id, flag.id, tags, "tags");
        if (evaluationTags.length) await setTags(tx, project.id, flag.id, evaluationTags, "evaluationTags");
        // PostHog's create writes the usage dashboard unless asked not to (§2.4, §2.11).
        if (input._should_create_usage_dashboard !== false) {
          const usageDashboardId = await dashboards.writeUsageDashboard(
            tx,
            { projectId: project.id, key: flag.key },
            userId,
          );
          await tx.featureFlag.update({ where: { id: flag.id }, data: { usageDashboardId } });
        }
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "FeatureFlag",
          itemId: String(flag.id),
          activity: "created",
          name: flag.key,
          changes: [],
        });
        const result = await within(tx, flag);
        return { flag: await readOne(prismaReader(tx), project.id, { id: flag.id }), result };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKey();
      throw error;
    }
  }

  return {
    /**
     * The committed changes of the project's flags with one of `keys` (their key when committed), from
     * now until `signal` aborts (GraphQL `featureFlagChanged`); a `reset` when some may have been
     * missed. Scope `feature_flag:read`, checked now and whenever access changes: the changes end
     * with the refusal (core/auth/access.ts `authorizeProjectStream`).
     * @throws as `authorizeProject`; ValidationError when `keys` is empty.
     */
    async changes(
      ctx: ServiceContext,
      projectId: number,
      keys: readonly string[],
      signal: AbortSignal,
    ): Promise<AsyncIterable<ObjectChange | { kind: "reset" }>> {
      const { events } = await authorizeProjectStream(ctx, projectId, "feature_flag:read", signal);
      if (keys.length === 0) {
        await events.return();
        throw new ValidationError("Name at least one flag key.", { attr: "keys" });
      }
      const wanted = new Set(keys);
      return objectChanges(
        events,
        (change) => change.scope === "FeatureFlag" && change.flagKey !== null && wanted.has(change.flagKey),
      );
    },

    /** A flag's status (ACTIVE, STALE, DELETED) at the service's clock (§2.8). */
    status(flag: Parameters<typeof flagStatus>[0]): FlagStatusResult {
      return flagStatus(flag, deps.now());
    },

    /**
     * The status of one flag of the project (spec row 12, `GET :id/status`, §2.8): the same rules
     * as the flag object's `status` (`status` above), soft-deleted flags included (DELETED).
     * Scope `feature_flag:read`. @throws NotFoundError when the flag is not in the project (PostHog's
     * UNKNOWN, `UNKNOWN_FLAG_STATUS`; PostHog looks the id up in any project, this service in this one).
     */
    async getStatus(ctx: ServiceContext, projectId: number, id: number): Promise<FlagStatusResult> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      return flagStatus(await readOne(ctx.reader, projectId, { id }), deps.now());
    },

    /**
     * The flags that depend on flag `id` (`GET :id/dependent_flags`, §2.6): non-deleted, active
     * flags of the project with a `type: "flag"` condition on it, by key, as `{id, key, name}`.
     * Scope `feature_flag:read`. @throws NotFoundError when the flag is not in the project.
     */
    async dependentFlags(ctx: ServiceContext, projectId: number, id: number): Promise<DependentFlagEntry[]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      return (await dependentsOfOne(ctx, projectId, id)).map(dependentFlagEntry);
    },

    /**
     * `POST :id/has_active_dependents` (spec row 10, §2.6; PostHog's older form of `dependentFlags`):
     * the same flags, whether there are any, and a warning when there are. Writes nothing; `body` is
     * not read (only its nesting is limited). Scope `feature_flag:read` (decision 2).
     * @throws NotFoundError when the flag is not in the project; ValidationError `max_depth`.
     */
    async activeDependents(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<ActiveDependents> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      // The body is not read, but too deep a one is refused, as DRF's parser does before any action.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const dependents = (await dependentsOfOne(ctx, projectId, id)).map(dependentFlagEntry);
      if (dependents.length === 0) return { hasActiveDependents: false, dependentFlags: [] };
      return {
        hasActiveDependents: true,
        dependentFlags: dependents,
        warning: dependentsWarning(dependents.length),
      };
    },

    /**
     * The dependents (§2.6) of each of `ids`, whole records, by key, in the order asked (a batch for
     * GraphQL's loaders: two statements whatever the number of flags). Scope `feature_flag:read`.
     */
    async dependentsOfMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<FlagRecord[][]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      const byFlag = await dependentsByFlag(ctx, projectId, ids);
      const wanted = [...new Set([...byFlag.values()].flat().map((flag) => flag.id))];
      const records =
        wanted.length === 0
          ? new Map<number, FlagRecord>()
          : new Map((await selectFlags(ctx.reader, projectId, { ids: wanted })).map((f) => [f.id, f]));
      return ids.map((id) =>
        (byFlag.get(id) ?? []).flatMap((flag) => {
          const record = records.get(flag.id);
          return record ? [record] : [];
        }),
      );
    },

    /**
     * A remote-configuration flag's payload (spec row 11, `GET :id/remote_config`, §2.10): its
     * stored `filters.payloads["true"]` as is (a JSON string as stored, or another JSON value), null
     * when absent or falsy. `idOrKey` is the flag's id when all digits, else its key; soft-deleted
     * flags are read too, as PostHog does. Scope `feature_flag:read`.
     * @throws NotFoundError when no such flag is in the project or it is not a remote configuration
     *   (REST answers both with an empty 404); ValidationError for a key with a NUL.
     */
    async remoteConfig(ctx: ServiceContext, projectId: number, idOrKey: string): Promise<unknown> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      let by: { id: number } | { key: string };
      if (/^[0-9]+$/.test(idOrKey)) {
        const id = parseIntegerId(idOrKey);
        if (id === null) throw new NotFoundError();
        by = { id };
      } else {
        checkStorableString(idOrKey, "key");
        by = { key: idOrKey };
      }
      const payload = remoteConfigPayload(await readOne(ctx.reader, projectId, by));
      if (payload === undefined) throw new NotFoundError();
      return payload;
    },

    /**
     * Keys of the project's non-deleted flags by id (spec row 14, `POST bulk_keys/`, §2.10): `body`
     * is `{"ids": [...]}`, read by `readFlagIds` (Python's rules); ids of no such flag are absent.
     * Scope `feature_flag:read` (decision 2).
     * @throws ValidationError code `invalid_flag_ids` when ids were sent and none is one.
     */
    async bulkKeys(ctx: ServiceContext, projectId: number, body: unknown): Promise<FlagKeys> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:read");
      const request = readFlagIds(parseInput(bulkKeysBodySchema, body, ctx.limits).ids);
      const ids = request.ids.filter((id) => parseIntegerId(id) !== null);
      const flags = ids.length === 0 ? [] : await selectFlagKeys(ctx.reader, project.id, ids);
      const keys = Object.fromEntries(flags.map((flag) => [String(flag.id), flag.key]));
      return request.warning === undefined ? { keys } : { keys, warning: request.warning };
    },

    /**
     * How many persons a release condition selects, of all the project's persons (spec row 18,
     * `POST user_blast_radius/`, §2.10), or with `group_type_index` how many groups of that type;
     * the condition's rollout is not applied. Counted in the database. Scope `feature_flag:read`
     * (decision 2). @throws ValidationError (`readBlastRadiusQuery`, and filters the rows cannot be
     * filtered by); NotImplementedError for conditions on other flags or behavioral cohorts.
     */
    async blastRadius(ctx: ServiceContext, projectId: number, body: unknown): Promise<BlastRadius> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:read");
      const { criteria, groupTypeIndex } = readBlastRadiusQuery(body, ctx.limits);
      const attr = "condition__properties";
      const counts =
        groupTypeIndex === null
          ? await others.persons.countMatching(ctx, project.id, criteria, attr)
          : await others.groups.countMatching(ctx, project.id, groupTypeIndex, criteria, attr);
      return { usersAffected: counts.matching, totalUsers: counts.total };
    },

    /**
     * `POST :id/create_static_cohort_for_flag` (spec row 7, posthog-behavior.md §2.10 and decision 2):
     * a new static cohort named `Users with feature flag <key> enabled at <YYYY-MM-DD HH:MM:SS>` (UTC,
     * rules/static-cohort.ts), created by the key's user, holding every person of the project for
     * whom flag `id` is truthy now (`flagEvaluation.personsWithFlag`: our engine, persons read in
     * pages; none for a deleted, inactive or group-aggregated flag, as PostHog's task, which raises
     * nothing for them). Soft-deleted flags are found, as PostHog's `get_object` finds them.
     *
     * Unlike PostHog, which answers `is_calculating: true` and fills the cohort in a background task,
     * the members are computed before the write, and the cohort, its members, its `count` and its
     * `created` activity entry are written in one transaction (cohorts' `createStaticWithPersons`):
     * the cohort exists complete or not at all, even if the process dies, and the answer already
     * says `is_calculating: false` and the right `count`. Persons deleted between the read and the
     * write are left out. `body` is not read (PostHog's action reads none; only its nesting is
     * limited). Scopes `feature_flag:read` and `cohort:write`, checked before anything is read.
     * Returns the cohort as written.
     * @throws NotFoundError when the flag is not in the project; PermissionDeniedError (either
     *   scope); ValidationError `max_depth`.
     */
    async createStaticCohort(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<CohortRecord> {
      await authorizeProjectScopes(ctx, projectId, ["feature_flag:read", "cohort:write"]);
      // The body is not read, but too deep a one is refused, as for `has_active_dependents`.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const flag = await readOne(ctx.reader, projectId, { id });
      const name = staticCohortName(flag.key, deps.now());
      const personIds = await others.evaluation.personsWithFlag(ctx, projectId, flag.id);
      return cohorts.createStaticWithPersons(ctx, projectId, name, personIds);
    },

    /**
     * Moves every flag's `last_called_at` to its latest `$feature_flag_called` event since the last
     * roll-up (§2.12; flag-calls.ts says how and why not per event). A system task: no caller, no
     * scope. `transaction` runs its statements. Returns what it did (`skipped` when another process
     * holds the roll-up).
     */
    rollUpCalls(transaction: RunSqlTransaction): Promise<FlagCallRollup> {
      return rollUpFlagCalls(transaction, deps.now());
    },

    /**
     * One page of the project's non-deleted flags (spec row 1), with the total count. `query` holds
     * the list filters under PostHog's names (REST's query parameters; GraphQL renames its input);
     * unknown or malformed values are ignored, as PostHog does. Each record has the `parts` its
     * reader shows (a GraphQL selection), every part by default (REST). Scope `feature_flag:read`.
     * @throws NotFoundError, PermissionDeniedError.
     */
    async list<P extends FlagPart = FlagPart>(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
      parts: ReadonlySet<P> = ALL_FLAG_PARTS as ReadonlySet<P>,
    ): Promise<{ count: number; results: FlagRecordWith<P>[] }> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:read");
      const filters = parseInput(flagListFiltersSchema, query, ctx.limits);
      const where = flagListWhere(project.id, filters, deps.now());
      return selectFlagPage(ctx.reader, where, filters.order, page, parts);
    },

    /**
     * One flag of the project by id or by key, soft-deleted ones included (spec row 3, §2.3).
     * Scope `feature_flag:read`. @throws NotFoundError when not in this project; ValidationError
     * `null_characters_not_allowed` for a key PostgreSQL cannot compare (a NUL, as every stored string).
     */
    async get(
      ctx: ServiceContext,
      projectId: number,
      by: { id: number } | { key: string },
    ): Promise<FlagRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      if ("key" in by) checkStorableString(by.key, "key");
      const name = "id" in by ? `id:${by.id}` : `key:${by.key}`;
      return sharedRead(ctx, `feature_flags:${projectId}:${name}`, () => readOne(ctx.reader, projectId, by));
    },

    /**
     * Flags of the project by id, in the order asked, null where none (a batch for dataloaders).
     * Scope `feature_flag:read`.
     */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<(FlagRecord | null)[]> {
      await authorizeProject(ctx, projectId, "feature_flag:read");
      return inIdOrder(ids, await selectFlags(ctx.reader, projectId, { ids }));
    },

    /**
     * Creates a flag (spec row 2, §2.4) and returns it as read inside the write's transaction.
     * Scope `feature_flag:write`.
     * @throws ValidationError for any rule of §2.4–2.6; NotImplementedError for encrypted payloads.
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<FlagRecord> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:write");
      return (await createFlag(ctx, project.id, body, async () => undefined)).flag;
    },

    /**
     * Creates a flag for another domain that has already authorised its own operation (PostHog's
     * experiment create runs `FeatureFlagSerializer` directly: every flag rule applies, no flag scope
     * is asked), then runs `within` in the same transaction with the new flag's id, so the caller's
     * rows commit or roll back with the flag. Returns the flag as read in the transaction and
     * `within`'s result. @throws ValidationError for any flag rule (attrs as on flag create).
     */
    async createWithin<T>(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
      within: (tx: Prisma.TransactionClient, flag: { id: number; key: string }) => Promise<T>,
    ): Promise<{ flag: FlagRecord; result: T }> {
      return createFlag(ctx, projectId, body, within);
    },

    /**
     * Rewrites a flag's `filters` inside another domain's transaction `tx`, for an operation that
     * domain has authorised (a holdout's new groups copied to its draft experiments' flags,
     * ee/clickhouse/views/experiment_holdouts.py, which saves each flag through the flag serializer):
     * locks the flag's row, then writes `rewrite` of the filters as stored there, by the same rules,
     * version bump and activity entry as a flag PATCH. Nothing is written when the filters are
     * unchanged. The caller's rows are locked after the flag's (lock order: flag, then the others).
     * @throws ValidationError, NotFoundError: the caller's transaction then rolls back whole.
     */
    async updateFiltersIn(
      tx: Prisma.TransactionClient,
      ctx: ServiceContext,
      projectId: number,
      id: number,
      rewrite: (stored: Record<string, unknown>) => Record<string, unknown>,
    ): Promise<FlagRecord> {
      const current = await lockFlag(tx, projectId, id);
      const filters = rewrite(current.filters as Record<string, unknown>);
      const input = parseInput(updateFlagSchema, { filters }, ctx.limits);
      // Every read inside the caller's transaction: its client may be the only connection (PGlite).
      const lookups = updateLookups(ctx, tx, projectId, id, input, () => false);
      return writeUpdate(tx, ctx, projectId, current, input, { kind: "posthog" }, lookups);
    },

    /**
     * Rewrites a flag's `filters` for another domain that has authorised its own operation (an
     * experiment's draft variants or holdout, ee/clickhouse/views/experiments.py `update`, which runs
     * the flag serializer's partial update): every filter rule, the version bump and the flag's
     * activity entry apply as on a flag PATCH, under the flag's row lock. `within` (the other
     * domain's own write, e.g. the experiment's) runs in the flag write's transaction after it, also
     * when the filters change nothing: both are written or neither.
     * @throws ValidationError, NotFoundError, ConflictError, and whatever `within` throws, unchanged.
     */
    async updateFiltersWithin(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      filters: Record<string, unknown>,
      within: (tx: Prisma.TransactionClient) => Promise<void>,
    ): Promise<FlagRecord> {
      const input = parseInput(updateFlagSchema, { filters }, ctx.limits);
      return applyUpdate(ctx, projectId, id, input, { kind: "posthog" }, within);
    },

    /**
     * Turns a flag on inside another domain's transaction `tx` (an experiment's launch: PostHog sets
     * `feature_flag.active = True` and saves the model, no serializer rule): bumps the version, stamps
     * the modifier and writes the flag's `updated` activity entry. No-op when already active.
     * The update is conditional on the flag being inactive and increments the stored version, so a
     * concurrent flag write is neither overwritten nor given the same version, and a flag turned on
     * by two transactions at once is turned on (and logged) once.
     */
    async activateWithin(
      tx: Prisma.TransactionClient,
      projectId: number,
      id: number,
      userId: number,
    ): Promise<void> {
      const { count } = await tx.featureFlag.updateMany({
        where: { id, projectId, active: false },
        data: { active: true, version: { increment: 1 }, lastModifiedById: userId },
      });
      if (count === 0) return;
      const updated = await readOne(prismaReader(tx), projectId, { id });
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
    },

    /**
     * Partially updates a flag from a REST body (spec row 4, `PATCH`; §2.7): absent fields keep their
     * value. A stale body `version` is a conflict only under PostHog's `original_flag` rule (see
     * `ConflictRule`). Scope `feature_flag:write`.
     * @throws NotFoundError, ValidationError, ConflictError (409).
     */
    async update(ctx: ServiceContext, projectId: number, id: number, body: unknown): Promise<FlagRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:write");
      return applyUpdate(ctx, projectId, id, parseInput(updateFlagSchema, body, ctx.limits), {
        kind: "posthog",
      });
    },

    /**
     * Fully updates a flag from a REST body (`PUT`; DRF's non-partial update, §2.7): `key` is
     * required, as on create; otherwise as `update`. Scope `feature_flag:write`.
     * @throws NotFoundError, ValidationError, ConflictError (409).
     */
    async replace(ctx: ServiceContext, projectId: number, id: number, body: unknown): Promise<FlagRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:write");
      return applyUpdate(ctx, projectId, id, parseInput(replaceFlagSchema, body, ctx.limits), {
        kind: "posthog",
      });
    },

    /**
     * Updates a flag from GraphQL: as `update`, but the version check is strict: `expectedVersion`
     * other than the stored version is a ConflictError whatever changed (null: no check).
     * Scope `feature_flag:write`. @throws NotFoundError, ValidationError, ConflictError.
     */
    async updateExpecting(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
      expectedVersion: number | null,
    ): Promise<FlagRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:write");
      const input = parseInput(updateFlagSchema, body, ctx.limits);
      return applyUpdate(ctx, projectId, id, input, { kind: "expectedVersion", version: expectedVersion });
    },

    /** Hard delete, which PostHog refuses (spec row 5; core/forbid-destroy.ts). Scope `feature_flag:write` first. */
    destroy: forbidDestroy("feature_flag:write"),

    /**
     * Activity of one flag (`flagId`) or of all the project's flags (null), newest first (§2.9).
     * Scope `activity_log:read`. @throws NotFoundError when the flag is not in this project.
     */
    async activity(
      ctx: ServiceContext,
      projectId: number,
      flagId: number | null,
      paging: ActivityPaging,
    ): Promise<ActivityPage> {
      const project = await authorizeProject(ctx, projectId, "activity_log:read");
      if (flagId !== null) {
        const found = await ctx.db.featureFlag.findFirst({
          where: { id: flagId, projectId },
          select: { id: true },
        });
        if (!found) throw new NotFoundError();
      }
      return listActivity(ctx.db, {
        projectId: project.id,
        scope: "FeatureFlag",
        ...(flagId === null ? {} : { itemId: String(flagId) }),
        ...paging,
      });
    },
  };
}

/** The feature-flag service's operations. */
export type FeatureFlagService = ReturnType<typeof createFeatureFlagService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createFeatureFlagService`. */
    featureFlags: FeatureFlagService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Feature flags' entries (posthog-behavior.md §2.9). */
    FeatureFlag: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Flags (`id` integer). */
    feature_flags: number;
  }
}

declare module "../core/rate-limit.js" {
  interface RateScopes {
    /** Local-evaluation polls, per project (PostHog's `LocalEvaluationThrottle`). */
    local_evaluation: true;
    /** `remote_config` reads, per project (PostHog's `RemoteConfigThrottle`). */
    remote_config: true;
    /** Remote flag evaluation (`/flags`, `/decide`, OFREP), per project token. */
    flags: true;
  }
}
