/**
 * How event definitions are read: one statement per page or per record, the owner, the verifier,
 * the last updater and the tag names built in the same statement, a page's total beside its rows.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import { normalizeTags } from "../core/tags.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import { INCLUDED_SYSTEM_EVENTS } from "./codegen/model.js";
import type { EventDefinitionListFilters, EventDefinitionOrder } from "./event-definitions.schemas.js";

/** An event definition as both doors show it: its columns, its users and its tag names (sorted). */
export interface EventDefinitionRecord {
  /** UUID. */
  id: string;
  projectId: number;
  name: string;
  /** When capture first saw it; null for definitions created through the API until captured. */
  createdAt: Date | null;
  /** When capture last saw it (to the hour); null until captured. */
  lastSeenAt: Date | null;
  queryUsage30Day: number | null;
  description: string;
  ownerId: number | null;
  owner: UserBasic | null;
  verified: boolean;
  verifiedAt: Date | null;
  verifiedById: number | null;
  verifiedBy: UserBasic | null;
  hidden: boolean;
  /** When it was last changed through the API; null before. */
  updatedAt: Date | null;
  updatedBy: UserBasic | null;
  defaultColumns: string[];
  tags: string[];
}

const SELECT_RECORD = Prisma.sql`
  SELECT e.id::text AS id, e.project_id AS "projectId", e.name, e.created_at AS "createdAt",
    e.last_seen_at AS "lastSeenAt", e.query_usage_30_day AS "queryUsage30Day", e.description,
    e.owner_id AS "ownerId", ${userBasicJson("o")} AS owner, e.verified, e.verified_at AS "verifiedAt",
    e.verified_by_id AS "verifiedById", ${userBasicJson("vb")} AS "verifiedBy", e.hidden,
    e.updated_at AS "updatedAt", ${userBasicJson("ub")} AS "updatedBy",
    coalesce(e.default_columns, '{}') AS "defaultColumns",
    ARRAY(SELECT t.name FROM event_definition_tags et JOIN tags t ON t.id = et.tag_id
          WHERE et.event_definition_id = e.id ORDER BY t.name) AS tags`;

const FROM = Prisma.sql`FROM event_definitions e
  LEFT JOIN users o ON o.id = e.owner_id
  LEFT JOIN users vb ON vb.id = e.verified_by_id
  LEFT JOIN users ub ON ub.id = e.updated_by_id`;

/**
 * The `WHERE` of the list: the project's definitions narrowed by `filters` (see
 * `eventDefinitionListFiltersSchema`); `staleBefore` is the time before which a seen event is stale.
 */
export function eventDefinitionListWhere(
  projectId: number,
  filters: EventDefinitionListFilters,
  staleBefore: Date,
): Prisma.Sql {
  const and: Prisma.Sql[] = [Prisma.sql`e.project_id = ${projectId}`];
  // strpos, not LIKE: each term is matched literally (PostHog's `term_search_filter_sql`, ILIKE %term%).
  for (const term of filters.searchTerms) {
    and.push(Prisma.sql`strpos(lower(e.name), ${term.toLowerCase()}) > 0`);
  }
  if (filters.eventType === "event_custom") and.push(Prisma.sql`left(e.name, 1) <> '$'`);
  if (filters.eventType === "event_posthog") and.push(Prisma.sql`left(e.name, 1) = '$'`);
  if (filters.excludeHidden) and.push(Prisma.sql`NOT e.hidden`);
  if (filters.excludeStale) {
    and.push(
      Prisma.sql`(e.last_seen_at IS NULL OR e.last_seen_at > ${staleBefore.toISOString()}::timestamptz)`,
    );
  }
  if (filters.verified !== undefined)
    and.push(filters.verified ? Prisma.sql`e.verified` : Prisma.sql`NOT e.verified`);
  if (filters.names.length > 0) and.push(Prisma.sql`e.name = ANY(${filters.names}::text[])`);
  if (filters.excludedNames.length > 0) and.push(Prisma.sql`e.name <> ALL(${filters.excludedNames}::text[])`);
  if (filters.tags.length > 0) {
    // EXISTS, not a join: one row per definition, so the page and its count stay exact.
    and.push(Prisma.sql`EXISTS (SELECT 1 FROM event_definition_tags et JOIN tags t ON t.id = et.tag_id
      WHERE et.event_definition_id = e.id AND t.name = ANY(${normalizeTags(filters.tags)}::text[]))`);
  }
  return Prisma.join(and, " AND ");
}

