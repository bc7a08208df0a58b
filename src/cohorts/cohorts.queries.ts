/**
 * How cohorts and their members are read: the cohort read model, for the cohort service's answers
 * and for other domains (what a flag's rules need of the cohorts it names). One statement per page or
 * per record (the creator built in the same statement, a page's total beside its rows), members
 * counted and listed by SQL in the database, never by loading persons into memory. Writes, and the
 * reads a write decides from, are cohorts.store.ts's.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import { NotFoundError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import { type Cohort, Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { CohortListFilters } from "./cohorts.schemas.js";

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

/** One cohort of the project, deleted ones included. @throws NotFoundError */
export async function readCohort(db: Db, projectId: number, id: number): Promise<CohortRecord> {
  const [cohort] = await selectCohorts(db, projectId, [id]);
  if (!cohort) throw new NotFoundError();
  return cohort;
}

/**
 * The project's cohorts among `ids` (deleted ones included) with their names and whether they are
 * static, in no order. `db`: the client or a transaction's.
 */
export function selectCohortNames(
  db: Pick<Prisma.TransactionClient, "cohort">,
  projectId: number,
  ids: number[],
): Promise<Array<{ id: number; name: string | null; isStatic: boolean }>> {
  return db.cohort.findMany({
    where: { projectId, id: { in: ids } },
    select: { id: true, name: true, isStatic: true },
  });
}

/**
 * The criteria columns of the project's non-deleted cohorts (static or not, `filters`, legacy
 * `groups`), in no order. `db`: the client or a transaction's.
 */
export function selectLiveCohortCriteria(
  db: Pick<Prisma.TransactionClient, "cohort">,
  projectId: number,
): Promise<Array<{ id: number; isStatic: boolean; filters: Prisma.JsonValue; groups: Prisma.JsonValue }>> {
  return db.cohort.findMany({
    where: { projectId, deleted: false },
    select: { id: true, isStatic: true, filters: true, groups: true },
  });
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
