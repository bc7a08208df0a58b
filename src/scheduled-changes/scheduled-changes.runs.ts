/**
 * How scheduled changes run (issue 26 part B; the service, scheduled-changes.service.ts, keeps
 * their CRUD): PostHog's posthog/tasks/process_scheduled_changes.py on the job queue.
 *
 * Execution (`runOne`, the `scheduled-change-run` job; `sweep`, the `scheduled-changes-sweep` job):
 * - **On time**: creating or moving a schedule enqueues its run job to be due at `scheduled_at`
 *   (graphile-worker's `run_at` on PostgreSQL, the embedded queue on PGlite), one waiting job per
 *   schedule (job key `scheduled-change-run:<id>`); a recurring run enqueues the next one. A sweep
 *   at queue start and every minute runs whatever is due and was missed (a process down, a job lost
 *   between a commit and its enqueue), and retries recoverable failures, as PostHog's every-minute task.
 * - **Exactly once**: a run claims the row in a transaction (`FOR UPDATE SKIP LOCKED`, due and not
 *   executed: store `claimDueScheduledChange`), applies the change in a savepoint, and in the same
 *   transaction sets `executed_at` (one-time) or moves `scheduled_at` (recurring) or records the
 *   failure. A run in another process skips a held row, and finds it done once committed. Lock order:
 *   the schedule's row, then the flag's (no writer takes them the other way round).
 * - **Through the flag's update path**, as the schedule's creator (the flag's creator when that user
 *   is gone, as PostHog's `user or self.created_by`): `update_status` is the flag PATCH
 *   `{active: value}`, the filter operations rewrite the stored filters under the flag's row lock
 *   (rules/operations.ts), so every flag rule, the version bump, the activity entry, the change feed
 *   and webhooks apply. The activity entry carries PostHog's trigger, `{job_type: "scheduled_change",
 *   job_id, payload: {scheduled_change_id}}` (core/activity-log.ts `withActivityTrigger`).
 * - **Failures** as PostHog classifies them (rules/failures.ts): unrecoverable ones end the schedule
 *   (`executed_at` set, the change never applied), recoverable ones are retried by the sweep until 5
 *   failures in all; `failure_reason` keeps PostHog's context, shown formatted.
 * - **Recurrence** (rules/recurrence.ts): the next run from the one just made, skipping runs missed
 *   while late; past `end_date` the schedule ends; paused (`is_recurring` false, recurrence kept) it
 *   does not run.
 * - **Approvals** (issue 27, PostHog's `apply_gated_scheduled_change`): a schedule bound to a change
 *   request (scheduled-changes.gating.ts) applies its change only when the request is approved and
 *   not stale, and marks it applied; a request still pending at the run expires and the run is
 *   skipped, as it is for a rejected, expired or stale one. A recurring schedule is gated again for
 *   its next run; a refusal there (two policies, another open request) fails the run, which keeps
 *   its time.
 */
import os from "node:os";
import type { ApprovalService } from "../approvals/approvals.service.js";
import { type ActivityTrigger, withActivityTrigger } from "../core/activity-log.js";
import type { ActorUser } from "../core/auth/actor.js";
import type { Scope } from "../core/auth/scopes.js";
import { actingContext, type DataAccess, type ServiceContext } from "../core/context.js";
import { ConflictError, NotFoundError } from "../core/errors.js";
import type { ProjectRecord } from "../core/records.js";
import { MAX_DECISIONS, RowMoved } from "../core/row-lock.js";
import { databaseOf, type ServiceDeps } from "../core/services.js";
import { inSavepoint, readerOf, transactional } from "../core/transactional.js";
import { parseIntegerId } from "../core/validation.js";
import { readFlag } from "../feature-flags/feature-flags.queries.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import type { Prisma, ScheduledChange } from "../generated/prisma/client.js";
import { failedRun, ScheduledChangeError } from "./rules/failures.js";
import { flagChangeOf } from "./rules/operations.js";
import { nextRunAfter, type Recurrence } from "./rules/recurrence.js";
import { hasRecurrenceConfig, isPaused, type StoredSchedule } from "./rules/schedule.js";
import { bindingFor } from "./scheduled-changes.gating.js";
import { findScheduledChange } from "./scheduled-changes.queries.js";
import type { ModelName, RecurrenceInterval } from "./scheduled-changes.schemas.js";
import {
  claimDueScheduledChange,
  type RunOutcomeColumns,
  readRunTarget,
  selectDueIds,
  writeRunOutcome,
} from "./scheduled-changes.store.js";

