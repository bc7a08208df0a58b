/**
 * How cohorts and their members are read and written: one statement per page or per record (the
 * creator built in the same statement, a page's total beside its rows), members counted and listed
 * by SQL in the database, never by loading persons into memory.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import { type Cohort, Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { CohortListFilters } from "./cohorts.schemas.js";
import type { CsvIdType } from "./rules/csv-members.js";

/**
 * A cohort as both doors show it: its columns, its creator, and the ids of the experiments whose
 * exposure cohort it is (PostHog's `experiment_set`), as this module reads it.
 */
export type CohortRecord = Cohort & { createdBy: UserBasic | null; experimentSet: number[] };

/** A database client or an interactive transaction's client. */
export type Db = Pick<PrismaClient, "$queryRaw" | "$executeRaw">;

/** A person of a cohort as the `persons` reads show it (PostHog's serialized actor). */
export interface MemberRecord {
  /** Internal id (for stable ordering). */
  id: bigint;
  uuid: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: Date;
  /** Up to 10 of the person's distinct ids, sorted (PostHog's `distinct_id_limit=10`). */
  distinctIds: string[];
}

const SELECT_RECORD = Prisma.sql`
  SELECT c.id, c.project_id AS "projectId", c.name, c.description, c.deleted, c.filters, c.query,
    c.groups, c.is_static AS "isStatic", c.cohort_type AS "cohortType", c.version,
    c.pending_version AS "pendingVersion", c.count, c.is_calculating AS "isCalculating",
    c.last_calculation AS "lastCalculation", c.errors_calculating AS "errorsCalculating",
    c.last_error_at AS "lastErrorAt", c.created_by_id AS "createdById", c.created_at AS "createdAt",
    c.create_in_folder AS "createInFolder", ${userBasicJson("cb")} AS "createdBy",
    ARRAY(SELECT x.id FROM experiments x WHERE x.project_id = c.project_id AND x.exposure_cohort_id = c.id
      ORDER BY x.id) AS "experimentSet"`;

const FROM = Prisma.sql`FROM cohorts c LEFT JOIN users cb ON cb.id = c.created_by_id`;

/**
 * The `WHERE` of the cohort list: the project's non-deleted cohorts narrowed by `filters`, less
 * `excludedIds` (the cohorts that use events, when the list hides them).
 */
export function cohortListWhere(
  projectId: number,
  filters: CohortListFilters,
  excludedIds: readonly number[],
): Prisma.Sql {
  const and: Prisma.Sql[] = [Prisma.sql`c.project_id = ${projectId}`, Prisma.sql`NOT c.deleted`];
  if (filters.isStatic !== undefined) and.push(Prisma.sql`c.is_static = ${filters.isStatic}`);
  if (filters.createdById !== undefined) and.push(Prisma.sql`c.created_by_id = ${filters.createdById}`);
  // strpos, not LIKE: the search text is matched literally (PostHog's `name__icontains`).
  if (filters.search) and.push(Prisma.sql`strpos(lower(c.name), ${filters.search.toLowerCase()}) > 0`);
  if (excludedIds.length > 0) and.push(Prisma.sql`c.id <> ALL(${[...excludedIds]}::int[])`);
  return Prisma.join(and, " AND ");
}

type Row = CohortRecord & { totalCount?: bigint };

function toRecord(row: Row): CohortRecord {
  const { totalCount: _total, ...record } = row;
  return record as CohortRecord;
}

/** One page of cohorts matching `where`, newest first (ties by id), with the total number of matches. */
export async function selectCohortPage(
  db: Db,
  where: Prisma.Sql,
  page: OffsetPage,
): Promise<{ count: number; results: CohortRecord[] }> {
  const rows = await db.$queryRaw<Row[]>`${SELECT_RECORD}, count(*) OVER () AS "totalCount" ${FROM}
    WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`;
  if (rows.length > 0) return { count: Number(rows[0]!.totalCount), results: rows.map(toRecord) };
  if (page.offset === 0 && page.limit > 0) return { count: 0, results: [] };
  const [counted] = await db.$queryRaw<
    Array<{ count: bigint }>
  >`SELECT count(*) AS count FROM cohorts c WHERE ${where}`;
  return { count: Number(counted!.count), results: [] };
}

/** Cohorts of a project by id (deleted ones included), in no particular order. */
export async function selectCohorts(
  db: Db,
  projectId: number,
  ids: readonly number[],
): Promise<CohortRecord[]> {
  const rows = await db.$queryRaw<Row[]>`${SELECT_RECORD} ${FROM}
    WHERE c.project_id = ${projectId} AND c.id = ANY(${[...ids]}::int[])`;
  return rows.map(toRecord);
}

/**
 * Where a cohort's members come from: a static cohort's `cohort_people` rows joined to their
 * persons, or, for a dynamic cohort, the project's persons filtered by `criteria` (its translation
 * over the alias `p`). Either way the persons row is `p`.
 */
export function memberSource(
  projectId: number,
  cohort: { id: number; isStatic: boolean },
  criteria: Prisma.Sql,
): Prisma.Sql {
  if (cohort.isStatic) {
    return Prisma.sql`FROM cohort_people cp
      JOIN persons p ON p.project_id = cp.project_id AND p.id = cp.person_id
      WHERE cp.project_id = ${projectId} AND cp.cohort_id = ${cohort.id}`;
  }
  return Prisma.sql`FROM persons p WHERE p.project_id = ${projectId} AND ${criteria}`;
}

