/**
 * How property definitions are read: one statement per page or per record, the verifier, the last
 * updater, the tag names and (for a list given event names) whether each was seen on those events
 * built in the same statement, a page's total beside its rows (PostHog's `QueryContext.as_sql`,
 * posthog/api/property_definition.py).
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import {
  ALWAYS_EXCLUDED_EVENT_PROPERTIES,
  EXCLUDED_EVENT_CORE_PROPERTIES,
  KIND_NUMBERS,
  NON_NUMERICAL_NAMES,
  type PropertyDefinitionListFilters,
  SESSION_ENTRY_PREFIX,
} from "./property-definitions.schemas.js";

/** A property definition as both doors show it: its columns, its users and its tag names (sorted). */
export interface PropertyDefinitionRecord {
  /** UUID. */
  id: string;
  projectId: number;
  name: string;
  /** PostHog's `PropertyDefinition.Type`: 1 event, 2 person, 3 group, 4 session. */
  type: number;
  /** The group type of a group property; -1 otherwise. */
  groupTypeIndex: number;
  isNumerical: boolean;
  /** `String`, `Numeric`, `Boolean`, `DateTime`, `Duration`, or null when unknown. */
  propertyType: string | null;
  description: string;
  verified: boolean;
  verifiedAt: Date | null;
  verifiedById: number | null;
  verifiedBy: UserBasic | null;
  hidden: boolean;
  /** When it was last changed through the API; null before. */
  updatedAt: Date | null;
  updatedBy: UserBasic | null;
  tags: string[];
  /**
   * Whether the property was seen on the list's `event_names` (`is_seen_on_filtered_events`); null
   * when the list was given none, and on single reads.
   */
  isSeenOnFilteredEvents: boolean | null;
}

const SELECT_COLUMNS = Prisma.sql`
  SELECT p.id::text AS id, p.project_id AS "projectId", p.name, p.type::int AS type,
    p.group_type_index::int AS "groupTypeIndex", p.is_numerical AS "isNumerical",
    p.property_type AS "propertyType", p.description, p.verified, p.verified_at AS "verifiedAt",
    p.verified_by_id AS "verifiedById", ${userBasicJson("vb")} AS "verifiedBy", p.hidden,
    p.updated_at AS "updatedAt", ${userBasicJson("ub")} AS "updatedBy",
    ARRAY(SELECT t.name FROM property_definition_tags pt JOIN tags t ON t.id = pt.tag_id
          WHERE pt.property_definition_id = p.id ORDER BY t.name) AS tags`;

const FROM = Prisma.sql`FROM property_definitions p
  LEFT JOIN users vb ON vb.id = p.verified_by_id
  LEFT JOIN users ub ON ub.id = p.updated_by_id`;

/**
 * The join on `event_properties` of an event-property list (PostHog's `_join_on_event_property`):
 * the distinct properties seen on the given events (on any event when none are given), joined
 * `INNER` when only those are wanted (`filter_by_event_names`), `LEFT` to mark them; none when
 * neither applies (the mark would be null on every row).
 */
function eventPropertyJoin(projectId: number, filters: PropertyDefinitionListFilters): Prisma.Sql {
  if (filters.kind !== "event" || (filters.eventNames === null && !filters.filterByEventNames)) {
    return Prisma.empty;
  }
  const events =
    filters.eventNames === null
      ? Prisma.empty
      : Prisma.sql`AND ep.event = ANY(${filters.eventNames}::text[])`;
  const join = filters.filterByEventNames ? Prisma.sql`INNER JOIN` : Prisma.sql`LEFT JOIN`;
  return Prisma.sql`${join} (SELECT DISTINCT ep.property FROM event_properties ep
    WHERE ep.project_id = ${projectId} ${events}) seen ON seen.property = p.name`;
}

/** `is_seen_on_filtered_events`: whether the join found the property, or null without event names. */
function seenExpression(filters: PropertyDefinitionListFilters): Prisma.Sql {
  return filters.kind === "event" && filters.eventNames !== null
    ? Prisma.sql`(seen.property IS NOT NULL)`
    : Prisma.sql`NULL::boolean`;
}