/** The job that runs one scheduled change when it is due (payload `{id}`). */
export const SCHEDULED_CHANGE_RUN_JOB = "scheduled-change-run";

/** The job that runs every due change: at queue start and every `SWEEP_INTERVAL_MS`. */
export const SCHEDULED_CHANGES_SWEEP_JOB = "scheduled-changes-sweep";

/** How often the sweep runs, in ms: every minute, as PostHog's `process_scheduled_changes` task. */
export const SWEEP_INTERVAL_MS = 60_000;

/** Most changes one sweep runs (the rest wait for the next one). */
export const SWEEP_LIMIT = 1000;

/** The job key of scheduled change `id`'s run: one waiting run per schedule. */
export function runJobKey(id: number): string {
  return `${SCHEDULED_CHANGE_RUN_JOB}:${id}`;
}

/** What one run of one scheduled change came to (logged by the queue as the job's result). */
export type RunOutcome =
  | { outcome: "skipped"; id: number; reason: string; nextRunAt?: string }
  | { outcome: "applied"; id: number; nextRunAt: string | null }
  | { outcome: "ended"; id: number; reason: string }
  | { outcome: "failed"; id: number; error: string; willRetry: boolean };

/** What a sweep came to: how many due changes it found, and how their runs ended. */
export interface SweepOutcome {
  due: number;
  applied: number;
  failed: number;
  ended: number;
  skipped: number;
}

/** The flag and approval services' operations a run and a write call. */
export interface ScheduledChangeCollaborators {
  featureFlags: Pick<FeatureFlagService, "get" | "update" | "rewriteFiltersAuthorized" | "scheduledChangeOf">;
  approvals: Pick<ApprovalService, "bindSchedule" | "releaseBinding" | "applyBound" | "isOpen">;
}

/** PostHog's activity trigger of a change applied by scheduled change `id`. */
export function scheduledChangeTrigger(id: number): ActivityTrigger {
  return { job_type: "scheduled_change", job_id: String(id), payload: { scheduled_change_id: id } };
}

/** The schedule fields rules/schedule.ts reads, of a stored row. */
export function storedSchedule(row: ScheduledChange): StoredSchedule {
  return {
    recordId: row.recordId,
    modelName: row.modelName as ModelName,
    payload: (row.payload ?? {}) as Record<string, unknown>,
    scheduledAt: row.scheduledAt,
    isRecurring: row.isRecurring,
    recurrenceInterval: row.recurrenceInterval as RecurrenceInterval | null,
    cronExpression: row.cronExpression,
    endDate: row.endDate,
    executedAt: row.executedAt,
  };
}

/** A recurring schedule's recurrence, or null for a one-time one (or a paused one). */
function recurrenceOf(row: ScheduledChange): Recurrence | null {
  if (!row.isRecurring) return null;
  if (row.cronExpression) return { kind: "cron", expression: row.cronExpression, timezone: row.timezone };
  if (row.recurrenceInterval) return { kind: "interval", interval: row.recurrenceInterval };
  return null;
}

/**
 * The runs of scheduled changes on `deps`' database: `runOne` (the `scheduled-change-run` job) and
 * `sweep` (the `scheduled-changes-sweep` job), applying changes through `featureFlags`;
 * `scheduleRun` enqueues a recurring schedule's next run.
 */
