/**
 * The endpoint fields of `Project`: one endpoint by id or name, the filtered page of endpoints, and
 * the last execution times by name, through the same service reads as REST (filters re-encoded into
 * REST's query names, so one zod schema parses both).
 */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { parseIntegerObjectId } from "../../graphql/ids.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { EndpointRef, parseEndpointId } from "./endpoint.type.js";

const EndpointFilterInput = builder.inputType("EndpointFilterInput", {
  description: "Narrows an endpoint list, as REST's list query parameters do. Unset fields do not filter.",
  fields: (t) => ({
    isActive: t.boolean({ description: "Only active (true) or inactive (false) endpoints." }),
    createdBy: t.id({
      description: "Only endpoints this user created: PostHog's integer user id or the user's global `id`.",
    }),
  }),
});

/** When an endpoint was last run with a personal API key. */
const EndpointExecutionTimeRef = builder
  .objectRef<{ name: string; lastExecutedAt: Date }>("EndpointExecutionTime")
  .implement({
    description: "When an endpoint was last run with a personal API key (REST `last_execution_times`).",
    fields: (t) => ({
      name: t.exposeString("name", { description: "The endpoint's name." }),
      lastExecutedAt: t.expose("lastExecutedAt", { type: "DateTime", description: "Its latest run." }),
    }),
  });

builder.objectFields(ProjectRef, (t) => ({
  endpoint: t.field({
    type: EndpointRef,
    nullable: true,
    description:
      "One saved-query endpoint of the project, by `id` (its UUID or global id) or by `name`; null when there is " +
      "none. Scope `endpoint:read`.",
    extensions: requiresScopes("endpoint:read"),
    args: {
      id: t.arg.id({ description: "The endpoint's UUID or its global `id`." }),
      name: t.arg.string({ description: "The endpoint's name (REST's `:name`)." }),
    },
    resolve: async (project, args, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const service = ctx.services.endpoints;
      try {
        if (args.id !== null && args.id !== undefined) {
          const id = parseEndpointId(String(args.id));
          return await service.get(serviceContext, project.id, { id: id ?? "" });
        }
        return await service.get(serviceContext, project.id, args.name ?? "");
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  endpoints: t.connection(
    {
      type: EndpointRef,
      nullable: true,
      description: "The project's saved-query endpoints, newest first. Scope `endpoint:read`.",
      extensions: requiresScopes("endpoint:read"),
      args: { filter: t.arg({ type: EndpointFilterInput, description: "Which endpoints to list." }) },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const query: Record<string, unknown> = {};
        if (args.filter?.isActive !== null && args.filter?.isActive !== undefined) {
          query["is_active"] = args.filter.isActive;
        }
        if (args.filter?.createdBy !== null && args.filter?.createdBy !== undefined) {
          const raw = String(args.filter.createdBy);
          query["created_by"] = parseIntegerObjectId(raw, "User") ?? raw;
        }
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.endpoints.list(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "EndpointConnection",
      description: "A page of saved-query endpoints.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Endpoints matching the filter, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "EndpointEdge", description: "An endpoint in a page of endpoints." },
  ),
  endpointLastExecutionTimes: t.field({
    type: [EndpointExecutionTimeRef],
    nullable: true,
    description:
      "When each named endpoint was last run with a personal API key in the past 6 months (REST " +
      "`last_execution_times`); names that did not run are left out. Scope `endpoint:read`.",
    extensions: requiresScopes("endpoint:read"),
    args: { names: t.arg.stringList({ required: true, description: "Endpoint names." }) },
    resolve: async (project, args, ctx) => {
      const times = await ctx.services.endpoints.lastExecutionTimes(await ctx.serviceContext(), project.id, {
        names: args.names,
      });
      return (times.results ?? []).map(([name, lastExecutedAt]) => ({ name, lastExecutedAt }));
    },
  }),
}));
