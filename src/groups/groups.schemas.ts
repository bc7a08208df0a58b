/**
 * Inputs of the group operations, in PostHog's names (the REST contract; GraphQL maps its camelCase
 * arguments onto these). Source: `ee/clickhouse/views/groups.py` (`GroupsViewSet.list`, `find`,
 * `GroupsTypesViewSet.update_metadata` with `GroupTypeSerializer`) and
 * `posthog/models/group_type_mapping.py` (names are `CharField(max_length=400, null=True, blank=True)`).
 */
import { z } from "zod";
import { drf } from "../core/validation.js";

/** Longest group type name (PostHog's `max_length=400`). */
export const GROUP_TYPE_NAME_MAX_LENGTH = 400;

/** PostHog's message when the group list is asked for without a group type. */
export const TYPE_INDEX_REQUIRED =
  "You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.";

/** `group_type_index` as the group reads take it: an integer (any integer: none but 0–4 exists). */
const groupTypeIndex = drf.integer().refine((n) => Math.abs(n) <= 2_147_483_647, {
  message: "A valid integer is required.",
});

/**
 * `GET groups/`: the group type (the service refuses its absence with `TYPE_INDEX_REQUIRED` first),
 * and the optional `search` (property text contains it, any case, or the key equals it, any case)
 * and `group_key` (the key contains it, any case). Unknown parameters are ignored.
 */
export const groupListFiltersSchema = z
  .object({
    group_type_index: groupTypeIndex,
    search: z.string().optional().catch(undefined),
    group_key: z.string().optional().catch(undefined),
  })
  .transform(
    (q): GroupListFilters => ({
      groupTypeIndex: q.group_type_index,
      ...(q.search === undefined ? {} : { search: q.search }),
      ...(q.group_key ? { keyContains: q.group_key } : {}),
    }),
  );

/** Filters of the group list, parsed by `groupListFiltersSchema`. */
export interface GroupListFilters {
  groupTypeIndex: number;
  /** The properties' JSON text contains it (any case), or the key equals it (any case). */
  search?: string;
  /** The key contains it (any case). */
  keyContains?: string;
}

/** `GET groups/find`: both required. */
export const findGroupSchema = z.object({
  group_type_index: groupTypeIndex,
  group_key: z.string(),
});

const groupTypeName = drf.string({ maxLength: GROUP_TYPE_NAME_MAX_LENGTH }).nullable().optional();

/**
 * `PATCH groups_types/update_metadata/`: a list of rows, each naming its group type by index; a
 * name absent keeps its value, null clears it, a text (blank allowed) sets it.
 */
export const updateGroupTypesSchema = z.array(
  z.object({
    group_type_index: groupTypeIndex,
    name_singular: groupTypeName,
    name_plural: groupTypeName,
  }),
);

/** A validated `update_metadata` body. */
export type UpdateGroupTypesInput = z.output<typeof updateGroupTypesSchema>;
