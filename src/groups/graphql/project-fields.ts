/**
 * The group fields of `Project`: its group types, a page of groups of one type, and one group by
 * type and key. Each goes through the same service read as REST (`groups_types/`, `groups/`,
 * `groups/find`).
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { builder } from "../../graphql/builder.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { forwardPageSize, keysetConnection } from "../../graphql/keyset-connection.js";
import { nullWhenMissing } from "../../graphql/null-when-missing.js";
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
    resolve: async (project, args, ctx) =>
      nullWhenMissing(
        ctx.services.groups.find(await ctx.serviceContext(), project.id, {
          group_type_index: args.groupTypeIndex,
          group_key: args.groupKey,
        }),
      ),
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
        const query = postHogFields(
          { groupTypeIndex: args.groupTypeIndex, search: args.search, groupKey: args.groupKey },
          { groupTypeIndex: "group_type_index", search: "search", groupKey: "group_key" },
        );
        const page = await ctx.services.groups.list(await ctx.serviceContext(), project.id, query, {
          size: forwardPageSize(args, ctx.limits.maxPageSize),
          cursor: args.after ?? null,
        });
        return keysetConnection(page.results, (group) => groupCursor(group), {
          hasNextPage: page.next !== null,
          hasPreviousPage: page.previous !== null,
        });
      },
    },
    { name: "GroupConnection", description: "A page of groups." },
    { name: "GroupEdge", description: "A group in a page of groups." },
  ),
}));
