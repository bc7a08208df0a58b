/**
 * Scheduled changes (issue 26 part B): PostHog's `/api/projects/:project_id/scheduled_changes/`
 * (products/feature_flags/backend/api/scheduled_change.py), a change to a feature flag applied at a
 * time, once or on a recurrence, by the job queue (posthog/tasks/process_scheduled_changes.py).
 *
 * CRUD: scopes `feature_flag:read` / `feature_flag:write` (PostHog's `scope_object = "feature_flag"`);
 * PostHog's field rules and messages (scheduled-changes.schemas.ts, rules/schedule.ts); the target
 * flag must exist and not be deleted (`Feature flag not found`), and its id is stored canonical
 * (`"0012"` → `"12"`); `timezone` is the project's at creation. PostHog writes no activity entry for
 * a schedule's own writes, nor does this service. Creating or moving a schedule enqueues its run job
 * to be due at `scheduled_at`; how runs apply changes is scheduled-changes.runs.ts. A change an
 * approval policy gates waits for a change request bound at scheduling (scheduled-changes.gating.ts).
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { idRecordReads } from "../core/id-record-reads.js";
import type { JobQueue } from "../core/jobs/jobs.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { parseInput, parseIntegerId } from "../core/validation.js";
import type { Prisma, ScheduledChange } from "../generated/prisma/client.js";
import { checkSchedule, isPaused } from "./rules/schedule.js";
import { bindingFor, RETIME_REFUSED, TIMING_FIELDS } from "./scheduled-changes.gating.js";
import {
  findScheduledChange,
  type ScheduledChangeRecord,
  selectScheduledChangePage,
  selectScheduledChanges,
} from "./scheduled-changes.queries.js";
import {
  createScheduledChangeRuns,
  runJobKey,
  SCHEDULED_CHANGE_RUN_JOB,
  SCHEDULED_CHANGES_SWEEP_JOB,
  type ScheduledChangeCollaborators,
  storedSchedule,
} from "./scheduled-changes.runs.js";
import { createScheduledChangeSchema, updateScheduledChangeSchema } from "./scheduled-changes.schemas.js";
import {
  deleteScheduledChangeRow,
  insertScheduledChange,
  lockScheduledChange,
  writeScheduledChange,
} from "./scheduled-changes.store.js";

/** Whether two stored field values are the same (instants by their time). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return (a ?? null) === (b ?? null);
}

/** `Feature flag not found`: the target is no flag of the project (or a deleted one), as PostHog words it. */
const flagNotFound = () => new ValidationError("Feature flag not found", { code: "invalid" });

