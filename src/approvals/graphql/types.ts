/**
 * The approval types of GraphQL (issue 27): `ChangeRequest` with its votes, `ApprovalPolicy`, and the
 * typed errors a gated write answers (`ApprovalRequiredError`, `ChangeRequestPendingError`,
 * `PolicyConflictError`) and a refused vote (`ChangeRequestActionError`). Field names are camelCase
 * versions of REST's (products/approvals/backend/serializers.py).
 */
import { isUuid } from "../../core/validation.js";
import { parseUuidObjectId } from "../../event-definitions/graphql/refs.js";
import { builder } from "../../graphql/builder.js";
import { ErrorInterface } from "../../graphql/errors.graphql.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import {
  ApprovalRequiredError,
  ChangeRequestActionError,
  ChangeRequestPendingError,
  PolicyConflictError,
} from "../approvals.errors.js";
import { canCancel } from "../approvals.responses.js";
import type { ApprovalRecord, ChangeRequestRecord, PolicyRecord } from "../approvals.store.js";
import { durationString } from "../rules/duration.js";
import { approvalRefusal, type PolicySnapshot } from "../rules/policy.js";

const ApprovalVoteRef = builder.objectRef<ApprovalRecord>("ApprovalVote").implement({
  description: "One user's vote on a change request (PostHog's `Approval`).",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The vote's UUID." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who voted; null for a user since deleted.",
      resolve: (vote) => vote.createdBy,
    }),
    decision: t.exposeString("decision", { description: "`approved` or `rejected`." }),
    reason: t.exposeString("reason", { description: "The voter's note (a rejection's reason)." }),
    createdAt: t.field({ type: "DateTime", description: "When.", resolve: (vote) => vote.createdAt }),
  }),
});

/** The `ChangeRequest` object type. */
export const ChangeRequestRef = builder.objectRef<ChangeRequestRecord>("ChangeRequest").implement({
  description:
    "A write an approval policy held (REST `change_requests/:id/`): what was asked, the policy as it stood, and where it went.",
  extensions: requiresScopes("approvals:read"),
  fields: (t) => ({
    uuid: t.exposeString("id", {
      description: "PostHog's UUID of the request (REST's `:id`); `id` is its global id.",
    }),
    actionKey: t.exposeString("actionKey", { description: "The gated action, e.g. `feature_flag.update`." }),
    resourceType: t.exposeString("resourceType", { description: "`feature_flag`." }),
    resourceId: t.exposeString("resourceId", {
      nullable: true,
      description: "The resource's id, e.g. the flag's.",
    }),
    state: t.exposeString("state", {
      description: "`pending`, `approved` (being applied), `applied`, `rejected`, `expired` or `failed`.",
    }),
    validationStatus: t.exposeString("validationStatus", {
      description: "`valid`, or `stale` once its resource changed since it was made.",
    }),
    intent: t.field({
      type: "JSON",
      description: "What was asked, in PostHog's shape (`full_request_data`, `preconditions`, ...).",
      resolve: (request) => request.intent,
    }),
    intentDisplay: t.field({
      type: "JSON",
      description: "`{description, before, after}` for people.",
      resolve: (request) => request.intentDisplay,
    }),
    policySnapshot: t.field({
      type: "JSON",
      description:
        "The policy when the request was made: `{quorum, users, allow_self_approve, conditions, ...}`.",
      resolve: (request) => request.policySnapshot,
    }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "The requester; null for a user since deleted.",
      resolve: (request) => request.createdBy,
    }),
    appliedBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who the change was applied as (the requester); null until applied.",
      resolve: (request) => request.appliedBy,
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was made.", resolve: (r) => r.createdAt }),
    updatedAt: t.field({
      type: "DateTime",
      description: "Its last transition.",
      resolve: (r) => r.updatedAt,
    }),
    expiresAt: t.field({
      type: "DateTime",
      description: "When it expires if still open.",
      resolve: (r) => r.expiresAt,
    }),
    appliedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it was applied; null until then.",
      resolve: (r) => r.appliedAt,
    }),
    applyError: t.exposeString("applyError", { description: "Why applying failed; empty otherwise." }),
    resultData: t.field({
      type: "JSON",
      nullable: true,
      description: "`{resource_id, resource_version}` once applied.",
      resolve: (r) => r.resultData,
    }),
    approvals: t.field({
      type: [ApprovalVoteRef],
      description: "Its votes, oldest first.",
      resolve: (request) => request.approvals,
    }),
    canApprove: t.boolean({
      description: "Whether the caller may vote on it (an approver, not its requester unless allowed).",
      resolve: async (request, _args, ctx) =>
        approvalRefusal(
          request.policySnapshot as unknown as PolicySnapshot,
          (await ctx.serviceContext()).actor.user.id,
          request.createdById,
        ) === null,
    }),
    canCancel: t.boolean({
      description:
        "Whether the caller may cancel it (its requester, while pending without approval, or stale).",
      resolve: async (request, _args, ctx) => canCancel(request, (await ctx.serviceContext()).actor.user.id),
    }),
  }),
});

