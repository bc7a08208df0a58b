/**
 * The approval gate's and the votes' refusals, with PostHog's bodies (products/approvals/backend/
 * mixins.py `ApprovalHandlingMixin`, decorators.py `_result_to_response`, api.py): each is a
 * DomainError, so GraphQL mutations answer it as a typed error and REST with its own body.
 */
import { DomainError } from "../core/errors.js";
import { serializeChangeRequest } from "./approvals.responses.js";
import type { ChangeRequestRecord } from "./approvals.store.js";

/** The 409 body of a held write (`ApprovalHandlingMixin`): the error's code and message, and the request. */
function gateBody(
  error: DomainError,
  request: ChangeRequestRecord,
  requiredApprovers: Record<string, unknown>,
): Record<string, unknown> {
  return {
    code: error.code,
    status: "approval_required",
    detail: error.detail,
    message: error.detail,
    resource_type: request.resourceType,
    resource_id: request.resourceId,
    change_request_id: request.id,
    change_request: serializeChangeRequest(request, null),
    required_approvers: requiredApprovers,
  };
}

/**
 * 409 `approval_required`: the write matched a policy and was not applied; a change request holds it
 * until approved (`ApprovalRequired`).
 */
export class ApprovalRequiredError extends DomainError {
  readonly httpStatus = 409;
  readonly type = "invalid_request" as const;
  constructor(
    readonly changeRequest: ChangeRequestRecord,
    message: string,
    readonly requiredApprovers: Record<string, unknown>,
  ) {
    super(message, "approval_required");
  }

  override restBody(): Record<string, unknown> {
    return gateBody(this, this.changeRequest, this.requiredApprovers);
  }
}

/**
 * 409 `change_request_pending`: a change request for the same action on the same resource is open
 * already; the write was not applied and no other request was made.
 */
export class ChangeRequestPendingError extends DomainError {
  readonly httpStatus = 409;
  readonly type = "invalid_request" as const;
  constructor(
    readonly changeRequest: ChangeRequestRecord,
    message = "A pending approval request already exists for this action",
  ) {
    super(message, "change_request_pending");
  }

  override restBody(): Record<string, unknown> {
    return gateBody(this, this.changeRequest, {});
  }
}

/** A policy a conflict names: its id and PostHog's `str(policy)`. */
export interface ConflictingPolicy {
  id: string;
  name: string;
}

/**
 * 400 `policy_conflict`: one write would need approvals under more than one policy (e.g. it enables a
 * flag and changes its rollout, both gated); nothing was applied or requested (`PolicyConflict`).
 */
export class PolicyConflictError extends DomainError {
  readonly httpStatus = 400;
  readonly type = "validation_error" as const;
  constructor(readonly conflictingPolicies: ConflictingPolicy[]) {
    super("This change matches multiple approval policies", "policy_conflict");
  }

  /** PostHog's advice to the caller. */
  readonly guidance = "Split your changes into separate API calls to address each policy independently";

  override restBody(): Record<string, unknown> {
    return {
      code: "policy_conflict",
      error: this.detail,
      conflicting_policies: this.conflictingPolicies,
      guidance: this.guidance,
    };
  }
}

/**
 * 400 with PostHog's `{"error": ...}` body of a vote or a cancel it refuses after the permission
 * check: already voted, no longer pending, no reason for a rejection (api.py).
 */
export class ChangeRequestActionError extends DomainError {
  readonly httpStatus = 400;
  readonly type = "validation_error" as const;
  constructor(message: string, code: "already_voted" | "invalid_state" | "reason_required") {
    super(message, code);
  }

  override restBody(): Record<string, unknown> {
    return { error: this.detail };
  }
}
