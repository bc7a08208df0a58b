/**
 * How persons are read, for both doors: one SQL statement per page or per person, with each
 * person's distinct ids (aggregated in the same statement) and the time of its latest event
 * (`last_seen_at`, an index lookup on `events (project_id, person_id, timestamp)`).
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { OffsetPage } from "../core/paging.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { PersonListFilters } from "./persons.schemas.js";
import { type PersonLookup, pythonUuid } from "./rules/person-lookup.js";

/** A person as both doors show it. */
export interface PersonRecord {
  projectId: number;
  /** PostHog's integer id (REST's `id` on retrieve). */
  id: bigint;
  /** The public id: events' `person_id`, REST's `:id`. */
  uuid: string;
  properties: Prisma.JsonValue;
  isIdentified: boolean;
  createdAt: Date;
  /** Its distinct ids, sorted by text (no insertion order is stored), at most `MAX_DISTINCT_IDS`. */
  distinctIds: string[];
  /** When its latest event happened; null when it has none. */
  lastSeenAt: Date | null;
}

/** Distinct ids shown per person (PostHog's `distinct_id_limit` of the person list). */
export const MAX_DISTINCT_IDS = 1000;

/** How far in the future a person's `created_at` may be and still be listed (PostHog's `filter_future_persons`). */
const FUTURE_PERSONS_MS = 24 * 60 * 60 * 1000;

const SELECT_RECORD = Prisma.sql`
  SELECT p.project_id AS "projectId", p.id, p.uuid::text AS uuid, p.properties,
    p.is_identified AS "isIdentified", p.created_at AS "createdAt",
    ARRAY(SELECT d.distinct_id FROM person_distinct_ids d
          WHERE d.project_id = p.project_id AND d.person_id = p.id
          ORDER BY d.distinct_id LIMIT ${MAX_DISTINCT_IDS}) AS "distinctIds",
    (SELECT max(e.timestamp) FROM events e
     WHERE e.project_id = p.project_id AND e.person_id = p.uuid) AS "lastSeenAt"`;

/** Persons having distinct id `distinctId` (one at most: a distinct id belongs to one person). */
function hasDistinctId(distinctId: string): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM person_distinct_ids d
    WHERE d.project_id = p.project_id AND d.person_id = p.id AND d.distinct_id = ${distinctId})`;
}

/**
 * The `WHERE` of the person list (posthog/queries/person_query.py `get_query` with
 * `filter_future_persons`): the project's persons created before `now` + 1 day, narrowed by `filters`
 * and by `properties`, the translation of `filters.properties` over the row alias `p` (or null).
 */
export function personListWhere(
  projectId: number,
  filters: PersonListFilters,
  now: Date,
  properties: Prisma.Sql | null,
): Prisma.Sql {
  const and: Prisma.Sql[] = [
    Prisma.sql`p.project_id = ${projectId}`,
    Prisma.sql`p.created_at < ${new Date(now.getTime() + FUTURE_PERSONS_MS)}`,
  ];
  if (filters.distinctId !== undefined) and.push(hasDistinctId(filters.distinctId));
  if (filters.email !== undefined) and.push(Prisma.sql`p.properties->>'email' = ${filters.email}`);
  if (filters.search !== undefined) {
    // `_get_search_clauses`: email icontains, an exact distinct id, or the exact uuid.
    // strpos, not LIKE: the search text is matched literally, `%` and `_` included.
    const either = [
      Prisma.sql`strpos(lower(p.properties->>'email'), ${filters.search.toLowerCase()}) > 0`,
      hasDistinctId(filters.search),
    ];
    const uuid = pythonUuid(filters.search);
    if (uuid !== null) either.push(Prisma.sql`p.uuid = ${uuid}::uuid`);
    and.push(Prisma.sql`(${Prisma.join(either, " OR ")})`);
  }
  if (properties !== null) and.push(properties);
  return Prisma.join(and, " AND ");
}

type Row = PersonRecord & { totalCount?: bigint };

function toRecord(row: Row): PersonRecord {
  const { totalCount: _total, ...record } = row;
  return record;
}

/**
 * One page of persons matching `where`, newest first (`created_at DESC`, then uuid, PostHog's
 * order), as one statement. With `withTotal`, the number of all matches too (`count(*) OVER ()` in
 * the same statement, or a count of its own for a page past the end).
 */
export async function selectPersonPage(
  db: QueryClient,
  where: Prisma.Sql,
  page: OffsetPage,
  withTotal: boolean,
): Promise<{ results: PersonRecord[]; count?: number }> {
  const total = withTotal ? Prisma.sql`, count(*) OVER () AS "totalCount"` : Prisma.empty;
  const rows = await db.$queryRaw<Row[]>`${SELECT_RECORD} ${total} FROM persons p
    WHERE ${where} ORDER BY p.created_at DESC, p.uuid DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  const results = rows.map(toRecord);
  if (!withTotal) return { results };
  if (rows.length > 0) return { results, count: Number(rows[0]!.totalCount) };
  if (page.offset === 0 && page.limit > 0) return { results, count: 0 };
  const [counted] = await db.$queryRaw<Array<{ count: bigint }>>`
    SELECT count(*) AS count FROM persons p WHERE ${where}`;
  return { results, count: Number(counted!.count) };
}

/** Persons of a project by uuid or by integer id, in no particular order. */
export async function selectPersons(
  db: QueryClient,
  projectId: number,
  by: readonly PersonLookup[],
): Promise<PersonRecord[]> {
  const uuids = by.flatMap((lookup) => ("uuid" in lookup ? [lookup.uuid] : []));
  const ids = by.flatMap((lookup) => ("id" in lookup ? [lookup.id] : []));
  if (uuids.length === 0 && ids.length === 0) return [];
  return db.$queryRaw<PersonRecord[]>`${SELECT_RECORD} FROM persons p
    WHERE p.project_id = ${projectId}
      AND (p.uuid = ANY(${uuids}::uuid[]) OR p.id = ANY(${ids.map(String)}::bigint[]))`;
}

/** The persons of a project, as the `FROM` of a count (row alias `p`, what `toSql`'s `person` target names). */
export function projectPersons(projectId: number): Prisma.Sql {
  return Prisma.sql`FROM persons p WHERE p.project_id = ${projectId}`;
}
