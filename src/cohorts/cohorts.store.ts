/**
 * How cohorts are kept: every write of the cohort tables (the cohort's row, its calculation, a
 * static cohort's `cohort_people` rows) and every read a write decides from (the cohort's row locked
 * for a write). The service says what happens (cohorts.service.ts, cohort-members.ts,
 * cohort-calculation.ts); this module says how it is stored. Reads that answer callers are the read
 * model's (cohorts.queries.ts).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client; values are bound parameters, never text.
 */
import { lockAndRead } from "../core/row-lock.js";
import { type Cohort, Prisma } from "../generated/prisma/client.js";
import { type CohortRecord, readCohort } from "./cohorts.queries.js";
import type { CohortType } from "./cohorts.schemas.js";
import type { CsvIdType } from "./rules/csv-members.js";

/** A new cohort's fields; an absent one is not written (the column's default). */
export interface NewCohort {
  name: string | null;
  description?: string;
  /** The legacy criteria form, as sent. */
  groups?: ReadonlyArray<Record<string, unknown>>;
  /** `{properties: <property group>}`; null: none (SQL NULL). */
  filters?: Record<string, unknown> | null;
  /** null: written as SQL NULL (query-defined cohorts are not stored yet). */
  query?: null;
  isStatic: boolean;
  cohortType: CohortType;
  createInFolder?: string | null;
}

/** What an update writes over a cohort's row; an absent field keeps its value. */
export interface CohortChange {
  name?: string | null;
  description?: string;
  /** The legacy criteria form, as sent. */
  groups?: ReadonlyArray<Record<string, unknown>>;
  /** `{properties: <property group>}`; null: cleared (SQL NULL). */
  filters?: Record<string, unknown> | null;
  isStatic: boolean;
  deleted: boolean;
  cohortType: CohortType;
}

/** A `Json?` column's value: undefined (not written), SQL NULL for null, else the value. */
function nullableJson(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  return value === undefined ? undefined : ((value ?? Prisma.DbNull) as Prisma.InputJsonValue);
}

/**
 * Locks cohort `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it,
 * deleted or not: the writers of one cohort take turns from here until their transactions end.
 * @throws NotFoundError
 */
export function lockCohort(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
): Promise<CohortRecord> {
  return lockAndRead(tx, "cohorts", id, () => readCohort(tx, projectId, id));
}

/**
 * Inserts a cohort of the project with `cohort`'s fields, created by `userId`, not yet calculated
 * (the caller recounts it). Returns its row as written.
 */
export function insertCohort(
  tx: Prisma.TransactionClient,
  projectId: number,
  cohort: NewCohort,
  userId: number,
): Promise<Cohort> {
  return tx.cohort.create({
    data: {
      projectId,
      name: cohort.name,
      description: cohort.description,
      groups: cohort.groups as Prisma.InputJsonValue | undefined,
      filters: nullableJson(cohort.filters),
      query: nullableJson(cohort.query),
      isStatic: cohort.isStatic,
      cohortType: cohort.cohortType,
      createInFolder: cohort.createInFolder,
      createdById: userId,
    },
  });
}

/** Writes `change` over cohort `id`'s row, locked in `tx`. Returns the row as written. */
export function writeCohortRow(
  tx: Prisma.TransactionClient,
  id: number,
  change: CohortChange,
): Promise<Cohort> {
  return tx.cohort.update({
    where: { id },
    data: {
      name: change.name,
      description: change.description,
      groups: change.groups as Prisma.InputJsonValue | undefined,
      filters: nullableJson(change.filters),
      isStatic: change.isStatic,
      deleted: change.deleted,
      cohortType: change.cohortType,
    },
  });
}

/**
 * Writes a calculation of cohort `id`: its `count` (null: not calculable here), `last_calculation`
 * = `at`, `is_calculating` false and `version`.
 */
export async function writeCalculation(
  tx: Prisma.TransactionClient,
  id: number,
  calculation: { count: number | null; at: Date; version: number },
): Promise<void> {
  await tx.cohort.update({
    where: { id },
    data: {
      count: calculation.count,
      lastCalculation: calculation.at,
      isCalculating: false,
      version: calculation.version,
    },
  });
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
  tx: Prisma.TransactionClient,
  projectId: number,
  cohortId: number,
  idType: CsvIdType,
  ids: readonly string[],
): Promise<number> {
  return tx.$executeRaw(Prisma.sql`
    INSERT INTO cohort_people (project_id, cohort_id, person_id)
    SELECT ${projectId}, ${cohortId}, named.id FROM (${personsNamed(projectId, idType, ids)}) named
    ON CONFLICT DO NOTHING`);
}

/**
 * Adds every person `source` holds (a member source, cohorts.queries.ts `memberSource`, or
 * `personsById`) to a static cohort, in one statement. Returns how many persons were added.
 */
export async function insertMembersFrom(
  tx: Prisma.TransactionClient,
  cohortId: number,
  projectId: number,
  source: Prisma.Sql,
): Promise<number> {
  return tx.$executeRaw(Prisma.sql`
    INSERT INTO cohort_people (project_id, cohort_id, person_id)
    SELECT ${projectId}, ${cohortId}, p.id ${source} ON CONFLICT DO NOTHING`);
}

/** The persons of the project among `ids` (internal ids), as a member source for `insertMembersFrom`. */
export function personsById(projectId: number, ids: readonly bigint[]): Prisma.Sql {
  return Prisma.sql`FROM persons p WHERE p.project_id = ${projectId} AND p.id = ANY(${ids.map(String)}::bigint[])`;
}

/** Removes one person (by uuid) from a static cohort; returns whether it was a member. */
export async function deleteMember(
  tx: Prisma.TransactionClient,
  projectId: number,
  cohortId: number,
  uuid: string,
): Promise<boolean> {
  const removed = await tx.$executeRaw`DELETE FROM cohort_people cp USING persons p
    WHERE cp.project_id = ${projectId} AND cp.cohort_id = ${cohortId}
      AND p.project_id = cp.project_id AND p.id = cp.person_id AND p.uuid = ${uuid}::uuid`;
  return removed > 0;
}
