/**
 * Approvals (issue 27; PostHog's `products/approvals/backend/`): policies (approval-policies.service.ts),
 * the gate the flag writes call (approvals.gate.ts), and change requests:
 * listed and read with PostHog's filters, approved, rejected and cancelled with PostHog's permission
 * rules and messages, applied at quorum as their requester through the resource's own update path
 * (an `applier` each resource type registers), expired when their time is up, and marked stale when
 * their resource changes meanwhile. Every transition writes a `ChangeRequest` activity entry (so a
 * change-feed event, GraphQL's `changeRequestChanged`, and webhooks `change_request.*`;
 * approvals.transitions.ts). Scopes
 * `approvals:read` / `approvals:write` (PostHog's `scope_object = "approvals"`).
 */
import { type ActivityListener, type ActivityScope, withActivityTrigger } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectStream } from "../core/auth/access.js";
import { actingContext, type ServiceContext } from "../core/context.js";
import { DomainError, NotFoundError, PermissionDeniedError, ValidationError } from "../core/errors.js";
import { objectChanges } from "../core/live-changes.js";
import type { OffsetPage } from "../core/paging.js";
import { type ProjectRecord, USER_BASIC_SELECT } from "../core/records.js";
import { databaseOf, type ServiceDeps } from "../core/services.js";
import { inSavepoint, transactional } from "../core/transactional.js";
import { inUuidOrder, isUuid, parseInput } from "../core/validation.js";
import type { ObjectChange } from "../db/change-feed.js";
import { isUniqueViolation } from "../db/database-error.js";
import type { Prisma } from "../generated/prisma/client.js";
import { createPolicyOperations } from "./approval-policies.service.js";
import {
  ApprovalRequiredError,
  ChangeRequestActionError,
  ChangeRequestPendingError,
} from "./approvals.errors.js";
import {
  createApprovalGate,
  type GatedWrite,
  openRequestFor,
  requestRow,
  withApprovedChange,
} from "./approvals.gate.js";
import { canCancel } from "./approvals.responses.js";
import { createScheduledBindings, isScheduledRequest } from "./approvals.scheduled.js";
import { approveSchema, cancelSchema, rejectSchema } from "./approvals.schemas.js";
import {
  type ChangeRequestFilters,
  type ChangeRequestRecord,
  countApprovals,
  insertChangeRequest,
  insertVote,
  lockChangeRequest,
  markStale,
  markStaleSweep,
  selectChangeRequest,
  selectChangeRequestPage,
  selectChangeRequests,
  selectExpired,
  updateChangeRequestRow,
} from "./approvals.store.js";
import { expireOpen, logTransition } from "./approvals.transitions.js";
import { approvalRefusal, type PolicySnapshot } from "./rules/policy.js";

/** How many expired requests one sweep closes at most. */
const EXPIRY_BATCH = 500;

/** Thrown by an applier when the resource is no longer the one the request was made against. */
export class PreconditionFailed extends Error {}

/** What an applied change reports (PostHog's `result_data`). */
export interface AppliedChange {
  resource_id: number | string;
  resource_version: number | null;
}

/**
 * How an approved change of one resource type is applied: `apply` runs the request's intent through
 * the resource's update path as `ctx` (the requester), inside the approving transaction.
 * @throws PreconditionFailed when the resource moved since; any refusal of its update path.
 */
export interface ChangeApplier {
  /** The activity scope of the resource's entries (`FeatureFlag`), which the apply's entry is stamped in. */
  scope: ActivityScope;
  apply(ctx: ServiceContext, projectId: number, intent: Record<string, unknown>): Promise<AppliedChange>;
}

/** What approve, reject and cancel answer (`ServiceResult`): the resulting status, a message, the request. */
export interface Decision {
  status: string;
  message: string;
  changeRequest: ChangeRequestRecord;
  result?: AppliedChange;
}

/** A list filter given as text, as `ChangeRequestFilterSet` reads it. @throws ValidationError for a non-integer `requester`. */
export function changeRequestFilters(query: Record<string, string | undefined>): ChangeRequestFilters {
  const filters: ChangeRequestFilters = {};
  if (query["state"]) filters.states = query["state"].split(",").filter((s) => s !== "");
  if (query["action_key"] !== undefined) filters.actionKey = query["action_key"];
  if (query["resource_type"] !== undefined) filters.resourceType = query["resource_type"];
  if (query["resource_id"] !== undefined) filters.resourceId = query["resource_id"];
  const requester = query["requester"];
  if (requester !== undefined && requester !== "") {
    if (!/^-?\d+$/.test(requester.trim())) {
      throw new ValidationError("Enter a number.", { attr: "requester", code: "invalid" });
    }
    filters.requester = Number(requester);
  }
  return filters;
}

