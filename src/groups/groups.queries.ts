/**
 * How group types and groups are read, for both doors: one SQL statement per list, page or batch.
 * Groups page by keyset on `(created_at, group_key)`, newest first (PostHog's `-created_at` cursor
 * order, with the key breaking ties so pages never overlap).
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { GroupListFilters } from "./groups.schemas.js";

/** A project's group type (index 0–4 ↔ name). */
export interface GroupTypeRecord {
  projectId: number;
  groupTypeIndex: number;
  groupType: string;
  nameSingular: string | null;
  namePlural: string | null;
  createdAt: Date;
}

/** A group: one key of one group type, with its properties. */
export interface GroupRecord {
  projectId: number;
  groupTypeIndex: number;
  groupKey: string;
  groupProperties: Prisma.JsonValue;
  createdAt: Date;
  /** `created_at` as PostgreSQL prints it, with its microseconds: the page position. */
  createdAtText: string;
}

/** Where a page of groups starts: strictly beyond this group in the page's direction. */
export interface GroupPosition {
  createdAtText: string;
  groupKey: string;
}

/** One page request over groups: `size` rows beyond `from`, older ones (or newer ones with `reverse`). */
export interface GroupPageRequest {
  size: number;
  from: GroupPosition | null;
  reverse: boolean;
}

const SELECT_GROUP = Prisma.sql`
  SELECT g.project_id AS "projectId", g.group_type_index AS "groupTypeIndex", g.group_key AS "groupKey",
    g.group_properties AS "groupProperties", g.created_at AS "createdAt", g.created_at::text AS "createdAtText"
  FROM groups g`;

/** The project's group types by index. */
export function selectGroupTypes(db: QueryClient, projectId: number): Promise<GroupTypeRecord[]> {
  return db.$queryRaw<GroupTypeRecord[]>`
    SELECT project_id AS "projectId", group_type_index AS "groupTypeIndex", group_type AS "groupType",
      name_singular AS "nameSingular", name_plural AS "namePlural", created_at AS "createdAt"
    FROM group_type_mappings WHERE project_id = ${projectId} ORDER BY group_type_index`;
}

/**
 * One page of groups of one type matching `filters`, in the newest-first order whatever the
 * direction, and whether more rows lie beyond it in that direction (one row more is read).
 * Search as `GroupsViewSet.list`: `group_properties__icontains` (the JSON text, any case) or
 * `group_key__iexact`; `group_key` as `group_key__icontains`. strpos, not LIKE: texts match literally.
 */
export async function selectGroupPage(
  db: QueryClient,
  projectId: number,
  filters: GroupListFilters,
  page: GroupPageRequest,
): Promise<{ results: GroupRecord[]; hasMore: boolean }> {
  const and: Prisma.Sql[] = [
    Prisma.sql`g.project_id = ${projectId}`,
    Prisma.sql`g.group_type_index = ${filters.groupTypeIndex}`,
  ];
  if (filters.keyContains !== undefined) {
    and.push(Prisma.sql`strpos(lower(g.group_key), ${filters.keyContains.toLowerCase()}) > 0`);
  }
  if (filters.search !== undefined) {
    const needle = filters.search.toLowerCase();
    and.push(Prisma.sql`(strpos(lower(g.group_properties::text), ${needle}) > 0
      OR lower(g.group_key) = ${needle})`);
  }
  if (page.from !== null) {
    const position = Prisma.sql`(${page.from.createdAtText}::timestamptz, ${page.from.groupKey}::text)`;
    and.push(
      page.reverse
        ? Prisma.sql`(g.created_at, g.group_key) > ${position}`
        : Prisma.sql`(g.created_at, g.group_key) < ${position}`,
    );
  }
  const order = page.reverse
    ? Prisma.sql`g.created_at ASC, g.group_key ASC`
    : Prisma.sql`g.created_at DESC, g.group_key DESC`;
  const rows = await db.$queryRaw<GroupRecord[]>`${SELECT_GROUP}
    WHERE ${Prisma.join(and, " AND ")} ORDER BY ${order} LIMIT ${page.size + 1}`;
  const hasMore = rows.length > page.size;
  const results = rows.slice(0, page.size);
  return { results: page.reverse ? results.reverse() : results, hasMore };
}

/** Groups of a project by (type index, key), in no particular order. */
export async function selectGroups(
  db: QueryClient,
  projectId: number,
  keys: ReadonlyArray<{ groupTypeIndex: number; groupKey: string }>,
): Promise<GroupRecord[]> {
  if (keys.length === 0) return [];
  const indexes = keys.map((key) => key.groupTypeIndex);
  const groupKeys = keys.map((key) => key.groupKey);
  return db.$queryRaw<GroupRecord[]>`${SELECT_GROUP}
    JOIN unnest(${indexes}::int[], ${groupKeys}::text[]) AS k(type_index, group_key)
      ON g.group_type_index = k.type_index AND g.group_key = k.group_key
    WHERE g.project_id = ${projectId}`;
}

/**
 * The groups of one type of a project, as the `FROM` of a count (row alias `g`, what `toSql`'s
 * `group` target names), each with its key also readable as the property `$group_key` (PostHog
 * filters a group's own key under that name).
 */
export function projectGroupsOfType(projectId: number, groupTypeIndex: number): Prisma.Sql {
  return Prisma.sql`FROM (SELECT g0.group_type_index,
      g0.group_properties || jsonb_build_object('$group_key', g0.group_key) AS group_properties
    FROM groups g0 WHERE g0.project_id = ${projectId} AND g0.group_type_index = ${groupTypeIndex}) g`;
}
