/**
 * Group types and groups on PostHog's REST paths (`ee/clickhouse/views/groups.py`). Group types are
 * configuration (their writes bump the project's revision): their list is a conditional GET. Groups
 * are data: their reads answer no ETag (`conditional: false`). Behaviour lives in groups.service.ts.
 */
import { z } from "zod";
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { drfDateTime } from "../rest/date-time.js";
import { type NotBuiltOperation, notBuiltRoutes } from "../rest/not-built.js";
import { cursorPageLink } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import type { GroupRecord, GroupTypeRecord } from "./groups.queries.js";
import {
  foundGroupSchema,
  groupPageSchema,
  type groupSchema,
  groupTypeListSchema,
  type groupTypeSchema,
} from "./groups.responses.js";
import { updateGroupTypesSchema } from "./groups.schemas.js";

const PROJECT = "/api/projects/:project_id";

function serializeGroupType(type: GroupTypeRecord): z.output<typeof groupTypeSchema> {
  return {
    group_type: type.groupType,
    group_type_index: type.groupTypeIndex,
    name_singular: type.nameSingular,
    name_plural: type.namePlural,
    detail_dashboard: null,
    default_columns: null,
    created_at: drfDateTime(type.createdAt),
  };
}

function serializeGroup(group: GroupRecord): z.output<typeof groupSchema> {
  return {
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    group_properties: group.groupProperties as Record<string, unknown>,
    created_at: drfDateTime(group.createdAt),
  };
}

const groupListQuerySchema = z.object({
  group_type_index: z.int().describe("The group type to list (required)."),
  search: z.string().optional().describe("Groups whose properties contain it or whose key is it (any case)."),
  group_key: z.string().optional().describe("Groups whose key contains it (any case)."),
  cursor: z.string().optional().describe("A page position from a `next` or `previous` link."),
});

const findGroupQuerySchema = z.object({
  group_type_index: z.int().describe("The group type."),
  group_key: z.string().describe("The group's exact key."),
});

/**
 * Group operations of PostHog's `GroupsViewSet` that this service does not provide yet (scopes from
 * `scope_object = "group"` and their `required_scopes`): groups are written by capture's
 * `$groupidentify` here (issue 7 §3), and PostHog's own writes capture one too.
 */
const NOT_BUILT: readonly NotBuiltOperation[] = [
  {
    method: "POST",
    path: "groups/",
    scopes: ["group:write"],
    reason: "creating a group (PostHog captures a `$groupidentify` event) arrives with group state",
  },
  {
    method: "POST",
    path: "groups/update_property/",
    scopes: ["group:write"],
    reason: "setting a group property arrives with group state",
  },
  {
    method: "POST",
    path: "groups/delete_property/",
    scopes: ["group:write"],
    reason: "removing a group property arrives with group state",
  },
];

/** The group routes. */
export const groupRoutes: RestModule = (services, limits) => {
  const groups = services.groups;
  return [
    {
      method: "GET",
      path: `${PROJECT}/groups_types/`,
      summary: "The project's group types, by index (a plain list).",
      scopes: ["group:read"],
      responses: { 200: groupTypeListSchema },
      handler: async ({ params, ctx }) => ({
        body: (await groups.listTypes(ctx, pathId(params, "project_id"))).map(serializeGroupType),
      }),
    },
    {
      method: "PATCH",
      path: `${PROJECT}/groups_types/update_metadata/`,
      summary:
        "Rename group types: a list of `{group_type_index, name_singular, name_plural}`; answers them all.",
      scopes: ["group:write"],
      request: { body: updateGroupTypesSchema },
      responses: { 200: groupTypeListSchema },
      handler: async ({ params, body, ctx }) => ({
        body: (await groups.updateTypes(ctx, pathId(params, "project_id"), body)).map(serializeGroupType),
      }),
    },
    {
      method: "GET",
      path: `${PROJECT}/groups/`,
      summary: "Groups of one type, newest first, in cursor pages.",
      scopes: ["group:read"],
      conditional: false,
      request: { query: groupListQuerySchema },
      responses: { 200: groupPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = await groups.list(ctx, pathId(params, "project_id"), Object.fromEntries(query), {
          size: Math.min(DEFAULT_PAGE_SIZE, limits.maxPageSize),
          cursor: query.get("cursor"),
        });
        return {
          body: {
            next: cursorPageLink(url, page.next),
            previous: cursorPageLink(url, page.previous),
            results: page.results.map(serializeGroup),
          },
        };
      },
    },
    {
      method: "GET",
      path: `${PROJECT}/groups/find/`,
      summary: "One group by type index and exact key.",
      scopes: ["group:read"],
      conditional: false,
      request: { query: findGroupQuerySchema },
      responses: { 200: foundGroupSchema },
      handler: async ({ params, query, ctx }) => ({
        body: {
          ...serializeGroup(await groups.find(ctx, pathId(params, "project_id"), Object.fromEntries(query))),
          notebook: null,
        },
      }),
    },
    ...notBuiltRoutes(`${PROJECT}/`, NOT_BUILT),
  ];
};