/** The `WHERE` of the list: the project's definitions of one kind narrowed by `filters` (see the schema). */
function listWhere(projectId: number, filters: PropertyDefinitionListFilters): Prisma.Sql {
  const and: Prisma.Sql[] = [
    Prisma.sql`p.project_id = ${projectId}`,
    Prisma.sql`p.type = ${KIND_NUMBERS[filters.kind]}`,
    Prisma.sql`p.group_type_index = ${filters.groupTypeIndex}`,
  ];
  if (filters.excludedNames.length > 0) and.push(Prisma.sql`p.name <> ALL(${filters.excludedNames}::text[])`);
  if (filters.kind === "event") {
    if (filters.excludeCoreProperties) {
      and.push(Prisma.sql`left(p.name, 1) <> '$'`);
      and.push(Prisma.sql`p.name <> ALL(${[...EXCLUDED_EVENT_CORE_PROPERTIES]}::text[])`);
    } else {
      and.push(Prisma.sql`p.name <> ALL(${[...ALWAYS_EXCLUDED_EVENT_PROPERTIES]}::text[])`);
      and.push(Prisma.sql`left(p.name, ${SESSION_ENTRY_PREFIX.length}) <> ${SESSION_ENTRY_PREFIX}`);
    }
  }
  if (filters.excludeHidden) and.push(Prisma.sql`NOT p.hidden`);
  if (filters.names !== null) and.push(Prisma.sql`p.name = ANY(${filters.names}::text[])`);
  if (filters.numericalOnly) {
    and.push(Prisma.sql`p.is_numerical AND p.name <> ALL(${[...NON_NUMERICAL_NAMES]}::text[])`);
  }
  // strpos, not ILIKE: each term is matched literally (PostHog's `term_search_filter_sql`, ILIKE %term%).
  for (const term of filters.searchTerms) {
    and.push(Prisma.sql`strpos(lower(p.name), ${term.toLowerCase()}) > 0`);
  }
  if (filters.featureFlag === true) and.push(Prisma.sql`left(p.name, 9) = '$feature/'`);
  if (filters.featureFlag === false) and.push(Prisma.sql`left(p.name, 9) <> '$feature/'`);
  return Prisma.join(and, " AND ");
}

type Row = PropertyDefinitionRecord & { totalCount?: bigint };

function toRecord(row: Row): PropertyDefinitionRecord {
  const { totalCount: _total, ...record } = row;
  return record;
}

/**
 * One page of the project's definitions matching `filters`, with the total number of matches: seen
 * on the given events first, then verified ones, then by name (PostHog's enterprise ordering).
 */
export async function selectPropertyDefinitionPage(
  db: QueryClient,
  projectId: number,
  filters: PropertyDefinitionListFilters,
  page: OffsetPage,
): Promise<{ count: number; results: PropertyDefinitionRecord[] }> {
  const join = eventPropertyJoin(projectId, filters);
  const where = listWhere(projectId, filters);
  const rows = await db.$queryRaw<Row[]>`${SELECT_COLUMNS},
      ${seenExpression(filters)} AS "isSeenOnFilteredEvents", count(*) OVER () AS "totalCount"
    ${FROM} ${join}
    WHERE ${where}
    ORDER BY "isSeenOnFilteredEvents" DESC NULLS LAST, p.verified DESC, p.name ASC
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: Number(rows[0]!.totalCount), results: rows.map(toRecord) };
  if (page.offset === 0) return { count: 0, results: [] };
  const [counted] = await db.$queryRaw<Array<{ count: bigint }>>`SELECT count(*) AS count
    FROM property_definitions p ${join} WHERE ${where}`;
  return { count: Number(counted!.count), results: [] };
}

/** Definitions of a project by id (UUIDs), in no particular order. */
export async function selectPropertyDefinitions(
  db: QueryClient,
  projectId: number,
  ids: readonly string[],
): Promise<PropertyDefinitionRecord[]> {
  if (ids.length === 0) return [];
  return db.$queryRaw<PropertyDefinitionRecord[]>`${SELECT_COLUMNS}, NULL::boolean AS "isSeenOnFilteredEvents"
    ${FROM} WHERE p.project_id = ${projectId} AND p.id = ANY(${[...ids]}::uuid[])`;
}

/** Which of `events` property `property` was seen on in the project (`event_properties`). */
export async function selectEventsWithProperty(
  db: QueryClient,
  projectId: number,
  events: readonly string[],
  property: string,
): Promise<Set<string>> {
  const rows = await db.$queryRaw<Array<{ event: string }>>`SELECT event FROM event_properties
    WHERE project_id = ${projectId} AND property = ${property} AND event = ANY(${[...events]}::text[])`;
  return new Set(rows.map((row) => row.event));
}