export function createScheduledChangeRuns(
  deps: ServiceDeps,
  others: ScheduledChangeCollaborators,
  scheduleRun: (change: ScheduledChange) => Promise<void>,
) {
  const { featureFlags } = others;
  const hostname = process.env["HOSTNAME"] || os.hostname();
  const data = (): DataAccess => databaseOf(deps, "scheduled-change service");

  /**
   * The context a run acts in: `user` (the schedule's creator) on `project` with `scopes` only,
   * limited to that project, a member of its organization (the schedule was authorised when it was made).
   */
  function runContext(project: ProjectRecord, user: ActorUser, scopes: Scope[]): ServiceContext {
    return actingContext(data(), {
      project,
      user,
      scopes,
      key: { id: "system:scheduled-change", label: "scheduled change" },
      limits: deps.config.limits,
    });
  }

  /**
   * Who a run acts as: the schedule's creator, else the flag's creator (PostHog's `user or
   * self.created_by`); null when neither is there (the flag, or both users, gone).
   */
  async function runUser(project: ProjectRecord, change: ScheduledChange, creator: ActorUser | null) {
    if (creator) return creator;
    const reader = runContext(project, SYSTEM_USER, ["feature_flag:read"]);
    const id = parseIntegerId(change.recordId);
    if (id === null) return null;
    try {
      const flag = await featureFlags.get(reader, project.id, { id });
      return flag.createdBy ? { ...flag.createdBy, currentProjectId: null } : null;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /**
   * Applies `change`'s payload to its flag as `ctx`'s user, inside the run's transaction (the flag
   * service joins it): the flag must be there and not deleted (PostHog reads it with its
   * `FeatureFlagManager`, which leaves deleted flags out), a user must be there to act as (`hasUser`),
   * then the payload's change goes through the flag's update path.
   * @throws ScheduledChangeError (DoesNotExist, the payload's own errors), what the flag's update
   *   throws (ValidationError, ConflictError, RowMoved, ...).
   */
  async function applyChange(ctx: ServiceContext, change: ScheduledChange, hasUser: boolean): Promise<void> {
    const flagId = parseIntegerId(change.recordId);
    const flag =
      flagId === null
        ? null
        : await readFlag(readerOf(ctx), change.projectId, { id: flagId }).catch((error: unknown) => {
            if (error instanceof NotFoundError) return null;
            throw error;
          });
    if (!flag || flag.deleted || change.modelName !== "FeatureFlag") {
      throw new ScheduledChangeError("FeatureFlag matching query does not exist.", "DoesNotExist");
    }
    if (!hasUser) throw new ScheduledChangeError("User matching query does not exist.", "DoesNotExist");
    const flagChange = flagChangeOf(change.payload);
    await withActivityTrigger(
      { scope: "FeatureFlag", projectId: change.projectId, itemId: String(flag.id) },
      scheduledChangeTrigger(change.id),
      async () => {
        if (flagChange.kind === "update") {
          await featureFlags.update(ctx, change.projectId, flag.id, flagChange.body);
        } else {
          await featureFlags.rewriteFiltersAuthorized(ctx, change.projectId, flag.id, flagChange.rewrite);
        }
      },
    );
  }

  /**
   * The columns a run of `change` at `now` writes once its change was applied (or, bound to a change
   * request that was not approved, skipped): a one-time change is executed; a recurring one moves to
   * its next run (runs missed while late skipped), or ends (`executed_at`) when that is past
   * `end_date`. A recurring one that goes on is gated again for its next run, as its creator (PostHog's
   * `regate_recurring_scheduled_change`): a bound change request carries one run's change.
   * @throws PolicyConflictError, ChangeRequestPendingError from gating the next run.
   */
  async function afterRun(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    change: ScheduledChange,
    now: Date,
    applied: boolean,
  ): Promise<RunOutcomeColumns> {
    const ran = applied ? { lastExecutedAt: now } : {};
    const recurrence = recurrenceOf(change);
    if (!recurrence) return { executedAt: now };
    const { next } = nextRunAfter(recurrence, change.scheduledAt, now);
    if (change.endDate && next.getTime() > change.endDate.getTime()) return { executedAt: now, ...ran };
    const flagId = parseIntegerId(change.recordId);
    const changeRequestId =
      flagId === null
        ? null
        : await bindingFor(others, tx, ctx, {
            projectId: change.projectId,
            flagId,
            payload: change.payload,
            own: null,
          });
    return { scheduledAt: next, ...ran, changeRequestId };
  }

  /**
   * Applies `change` in a savepoint, through its change request when bound to one
   * (approvals.scheduled.ts `applyBound`), and returns the columns its run writes; a bound change
   * whose request was not approved is skipped (`skipped` says why).
   */
  async function applyAndAdvance(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    change: ScheduledChange,
    hasUser: boolean,
    now: Date,
  ): Promise<{ columns: RunOutcomeColumns; skipped: string | null }> {
    return inSavepoint(tx, async () => {
      const apply = () => applyChange(ctx, change, hasUser);
      const bound = change.changeRequestId
        ? await others.approvals.applyBound(tx, change.projectId, change.changeRequestId, apply)
        : { applied: true as const, result: await apply() };
      const columns = await afterRun(tx, ctx, change, now, bound.applied);
      return { columns, skipped: bound.applied ? null : bound.reason };
    });
  }

  /**
   * One run of scheduled change `id` (see the module comment): claims it when due, applies it in a
   * savepoint, and writes its outcome in the same transaction. A flag that moved under the update's
   * first decision (RowMoved) is tried again, at most MAX_DECISIONS times, then fails recoverably.
   */
  async function runOne(id: number): Promise<RunOutcome> {
    const target = await readRunTarget(data().prisma, id);
    if (!target) return { outcome: "skipped", id, reason: "no such scheduled change" };
    const user = await runUser(target.project, target.change, target.creator);
    const ctx = runContext(target.project, user ?? SYSTEM_USER, ["feature_flag:write"]);
    const outcome = await transactional(ctx, async (tx) => {
      const now = deps.now();
      const change = await claimDueScheduledChange(tx, id, now);
      if (!change) return { outcome: "skipped", id, reason: "not due, executed, or run elsewhere" } as const;
      const schedule = storedSchedule(change);
      if (isPaused(schedule)) return { outcome: "skipped", id, reason: "paused" } as const;
      // A recurring schedule past its end date ends without a last run (PostHog's stale-window rule).
      if (change.endDate && change.endDate.getTime() <= now.getTime() && hasRecurrenceConfig(schedule)) {
        await writeRunOutcome(tx, id, { executedAt: now }, now);
        return { outcome: "ended", id, reason: "past its end date" } as const;
      }
      let failure: unknown;
      for (let decision = 1; ; decision++) {
        try {
          const { columns, skipped } = await applyAndAdvance(tx, ctx, change, user !== null, now);
          await writeRunOutcome(tx, id, columns, now);
          const nextRunAt = columns.executedAt ? null : (columns.scheduledAt?.toISOString() ?? null);
          if (skipped !== null) {
            return nextRunAt === null
              ? ({ outcome: "ended", id, reason: `skipped: ${skipped}` } as const)
              : ({ outcome: "skipped", id, reason: skipped, nextRunAt } as const);
          }
          return { outcome: "applied", id, nextRunAt } as const;
        } catch (error) {
          if (error instanceof RowMoved && decision < MAX_DECISIONS) continue;
          failure =
            error instanceof RowMoved
              ? new ConflictError("The feature flag kept changing while the scheduled change was applied.")
              : error;
          break;
        }
      }
      const failed = failedRun(change.failureCount, failure, hostname);
      await writeRunOutcome(
        tx,
        id,
        {
          failureReason: JSON.stringify(failed.context),
          failureCount: failed.failureCount,
          ...(failed.ends ? { executedAt: now } : {}),
        },
        now,
      );
      return { outcome: "failed", id, error: failed.context.error, willRetry: !failed.ends } as const;
    });
    if ("nextRunAt" in outcome && outcome.nextRunAt) {
      const next = await findScheduledChange(data().prisma, target.project.id, id);
      if (next) await scheduleRun(next);
    }
    return outcome;
  }

  return {
    runOne,

    /**
     * Runs every change due now that is not executed and not paused (at most `SWEEP_LIMIT`, earliest
     * first), one transaction each (`runOne`): the sweep job. Resolves to the tally of their outcomes.
     * A run that throws (its transaction failed: nothing of it was written) does not stop the others.
     * @throws Error naming how many runs threw and the first cause, after running all the others (the
     *   queue logs it; the next sweep runs those again).
     */
    async sweep(): Promise<SweepOutcome> {
      const ids = await selectDueIds(data().prisma, deps.now(), SWEEP_LIMIT);
      const tally: SweepOutcome = { due: ids.length, applied: 0, failed: 0, ended: 0, skipped: 0 };
      const thrown: unknown[] = [];
      for (const id of ids) {
        try {
          tally[(await runOne(id)).outcome]++;
        } catch (error) {
          thrown.push(error);
        }
      }
      if (thrown.length > 0) {
        throw new Error(
          `${thrown.length} of ${ids.length} due scheduled changes could not run (${JSON.stringify(tally)})`,
          { cause: thrown[0] },
        );
      }
      return tally;
    },
  };
}

/**
 * The user a run acts as when it must read before it knows its user, and when no user is left
 * (the run then fails before any write): id 0, no user row.
 */
const SYSTEM_USER: ActorUser = {
  id: 0,
  uuid: "00000000-0000-0000-0000-000000000000",
  distinctId: "signalbox-scheduled-changes",
  firstName: "Scheduled changes",
  lastName: "",
  email: "",
  isEmailVerified: null,
  hedgehogConfig: null,
  roleAtOrganization: null,
  currentProjectId: null,
};