/** How many persons `source` (see `memberSource`) holds. */
export async function countMembers(db: Db, source: Prisma.Sql): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ count: bigint }>>(Prisma.sql`SELECT count(*) AS count ${source}`);
  return Number(row!.count);
}

/**
 * One page of the persons `source` holds, by person id, and whether more follow (one row more is
 * read to know).
 */
export async function selectMemberPage(
  db: Db,
  source: Prisma.Sql,
  page: OffsetPage,
): Promise<{ results: MemberRecord[]; hasMore: boolean }> {
  const rows = await db.$queryRaw<MemberRecord[]>(Prisma.sql`
    SELECT p.id, p.uuid::text AS uuid, p.properties, p.is_identified AS "isIdentified",
      p.created_at AS "createdAt",
      ARRAY(SELECT d.distinct_id FROM person_distinct_ids d
            WHERE d.project_id = p.project_id AND d.person_id = p.id
            ORDER BY d.distinct_id LIMIT 10) AS "distinctIds"
    ${source} ORDER BY p.id LIMIT ${page.limit + 1} OFFSET ${page.offset}`);
  return { results: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** The persons an id of each kind names, as SQL over `persons p` (one bound list). */
function personsNamed(projectId: number, idType: CsvIdType, ids: readonly string[]): Prisma.Sql {
  switch (idType) {
    case "distinct_id":
      return Prisma.sql`SELECT DISTINCT d.person_id AS id FROM person_distinct_ids d
        WHERE d.project_id = ${projectId} AND d.distinct_id = ANY(${[...ids]}::text[])`;
    case "email":
      return Prisma.sql`SELECT p.id FROM persons p
        WHERE p.project_id = ${projectId} AND p.properties ->> 'email' = ANY(${[...ids]}::text[])`;
    default:
      return Prisma.sql`SELECT p.id FROM persons p
        WHERE p.project_id = ${projectId} AND p.uuid = ANY(${[...ids]}::uuid[])`;
  }
}

/**
 * Adds the persons `ids` name to a static cohort (those already in it stay once), in one statement.
 * Ids naming no person of the project are skipped, as PostHog's `insert_users_by_list` does.
 * Returns how many persons were added.
 */
export async function insertMembers(
  db: Db,
  projectId: number,
  cohortId: number,
  idType: CsvIdType,
  ids: readonly string[],
): Promise<number> {
  return db.$executeRaw(Prisma.sql`
    INSERT INTO cohort_people (project_id, cohort_id, person_id)
    SELECT ${projectId}, ${cohortId}, named.id FROM (${personsNamed(projectId, idType, ids)}) named
    ON CONFLICT DO NOTHING`);
}

/** Adds every person `source` holds to a static cohort, in one statement. */
export async function insertMembersFrom(db: Db, cohortId: number, projectId: number, source: Prisma.Sql) {
  return db.$executeRaw(Prisma.sql`
    INSERT INTO cohort_people (project_id, cohort_id, person_id)
    SELECT ${projectId}, ${cohortId}, p.id ${source} ON CONFLICT DO NOTHING`);
}

/** The persons of the project among `ids` (internal ids), as a member source for `insertMembersFrom`. */
export function personsById(projectId: number, ids: readonly bigint[]): Prisma.Sql {
  return Prisma.sql`FROM persons p WHERE p.project_id = ${projectId} AND p.id = ANY(${ids.map(String)}::bigint[])`;
}

/** The uuids among `uuids` that name persons of the project. */
export async function existingPersonUuids(
  db: Db,
  projectId: number,
  uuids: readonly string[],
): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ uuid: string }>>`SELECT p.uuid::text AS uuid FROM persons p
    WHERE p.project_id = ${projectId} AND p.uuid = ANY(${[...uuids]}::uuid[])`;
  return rows.map((row) => row.uuid);
}

/** Removes one person (by uuid) from a static cohort; returns whether it was a member. */
export async function deleteMember(
  db: Db,
  projectId: number,
  cohortId: number,
  uuid: string,
): Promise<boolean> {
  const removed = await db.$executeRaw`DELETE FROM cohort_people cp USING persons p
    WHERE cp.project_id = ${projectId} AND cp.cohort_id = ${cohortId}
      AND p.project_id = cp.project_id AND p.id = cp.person_id AND p.uuid = ${uuid}::uuid`;
  return removed > 0;
}

/**
 * The names (or keys) of the project's active, non-deleted flags whose conditions name the cohort
 * (PostHog's `flag.get_cohort_ids()` check before a cohort is deleted). Reads the flags' stored
 * `filters` by SQL/JSON path, ids written as numbers or strings.
 */
export async function activeFlagsUsingCohort(db: Db, projectId: number, cohortId: number): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ label: string }>>`
    SELECT coalesce(nullif(f.name, ''), f.key) AS label FROM feature_flags f
    WHERE f.project_id = ${projectId} AND f.active AND NOT f.deleted
      AND jsonb_path_exists(f.filters,
        '$.groups[*].properties[*] ? (@.type == "cohort" && (@.value == $id || @.value == $text))',
        jsonb_build_object('id', ${cohortId}::int, 'text', ${String(cohortId)}::text))
    ORDER BY f.id`;
  return rows.map((row) => row.label);
}
