/**
 * The feature-flag service: every flag operation of both front doors. It checks scopes and project
 * access, validates input, applies PostHog's rules and returns records. It knows nothing of HTTP or
 * GraphQL: ids arrive parsed, bodies arrive as PostHog's snake_case JSON (GraphQL re-encodes its
 * inputs). Creates and updates (PostHog's rules in order, the row lock, the version bump, the
 * activity entry in one transaction) are feature-flags.writes.ts; how flags are stored,
 * feature-flags.store.ts; how they are read, feature-flags.queries.ts.
 * The service's operations by job: the flags depending on a flag, flag-dependents.service.ts; blast
 * radius and static cohorts, flag-audience.service.ts; the operations other domains call after
 * authorising their own, flag-authorized.service.ts; version history, restores and approved
 * changes, flag-versions.service.ts.
 * Source of the rules: `posthog/api/feature_flag.py`; posthog-behavior.md §2.3–2.9.
 */
import type { CohortService } from "../cohorts/cohorts.service.js";
import { type ActivityPage, listActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectStream } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import { checkStorableString } from "../core/json-input.js";
import { objectChanges } from "../core/live-changes.js";
import type { ActivityPaging, OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { sharedRead } from "../core/shared-reads.js";
import { inIdOrder, parseInput, parseIntegerId } from "../core/validation.js";
import type { ObjectChange } from "../db/change-feed.js";
import type { RunSqlTransaction } from "../db/sql-transaction.js";
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
import { flagExists } from "./feature-flags.store.js";
import { createFlagWrites } from "./feature-flags.writes.js";
import { createFlagAudienceOperations, type FlagAudienceCollaborators } from "./flag-audience.service.js";
import { createAuthorizedFlagOperations } from "./flag-authorized.service.js";
import { type FlagCallRollup, rollUpFlagCalls } from "./flag-calls.js";
import { createFlagDependentOperations } from "./flag-dependents.service.js";
import { createFlagVersionOperations } from "./flag-versions.service.js";
import type { FlagWriteCollaborators } from "./flag-write-checks.js";
import { bulkKeysBodySchema, readFlagIds } from "./rules/bulk-keys.js";
import { remoteConfigPayload } from "./rules/remote-config.js";
import { type FlagStatusResult, flagStatus } from "./rules/status.js";

/** The other domains' services the flag service calls (and, through it, its writes). */
export interface FlagServiceCollaborators extends FlagWriteCollaborators, FlagAudienceCollaborators {
  /**
   * Tells the filter rules about the cohorts a flag names (existence, PostHog's
   * `behavioral_cohort_found`); writes the static cohort of `create_static_cohort_for_flag`.
   */
  cohorts: Pick<CohortService, "summariesForFlags" | "createStaticWithPersons">;
}

/** `POST bulk_keys/`'s answer (§2.10): key by id (as text) of the project's non-deleted flags asked for. */
export interface FlagKeys {
  keys: Record<string, string>;
  /** PostHog's warning naming the items that were not ids, when some were. */
  warning?: string;
}

/** Creates the feature-flag service. */
export function createFeatureFlagService(deps: ServiceDeps, others: FlagServiceCollaborators) {
  const writes = createFlagWrites(others);
  const { createFlag, applyUpdate } = writes;

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
     * Moves every flag's `last_called_at` to its latest `$feature_flag_called` event since the last
     * roll-up (§2.12; flag-calls.ts says how and why not per event). A system task: no caller, no
     * scope. `transaction` runs its statements. Returns what it did (`skipped` when another process
     * holds the roll-up).
     */
    rollUpCalls(transaction: RunSqlTransaction): Promise<FlagCallRollup> {
      return rollUpFlagCalls(transaction, deps.now);
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
        if (!(await flagExists(ctx.db, projectId, flagId))) throw new NotFoundError();
      }
      return listActivity(ctx.db, {
        projectId: project.id,
        scope: "FeatureFlag",
        ...(flagId === null ? {} : { itemId: String(flagId) }),
        ...paging,
      });
    },

    ...createFlagDependentOperations(),
    ...createFlagAudienceOperations(deps, others),
    ...createAuthorizedFlagOperations(others, writes),
    ...createFlagVersionOperations(writes),
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
