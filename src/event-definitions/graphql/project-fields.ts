/**
 * The event-definition fields of `Project`: one definition by id or by name, and the filtered page
 * of definitions, through the same service reads as REST (the filters re-encoded into REST's
 * query names, so one zod schema parses both).
 */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { EventDefinitionOrderFieldEnum, EventDefinitionTypeEnum } from "./enums.js";
import { EventDefinitionRef, parseEventDefinitionId } from "./event-definition.type.js";

const EventDefinitionOrderInput = builder.inputType("EventDefinitionOrderInput", {
  description: "One sort key of an event-definition list (one REST `ordering` value).",
  fields: (t) => ({
    field: t.field({ type: EventDefinitionOrderFieldEnum, required: true, description: "What to sort by." }),
    descending: t.boolean({ description: "Largest (or latest) first; false when absent." }),
  }),
});

const EventDefinitionFilterInput = builder.inputType("EventDefinitionFilterInput", {
  description:
    "Narrows an event-definition list, as REST's list query parameters do. Unset fields do not filter.",
  fields: (t) => ({
    search: t.string({ description: "Every whitespace-separated term must be in the name (any case)." }),
    eventType: t.field({
      type: EventDefinitionTypeEnum,
      description: "Custom or PostHog events; all when unset.",
    }),
    excludeHidden: t.boolean({ description: "Leave out hidden events." }),
    excludeStale: t.boolean({ description: "Leave out events not seen for 30 days (never-seen ones stay)." }),
    verified: t.boolean({ description: "true: verified events only; false: unverified ones only." }),
    names: t.stringList({ description: "Only these exact names." }),
    tags: t.stringList({ description: "Only events having any of these tags." }),
    excludedNames: t.stringList({ description: "Leave out these names (REST's `excluded_properties`)." }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  eventDefinition: t.field({
    type: EventDefinitionRef,
    nullable: true,
    description:
      "One event definition of the project, by `id` (its UUID or global id) or by exact `name`; null when there " +
      "is none. Scope `event_definition:read`.",
    extensions: requiresScopes("event_definition:read"),
    args: {
      id: t.arg.id({ description: "The definition's UUID (REST's `:id`) or its global `id`." }),
      name: t.arg.string({ description: "The exact event name (REST's `by_name`)." }),
    },
    resolve: async (project, args, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const service = ctx.services.eventDefinitions;
      try {
        if (args.id !== null && args.id !== undefined) {
          const id = parseEventDefinitionId(String(args.id));
          return id === null ? null : await service.get(serviceContext, project.id, id);
        }
        return await service.getByName(serviceContext, project.id, args.name);
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  eventDefinitions: t.connection(
    {
      type: EventDefinitionRef,
      nullable: true,
      description:
        "The project's event definitions, last seen day first then by name unless `orderBy` says otherwise " +
        "(`name` always breaks ties; with a search and no `orderBy`, shorter names first). Scope " +
        "`event_definition:read`.",
      extensions: requiresScopes("event_definition:read"),
      args: {
        filter: t.arg({ type: EventDefinitionFilterInput, description: "Which definitions to list." }),
        orderBy: t.arg({ type: [EventDefinitionOrderInput], description: "Sort keys, in order." }),
      },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const query: Record<string, unknown> = {
          ...postHogFields(args.filter ?? {}, {
            search: "search",
            eventType: "event_type",
            excludeHidden: "exclude_hidden",
            excludeStale: "exclude_stale",
            verified: "verified",
            names: "names",
            tags: "tags",
            excludedNames: "excluded_properties",
          }),
          ordering: (args.orderBy ?? []).map((order) => `${order.descending ? "-" : ""}${order.field}`),
        };
        // GraphQL's null means "do not filter", as an absent REST parameter.
        for (const [key, value] of Object.entries(query)) if (value === null) delete query[key];
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.eventDefinitions.list(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "EventDefinitionConnection",
      description: "A page of event definitions.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Definitions matching the filter, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "EventDefinitionEdge", description: "An event definition in a page of event definitions." },
  ),
}));
