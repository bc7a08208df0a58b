/**
 * Approval policies and change requests in PostHog's REST shapes
 * (products/approvals/backend/serializers.py): `ApprovalPolicySerializer`, `ChangeRequestSerializer`
 * with its votes (`ApprovalSerializer`) and the caller's own fields (`can_approve`, `can_cancel`,
 * `is_requester`, `user_decision`: false/null when there is no caller, as in the gate's 409 body).
 */
import { z } from "zod";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { ChangeRequestRecord, PolicyRecord } from "./approvals.store.js";
import { durationString } from "./rules/duration.js";
import { approvalRefusal, type PolicySnapshot } from "./rules/policy.js";

/** A policy (`ApprovalPolicySerializer`). */
export const approvalPolicySchema = z
  .object({
    id: z.uuid(),
    action_key: z.string(),
    conditions: z.record(z.string(), z.unknown()),
    approver_config: z.record(z.string(), z.unknown()).describe("`{quorum, users: [user ids]}`."),
    allow_self_approve: z.boolean(),
    bypass_org_membership_levels: z.array(z.int()),
    bypass_roles: z.array(z.uuid()).describe("Always empty: roles are not built."),
    expires_after: z.string().describe("As Django writes a duration: `14 00:00:00`."),
    enabled: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "ApprovalPolicy" });

/** A page of policies. */
export const approvalPolicyPageSchema = paginatedListSchema(
  approvalPolicySchema,
  "PaginatedApprovalPolicyList",
);

/** `policy` in its REST shape. */
export function serializePolicy(policy: PolicyRecord): z.output<typeof approvalPolicySchema> {
  return {
    id: policy.id,
    action_key: policy.actionKey,
    conditions: policy.conditions as Record<string, unknown>,
    approver_config: policy.approverConfig as Record<string, unknown>,
    allow_self_approve: policy.allowSelfApprove,
    bypass_org_membership_levels: policy.bypassOrgMembershipLevels as number[],
    bypass_roles: [],
    expires_after: durationString(policy.expiresAfterUs),
    enabled: policy.enabled,
    created_by: policy.createdBy ? serializeUserBasic(policy.createdBy) : null,
    created_at: drfDateTime(policy.createdAt),
    updated_at: drfDateTime(policy.updatedAt),
  };
}

const approvalSchema = z.object({
  id: z.uuid(),
  created_by: userBasicSchema.nullable(),
  decision: z.enum(["approved", "rejected"]),
  reason: z.string(),
  created_at: z.iso.datetime(),
});

/** A change request (`ChangeRequestSerializer`). */
export const changeRequestSchema = z
  .object({
    id: z.uuid(),
    action_key: z.string(),
    action_version: z.int(),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    intent: z.record(z.string(), z.unknown()),
    intent_display: z.record(z.string(), z.unknown()),
    policy_snapshot: z.record(z.string(), z.unknown()),
    validation_status: z.enum(["valid", "invalid", "stale"]),
    validation_errors: z.record(z.string(), z.unknown()).nullable(),
    validated_at: z.iso.datetime().nullable(),
    state: z.enum(["pending", "approved", "applied", "rejected", "expired", "failed"]),
    created_by: userBasicSchema.nullable(),
    applied_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    applied_at: z.iso.datetime().nullable(),
    apply_error: z.string(),
    result_data: z.record(z.string(), z.unknown()).nullable(),
    approvals: z.array(approvalSchema),
    can_approve: z.boolean(),
    can_cancel: z.boolean(),
    is_requester: z.boolean(),
    user_decision: z.enum(["approved", "rejected"]).nullable(),
  })
  .meta({ id: "ChangeRequest" });

/** A page of change requests. */
export const changeRequestPageSchema = paginatedListSchema(changeRequestSchema, "PaginatedChangeRequestList");

/**
 * Whether `userId` may cancel `request` (PostHog's `ChangeRequest.can_be_canceled_by`): its
 * requester, while it is pending and has no approving vote, or once it went stale.
 */
export function canCancel(request: ChangeRequestRecord, userId: number): boolean {
  if (request.state !== "pending" || request.createdById !== userId) return false;
  const approved = request.approvals.some((vote) => vote.decision === "approved");
  return !approved || request.validationStatus === "stale";
}

/** `request` in its REST shape, its caller's fields for `userId` (null: no caller). */
export function serializeChangeRequest(
  request: ChangeRequestRecord,
  userId: number | null,
): z.output<typeof changeRequestSchema> {
  const own = userId === null ? undefined : request.approvals.find((vote) => vote.createdBy?.id === userId);
  return {
    id: request.id,
    action_key: request.actionKey,
    action_version: request.actionVersion,
    resource_type: request.resourceType,
    resource_id: request.resourceId,
    intent: request.intent as Record<string, unknown>,
    intent_display: request.intentDisplay as Record<string, unknown>,
    policy_snapshot: request.policySnapshot as Record<string, unknown>,
    validation_status: request.validationStatus as "valid" | "invalid" | "stale",
    validation_errors: (request.validationErrors ?? null) as Record<string, unknown> | null,
    validated_at: drfDateTimeOrNull(request.validatedAt),
    state: request.state as z.output<typeof changeRequestSchema>["state"],
    created_by: request.createdBy ? serializeUserBasic(request.createdBy) : null,
    applied_by: request.appliedBy ? serializeUserBasic(request.appliedBy) : null,
    created_at: drfDateTime(request.createdAt),
    updated_at: drfDateTime(request.updatedAt),
    expires_at: drfDateTime(request.expiresAt),
    applied_at: drfDateTimeOrNull(request.appliedAt),
    apply_error: request.applyError,
    result_data: (request.resultData ?? null) as Record<string, unknown> | null,
    approvals: request.approvals.map((vote) => ({
      id: vote.id,
      created_by: vote.createdBy ? serializeUserBasic(vote.createdBy) : null,
      decision: vote.decision as "approved" | "rejected",
      reason: vote.reason,
      created_at: drfDateTime(vote.createdAt),
    })),
    can_approve:
      userId !== null &&
      approvalRefusal(request.policySnapshot as unknown as PolicySnapshot, userId, request.createdById) ===
        null,
    can_cancel: userId !== null && canCancel(request, userId),
    is_requester: userId !== null && request.createdById === userId,
    user_decision: (own?.decision ?? null) as "approved" | "rejected" | null,
  };
}

/** The answer of approve, reject and cancel (`ChangeRequestDecisionResponseSerializer`). */
export const decisionSchema = z
  .object({
    status: z
      .string()
      .describe(
        "The request's state after the vote: `pending`... `approved`, `applied`, `failed`, `rejected`.",
      ),
    message: z.string(),
    change_request: changeRequestSchema,
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("When the vote applied the change: `{resource_id, resource_version}`."),
  })
  .meta({ id: "ChangeRequestDecision" });

/**
 * The 409 of a write the approval gate held (`approval_required`, or `change_request_pending` when a
 * request is open already): `ApprovalHandlingMixin`'s body (approvals.errors.ts), for the OpenAPI
 * document of the routes that write flags.
 */
export const approvalHeldSchema = z
  .object({
    code: z.enum(["approval_required", "change_request_pending"]),
    status: z.literal("approval_required"),
    detail: z.string(),
    message: z.string(),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    change_request_id: z.uuid(),
    change_request: changeRequestSchema,
    required_approvers: z
      .record(z.string(), z.unknown())
      .describe("The policy's `approver_config`; `{}` when pending."),
  })
  .meta({ id: "ApprovalHeld" });