/** The `ApprovalPolicy` object type. */
export const ApprovalPolicyRef = builder.objectRef<PolicyRecord>("ApprovalPolicy").implement({
  description:
    "When a write of an action waits for approvals, and who may give them (REST `approval_policies/:id/`).",
  extensions: requiresScopes("approvals:read"),
  fields: (t) => ({
    uuid: t.exposeString("id", {
      description: "PostHog's UUID of the policy (REST's `:id`); `id` is its global id.",
    }),
    actionKey: t.exposeString("actionKey", { description: "The gated action, e.g. `feature_flag.enable`." }),
    conditions: t.field({
      type: "JSON",
      description: "`{}` (every change) or `{type, field, operator, value}`.",
      resolve: (policy) => policy.conditions,
    }),
    approverConfig: t.field({
      type: "JSON",
      description: "`{quorum, users: [user ids]}`.",
      resolve: (policy) => policy.approverConfig,
    }),
    allowSelfApprove: t.exposeBoolean("allowSelfApprove", {
      description: "Whether a requester may approve their own.",
    }),
    bypassOrgMembershipLevels: t.intList({
      description: "Membership levels (1 member, 8 admin, 15 owner) whose writes pass.",
      resolve: (policy) => policy.bypassOrgMembershipLevels as number[],
    }),
    expiresAfter: t.string({
      description: "How long a request stays open, as Django writes a duration (`14 00:00:00`).",
      resolve: (policy) => durationString(policy.expiresAfterUs),
    }),
    enabled: t.exposeBoolean("enabled", { description: "Whether it gates writes." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who made it.",
      resolve: (policy) => policy.createdBy,
    }),
    createdAt: t.field({ type: "DateTime", description: "When it was made.", resolve: (p) => p.createdAt }),
  }),
});

builder.objectType(ApprovalRequiredError, {
  name: "ApprovalRequiredError",
  description:
    "The write matched an approval policy and was not applied: a change request now holds it until approved (HTTP 409 `approval_required` through REST).",
  interfaces: [ErrorInterface],
  fields: (t) => ({
    changeRequest: t.field({
      type: ChangeRequestRef,
      description: "The change request made for it.",
      resolve: (error) => error.changeRequest,
    }),
    requiredApprovers: t.field({
      type: "JSON",
      description: "The policy's `approver_config`.",
      resolve: (error) => error.requiredApprovers,
    }),
  }),
});

builder.objectType(ChangeRequestPendingError, {
  name: "ChangeRequestPendingError",
  description:
    "A change request for the same action on the same object is open already; the write was not applied (HTTP 409 `change_request_pending`).",
  interfaces: [ErrorInterface],
  fields: (t) => ({
    changeRequest: t.field({
      type: ChangeRequestRef,
      description: "The open change request.",
      resolve: (error) => error.changeRequest,
    }),
  }),
});

builder.objectType(PolicyConflictError, {
  name: "PolicyConflictError",
  description:
    "The write would need approvals under more than one policy; nothing was applied or requested (HTTP 400 `policy_conflict`). Split it.",
  interfaces: [ErrorInterface],
  fields: (t) => ({
    conflictingPolicies: t.field({
      type: "JSON",
      description: "`[{id, name}]` of the policies it matched.",
      resolve: (error) => error.conflictingPolicies,
    }),
    guidance: t.exposeString("guidance", { description: "What to do instead." }),
  }),
});

builder.objectType(ChangeRequestActionError, {
  name: "ChangeRequestActionError",
  description:
    'A vote or a cancel refused after the permission check: already voted, no longer pending, no reason given (HTTP 400 `{"error": ...}`).',
  interfaces: [ErrorInterface],
});

/** The UUID in an id input naming a change request: the UUID itself or its global id; null otherwise. */
export const parseChangeRequestId = (raw: string) => parseUuidObjectId(raw, "ChangeRequest");

/** The UUID in an id input naming an approval policy: the UUID itself or its global id; null otherwise. */
export const parsePolicyId = (raw: string) => parseUuidObjectId(raw, "ApprovalPolicy");

const uuidKey = (key: string) => (isUuid(key) ? key.toLowerCase() : null);

implementNode(ChangeRequestRef, {
  localId: (request) => projectOwnedLocalId(request.projectId, request.id),
  // Scope `approvals:read` and the project check, as `Project.changeRequest`.
  load: projectOwnedLoader(uuidKey, (ctx, serviceContext, projectId, ids) =>
    ctx.services.approvals.getChangeRequests(serviceContext, projectId, ids),
  ),
});

implementNode(ApprovalPolicyRef, {
  localId: (policy) => projectOwnedLocalId(policy.projectId, policy.id),
  load: projectOwnedLoader(uuidKey, (ctx, serviceContext, projectId, ids) =>
    ctx.services.approvals.getPolicies(serviceContext, projectId, ids),
  ),
});
