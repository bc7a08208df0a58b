/**
 * The project's persons as evaluation subjects, a keyset page at a time: what evaluating one flag
 * for every person reads (`create_static_cohort_for_flag`, evaluation.service.ts
 * `personsWithFlag`). One statement per page, whatever the number of cohorts and hash keys: each
 * person's stored properties, one distinct id, its memberships among the static cohorts asked
 * about and, when asked, its experience-continuity hash keys, in the shape one subject's read
 * gives (rules/subject.ts `StoredSubject`, as subject.queries.ts reads it by distinct id).
 *
 * The distinct id is the person's first in text order, the order the persons list shows them in:
 * PostHog takes the first by row id (posthog/tasks/calculate_cohort.py
 * `get_cohort_actors_for_feature_flag`, `Person.distinct_ids`), and distinct ids here carry no
 * row id. Persons without a distinct id are left out, as PostHog skips them ("almost-deleted").
 *
 * Invariant: every table is filtered by `project_id`; values are bound parameters, never text;
 * pages follow `persons.id` (the primary key's second column), so each costs an index range scan.
 */
import type { SqlReader } from "../../db/sql-reader.js";
import { Prisma } from "../../generated/prisma/client.js";
import type { StoredSubject } from "./rules/subject.js";

/** Which page of persons to read, and what to read of each. */
export interface PersonSubjectPageQuery {
  projectId: number;
  /** Persons with a larger id than this one (0n for the first page). */
  afterId: bigint;
  /** Most persons on the page. */
  limit: number;
  /** Static cohorts whose membership to read. */
  staticCohortIds: readonly number[];
  /** Whether to read the persons' hash keys (some flag takes part in experience continuity). */
  hashKeys: boolean;
}

/** One person of a page: its internal id, the distinct id it is evaluated as, and what is stored. */
export interface PersonSubject {
  id: bigint;
  distinctId: string;
  stored: StoredSubject;
}

interface PersonSubjectRow {
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  static_cohort_ids: number[];
  hash_keys: Array<{ flagKey: string; hashKey: string }>;
}

const EMPTY_LIST = Prisma.sql`'[]'::json`;

/** The statement of `query` (see the module comment). */
function pageStatement(query: PersonSubjectPageQuery): Prisma.Sql {
  const { projectId } = query;
  const cohorts =
    query.staticCohortIds.length === 0
      ? EMPTY_LIST
      : Prisma.sql`(SELECT coalesce(json_agg(m.cohort_id), '[]'::json)
          FROM cohort_people m
          WHERE m.project_id = ${projectId} AND m.person_id = p.id
            AND m.cohort_id = ANY(${[...query.staticCohortIds]}::int[]))`;
  const hashKeys = query.hashKeys
    ? Prisma.sql`(SELECT coalesce(json_agg(json_build_object(
            'flagKey', o.feature_flag_key, 'hashKey', o.hash_key)), '[]'::json)
        FROM feature_flag_hash_key_overrides o
        WHERE o.project_id = ${projectId} AND o.person_id = p.id)`
    : EMPTY_LIST;
  return Prisma.sql`SELECT p.id::text AS id, d.distinct_id, p.properties,
      ${cohorts} AS static_cohort_ids, ${hashKeys} AS hash_keys
    FROM persons p
    CROSS JOIN LATERAL (SELECT di.distinct_id FROM person_distinct_ids di
      WHERE di.project_id = p.project_id AND di.person_id = p.id
      ORDER BY di.distinct_id LIMIT 1) d
    WHERE p.project_id = ${projectId} AND p.id > ${query.afterId.toString()}::bigint
    ORDER BY p.id
    LIMIT ${query.limit}`;
}

/** One page of the project's persons as subjects, by id (see the module comment). One statement. */
export async function readPersonSubjects(
  reader: SqlReader,
  query: PersonSubjectPageQuery,
): Promise<PersonSubject[]> {
  const rows = await reader.rows<PersonSubjectRow>(pageStatement(query));
  return rows.map((row) => ({
    id: BigInt(row.id),
    distinctId: row.distinct_id,
    stored: {
      personProperties: row.properties,
      staticCohortIds: row.static_cohort_ids,
      groups: [],
      hashKeys: row.hash_keys.map((key) => ({ ...key, primary: true })),
    },
  }));
}
