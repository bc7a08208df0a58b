/**
 * Experiment holdouts (`/api/projects/:project_id/experiment_holdouts/`,
 * ee/clickhouse/views/experiment_holdouts.py): a share of users kept out of every experiment that
 * uses the holdout. Their `filters` are groups each with a `rollout_percentage` in [0, 100]; on
 * save each group gets `variant: "holdout-<id>"`, the variant their users see. Scopes
 * `experiment_holdout:read|write`; activity scope `ExperimentHoldout`. Part of the experiment
 * service (experiments.service.ts), whose doors call these as `listHoldouts`, `createHoldout`, ...
 */
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError } from "../core/errors.js";
import { retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import type { HoldoutRecord } from "./experiments.queries.js";
import { checkHoldoutFilters, holdoutSchema, holdoutUpdateSchema } from "./experiments.schemas.js";
import {
  holdoutTable,
  insertHoldout,
  readWrittenHoldout,
  selectDraftFlagIds,
  writeHoldoutFilters,
  writeHoldoutRow,
} from "./holdouts.store.js";
import { projectObjectOperations } from "./project-objects.js";

type Obj = Record<string, unknown>;

/** A flag's filters with `holdout_groups` set to `groups`, or without the key when there is no holdout. */
export function withHoldoutGroups(filters: Obj, groups: unknown): Obj {
  const { holdout_groups: _, ...rest } = filters;
  return Array.isArray(groups) ? { ...rest, holdout_groups: groups } : rest;
}

/** `groups` with each one's `variant` set to the holdout's (`holdout-<id>`). */
function holdoutGroups(groups: readonly unknown[], id: number): Obj[] {
  return groups.map((g) => ({ ...(g as Obj), variant: `holdout-${id}` }));
}

/**
 * What holdouts need from the flag service: rewriting a draft experiment's flag filters, joined into
 * the holdout's `transactional` (core/transactional.ts).
 */
export interface HoldoutCollaborators {
  featureFlags: Pick<FeatureFlagService, "rewriteFiltersAuthorized">;
}

/** The answer when a holdout's update kept finding what it decided from moved (core/row-lock.ts). */
const moved = () =>
  new ConflictError(
    "The holdout was updated by another request since you started editing it. Please refresh and try again.",
  );

/** Creates the holdout operations of the experiment service. */
export function createHoldoutOperations(deps: ServiceDeps, { featureFlags }: HoldoutCollaborators) {
  const objects = projectObjectOperations<HoldoutRecord>({
    scope: "experiment_holdout",
    activityScope: "ExperimentHoldout",
    sqlTable: "experiment_holdouts",
    table: holdoutTable,
  });

  return {
    /** The project's holdouts, newest first (`{count, results}`). Scope `experiment_holdout:read`. */
    listHoldouts: objects.list,

    /** One holdout. Scope `experiment_holdout:read`. @throws NotFoundError */
    getHoldout: objects.get,

    /** Deletes a holdout (204; experiments using it lose it). Scope `experiment_holdout:write`. @throws NotFoundError */
    deleteHoldout: objects.remove,

    /**
     * Creates a holdout: `filters` groups each need a `rollout_percentage` in [0, 100]; on save each
     * group gets `variant: "holdout-<id>"`. Activity `created`. Scope `experiment_holdout:write`.
     * @throws ValidationError
     */
    async createHoldout(ctx: ServiceContext, projectId: number, body: unknown): Promise<HoldoutRecord> {
      const project = await authorizeProject(ctx, projectId, "experiment_holdout:write");
      const input = parseInput(holdoutSchema, body, ctx.limits);
      checkHoldoutFilters(input.filters);
      const userId = ctx.actor.user.id;
      return transactional(ctx, async (tx) => {
        const createdId = await insertHoldout(
          tx,
          project.id,
          { name: input.name, description: input.description ?? null },
          userId,
        );
        await writeHoldoutFilters(tx, createdId, holdoutGroups(input.filters, createdId));
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "ExperimentHoldout",
          itemId: String(createdId),
          activity: "created",
          name: input.name,
          changes: null,
        });
        return readWrittenHoldout(tx, createdId);
      });
    },

    /**
     * Updates a holdout (PATCH/PUT); changed `filters` get their `variant` again and are copied to the
     * `holdout_groups` of the flags of its draft experiments (PostHog updates their flags), each under
     * its row lock, in the holdout's transaction: the holdout and its drafts' flags are written
     * together or not at all. The holdout's own row is locked after its flags' (lock order: flags
     * first), and its activity entry is judged from the locked row: concurrent updates take turns.
     * The flags' writes join the holdout's `transactional`; a RowMoved from them (none today: each
     * flag is decided under its lock) would roll it back to this update's `retryWhileMoved`.
     * Scope `experiment_holdout:write`. @throws NotFoundError, ValidationError
     */
    async updateHoldout(ctx: ServiceContext, projectId: number, id: number, body: unknown, partial: boolean) {
      await authorizeProject(ctx, projectId, "experiment_holdout:write");
      await objects.find(ctx, projectId, id);
      const input = parseInput(partial ? holdoutUpdateSchema : holdoutSchema, body, ctx.limits);
      if (input.filters) checkHoldoutFilters(input.filters);
      const filters = input.filters ? holdoutGroups(input.filters, id) : undefined;
      const userId = ctx.actor.user.id;
      const attempt = () =>
        transactional(ctx, async (tx) => {
          if (filters) {
            // The flags' rows are locked first (in id order), as every flag write takes its row before others.
            for (const featureFlagId of await selectDraftFlagIds(tx, projectId, id)) {
              await featureFlags.rewriteFiltersAuthorized(ctx, projectId, featureFlagId, (stored) =>
                withHoldoutGroups(stored, filters),
              );
            }
          }
          const current = await objects.lock(tx, projectId, id);
          const updated = await writeHoldoutRow(
            tx,
            id,
            { name: input.name, description: input.description, filters },
            deps.now(),
          );
          await recordActivity(tx, {
            projectId,
            userId,
            scope: "ExperimentHoldout",
            itemId: String(id),
            activity: "updated",
            name: updated.name,
            changes: changesBetween(
              "ExperimentHoldout",
              { name: current.name, description: current.description, filters: current.filters },
              { name: updated.name, description: updated.description, filters: updated.filters },
            ),
          });
          return updated;
        });
      return retryWhileMoved(attempt, moved);
    },
  };
}
