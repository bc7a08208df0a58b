/**
 * How a scheduled change meets approvals (issue 27; PostHog's
 * `products/approvals/backend/scheduled_changes.py` `gate_scheduled_change`): the change its payload
 * would make to the flag as it is now goes to the approval gate, which binds it to a change request
 * when a policy needs one (src/approvals/approvals.scheduled.ts). Called when a schedule is created,
 * when its payload is edited (as the editing user), and when a recurring one moves to its next run.
 */
import type { ApprovalService } from "../approvals/approvals.service.js";
import type { ServiceContext } from "../core/context.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import type { ScheduledFlagChange } from "../feature-flags/flag-authorized.service.js";
import type { Prisma } from "../generated/prisma/client.js";
import { flagChangeOf } from "./rules/operations.js";

/** The services gating calls. */
export interface GatingCollaborators {
  featureFlags: Pick<FeatureFlagService, "scheduledChangeOf">;
  approvals: Pick<ApprovalService, "bindSchedule">;
}

/** The timing fields a schedule bound to an open change request keeps (PostHog's `TIMING_FIELDS`). */
export const TIMING_FIELDS = [
  ["scheduledAt", "scheduled_at"],
  ["cronExpression", "cron_expression"],
  ["recurrenceInterval", "recurrence_interval"],
  ["endDate", "end_date"],
  ["isRecurring", "is_recurring"],
] as const;

/** PostHog's refusal to retime a schedule whose approval is pending or approved. */
export const RETIME_REFUSED =
  "Cannot change the timing of a scheduled change while its approval request is pending or approved. Delete this schedule and create a new one to reschedule.";

/**
 * The change request a schedule of `payload` on flag `flagId` waits for, as `ctx`'s user: its id, or
 * null when no policy needs one (or the payload cannot be read: its run reports that). `own` is the
 * schedule's current binding (see `bindSchedule`).
 * @throws PolicyConflictError (400), ChangeRequestPendingError (409 change_request_pending).
 */
export async function bindingFor(
  others: GatingCollaborators,
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  schedule: { projectId: number; flagId: number; payload: unknown; own: string | null },
): Promise<string | null> {
  const { projectId, flagId, payload, own } = schedule;
  let change: ScheduledFlagChange | null = null;
  try {
    const asked = flagChangeOf(payload);
    if (asked.kind === "filters") change = { rewrite: asked.rewrite };
    else if (typeof asked.body.active === "boolean") change = { active: asked.body.active };
  } catch {
    // A payload the dispatcher refuses: the run fails with its error, as PostHog's.
  }
  const prospective = change
    ? await others.featureFlags.scheduledChangeOf(tx, projectId, flagId, change)
    : null;
  return others.approvals.bindSchedule(tx, ctx, projectId, prospective, own);
}
