/**
 * How a project's flag definitions are read, on the driver (db/sql-reader.ts), when the project's
 * revision (core/project-revisions.ts) moved past the cached copy's: three statements whatever the
 * project holds: its non-deleted flags with their evaluation tags, its group types, and its
 * non-deleted cohorts. All cohorts are read at once, as PostHog's `local_evaluation.py` prefetches
 * them, so that following cohorts through cohorts costs no statement per level.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */
import type { SqlReader } from "../../db/sql-reader.js";
import { Prisma } from "../../generated/prisma/client.js";

/** A non-deleted flag's columns that evaluation and the local-evaluation payload read. */
export interface DefinitionFlagRow {
  id: number;
  key: string;
  name: string;
  active: boolean;
  filters: unknown;
  rolloutPercentage: number | null;
  ensureExperienceContinuity: boolean;
  isRemoteConfiguration: boolean;
  hasEncryptedPayloads: boolean;
  version: number;
  evaluationRuntime: string;
  bucketingIdentifier: string;
  /** Names, sorted. */
  evaluationTags: string[];
}

/** A non-deleted cohort's stored criteria. */
export interface DefinitionCohortRow {
  id: number;
  isStatic: boolean;
  filters: unknown;
  groups: unknown;
}

/** One group type of the project. */
export interface GroupTypeRow {
  groupTypeIndex: number;
  groupType: string;
}

/** What one load reads. */
export interface DefinitionRows {
  flags: DefinitionFlagRow[];
  groupTypes: GroupTypeRow[];
  cohorts: DefinitionCohortRow[];
}

/**
 * The project's flags (non-deleted, inactive and remote-configuration ones included, by id), group
 * types (by index) and non-deleted cohorts (by id). Three statements, run side by side.
 */
export async function readDefinitionRows(reader: SqlReader, projectId: number): Promise<DefinitionRows> {
  const [flags, groupTypes, cohorts] = await Promise.all([
    reader.rows<DefinitionFlagRow>(Prisma.sql`
      SELECT f.id, f.key, f.name, f.active, f.filters, f.rollout_percentage AS "rolloutPercentage",
        f.ensure_experience_continuity AS "ensureExperienceContinuity",
        f.is_remote_configuration AS "isRemoteConfiguration",
        f.has_encrypted_payloads AS "hasEncryptedPayloads", f.version,
        f.evaluation_runtime::text AS "evaluationRuntime",
        f.bucketing_identifier::text AS "bucketingIdentifier",
        ARRAY(SELECT t.name FROM feature_flag_evaluation_tags et JOIN tags t ON t.id = et.tag_id
          WHERE et.feature_flag_id = f.id ORDER BY t.name) AS "evaluationTags"
      FROM feature_flags f
      WHERE f.project_id = ${projectId} AND NOT f.deleted
      ORDER BY f.id`),
    reader.rows<GroupTypeRow>(Prisma.sql`
      SELECT group_type_index AS "groupTypeIndex", group_type AS "groupType"
      FROM group_type_mappings WHERE project_id = ${projectId} ORDER BY group_type_index`),
    reader.rows<DefinitionCohortRow>(Prisma.sql`
      SELECT id, is_static AS "isStatic", filters, groups
      FROM cohorts WHERE project_id = ${projectId} AND NOT deleted ORDER BY id`),
  ]);
  return { flags, groupTypes, cohorts };
}
