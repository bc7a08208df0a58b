/**
 * The event-schema fields of `Project`: one schema property group by id, the page of groups and the
 * page of event schemas, through the same service reads as REST.
 */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { parseEventDefinitionId } from "./event-definition.type.js";
import { parseUuidObjectId } from "./refs.js";
import { EventSchemaRef, SchemaPropertyGroupRef } from "./schema-property-group.type.js";

builder.objectFields(ProjectRef, (t) => ({
  schemaPropertyGroup: t.field({
    type: SchemaPropertyGroupRef,
    nullable: true,
    description:
      "One schema property group of the project, by its UUID or global id; null when there is none. Scope " +
      "`event_definition:read`.",
    extensions: requiresScopes("event_definition:read"),
    args: {
      id: t.arg.id({ required: true, description: "The group's UUID (REST's `:id`) or its global `id`." }),
    },
    resolve: async (project, args, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const id = parseUuidObjectId(String(args.id), "SchemaPropertyGroup");
      try {
        // A malformed id still checks scope and project first, as REST does.
        return await ctx.services.eventSchemas.getGroup(serviceContext, project.id, id ?? "");
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  schemaPropertyGroups: t.connection(
    {
      type: SchemaPropertyGroupRef,
      nullable: true,
      description: "The project's schema property groups, by name. Scope `event_definition:read`.",
      extensions: requiresScopes("event_definition:read"),
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.eventSchemas.listGroups(serviceContext, project.id, page),
        );
      },
    },
    {
      name: "SchemaPropertyGroupConnection",
      description: "A page of schema property groups.",
      fields: (c) => ({
        totalCount: c.int({ description: "Groups on all pages together.", resolve: connectionTotalCount }),
      }),
    },
    { name: "SchemaPropertyGroupEdge", description: "A schema property group in a page of groups." },
  ),
  eventSchemas: t.connection(
    {
      type: EventSchemaRef,
      nullable: true,
      description:
        "The project's event schemas (groups attached to event definitions), newest first. Scope " +
        "`event_definition:read`.",
      extensions: requiresScopes("event_definition:read"),
      args: {
        eventDefinitionId: t.arg.id({
          description: "Only this event definition's: its UUID or global `id` (REST's `event_definition`).",
        }),
      },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const raw = args.eventDefinitionId;
        const query =
          raw === null || raw === undefined
            ? {}
            : { event_definition: parseEventDefinitionId(String(raw)) ?? String(raw) };
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.eventSchemas.listEventSchemas(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "EventSchemaConnection",
      description: "A page of event schemas.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Event schemas on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "EventSchemaEdge", description: "An event schema in a page of event schemas." },
  ),
}));