/** SQL of each sort field; dates are taken in UTC (PostHog's database session time zone). */
const ORDER_EXPRESSIONS: Record<EventDefinitionOrder["field"], Prisma.Sql> = {
  name: Prisma.sql`e.name`,
  "length(name)": Prisma.sql`length(e.name)`,
  last_seen_at: Prisma.sql`e.last_seen_at`,
  "last_seen_at::date": Prisma.sql`(e.last_seen_at AT TIME ZONE 'UTC')::date`,
  created_at: Prisma.sql`e.created_at`,
  "created_at::date": Prisma.sql`(e.created_at AT TIME ZONE 'UTC')::date`,
};

/**
 * `ORDER BY` of `ordering`: nullable fields put nulls first ascending and last descending, as
 * PostHog's `create_event_definitions_sql` does; `name` is never null.
 */
function orderBy(ordering: readonly EventDefinitionOrder[]): Prisma.Sql {
  return Prisma.join(
    ordering.map(({ field, descending }) => {
      const nullable = field !== "name" && field !== "length(name)";
      const direction = Prisma.raw(
        `${descending ? "DESC" : "ASC"}${nullable ? (descending ? " NULLS LAST" : " NULLS FIRST") : ""}`,
      );
      return Prisma.sql`${ORDER_EXPRESSIONS[field]} ${direction}`;
    }),
    ", ",
  );
}

type Row = EventDefinitionRecord & { totalCount?: bigint };

function toRecord(row: Row): EventDefinitionRecord {
  const { totalCount: _total, ...record } = row;
  return record;
}

/** One page of definitions matching `where` in `ordering`, with the total number of matches. */
export async function selectEventDefinitionPage(
  db: QueryClient,
  where: Prisma.Sql,
  ordering: readonly EventDefinitionOrder[],
  page: OffsetPage,
): Promise<{ count: number; results: EventDefinitionRecord[] }> {
  const rows = await db.$queryRaw<Row[]>`${SELECT_RECORD}, count(*) OVER () AS "totalCount" ${FROM}
    WHERE ${where} ORDER BY ${orderBy(ordering)} LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: Number(rows[0]!.totalCount), results: rows.map(toRecord) };
  if (page.offset === 0) return { count: 0, results: [] };
  const [counted] = await db.$queryRaw<
    Array<{ count: bigint }>
  >`SELECT count(*) AS count FROM event_definitions e WHERE ${where}`;
  return { count: Number(counted!.count), results: [] };
}

/** Definitions of a project by id (UUIDs), in no particular order. */
export async function selectEventDefinitions(
  db: QueryClient,
  projectId: number,
  ids: readonly string[],
): Promise<EventDefinitionRecord[]> {
  if (ids.length === 0) return [];
  return db.$queryRaw<EventDefinitionRecord[]>`${SELECT_RECORD} ${FROM}
    WHERE e.project_id = ${projectId} AND e.id = ANY(${[...ids]}::uuid[])`;
}

/** The definition of a project named `name`, or null. */
export async function selectEventDefinitionByName(
  db: QueryClient,
  projectId: number,
  name: string,
): Promise<EventDefinitionRecord | null> {
  const rows = await db.$queryRaw<EventDefinitionRecord[]>`${SELECT_RECORD} ${FROM}
    WHERE e.project_id = ${projectId} AND e.name = ${name}`;
  return rows[0] ?? null;
}

/**
 * The names of the project's definitions that typed capture code covers (posthog-behavior.md §6.4;
 * base.py `fetch_event_definitions_and_schemas`): every name not starting with `$`, plus `$pageview`,
 * `$pageleave` and `$screen`. Unordered: the generators order by code point, not by collation.
 */
export async function selectCodegenEventNames(db: QueryClient, projectId: number): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ name: string }>>`SELECT e.name FROM event_definitions e
    WHERE e.project_id = ${projectId}
      AND (left(e.name, 1) <> '$' OR e.name = ANY(${[...INCLUDED_SYSTEM_EVENTS]}::text[]))`;
  return rows.map((row) => row.name);
}
