/**
 * The subject of one evaluation read in ONE statement, whatever the number of flags, cohorts and
 * groups: the person's stored properties by distinct id, the person's memberships among the static
 * cohorts asked about, the stored properties of the requested groups, and (when the project has
 * experience-continuity flags) the hash keys of the persons of the distinct id and of
 * `$anon_distinct_id` (rules/subject.ts reads the result).
 *
 * When a `/flags` request carries `$anon_distinct_id`, the same statement first writes the missing
 * hash keys, as a data-modifying CTE (PostHog's `set_feature_flag_hash_key_overrides`,
 * rust/feature-flags/src/flags/flag_matching_utils.rs): for each person of either distinct id and
 * each active continuity flag, the anonymous id, unless that person already has a key for that flag
 * (first write wins: `ON CONFLICT DO NOTHING`). A CTE's writes are invisible to the rest of its
 * statement, so the keys read are the stored ones plus those the INSERT returned: the state after
 * the write, read in the same round trip.
 *
 * The statement also names what its answer depends on (`SubjectRead.dependsOn`): the distinct ids
 * looked up, the persons found and the groups asked for, as migration `change_feed_subjects`
 * announces their changes, so that ./subject-cache.ts can keep the answer until one of them changes.
 *
 * Invariant: every table is filtered by `project_id`; values are bound parameters, never text.
 */
import type { SqlReader } from "../../db/sql-reader.js";
import { Prisma } from "../../generated/prisma/client.js";
import type { GroupToLoad, StoredSubject } from "./rules/subject.js";

/** What to read (and, with `write`, write first) for one subject. */
export interface SubjectQuery {
  projectId: number;
  distinctId: string;
  /** Static cohorts whose membership to read. */
  staticCohortIds: readonly number[];
  groups: readonly GroupToLoad[];
  /**
   * Hash keys to read, of the persons of these distinct ids (the first one's win); null when no
   * flag takes part in experience continuity.
   */
  hashKeysOf: readonly string[] | null;
  /** Hash keys to write first: `hashKey` for each of `flagKeys`, for the persons of `hashKeysOf`. */
  write: { hashKey: string; flagKeys: readonly string[] } | null;
}

/**
 * One subject as read, and what it depends on: `person:<id>`, `distinct:<distinct id>` and
 * `group:<type index>:<key>`, as the change feed's `subject` changes name them (db/change-feed.ts).
 */
export interface SubjectRead {
  stored: StoredSubject;
  dependsOn: string[];
}

interface SubjectRow {
  person_id: string | null;
  person_properties: Record<string, unknown> | null;
  continuity_person_ids: string[];
  static_cohort_ids: number[];
  groups: Array<{ index: number; key: string; properties: Record<string, unknown> }>;
  hash_keys: Array<{ flagKey: string; hashKey: string; primary: boolean }>;
}

const EMPTY_LIST = Prisma.sql`'[]'::json`;

/** The statement of `query` (see the module comment). */
function subjectStatement(query: SubjectQuery): Prisma.Sql {
  const { projectId, distinctId } = query;
  const ctes: Prisma.Sql[] = [
    Prisma.sql`person AS (
      SELECT p.id, p.properties
      FROM person_distinct_ids d
      JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
      WHERE d.project_id = ${projectId} AND d.distinct_id = ${distinctId})`,
  ];
  if (query.hashKeysOf !== null) {
    ctes.push(Prisma.sql`continuity AS (
      SELECT d.person_id, bool_or(d.distinct_id = ${distinctId}) AS is_primary
      FROM person_distinct_ids d
      WHERE d.project_id = ${projectId} AND d.distinct_id = ANY(${[...query.hashKeysOf]}::text[])
      GROUP BY d.person_id)`);
    if (query.write !== null) {
      ctes.push(Prisma.sql`written AS (
        INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
        SELECT ${projectId}, c.person_id, k.key, ${query.write.hashKey}
        FROM continuity c CROSS JOIN unnest(${[...query.write.flagKeys]}::text[]) AS k(key)
        ON CONFLICT (project_id, person_id, feature_flag_key) DO NOTHING
        RETURNING person_id, feature_flag_key, hash_key)`);
    }
  }

  const cohorts =
    query.staticCohortIds.length === 0
      ? EMPTY_LIST
      : Prisma.sql`(SELECT coalesce(json_agg(m.cohort_id), '[]'::json)
          FROM cohort_people m
          WHERE m.project_id = ${projectId} AND m.person_id = (SELECT id FROM person)
            AND m.cohort_id = ANY(${[...query.staticCohortIds]}::int[]))`;
  const groups =
    query.groups.length === 0
      ? EMPTY_LIST
      : Prisma.sql`(SELECT coalesce(json_agg(json_build_object(
              'index', g.group_type_index, 'key', g.group_key, 'properties', g.group_properties)), '[]'::json)
          FROM unnest(${query.groups.map((g) => g.groupTypeIndex)}::int[],
                      ${query.groups.map((g) => g.groupKey)}::text[]) AS w(group_type_index, group_key)
          JOIN groups g ON g.project_id = ${projectId}
            AND g.group_type_index = w.group_type_index AND g.group_key = w.group_key)`;
  const stored = Prisma.sql`SELECT person_id, feature_flag_key, hash_key
    FROM feature_flag_hash_key_overrides
    WHERE project_id = ${projectId} AND person_id IN (SELECT person_id FROM continuity)`;
  const hashKeys =
    query.hashKeysOf === null
      ? EMPTY_LIST
      : Prisma.sql`(SELECT coalesce(json_agg(json_build_object(
              'flagKey', o.feature_flag_key, 'hashKey', o.hash_key, 'primary', c.is_primary)), '[]'::json)
          FROM (${query.write === null ? stored : Prisma.sql`${stored} UNION ALL SELECT * FROM written`}) AS o
          JOIN continuity c ON c.person_id = o.person_id)`;

  const continuityPersons =
    query.hashKeysOf === null
      ? EMPTY_LIST
      : Prisma.sql`(SELECT coalesce(json_agg(person_id::text), '[]'::json) FROM continuity)`;

  return Prisma.sql`WITH ${Prisma.join(ctes, ",\n")}
    SELECT (SELECT id::text FROM person) AS person_id,
           (SELECT properties FROM person) AS person_properties,
           ${continuityPersons} AS continuity_person_ids,
           ${cohorts} AS static_cohort_ids,
           ${groups} AS groups,
           ${hashKeys} AS hash_keys`;
}

/** Reads (and with `query.write`, first writes) one subject: one statement on `runner`. */
export async function readSubject(runner: SqlReader, query: SubjectQuery): Promise<SubjectRead> {
  const [row] = await runner.rows<SubjectRow>(subjectStatement(query));
  if (!row) throw new Error("the subject statement returned no row");
  const persons = new Set([...(row.person_id === null ? [] : [row.person_id]), ...row.continuity_person_ids]);
  return {
    stored: {
      personProperties: row.person_properties,
      staticCohortIds: row.static_cohort_ids,
      groups: row.groups.map((group) => ({
        groupTypeIndex: group.index,
        groupKey: group.key,
        properties: group.properties,
      })),
      hashKeys: row.hash_keys,
    },
    dependsOn: [
      ...new Set([query.distinctId, ...(query.hashKeysOf ?? [])].map((id) => `distinct:${id}`)),
      ...[...persons].map((id) => `person:${id}`),
      ...query.groups.map((group) => `group:${group.groupTypeIndex}:${group.groupKey}`),
    ],
  };
}
