/**
 * Group types and groups in PostHog's REST shapes (`ee/clickhouse/views/groups.py`
 * `GroupTypeSerializer`, `GroupSerializer`, `FindGroupSerializer`; fields of
 * `posthog/models/group_type_mapping.py` `GROUP_TYPE_MAPPING_SERIALIZER_FIELDS`), each written once
 * as a zod schema: fastify writes bodies with them, the OpenAPI document names them.
 */
import { z } from "zod";

/** A group type as `GET groups_types/` lists it. */
export const groupTypeSchema = z
  .object({
    group_type: z.string().describe("The name SDKs send (`company`, ...)."),
    group_type_index: z.int().describe("0–4: the slot of the type in the project."),
    name_singular: z.string().nullable(),
    name_plural: z.string().nullable(),
    detail_dashboard: z.int().nullable().describe("Always null here (no dashboards)."),
    default_columns: z.array(z.string()).nullable().describe("Always null here (not stored)."),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "GroupType" });

/** The project's group types (PostHog answers a bare list: no pagination). */
export const groupTypeListSchema = z.array(groupTypeSchema);

const groupFields = {
  group_type_index: z.int(),
  group_key: z.string(),
  group_properties: z.record(z.string(), z.unknown()).describe("The group's properties (free-form JSON)."),
  created_at: z.iso.datetime(),
};

/** A group as `GET groups/` lists it. */
export const groupSchema = z.object(groupFields).meta({ id: "Group" });

/** A group as `GET groups/find` answers it. */
export const foundGroupSchema = z
  .object({ ...groupFields, notebook: z.string().nullable().describe("Always null here (no notebooks).") })
  .meta({ id: "FoundGroup" });

const pageLink = z.url().nullable();

/** DRF's cursor page of groups (`{next, previous, results}`, no count). */
export const groupPageSchema = z
  .object({ next: pageLink, previous: pageLink, results: z.array(groupSchema) })
  .meta({ id: "PaginatedGroupList" });
