/**
 * The dashboard fields of `Project`: one dashboard by id and the page of dashboards, through the
 * same service reads as REST (`GET dashboards/:id/`, `GET dashboards/`).
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { parseDashboardId } from "./dashboard.type.js";
import { DashboardRef } from "./refs.js";

builder.objectFields(ProjectRef, (t) => ({
  dashboard: t.field({
    type: DashboardRef,
    nullable: true,
    description:
      "One dashboard of the project; null when there is none or it is soft-deleted. Scope `dashboard:read`.",
    extensions: requiresScopes("dashboard:read"),
    args: {
      id: t.arg.id({
        required: true,
        description: "The dashboard's id: PostHog's integer or its global `id`.",
      }),
    },
    resolve: async (project, args, ctx) => {
      const id = parseDashboardId(args.id);
      if (id === null) return null;
      try {
        const [dashboard] = await ctx.services.dashboards.getMany(await ctx.serviceContext(), project.id, [
          id,
        ]);
        return dashboard ?? null;
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  dashboards: t.connection(
    {
      type: DashboardRef,
      nullable: true,
      description:
        `The project's dashboards without soft-deleted ones, oldest first, ${DEFAULT_PAGE_SIZE} per page unless ` +
        "`first`/`last` say otherwise. Scope `dashboard:read`.",
      extensions: requiresScopes("dashboard:read"),
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.dashboards.list(serviceContext, project.id, page),
        );
      },
    },
    {
      name: "DashboardConnection",
      description: "A page of dashboards.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Dashboards of the project, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "DashboardEdge", description: "A dashboard in a page of dashboards." },
  ),
}));
