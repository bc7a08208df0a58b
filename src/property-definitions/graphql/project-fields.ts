/**
 * The property-definition fields of `Project`: one definition by id and the filtered page of
 * definitions, through the same service reads as REST (the filters re-encoded into REST's query
 * names, so one zod schema parses both).
 */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { PropertyDefinitionKindEnum } from "./enums.js";
import { PropertyDefinitionRef, parsePropertyDefinitionId } from "./property-definition.type.js";

const PropertyDefinitionFilterInput = builder.inputType("PropertyDefinitionFilterInput", {
  description:
    "Narrows a property-definition list, as REST's list query parameters do. Unset fields do not filter; " +
    "the kind is EVENT when unset.",
  fields: (t) => ({
    kind: t.field({
      type: PropertyDefinitionKindEnum,
      description: "Whose properties (REST's `type`); EVENT when unset.",
    }),
    groupTypeIndex: t.int({
      description: "The group type (0–4): required with kind GROUP, refused with any other kind.",
    }),
    search: t.string({ description: "Every whitespace-separated term must be in the name (any case)." }),
    names: t.stringList({ description: "Only these exact names (REST's `properties`)." }),
    isNumerical: t.boolean({ description: "true: numerical properties only." }),
    isFeatureFlag: t.boolean({ description: "true: `$feature/…` properties only; false: none of them." }),
    eventNames: t.stringList({
      description:
        "Event names (kind EVENT only): each result says whether it was seen on them " +
        "(`isSeenOnFilteredEvents`), and those seen come first.",
    }),
    filterByEventNames: t.boolean({
      description: "Only properties seen on `eventNames` (on any event when none are given).",
    }),
    excludedNames: t.stringList({ description: "Leave out these names (REST's `excluded_properties`)." }),
    excludeCoreProperties: t.boolean({
      description:
        "Leave out `$` properties and PostHog's core event properties (utm and click-id parameters, ...).",
    }),
    excludeHidden: t.boolean({ description: "Leave out hidden properties." }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  propertyDefinition: t.field({
    type: PropertyDefinitionRef,
    nullable: true,
    description:
      "One property definition of the project by `id` (its UUID or global id); null when there is none. Scope " +
      "`property_definition:read`.",
    extensions: requiresScopes("property_definition:read"),
    args: {
      id: t.arg.id({
        required: true,
        description: "The definition's UUID (REST's `:id`) or its global `id`.",
      }),
    },
    resolve: async (project, args, ctx) => {
      const id = parsePropertyDefinitionId(String(args.id));
      if (id === null) return null;
      try {
        return await ctx.services.propertyDefinitions.get(await ctx.serviceContext(), project.id, id);
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  propertyDefinitions: t.connection(
    {
      type: PropertyDefinitionRef,
      nullable: true,
      description:
        "The project's property definitions of one kind: seen on `eventNames` first (when given), then verified " +
        "ones, then by name. Scope `property_definition:read`.",
      extensions: requiresScopes("property_definition:read"),
      args: {
        filter: t.arg({ type: PropertyDefinitionFilterInput, description: "Which definitions to list." }),
      },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const query: Record<string, unknown> = postHogFields(args.filter ?? {}, {
          kind: "type",
          groupTypeIndex: "group_type_index",
          search: "search",
          names: "properties",
          isNumerical: "is_numerical",
          isFeatureFlag: "is_feature_flag",
          eventNames: "event_names",
          filterByEventNames: "filter_by_event_names",
          excludedNames: "excluded_properties",
          excludeCoreProperties: "exclude_core_properties",
          excludeHidden: "exclude_hidden",
        });
        // GraphQL's null means "do not filter", as an absent REST parameter.
        for (const [key, value] of Object.entries(query)) if (value === null) delete query[key];
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.propertyDefinitions.list(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "PropertyDefinitionConnection",
      description: "A page of property definitions.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Definitions matching the filter, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    {
      name: "PropertyDefinitionEdge",
      description: "A property definition in a page of property definitions.",
    },
  ),
}));