/** Creates the scheduled-change service. */
export function createScheduledChangeService(deps: ServiceDeps, others: ScheduledChangeCollaborators) {
  const { featureFlags, approvals } = others;
  let queue: JobQueue | null = null;
  /** How long until `at` on the service clock, in ms, at least 0 (the queue counts on its own clock). */
  const msUntil = (at: Date) => Math.max(0, at.getTime() - deps.now().getTime());

  const reads = idRecordReads("feature_flag:read", {
    findOne: findScheduledChange,
    selectMany: selectScheduledChanges,
    selectPage: selectScheduledChangePage,
  });
  /** The scheduled change `id` of the project, unchecked (for the writes). @throws NotFoundError */
  const { find } = reads;

  /**
   * The id of the flag a schedule targets (`_check_target_edit_permission`): `recordId` names a
   * non-deleted flag of the project (any integer spelling: `" 12"`, `"012"`).
   * @throws ValidationError `Feature flag not found`.
   */
  async function targetFlag(ctx: ServiceContext, projectId: number, recordId: string): Promise<number> {
    const id = parseIntegerId(recordId.trim());
    if (id === null) throw flagNotFound();
    try {
      const flag = await featureFlags.get(ctx, projectId, { id });
      if (flag.deleted) throw flagNotFound();
      return flag.id;
    } catch (error) {
      if (error instanceof NotFoundError) throw flagNotFound();
      throw error;
    }
  }

  /**
   * Enqueues `change`'s run to be due at its `scheduled_at` (at once when past), replacing the one
   * waiting; nothing for an executed or paused one (its waiting run, if any, finds nothing to do), or
   * before the queue is attached (the sweep then runs it once due).
   */
  async function scheduleRun(change: ScheduledChange): Promise<void> {
    if (!queue || change.executedAt !== null || isPaused(storedSchedule(change))) return;
    await queue.enqueue(
      SCHEDULED_CHANGE_RUN_JOB,
      { id: change.id },
      { jobKey: runJobKey(change.id), delayMs: msUntil(change.scheduledAt) },
    );
  }

  const runs = createScheduledChangeRuns(deps, others, scheduleRun);

  return {
    /**
     * One page of the project's scheduled changes in creation order, filtered by exact `model_name`
     * and `record_id` when given: `{count, results}`. Scope `feature_flag:read`.
     */
    list: reads.list,

    /**
     * One page of the scheduled changes of flag `flagId` (GraphQL `FeatureFlag.scheduledChanges`), in
     * creation order. Scope `feature_flag:read`.
     */
    listForFlag(
      ctx: ServiceContext,
      projectId: number,
      flagId: number,
      page: OffsetPage,
    ): Promise<{ count: number; results: ScheduledChangeRecord[] }> {
      return reads.list(ctx, projectId, { modelName: "FeatureFlag", recordId: String(flagId) }, page);
    },

    /** One scheduled change. Scope `feature_flag:read`. @throws NotFoundError */
    get: reads.get,

    /**
     * Scheduled changes of project `projectId` by id, in order, null where none (GraphQL's `node`,
     * `nodes`). One statement after the project check. Scope `feature_flag:read`.
     */
    getMany: reads.getMany,

    /**
     * Schedules a change (`POST`): PostHog's field rules, then `checkSchedule`'s, then the target flag
     * (`Feature flag not found`); stores it with the caller as creator and the project's time zone,
     * bound to a new pending change request when an approval policy gates the change
     * (scheduled-changes.gating.ts), and enqueues its run for `scheduled_at`. Scope `feature_flag:write`.
     * @throws ValidationError (DRF's field messages, rules/schedule.ts's, `Feature flag not found`);
     *   PolicyConflictError (400); ChangeRequestPendingError (409) when another request of the action is open.
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<ScheduledChangeRecord> {
      const project = await authorizeProject(ctx, projectId, "feature_flag:write");
      const input = parseInput(createScheduledChangeSchema, body, ctx.limits);
      const fields = checkSchedule(input, null);
      const flagId = await targetFlag(ctx, project.id, fields.recordId);
      // The schedule and the change request it waits for are stored together, or neither.
      const created = await transactional(ctx, async (tx) => {
        const bound = await bindingFor(others, tx, ctx, {
          projectId: project.id,
          flagId,
          payload: fields.payload,
          own: null,
        });
        return insertScheduledChange(
          tx,
          project.id,
          { ...fields, recordId: String(flagId) },
          bound,
          ctx.actor.user.id,
          project.timezone,
          deps.now(),
        );
      });
      await scheduleRun(created);
      return created;
    },

    /**
     * Changes a scheduled change (PATCH: absent fields keep; PUT: `create`'s required fields), by
     * `checkSchedule`'s rules against the stored one, decided again under its row lock; the target
     * must still be a flag (`Feature flag not found`). While its change request is pending or
     * approved its timing cannot change (PostHog's `_reject_timing_change_on_gated_schedule`); a
     * payload given is gated again as the editing user. Its run is enqueued again for its (new)
     * `scheduled_at`. Scope `feature_flag:write`.
     * @throws NotFoundError, ValidationError; PolicyConflictError, ChangeRequestPendingError as `create`.
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
      partial: boolean,
    ): Promise<ScheduledChangeRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:write");
      const current = await find(ctx, projectId, id);
      const input = parseInput(
        partial ? updateScheduledChangeSchema : createScheduledChangeSchema,
        body,
        ctx.limits,
      );
      checkSchedule(input, storedSchedule(current));
      const flagId = await targetFlag(ctx, projectId, current.recordId);
      const updated = await transactional(ctx, async (tx) => {
        const locked = await lockScheduledChange(tx, projectId, id);
        const fields = checkSchedule(input, storedSchedule(locked));
        let bound = locked.changeRequestId;
        const retimed = TIMING_FIELDS.find(([field]) => !sameValue(fields[field], locked[field]));
        if (retimed && bound && (await approvals.isOpen(tx, projectId, bound))) {
          throw new ValidationError(RETIME_REFUSED, { attr: retimed[1], code: "invalid" });
        }
        if (input.payload !== undefined) {
          bound = await bindingFor(others, tx, ctx, {
            projectId,
            flagId,
            payload: fields.payload,
            own: bound,
          });
        }
        return writeScheduledChange(tx, locked.id, fields, bound, deps.now());
      });
      await scheduleRun(updated);
      return updated;
    },

    /**
     * Deletes a scheduled change (its waiting run then finds nothing); the change request it waited
     * for, if still open, expires. Returns it as it was. Scope `feature_flag:write`. @throws NotFoundError
     */
    async remove(ctx: ServiceContext, projectId: number, id: number): Promise<ScheduledChangeRecord> {
      await authorizeProject(ctx, projectId, "feature_flag:write");
      return transactional(ctx, async (tx: Prisma.TransactionClient) => {
        // Of concurrent deletes the first deletes; the others find no row (404).
        const current = await lockScheduledChange(tx, projectId, id);
        // A request left without its schedule must never be approved into applying.
        if (current.changeRequestId)
          await approvals.releaseBinding(tx, ctx, projectId, current.changeRequestId);
        await deleteScheduledChangeRow(tx, current.id);
        return current;
      });
    },

    /** Hands the started job queue over (src/app.ts, once the queue runs) and enqueues a sweep now, for what came due while no process ran. */
    async attachQueue(started: JobQueue): Promise<void> {
      queue = started;
      await started.enqueue(SCHEDULED_CHANGES_SWEEP_JOB);
    },

    runOne: runs.runOne,

    /** See `createScheduledChangeRuns`: every due change, one transaction each. */
    sweep: runs.sweep,
  };
}

/** The scheduled-change service's operations. */
export type ScheduledChangeService = ReturnType<typeof createScheduledChangeService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createScheduledChangeService`. */
    scheduledChanges: ScheduledChangeService;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Scheduled changes (`id` integer). */
    scheduled_changes: number;
  }
}
