/** The approval fields of `Project`: its change requests (one, and a page) and its policies, through the REST door's service reads. */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { ApprovalPolicyRef, ChangeRequestRef, parseChangeRequestId } from "./types.js";

builder.objectFields(ProjectRef, (t) => ({
  changeRequest: t.field({
    type: ChangeRequestRef,
    nullable: true,
    description: "One change request by its UUID; null when none. Scope `approvals:read`.",
    extensions: requiresScopes("approvals:read"),
    args: { id: t.arg.id({ required: true, description: "The change request's UUID or global `id`." }) },
    resolve: async (project, args, ctx) => {
      try {
        const id = parseChangeRequestId(String(args.id)) ?? "";
        return await ctx.services.approvals.getChangeRequest(await ctx.serviceContext(), project.id, id);
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  changeRequests: t.connection(
    {
      type: ChangeRequestRef,
      nullable: true,
      description:
        "The project's change requests, newest first, filtered as REST's `change_requests/`. Scope `approvals:read`.",
      extensions: requiresScopes("approvals:read"),
      args: {
        states: t.arg.stringList({
          description: "Only these states (`pending`, `approved`, `applied`, ...).",
        }),
        actionKey: t.arg.string({ description: "Only this action, e.g. `feature_flag.enable`." }),
        requester: t.arg.int({ description: "Only those of this user id." }),
        resourceType: t.arg.string({ description: "Only those on this resource type (`feature_flag`)." }),
        resourceId: t.arg.string({ description: "Only those on this resource id." }),
      },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const filters = {
          ...(args.states ? { states: args.states } : {}),
          ...(args.actionKey == null ? {} : { actionKey: args.actionKey }),
          ...(args.requester == null ? {} : { requester: args.requester }),
          ...(args.resourceType == null ? {} : { resourceType: args.resourceType }),
          ...(args.resourceId == null ? {} : { resourceId: args.resourceId }),
        };
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.approvals.listChangeRequests(serviceContext, project.id, filters, page),
        );
      },
    },
    {
      name: "ChangeRequestConnection",
      description: "A page of change requests.",
      fields: (c) => ({
        totalCount: c.int({ description: "Change requests on all pages.", resolve: connectionTotalCount }),
      }),
    },
    { name: "ChangeRequestEdge", description: "A change request in a page of them." },
  ),
  approvalPolicies: t.connection(
    {
      type: ApprovalPolicyRef,
      nullable: true,
      description: "The project's approval policies, newest first. Scope `approvals:read`.",
      extensions: requiresScopes("approvals:read"),
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.approvals.listPolicies(serviceContext, project.id, {}, page),
        );
      },
    },
    {
      name: "ApprovalPolicyConnection",
      description: "A page of approval policies.",
      fields: (c) => ({
        totalCount: c.int({ description: "Policies on all pages.", resolve: connectionTotalCount }),
      }),
    },
    { name: "ApprovalPolicyEdge", description: "A policy in a page of them." },
  ),
}));
