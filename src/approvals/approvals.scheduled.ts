/**
 * Change requests bound to scheduled changes (issue 27; PostHog's
 * `products/approvals/backend/scheduled_changes.py` and the scheduled-change serializer's gating):
 * - **At scheduling** (`bindSchedule`, in the schedule's own transaction, as the user scheduling or
 *   editing it): the gate is evaluated on the change the schedule would make to the flag as it is
 *   now. When a policy needs approvals, a pending request is opened, marked `scheduled` in its intent,
 *   and bound to the schedule; the schedule itself is stored (201), and applies only once approved.
 *   A schedule's own pending request for the same action is kept; any other open request of that
 *   action on the flag refuses the schedule (409 `change_request_pending`: binding it would let this
 *   schedule fire an approval at a time it never covered); two policies refuse it (400
 *   `policy_conflict`).
 * - **At quorum** a bound request is not applied (approve leaves it `approved`): its schedule applies
 *   it at its time (`applyBound`). Pending at that time, it expires and the change is skipped; stale,
 *   rejected or expired, the change is skipped.
 * - **A binding dropped** (the payload no longer gated, the schedule deleted): its request expires
 *   when pending or approved (`releaseBinding`), so it can never be approved into applying.
 */
import type { ServiceContext } from "../core/context.js";
import { inSavepoint } from "../core/transactional.js";
import { isUniqueViolation } from "../db/database-error.js";
import type { Prisma } from "../generated/prisma/client.js";
import { ChangeRequestPendingError } from "./approvals.errors.js";
import { evaluateGate, openRequestFor, requestRow, withApprovedChange } from "./approvals.gate.js";
import {
  insertChangeRequest,
  isOpenRequest,
  lockChangeRequest,
  selectChangeRequest,
  updateChangeRequestRow,
} from "./approvals.store.js";
import { expire, expireOpen, logTransition } from "./approvals.transitions.js";
import type { FlagChange } from "./rules/actions.js";

/** PostHog's refusal of a schedule whose action on the flag has an open request already. */
const SCHEDULE_PENDING =
  "A change for this feature flag is already awaiting approval or its scheduled application. Wait for it to resolve before scheduling another change.";

/** Whether request `request` waits for a schedule (its intent says so). */
export function isScheduledRequest(request: { intent: unknown }): boolean {
  return (request.intent as Record<string, unknown> | null)?.["scheduled"] === true;
}

/** What a bound run came to: applied, or skipped with the reason. */
export type BoundRun<T> = { applied: true; result: T } | { applied: false; reason: string };

/** The scheduled bindings on the service's clock. */
export function createScheduledBindings(now: () => Date) {
  return {
    /**
     * Binds the change a schedule would make (`change`, null when its payload cannot be read: the run
     * reports that) to approvals, as `ctx`'s user (see the module comment): the id of the request the
     * schedule waits for, or null when no policy needs one. `own` is the schedule's current binding:
     * kept when it is still pending for the same action, expired when the change no longer needs it
     * or needs another action's.
     * @throws PolicyConflictError (400); ChangeRequestPendingError (409) for another open request.
     */
    async bindSchedule(
      tx: Prisma.TransactionClient,
      ctx: ServiceContext,
      projectId: number,
      change: FlagChange | null,
      own: string | null,
    ): Promise<string | null> {
      const write = change ? await evaluateGate(tx, ctx, projectId, change) : null;
      const open = write ? await openRequestFor(tx, write) : null;
      if (own && (!write || open?.id !== own || open.state !== "pending")) {
        await expireOpen(tx, projectId, own, ctx.actor.user.id, now());
      }
      if (!write) return null;
      if (open && open.id === own && open.state === "pending") return own;
      if (open && open.id !== own) throw new ChangeRequestPendingError(open, SCHEDULE_PENDING);
      try {
        const row = requestRow(write, now(), { ...write.action.intent, scheduled: true });
        const request = await inSavepoint(tx, () => insertChangeRequest(tx, row));
        await logTransition(tx, request, "created", ctx.actor.user.id);
        return request.id;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another request was opened for the action meanwhile.
        const racing = await openRequestFor(tx, write);
        if (!racing) throw error;
        throw new ChangeRequestPendingError(racing, SCHEDULE_PENDING);
      }
    },

    /** Whether request `id` is still open (pending or approved): a schedule bound to it keeps its timing. */
    async isOpen(db: Prisma.TransactionClient, projectId: number, id: string): Promise<boolean> {
      const request = await selectChangeRequest(db, projectId, id);
      return request !== null && isOpenRequest(request);
    },

    /** Expires request `id` (a schedule's dropped binding) when pending or approved. */
    async releaseBinding(
      tx: Prisma.TransactionClient,
      ctx: ServiceContext,
      projectId: number,
      id: string,
    ): Promise<void> {
      await expireOpen(tx, projectId, id, ctx.actor.user.id, now());
    },

    /**
     * A bound schedule's run (PostHog's `apply_gated_scheduled_change`), under request `id`'s row lock:
     * approved and not stale, `apply` runs with the gate open to it and the request is `applied`;
     * pending, it expires and the change is skipped; otherwise skipped.
     * @throws what `apply` throws (the request stays approved, the run records the failure).
     */
    async applyBound<T>(
      tx: Prisma.TransactionClient,
      projectId: number,
      id: string,
      apply: () => Promise<T>,
    ): Promise<BoundRun<T>> {
      const request = await lockChangeRequest(tx, projectId, id);
      if (request.state === "pending") {
        await expire(tx, request, null, now());
        return { applied: false, reason: "its change request was not approved in time" };
      }
      if (request.state !== "approved" || request.validationStatus === "stale") {
        return {
          applied: false,
          reason: `its change request is ${request.validationStatus === "stale" ? "stale" : request.state}`,
        };
      }
      const result = await withApprovedChange(id, apply);
      const at = now();
      const applied = await updateChangeRequestRow(
        tx,
        id,
        { state: "applied", appliedAt: at, appliedById: request.createdById },
        at,
      );
      await logTransition(tx, applied, "applied", null);
      return { applied: true, result };
    },
  };
}
