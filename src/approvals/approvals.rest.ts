/**
 * Approvals on REST, PostHog's two viewsets (products/approvals/backend/api.py, routes.py) on both
 * path families (`/api/projects/:project_id/…` and `/api/environments/:project_id/…`):
 * - `approval_policies/`: list (`action_key`, `enabled` filters; limit/offset pages), create,
 *   retrieve, PATCH, PUT, DELETE (204); writes by organization admins;
 * - `change_requests/`: list (`state` (comma-separated), `action_key`, `requester`, `resource_type`,
 *   `resource_id`), retrieve, and `:id/approve/` `{reason?}`, `:id/reject/` `{reason}`,
 *   `:id/cancel/` `{reason?}`, each answering `{status, message, change_request, result?}`.
 * Scopes `approvals:read` / `approvals:write` (approve, reject and cancel are writes).
 */
import { z } from "zod";
import type { ServiceContext } from "../core/context.js";
import { errorBodySchema } from "../core/error-body.js";
import { crudRoutes } from "../rest/crud-routes.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import { ChangeRequestActionError } from "./approvals.errors.js";
import {
  approvalPolicyPageSchema,
  approvalPolicySchema,
  changeRequestPageSchema,
  changeRequestSchema,
  decisionSchema,
  serializeChangeRequest,
  serializePolicy,
} from "./approvals.responses.js";
import {
  approveSchema,
  cancelSchema,
  createPolicySchema,
  rejectSchema,
  updatePolicySchema,
} from "./approvals.schemas.js";
import { changeRequestFilters, type Decision } from "./approvals.service.js";

/** The two path families PostHog registers both viewsets on (`register_legacy_dual_route`). */
const PREFIXES = ["/api/projects/:project_id/", "/api/environments/:project_id/"] as const;

/** PostHog's `{"error": ...}` body of a vote it refuses after the permission check. */
const actionErrorSchema = z.object({ error: z.string() }).meta({ id: "ChangeRequestActionError" });

/** A decision's REST answer, the request's caller fields for `ctx`'s user. */
function decisionBody(decision: Decision, ctx: ServiceContext) {
  return {
    status: decision.status,
    message: decision.message,
    change_request: serializeChangeRequest(decision.changeRequest, ctx.actor.user.id),
    ...(decision.result ? { result: decision.result } : {}),
  };
}

/** The approval routes. */
export const approvalRoutes: RestModule = (services, limits) => {
  const approvals = services.approvals;
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const id = (params: Record<string, string>) => params["id"] ?? "";
  return PREFIXES.flatMap((prefix): RestRoute[] => {
    const policies = `${prefix}approval_policies/`;
    const requests = `${prefix}change_requests/`;
    const decision = (
      action: "approve" | "reject" | "cancel",
      summary: string,
      body: z.ZodType,
    ): RestRoute => ({
      method: "POST",
      path: `${requests}:id/${action}/`,
      summary,
      scopes: ["approvals:write"],
      request: { body },
      responses: { 200: decisionSchema, 400: z.union([actionErrorSchema, errorBodySchema]) },
      // PostHog's `{"error": ...}` of a refused vote (api.py), beside the standard body of bad input.
      errorBody: (error) => (error instanceof ChangeRequestActionError ? error.restBody() : undefined),
      handler: async ({ params, body: sent, ctx }) => ({
        body: decisionBody(await approvals[action](ctx, project(params), id(params), sent), ctx),
      }),
    });
    return [
      offsetListRoute(limits, {
        path: policies,
        summary:
          "The project's approval policies, newest first: `action_key` and `enabled` filters, limit/offset pages.",
        scopes: ["approvals:read"],
        query: offsetPageQuerySchema.extend({
          action_key: z.string().optional(),
          enabled: z
            .string()
            .optional()
            .describe("`true` for enabled policies only, anything else for disabled ones."),
        }),
        pageSchema: approvalPolicyPageSchema,
        load: ({ ctx, projectId, query }, page) =>
          approvals.listPolicies(ctx, projectId, Object.fromEntries(query), page),
        serialize: serializePolicy,
      }),
      ...crudRoutes({
        base: policies,
        read: "approvals:read",
        write: "approvals:write",
        idOf: id,
        service: {
          create: approvals.createPolicy,
          get: approvals.getPolicy,
          update: approvals.updatePolicy,
          remove: approvals.deletePolicy,
        },
        record: { schema: approvalPolicySchema, serialize: serializePolicy },
        bodies: { create: createPolicySchema, patch: updatePolicySchema, put: createPolicySchema },
        summaries: {
          create:
            "Create an approval policy (organization admins): writes of `action_key` its conditions match wait for `approver_config.quorum` approvals.",
          get: "One approval policy.",
          patch: "Change an approval policy (organization admins); absent fields keep their value.",
          put: "Replace an approval policy (organization admins).",
          remove:
            "Delete an approval policy (organization admins); open change requests keep their snapshot of it.",
        },
      }),
      offsetListRoute(limits, {
        path: requests,
        summary:
          "The project's change requests, newest first: `state` (comma-separated), `action_key`, `requester`, `resource_type`, `resource_id` filters; limit/offset pages.",
        scopes: ["approvals:read"],
        query: offsetPageQuerySchema.extend({
          state: z.string().optional().describe("States, comma-separated: `pending,approved`."),
          action_key: z.string().optional(),
          requester: z.string().optional().describe("The requester's user id."),
          resource_type: z.string().optional(),
          resource_id: z.string().optional(),
        }),
        pageSchema: changeRequestPageSchema,
        load: ({ ctx, projectId, query }, page) =>
          approvals.listChangeRequests(ctx, projectId, changeRequestFilters(Object.fromEntries(query)), page),
        serialize: (request, ctx) => serializeChangeRequest(request, ctx.actor.user.id),
      }),
      {
        method: "GET",
        path: `${requests}:id/`,
        summary: "One change request, with its votes and what the caller may do with it.",
        scopes: ["approvals:read"],
        responses: { 200: changeRequestSchema },
        handler: async ({ params, ctx }) => ({
          body: serializeChangeRequest(
            await approvals.getChangeRequest(ctx, project(params), id(params)),
            ctx.actor.user.id,
          ),
        }),
      },
      decision(
        "approve",
        "Approve a pending change request (an approver, not its requester unless the policy allows); at quorum the change is applied at once as the requester, or fails if its resource changed since.",
        approveSchema,
      ),
      decision(
        "reject",
        "Reject a pending change request with a `reason` (required); one rejection ends it.",
        rejectSchema,
      ),
      decision(
        "cancel",
        "Cancel your own pending change request (while it has no approval, or once it is stale).",
        cancelSchema,
      ),
    ];
  });
};
