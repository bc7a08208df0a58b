/**
 * Approval policies (issue 27; PostHog's `ApprovalPolicyViewSet`, products/approvals/backend/api.py,
 * and `ApprovalPolicySerializer`): listed and read with `approvals:read`, written by organization
 * admins with `approvals:write` (`OrganizationAdminWritePermissions`), one per project and action,
 * with PostHog's messages. Part of the approval service (approvals.service.ts).
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, PermissionDeniedError, ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { inUuidOrder, isUuid, parseInput } from "../core/validation.js";
import { isUniqueViolation } from "../db/database-error.js";
import { createPolicySchema, updatePolicySchema } from "./approvals.schemas.js";
import {
  deletePolicyRow,
  insertPolicy,
  membershipLevel,
  type PolicyFields,
  type PolicyRecord,
  policyExists,
  selectPolicies,
  selectPolicy,
  selectPolicyPage,
  updatePolicyRow,
} from "./approvals.store.js";

/** Organization membership level of admins (PostHog's `OrganizationMembership.Level.ADMIN`). */
const ADMIN_LEVEL = 8;

/** The policy operations of the approval service. */
export function createPolicyOperations(deps: ServiceDeps) {
  /** Policy writes need an organization admin (PostHog's `OrganizationAdminWritePermissions`). */
  async function authorizePolicyWrite(ctx: ServiceContext, projectId: number) {
    const project = await authorizeProject(ctx, projectId, "approvals:write");
    const level = await membershipLevel(ctx.db, project.organizationId, ctx.actor.user.id);
    if (level === null || level < ADMIN_LEVEL) {
      throw new PermissionDeniedError("Your organization access level is insufficient.");
    }
    return project;
  }

  async function policyOf(ctx: ServiceContext, projectId: number, id: string): Promise<PolicyRecord> {
    const policy = isUuid(id) ? await selectPolicy(ctx.db, projectId, id) : null;
    if (!policy) throw new NotFoundError();
    return policy;
  }

  function policyFields(input: ReturnType<typeof updatePolicySchema.parse>): PolicyFields {
    return {
      ...(input.action_key === undefined ? {} : { actionKey: input.action_key }),
      ...(input.conditions === undefined ? {} : { conditions: input.conditions }),
      ...(input.approver_config === undefined ? {} : { approverConfig: input.approver_config }),
      ...(input.allow_self_approve === undefined ? {} : { allowSelfApprove: input.allow_self_approve }),
      ...(input.bypass_org_membership_levels === undefined
        ? {}
        : { bypassOrgMembershipLevels: input.bypass_org_membership_levels }),
      ...(input.expires_after === undefined ? {} : { expiresAfterUs: input.expires_after }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    };
  }

  const duplicatePolicy = () =>
    new ValidationError(
      "A policy for this action already exists. You can edit the existing policy instead.",
      {
        code: "invalid",
      },
    );

  async function writePolicy(
    ctx: ServiceContext,
    projectId: number,
    id: string,
    body: unknown,
    partial: boolean,
  ): Promise<PolicyRecord> {
    const project = await authorizePolicyWrite(ctx, projectId);
    // DRF finds the object (404) before it validates the body.
    const current = await policyOf(ctx, project.id, id);
    const input = parseInput(partial ? updatePolicySchema : createPolicySchema, body, ctx.limits);
    const fields = policyFields(input);
    if (
      fields.actionKey !== undefined &&
      (await policyExists(ctx.db, project.id, fields.actionKey, current.id))
    ) {
      throw duplicatePolicy();
    }
    try {
      return await transactional(ctx, (tx) => updatePolicyRow(tx, current.id, fields, deps.now()));
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicatePolicy();
      throw error;
    }
  }

  return {
    /** A page of the project's policies, newest first (`action_key`, `enabled` filters). Scope `approvals:read`. */
    async listPolicies(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, string | undefined>,
      page: OffsetPage,
    ) {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      const enabled = query["enabled"];
      return selectPolicyPage(
        ctx.db,
        project.id,
        {
          ...(query["action_key"] === undefined ? {} : { actionKey: query["action_key"] }),
          ...(enabled === undefined ? {} : { enabled: enabled.toLowerCase() === "true" }),
        },
        page,
      );
    },

    /** One policy. Scope `approvals:read`. @throws NotFoundError */
    async getPolicy(ctx: ServiceContext, projectId: number, id: string): Promise<PolicyRecord> {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      return policyOf(ctx, project.id, id);
    },

    /**
     * Creates a policy for the project. Scope `approvals:write`, an organization admin.
     * @throws ValidationError (PostHog's messages: a policy for the action exists, quorum below 1, ...);
     *   PermissionDeniedError for a member below admin.
     */
    async createPolicy(ctx: ServiceContext, projectId: number, body: unknown): Promise<PolicyRecord> {
      const project = await authorizePolicyWrite(ctx, projectId);
      const input = parseInput(createPolicySchema, body, ctx.limits);
      if (await policyExists(ctx.db, project.id, input.action_key, null)) throw duplicatePolicy();
      const fields = policyFields(input);
      try {
        return await transactional(ctx, (tx) =>
          insertPolicy(
            tx,
            project,
            { ...fields, actionKey: input.action_key, approverConfig: input.approver_config },
            ctx.actor.user.id,
            deps.now(),
          ),
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicatePolicy();
        throw error;
      }
    },

    /** Changes a policy (`partial`: PATCH; else PUT, every required field). As `createPolicy`. */
    updatePolicy: (ctx: ServiceContext, projectId: number, id: string, body: unknown, partial: boolean) =>
      writePolicy(ctx, projectId, id, body, partial),

    /**
     * Deletes a policy and returns it as it was; its open requests keep their snapshot. Scope
     * `approvals:write`, an admin. @throws NotFoundError, PermissionDeniedError.
     */
    async deletePolicy(ctx: ServiceContext, projectId: number, id: string): Promise<PolicyRecord> {
      const project = await authorizePolicyWrite(ctx, projectId);
      const policy = await policyOf(ctx, project.id, id);
      await transactional(ctx, (tx) => deletePolicyRow(tx, policy.id));
      return policy;
    },

    /** The project's policies of `ids` (UUIDs), in that order (null: none). Scope `approvals:read`. */
    async getPolicies(ctx: ServiceContext, projectId: number, ids: readonly string[]) {
      const project = await authorizeProject(ctx, projectId, "approvals:read");
      const valid = ids.filter(isUuid);
      return inUuidOrder(ids, valid.length ? await selectPolicies(ctx.db, project.id, valid) : []);
    },
  };
}
