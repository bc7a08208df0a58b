/**
 * The group fields of `Project`: its group types, a page of groups of one type, and one group by
 * type and key. Each goes through the same service read as REST (`groups_types/`, `groups/`,
 * `groups/find`).
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { NotFoundError, ProjectNotFoundError, ValidationError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { groupCursor } from "../groups.service.js";
import { GroupRef } from "./group.type.js";
import { GroupTypeRef } from "./group-type.type.js";

builder.objectFields(ProjectRef, (t) => ({
  groupTypes: t.field({
    type: [GroupTypeRef],
    nullable: true,
    description: "The project's group types, by index (REST's `groups_types/`). Scope `group:read`.",
    extensions: requiresScopes("group:read"),
    resolve: async (project, _args, ctx) =>
      ctx.services.groups.listTypes(await ctx.serviceContext(), project.id),
  }),
  group: t.field({
    type: GroupRef,
    nullable: true,
    description:
      "One group by type index and exact key (REST's `groups/find`); null when none. Scope `group:read`.",
    extensions: requiresScopes("group:read"),
    args: {
      groupTypeIndex: t.arg.int({ required: true, description: "The group type's slot, 0–4." }),
      groupKey: t.arg.string({ required: true, description: "The group's exact key." }),
    },
    resolve: async (project, args, ctx) => {
      try {
        return await ctx.services.groups.find(await ctx.serviceContext(), project.id, {
          group_type_index: args.groupTypeIndex,
          group_key: args.groupKey,
        });
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  groups: t.connection(
    {
      type: GroupRef,
      nullable: true,
      description:
        `Groups of one type, newest first (REST's \`groups/\`), ${DEFAULT_PAGE_SIZE} per page unless \`first\` ` +
        "says otherwise (clamped to the configured page size); pages forward only (`first`/`after`). " +
        "Scope `group:read`. One SQL statement per page.",
      extensions: requiresScopes("group:read"),
      args: {
        groupTypeIndex: t.arg.int({ required: true, description: "The group type's slot, 0–4." }),
        search: t.arg.string({
          description: "Groups whose properties contain it or whose key is it (any case).",
        }),
        groupKey: t.arg.string({ description: "Groups whose key contains it (any case)." }),
      },
      resolve: async (project, args, ctx) => {
        if (args.last != null || args.before != null) {
          throw new ValidationError("Groups page forward only: use `first` and `after`.");
        }
        if (args.first != null && args.first < 0) {
          throw new ValidationError("`first` must not be negative.", { attr: "first" });
        }
        const query = postHogFields(
          { groupTypeIndex: args.groupTypeIndex, search: args.search, groupKey: args.groupKey },
          { groupTypeIndex: "group_type_index", search: "search", groupKey: "group_key" },
        );
        const page = await ctx.services.groups.list(await ctx.serviceContext(), project.id, query, {
          size: Math.min(args.first ?? DEFAULT_PAGE_SIZE, ctx.limits.maxPageSize),
          cursor: args.after ?? null,
        });
        const edges = page.results.map((group) => ({ cursor: groupCursor(group), node: group }));
        return {
          edges,
          pageInfo: {
            hasNextPage: page.next !== null,
            hasPreviousPage: page.previous !== null,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges[edges.length - 1]?.cursor ?? null,
          },
        };
      },
    },
    { name: "GroupConnection", description: "A page of groups." },
    { name: "GroupEdge", description: "A group in a page of groups." },
  ),
}));
