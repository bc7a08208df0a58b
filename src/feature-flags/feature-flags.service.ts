/**
 * The feature-flag service: every flag operation of both front doors. It checks scopes and project
 * access, validates input, applies PostHog's rules and returns records. It knows nothing of HTTP or
 * GraphQL: ids arrive parsed, bodies arrive as PostHog's snake_case JSON (GraphQL re-encodes its
 * inputs). Creates and updates (PostHog's rules in order, the row lock, the version bump, the
 * activity entry in one transaction) are feature-flags.writes.ts; how flags are stored,
 * feature-flags.store.ts; how they are read, feature-flags.queries.ts.
 * Source of the rules: `posthog/api/feature_flag.py`; posthog-behavior.md §2.3–2.9.
 */
import { type AppliedChange, PreconditionFailed } from "../approvals/approvals.service.js";
import type { FlagChange } from "../approvals/rules/actions.js";
import type { CohortRecord } from "../cohorts/cohorts.queries.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import { type ActivityPage, changesBetween, listActivity, recordActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectScopes, authorizeProjectStream } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import { checkNestingDepth, checkStorableString } from "../core/json-input.js";
import { objectChanges } from "../core/live-changes.js";
import { versionOperations } from "../core/object-versions.js";
import type { ActivityPaging, OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { sharedRead } from "../core/shared-reads.js";
import { readerOf, transactional } from "../core/transactional.js";
import { inIdOrder, parseInput, parseIntegerId } from "../core/validation.js";
import type { ObjectChange } from "../db/change-feed.js";
import type { RunSqlTransaction } from "../db/sql-transaction.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { GroupService } from "../groups/groups.service.js";
import type { PersonService } from "../persons/persons.service.js";
import type { FlagEvaluationService } from "./evaluation/evaluation.service.js";
import {
  ALL_FLAG_PARTS,
  type FlagPart,
  type FlagRecord,
  type FlagRecordWith,
  flagListWhere,
  readFlag,
  selectFlagKeys,
  selectFlagPage,
  selectFlags,
} from "./feature-flags.queries.js";
import { flagListFiltersSchema, replaceFlagSchema, updateFlagSchema } from "./feature-flags.schemas.js";
import { activateIfInactive, flagExists, readFlagIn, readFlagSummaries } from "./feature-flags.store.js";
import {
  createFlagWrites,
  type FlagWriteCollaborators,
  gatedChange,
  recordFlagVersion,
} from "./feature-flags.writes.js";
import { type FlagCallRollup, rollUpFlagCalls } from "./flag-calls.js";
import { readBlastRadiusQuery } from "./rules/blast-radius.js";
import { bulkKeysBodySchema, readFlagIds } from "./rules/bulk-keys.js";
import type { FlagSummary } from "./rules/filter-types.js";
import {
  type DependentFlagEntry,
  dependentFlagEntry,
  dependentFlags,
  dependentsWarning,
} from "./rules/flag-dependencies.js";
import { remoteConfigPayload } from "./rules/remote-config.js";
import { staticCohortName } from "./rules/static-cohort.js";
import { type FlagStatusResult, flagStatus } from "./rules/status.js";

/**
 * The fields of a kept version (core/object-versions.ts) a restore writes: what a flag PATCH sets,
 * less `deleted` (a restore neither deletes nor undeletes), the usage dashboard and the encrypted
 * payloads switch (not built). `filters` follow the PATCH rule: without `groups` they keep the
 * stored ones (§2.5 rule 1).
 */
function flagRestoreBody(snapshot: Record<string, unknown>): Record<string, unknown> {
  const fields = [
    "name",
    "key",
    "filters",
    "active",
    "ensure_experience_continuity",
    "rollback_conditions",
    "has_enriched_analytics",
    "is_remote_configuration",
    "evaluation_runtime",
    "bucketing_identifier",
    "tags",
    "evaluation_tags",
  ];
  return Object.fromEntries(fields.filter((f) => f in snapshot).map((f) => [f, snapshot[f]]));
}

/** The other domains' services the flag service calls (and, through it, its writes). */
export interface FlagServiceCollaborators extends FlagWriteCollaborators {
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
  const { cohorts } = others;
  const { createFlag, applyUpdate, updateLockedFilters } = createFlagWrites(others);
  const versions = versionOperations({
    scope: "FeatureFlag",
    readScope: "feature_flag:read",
    writeScope: "feature_flag:write",
    exists: (ctx, projectId, id) => flagExists(ctx.db, projectId, id),
    restoreBody: flagRestoreBody,
    update: (ctx, projectId, id, body) =>
      applyUpdate(ctx, projectId, id, parseInput(updateFlagSchema, body, ctx.limits), { kind: "posthog" }),
  });

  /**
   * The non-deleted, active flags depending on each of `ids` (§2.6 `dependentFlags`), by key, from
   * one read of the project's flags. Flags of `ids` not in the project have none.
   */
  async function dependentsByFlag(
    ctx: ServiceContext,
    projectId: number,
    ids: readonly number[],
  ): Promise<Map<number, Array<FlagSummary & { name: string }>>> {
    const flags = await readFlagSummaries(ctx.db, projectId);
    return new Map(ids.map((id) => [id, dependentFlags(id, flags.values())]));
  }

  /** One flag's dependents (§2.6), after checking it is in the project. @throws NotFoundError */
  async function dependentsOfOne(ctx: ServiceContext, projectId: number, id: number) {
    await readFlag(ctx.reader, projectId, { id });
    return (await dependentsByFlag(ctx, projectId, [id])).get(id) ?? [];
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
      return flagStatus(await readFlag(ctx.reader, projectId, { id }), deps.now());
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
      const payload = remoteConfigPayload(await readFlag(ctx.reader, projectId, by));
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
      const flag = await readFlag(ctx.reader, projectId, { id });
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
      return sharedRead(ctx, `feature_flags:${projectId}:${name}`, () => readFlag(ctx.reader, projectId, by));
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
     * Creates a flag (spec row 2, §2.4) and returns it as read inside the write's transaction. A
     * create an approval policy gates (born active under `feature_flag.enable`, a rollout under
     * `feature_flag.update`) is held as a change request instead (issue 27). Scope `feature_flag:write`.
     * @throws ValidationError for any rule of §2.4–2.6; NotImplementedError for encrypted payloads;
     *   ApprovalRequiredError, ChangeRequestPendingError (409), PolicyConflictError (400).
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<FlagRecord> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:write");
      return createFlag(ctx, project.id, body, true);
    },

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
      change: { active: boolean } | { rewrite: (stored: Record<string, unknown>) => Record<string, unknown> },
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

    /** A page of a flag's kept versions, highest first, with their changes (issue 27). Scope `feature_flag:read`. @throws NotFoundError */
    versions: versions.versions,
    /** One kept version of a flag (issue 27). Scope `feature_flag:read`. @throws NotFoundError (flag or version) */
    version: versions.version,
    /**
     * Restores a flag to kept version n (issue 27): a flag PATCH of that version's fields (every
     * rule, the version bump, activity with the `version_restore` trigger, webhooks), returning the
     * flag as written. Scope `feature_flag:write`. @throws NotFoundError, ValidationError, as `update`.
     */
    restoreVersion: versions.restore,

    /**
     * Applies an approved change request's intent to its flag (issue 27; PostHog's
     * `FeatureFlagActionBase.apply`) as `ctx`'s user (the requester), after the approval was
     * authorised: the stored body through the flag's update path, under the row lock, only if the
     * flag's version is still the one the request was made against; a held create (`flag_id` null)
     * creates the flag by the create's rules. Returns PostHog's `result_data`.
     * @throws PreconditionFailed (`Flag version mismatch: expected N, got M`); what the update or the
     *   create throws (a key taken meanwhile: ValidationError).
     */
    async applyApprovedChange(
      ctx: ServiceContext,
      projectId: number,
      intent: Record<string, unknown>,
    ): Promise<AppliedChange> {
      if (intent["flag_id"] === null) {
        // A gated create: the flag is created now, by the create's rules (a taken key fails it).
        const flag = await createFlag(ctx, projectId, intent["full_request_data"] ?? {}, true);
        return { resource_id: flag.id, resource_version: flag.version };
      }
      const id = Number(intent["flag_id"]);
      const expected = Number((intent["preconditions"] as { version?: unknown } | undefined)?.version);
      const body = parseInput(updateFlagSchema, intent["full_request_data"] ?? {}, ctx.limits);
      try {
        const flag = await applyUpdate(ctx, projectId, id, body, {
          kind: "expectedVersion",
          version: expected,
        });
        return { resource_id: flag.id, resource_version: flag.version };
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const now = await readFlag(readerOf(ctx), projectId, { id });
        throw new PreconditionFailed(`Flag version mismatch: expected ${expected}, got ${now.version}`);
      }
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
        if (!(await flagExists(ctx.db, projectId, flagId))) throw new NotFoundError();
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