/**
 * The `ActivityListener` that marks the pending requests on a flag stale when the flag changes
 * (PostHog's `validate_pending_change_requests`, here at the change, in its transaction): one
 * statement per flag entry. Registered once per process by the composition root.
 */
export const markChangeRequestsStale: ActivityListener = async (tx, entry) => {
  if (entry.scope !== "FeatureFlag") return;
  await markStale(tx, entry.projectId, { type: "feature_flag", id: entry.itemId });
};

/** Creates the approval service. */
export function createApprovalService(deps: ServiceDeps) {
  const appliers = new Map<string, ChangeApplier>();
  const data = () => databaseOf(deps, "approval service");

  /** Opens a gated write's change request, after its write rolled back (approvals.gate.ts). */
  async function openChangeRequest(write: GatedWrite): Promise<Error> {
    const { ctx } = write;
    const now = deps.now();
    try {
      const created = await transactional(ctx, async (tx) => {
        const request = await insertChangeRequest(tx, requestRow(write, now));
        await logTransition(tx, request, "created", ctx.actor.user.id);
        return request;
      });
      return new ApprovalRequiredError(created, write.message, write.approvers);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const open = await openRequestFor(ctx.db, write);
      if (!open) throw error;
      return new ChangeRequestPendingError(open);
    }
  }

  /**
   * Applies `request` (just approved, locked in `tx`) as its requester on `project` (the one the
   * approval was authorised on), in a savepoint: applied with PostHog's `result_data`, or failed with
   * its `apply_error` when the resource moved (stale) or its update path refuses. Returns the
   * decision approve answers.
   */
  async function applyApproved(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    project: ProjectRecord,
    request: ChangeRequestRecord,
  ): Promise<Decision> {
    const now = deps.now();
    const fail = async (applyError: string, shown: string): Promise<Decision> => {
      const failed = await updateChangeRequestRow(tx, request.id, { state: "failed", applyError }, now);
      await logTransition(tx, failed, "failed", ctx.actor.user.id);
      return {
        status: "failed",
        message: `Quorum reached but application failed: ${shown}`,
        changeRequest: failed,
      };
    };
    const applier = appliers.get(request.resourceType);
    if (!applier)
      return fail(`Action ${request.actionKey} not found in registry`, "the action cannot be applied");
    const requester =
      request.createdById === null
        ? null
        : await tx.user.findUnique({
            where: { id: request.createdById },
            select: { ...USER_BASIC_SELECT, currentProjectId: true },
          });
    if (!requester) return fail("User matching query does not exist.", "User matching query does not exist.");
    const asRequester = actingContext(data(), {
      project,
      user: requester,
      scopes: ["feature_flag:write", "experiment:write"],
      key: { id: "system:change-request", label: "change request" },
      limits: ctx.limits,
    });
    const trigger = {
      job_type: "change_request",
      job_id: request.id,
      payload: { change_request_id: request.id, action_key: request.actionKey },
    };
    let result: AppliedChange;
    try {
      result = await inSavepoint(tx, () =>
        withApprovedChange(request.id, () =>
          withActivityTrigger(
            { scope: applier.scope, projectId: request.projectId, itemId: request.resourceId ?? "" },
            trigger,
            () => applier.apply(asRequester, request.projectId, request.intent as Record<string, unknown>),
          ),
        ),
      );
    } catch (error) {
      if (error instanceof PreconditionFailed)
        return fail(`Precondition failed: ${error.message}`, error.message);
      if (error instanceof DomainError) return fail(`Apply failed: ${error.detail}`, error.detail);
      throw error;
    }
    const applied = await updateChangeRequestRow(
      tx,
      request.id,
      {
        state: "applied",
        appliedAt: now,
        appliedById: request.createdById,
        resultData: result as unknown as Record<string, unknown>,
      },
      now,
    );
    await logTransition(tx, applied, "applied", ctx.actor.user.id);
    return {
      status: "applied",
      message: "Quorum reached. Change applied successfully.",
      changeRequest: applied,
      result,
    };
  }

  /**
   * Locks request `id` for a vote by `ctx`'s user, with PostHog's `CanApprove` checks (403s):
   * pending, not the requester's own (unless self-approval is allowed), in the approver set.
   */
  async function lockForVote(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    projectId: number,
    id: string,
  ) {
    if (!isUuid(id)) throw new NotFoundError();
    const request = await lockChangeRequest(tx, projectId, id);
    if (request.state !== "pending")
      throw new PermissionDeniedError("Only pending change requests can be approved");
    const refusal = approvalRefusal(
      request.policySnapshot as unknown as PolicySnapshot,
      ctx.actor.user.id,
      request.createdById,
    );
    if (refusal) throw new PermissionDeniedError(refusal);
    if (request.approvals.some((vote) => vote.createdBy?.id === ctx.actor.user.id)) {
      throw new ChangeRequestActionError("You have already voted on this change request.", "already_voted");
    }
    return request;
  }

  return {
    ...createPolicyOperations(deps),

    /** The bindings of scheduled changes to change requests (approvals.scheduled.ts). */
    ...createScheduledBindings(deps.now),

    /** The gate flag writes call under their row lock (approvals.gate.ts). */
    gate: createApprovalGate(openChangeRequest),

    /** Registers how approved changes of `resourceType` (`feature_flag`) are applied (the composition root). */
    registerApplier(resourceType: string, applier: ChangeApplier): void {
      appliers.set(resourceType, applier);
    },

    /**
     * The committed transitions of the project's change requests, from now until `signal` aborts
     * (GraphQL `changeRequestChanged`); a `reset` when some may have been missed. Scope
     * `approvals:read`, checked now and whenever access changes. @throws as `authorizeProject`.
     */
    async changes(
      ctx: ServiceContext,
      projectId: number,
      signal: AbortSignal,
    ): Promise<AsyncIterable<ObjectChange | { kind: "reset" }>> {
      const { events } = await authorizeProjectStream(ctx, projectId, "approvals:read", signal);
      return objectChanges(events, (change) => change.scope === "ChangeRequest");
    },

    /** A page of the project's change requests, newest first, filtered as PostHog's. Scope `approvals:read`. */
    async listChangeRequests(
      ctx: ServiceContext,
      projectId: number,
      filters: ChangeRequestFilters,
      page: OffsetPage,
    ) {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      return selectChangeRequestPage(ctx.db, project.id, filters, page);
    },

    /** The project's change requests of `ids` (UUIDs), in that order (null: none). Scope `approvals:read`. */
    async getChangeRequests(ctx: ServiceContext, projectId: number, ids: readonly string[]) {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      const valid = ids.filter(isUuid);
      return inUuidOrder(ids, valid.length ? await selectChangeRequests(ctx.db, project.id, valid) : []);
    },

    /** One change request. Scope `approvals:read`. @throws NotFoundError */
    async getChangeRequest(ctx: ServiceContext, projectId: number, id: string): Promise<ChangeRequestRecord> {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      const request = isUuid(id) ? await selectChangeRequest(ctx.db, project.id, id) : null;
      if (!request) throw new NotFoundError();
      return request;
    },

    /**
     * Approves a pending request as `ctx`'s user (PostHog's `ChangeRequestService.approve`); at quorum
     * it is applied at once as its requester, in the same transaction: `applied`, or `failed` when
     * the resource moved since (stale) or its update path refuses. A request a scheduled change waits
     * for stays `approved` at quorum: the schedule applies it at its time. Votes are taken one at a time
     * (the request's row lock): a quorum is reached, and applied, once. Scope `approvals:write`.
     * @throws NotFoundError; PermissionDeniedError (not pending, own request, not an approver);
     *   ChangeRequestActionError (already voted).
     */
    async approve(ctx: ServiceContext, projectId: number, id: string, body: unknown): Promise<Decision> {
      const project = await authorizeProject(ctx, projectId, "approvals:write");
      const { reason } = parseInput(approveSchema, body ?? {}, ctx.limits);
      return transactional(ctx, async (tx) => {
        const request = await lockForVote(tx, ctx, project.id, id);
        const now = deps.now();
        await insertVote(tx, request, {
          userId: ctx.actor.user.id,
          decision: "approved",
          reason: reason ?? "",
          now,
        });
        const count = await countApprovals(tx, request.id);
        const quorum = (request.policySnapshot as unknown as PolicySnapshot).quorum ?? 1;
        if (count < quorum) {
          return {
            status: "approved",
            message: `Approval recorded. ${count}/${quorum} approvals received.`,
            changeRequest: (await selectChangeRequest(tx, project.id, request.id))!,
          };
        }
        const approved = await updateChangeRequestRow(tx, request.id, { state: "approved" }, now);
        await logTransition(tx, approved, "approved", ctx.actor.user.id);
        if (isScheduledRequest(approved)) {
          // Its schedule applies it at its time (approvals.scheduled.ts), never earlier.
          return {
            status: "approved",
            message: "Quorum reached. The change applies at its scheduled time.",
            changeRequest: approved,
          };
        }
        return applyApproved(tx, ctx, project, approved);
      });
    },

    /**
     * Rejects a pending request (PostHog's `reject`): a reason is required; one rejection ends it.
     * Scope `approvals:write`. @throws as `approve`; ChangeRequestActionError without a reason.
     */
    async reject(ctx: ServiceContext, projectId: number, id: string, body: unknown): Promise<Decision> {
      const project = await authorizeProject(ctx, projectId, "approvals:write");
      const { reason } = parseInput(rejectSchema, body ?? {}, ctx.limits);
      return transactional(ctx, async (tx) => {
        const request = await lockForVote(tx, ctx, project.id, id);
        if (!reason)
          throw new ChangeRequestActionError("A reason is required for rejection.", "reason_required");
        const now = deps.now();
        await insertVote(tx, request, { userId: ctx.actor.user.id, decision: "rejected", reason, now });
        const rejected = await updateChangeRequestRow(tx, request.id, { state: "rejected" }, now);
        await logTransition(tx, rejected, "rejected", ctx.actor.user.id);
        return { status: "rejected", message: "Change request rejected.", changeRequest: rejected };
      });
    },

    /**
     * Cancels a request as its requester (PostHog's `cancel`): while pending with no approval, or once
     * stale; recorded as the requester's rejection (`reason`, default "Canceled by requester") and
     * state `rejected`. Scope `approvals:write`. @throws NotFoundError; PermissionDeniedError.
     */
    async cancel(ctx: ServiceContext, projectId: number, id: string, body: unknown): Promise<Decision> {
      const project = await authorizeProject(ctx, projectId, "approvals:write");
      const { reason } = parseInput(cancelSchema, body ?? {}, ctx.limits);
      return transactional(ctx, async (tx) => {
        if (!isUuid(id)) throw new NotFoundError();
        const request = await lockChangeRequest(tx, project.id, id);
        const userId = ctx.actor.user.id;
        if (!canCancel(request, userId))
          throw new PermissionDeniedError("You cannot cancel this change request");
        const now = deps.now();
        if (!request.approvals.some((vote) => vote.createdBy?.id === userId)) {
          await insertVote(tx, request, {
            userId,
            decision: "rejected",
            reason: reason || "Canceled by requester",
            now,
          });
        }
        const canceled = await updateChangeRequestRow(tx, request.id, { state: "rejected" }, now);
        await logTransition(tx, canceled, "canceled", userId);
        return { status: "canceled", message: "Change request canceled.", changeRequest: canceled };
      });
    },

    /**
     * Marks stale the pending requests whose flag moved (`markStaleSweep`), then expires the pending
     * and approved requests whose time is up (PostHog's `expire_old_change_requests`), each under its
     * row lock, with an `expired` entry. Returns how many expired. Run every minute by the job queue
     * (approvals.jobs.ts).
     */
    async expireDue(): Promise<number> {
      const ctx = { db: data().prisma };
      await markStaleSweep(ctx.db);
      const now = deps.now();
      let expired = 0;
      for (const due of await selectExpired(ctx, now, EXPIRY_BATCH)) {
        const done = await transactional(ctx, (tx) => expireOpen(tx, due.projectId, due.id, null, now));
        if (done) expired += 1;
      }
      return expired;
    },
  };
}

/** The approval service's operations. */
export type ApprovalService = ReturnType<typeof createApprovalService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createApprovalService`. */
    approvals: ApprovalService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Change requests' transitions (src/approvals/): delivered as `change_request.*`. */
    ChangeRequest: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Change requests (`id` UUID). */
    change_requests: string;
  }
}
