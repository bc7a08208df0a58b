/**
 * How flags are read, for both doors and for the writes that answer with the written flag: one SQL
 * statement per page or per flag, with the creator, the last modifier and both tag lists built in
 * the same statement, and a page's total count beside its rows (`count(*) OVER ()`). Hand-written
 * because this is the hottest read of the service: it skips the per-relation queries and result
 * processing of a generic ORM read (issue 6 §4's profile), and answers the same shape everywhere.
 *
 * Invariant: every statement filters by `project_id` (but the list of projects a roll-up of flag
 * calls visits, a system task's); values are bound parameters, never text.
 */
import { NotFoundError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { type UserBasic, userBasicJson } from "../core/records.js";
import { normalizeTags } from "../core/tags.js";
import type { SqlReader } from "../db/sql-reader.js";
import type { SqlTransaction } from "../db/sql-transaction.js";
import { type FeatureFlag, Prisma } from "../generated/prisma/client.js";
import type { FlagListFilters, FlagOrder } from "./feature-flags.schemas.js";
import { staleCutoff } from "./rules/status.js";

/** A flag as both doors show it: its columns, its creator and last modifier, and its tag names (sorted). */
export type FlagRecord = FeatureFlag & {
  createdBy: UserBasic | null;
  lastModifiedBy: UserBasic | null;
  tags: string[];
  evaluationTags: string[];
  /** Ids of the flag's non-deleted experiments, ascending (PostHog's `experiment_set`). */
  experimentSet: number[];
};

/** Where the reads run: the driver (`ServiceContext.reader`), or a write's transaction (`prismaReader(tx)`). */
export type Db = SqlReader;

/**
 * The columns of a flag a page read may leave out (all but `id` and `projectId`, which every read
 * brings), each with its select-list entry. Keyed by the record's own names; `satisfies` keeps the
 * list complete: a new column of the model fails the type check until it is listed here.
 */
const COLUMN_SQL = {
  key: Prisma.sql`f.key`,
  name: Prisma.sql`f.name`,
  deleted: Prisma.sql`f.deleted`,
  active: Prisma.sql`f.active`,
  version: Prisma.sql`f.version`,
  createdById: Prisma.sql`f.created_by_id AS "createdById"`,
  lastModifiedById: Prisma.sql`f.last_modified_by_id AS "lastModifiedById"`,
  createdAt: Prisma.sql`f.created_at AS "createdAt"`,
  updatedAt: Prisma.sql`f.updated_at AS "updatedAt"`,
  performedRollback: Prisma.sql`f.performed_rollback AS "performedRollback"`,
  ensureExperienceContinuity: Prisma.sql`f.ensure_experience_continuity AS "ensureExperienceContinuity"`,
  usageDashboardId: Prisma.sql`f.usage_dashboard_id AS "usageDashboardId"`,
  hasEnrichedAnalytics: Prisma.sql`f.has_enriched_analytics AS "hasEnrichedAnalytics"`,
  isRemoteConfiguration: Prisma.sql`f.is_remote_configuration AS "isRemoteConfiguration"`,
  hasEncryptedPayloads: Prisma.sql`f.has_encrypted_payloads AS "hasEncryptedPayloads"`,
  evaluationRuntime: Prisma.sql`f.evaluation_runtime::text AS "evaluationRuntime"`,
  bucketingIdentifier: Prisma.sql`f.bucketing_identifier::text AS "bucketingIdentifier"`,
  lastCalledAt: Prisma.sql`f.last_called_at AS "lastCalledAt"`,
  creationContext: Prisma.sql`f.creation_context::text AS "creationContext"`,
  createInFolder: Prisma.sql`f.create_in_folder AS "createInFolder"`,
  shouldCreateUsageDashboard: Prisma.sql`f.should_create_usage_dashboard AS "shouldCreateUsageDashboard"`,
  variantCount: Prisma.sql`f.variant_count AS "variantCount"`,
  fullyRolledOut: Prisma.sql`f.fully_rolled_out AS "fullyRolledOut"`,
} satisfies Record<
  Exclude<keyof FeatureFlag, "id" | "projectId" | "filters" | "rolloutPercentage" | "rollbackConditions">,
  Prisma.Sql
>;

/** A column a page read may leave out (`COLUMN_SQL`); as a part, it brings the record key of its name. */
export type FlagColumn = keyof typeof COLUMN_SQL;

/** The parts of a record that are not plain columns: JSON columns, user joins, tag lists. */
const COMPOUND_PART_SQL = {
  filters: Prisma.sql`f.filters, f.rollout_percentage AS "rolloutPercentage"`,
  rollbackConditions: Prisma.sql`f.rollback_conditions AS "rollbackConditions"`,
  createdBy: Prisma.sql`${userBasicJson("cb")} AS "createdBy"`,
  lastModifiedBy: Prisma.sql`${userBasicJson("mb")} AS "lastModifiedBy"`,
  tags: Prisma.sql`ARRAY(SELECT t.name FROM feature_flag_tags ft JOIN tags t ON t.id = ft.tag_id
    WHERE ft.feature_flag_id = f.id ORDER BY t.name) AS tags`,
  evaluationTags: Prisma.sql`ARRAY(SELECT t.name FROM feature_flag_evaluation_tags et JOIN tags t ON t.id = et.tag_id
    WHERE et.feature_flag_id = f.id ORDER BY t.name) AS "evaluationTags"`,
  experimentSet: Prisma.sql`ARRAY(SELECT x.id FROM experiments x
    WHERE x.feature_flag_id = f.id AND NOT x.deleted ORDER BY x.id) AS "experimentSet"`,
};

/**
 * What a page read may leave out when its reader shows none of its fields (a GraphQL selection,
 * `flagPartsFor` in graphql/feature-flag.type.ts): every column but `id` and `projectId`, and the
 * compound parts (JSON columns, users, tags). Reading and decoding unshown columns was most of a
 * GraphQL page's driver time (issue 6 §4's profile); REST, writes and single reads read every part.
 */
export type FlagPart = FlagColumn | keyof typeof COMPOUND_PART_SQL;

/** The SQL of each part: select-list entries (users come from the `cb`/`mb` joins of `fromFor`). */
const PART_SQL: Record<FlagPart, Prisma.Sql> = { ...COLUMN_SQL, ...COMPOUND_PART_SQL };

/** Every part, in select-list order. */
export const FLAG_PARTS = Object.keys(PART_SQL) as FlagPart[];

/** The record's keys each part brings: a column its own, `filters` with the rollout it falls back on (§2.5). */
type FlagPartKeys = { [C in FlagColumn]: C } & {
  filters: "filters" | "rolloutPercentage";
  rollbackConditions: "rollbackConditions";
  createdBy: "createdBy";
  lastModifiedBy: "lastModifiedBy";
  tags: "tags";
  evaluationTags: "evaluationTags";
  experimentSet: "experimentSet";
};

/** The record's keys that parts `P` bring. */
export type FlagPartKey<P extends FlagPart = FlagPart> = FlagPartKeys[P];

/** A flag record with `id`, `projectId` and parts `P` (all of them: a whole `FlagRecord`). */
export type FlagRecordWith<P extends FlagPart> = Omit<FlagRecord, FlagPartKey> &
  Pick<FlagRecord, FlagPartKey<P>>;

/** The columns every read brings. */
const SELECT_ALWAYS = Prisma.sql`SELECT f.id, f.project_id AS "projectId"`;

/** The select list for `parts`: `id`, `projectId`, then each part, in `FLAG_PARTS` order. */
function selectFor(parts: ReadonlySet<FlagPart>): Prisma.Sql {
  const selected = FLAG_PARTS.filter((part) => parts.has(part)).map((part) => PART_SQL[part]);
  return selected.length === 0 ? SELECT_ALWAYS : Prisma.sql`${SELECT_ALWAYS}, ${Prisma.join(selected)}`;
}

/** `FROM` the flags, joined to the users that `parts` show. */
function fromFor(parts: ReadonlySet<FlagPart>): Prisma.Sql {
  return Prisma.sql`FROM feature_flags f
    ${parts.has("createdBy") ? Prisma.sql`LEFT JOIN users cb ON cb.id = f.created_by_id` : Prisma.empty}
    ${parts.has("lastModifiedBy") ? Prisma.sql`LEFT JOIN users mb ON mb.id = f.last_modified_by_id` : Prisma.empty}`;
}

/** Every part: what REST shows, and what writes and single reads answer with. */
export const ALL_FLAG_PARTS: ReadonlySet<FlagPart> = new Set(FLAG_PARTS);

/** The select list and `FROM` of a whole record, built once. */
const WHOLE_SELECT = selectFor(ALL_FLAG_PARTS);
const WHOLE_FROM = fromFor(ALL_FLAG_PARTS);

const ORDER_SQL: Record<FlagOrder, Prisma.Sql> = {
  created_at: Prisma.sql`f.created_at ASC`,
  "-created_at": Prisma.sql`f.created_at DESC`,
  updated_at: Prisma.sql`f.updated_at ASC`,
  "-updated_at": Prisma.sql`f.updated_at DESC`,
  key: Prisma.sql`f.key ASC`,
  "-key": Prisma.sql`f.key DESC`,
  name: Prisma.sql`f.name ASC`,
  "-name": Prisma.sql`f.name DESC`,
};

/**
 * The `WHERE` of the flag list: the project's non-deleted flags narrowed by `filters` (§2.3).
 * `now` is the clock the `STALE` filter measures its 30 days from.
 */
export function flagListWhere(projectId: number, filters: FlagListFilters, now: Date): Prisma.Sql {
  const and: Prisma.Sql[] = [Prisma.sql`f.project_id = ${projectId}`, Prisma.sql`NOT f.deleted`];
  if (filters.active === "STALE") {
    const staleBefore = staleCutoff(now);
    and.push(Prisma.sql`f.active AND (f.last_called_at < ${staleBefore}
      OR (f.last_called_at IS NULL AND f.created_at < ${staleBefore} AND f.fully_rolled_out))`);
  } else if (filters.active !== undefined) {
    and.push(Prisma.sql`f.active = ${filters.active}`);
  }
  if (filters.createdById !== undefined) and.push(Prisma.sql`f.created_by_id = ${filters.createdById}`);
  if (filters.evaluationRuntime)
    and.push(Prisma.sql`f.evaluation_runtime::text = ${filters.evaluationRuntime}`);
  if (filters.excludedKeys?.length) and.push(Prisma.sql`f.key <> ALL(${filters.excludedKeys}::text[])`);
  if (filters.hasEvaluationTags !== undefined) {
    const exists = Prisma.sql`EXISTS (SELECT 1 FROM feature_flag_evaluation_tags et WHERE et.feature_flag_id = f.id)`;
    and.push(filters.hasEvaluationTags ? exists : Prisma.sql`NOT ${exists}`);
  }
  if (filters.search) {
    // strpos, not LIKE: the search text is matched literally, `%` and `_` included.
    const needle = filters.search.toLowerCase();
    // PostHog also matches the names of the flag's experiments (`experiment__name__icontains`).
    and.push(Prisma.sql`(strpos(lower(f.key), ${needle}) > 0 OR strpos(lower(f.name), ${needle}) > 0
      OR EXISTS (SELECT 1 FROM experiments x WHERE x.feature_flag_id = f.id AND NOT x.deleted
        AND strpos(lower(x.name), ${needle}) > 0))`);
  }
  if (filters.tags?.length) {
    const names = normalizeTags(filters.tags);
    and.push(Prisma.sql`EXISTS (SELECT 1 FROM feature_flag_tags ft JOIN tags t ON t.id = ft.tag_id
      WHERE ft.feature_flag_id = f.id AND t.name = ANY(${names}::text[]))`);
  }
  switch (filters.type) {
    case "boolean":
      and.push(Prisma.sql`f.variant_count = 0`);
      break;
    case "multivariant":
      and.push(Prisma.sql`f.variant_count > 0`);
      break;
    case "experiment":
      // Flags an experiment (not deleted) runs on (PostHog's `experiment__deleted=False`).
      and.push(
        Prisma.sql`EXISTS (SELECT 1 FROM experiments x WHERE x.feature_flag_id = f.id AND NOT x.deleted)`,
      );
      break;
    case "remote_config":
      and.push(Prisma.sql`f.is_remote_configuration`);
      break;
  }
  return Prisma.join(and, " AND ");
}

/**
 * A page's row: the record, and the page's total (`bigint`: a string or a bigint, by driver). The
 * rows are answered as they come, total included: a `FlagRecordWith` with one key more, which no
 * door shows (REST serialises declared fields, GraphQL selected ones); copying each row without it
 * cost more than any other step of ours in the page (issue 6 §4's profile).
 */
type Row<P extends FlagPart> = FlagRecordWith<P> & { totalCount?: bigint | string };

/**
 * One page of flags matching `where`, in `order` (newest first by default; ties by id, newest first,
 * so pages never overlap), with the total number of matches: one statement, or two when the page is
 * past the end (the count then comes from a count of its own). Each record has the parts in `parts`.
 */
export async function selectFlagPage<P extends FlagPart>(
  db: Db,
  where: Prisma.Sql,
  order: FlagOrder | undefined,
  page: OffsetPage,
  parts: ReadonlySet<P>,
): Promise<{ count: number; results: FlagRecordWith<P>[] }> {
  const shown = parts as ReadonlySet<FlagPart>;
  const rows = await db.rows<Row<P>>(Prisma.sql`${selectFor(shown)}, count(*) OVER () AS "totalCount"
    ${fromFor(shown)}
    WHERE ${where} ORDER BY ${ORDER_SQL[order ?? "-created_at"]}, f.id DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`);
  if (rows.length > 0) return { count: Number(rows[0]!.totalCount), results: rows };
  if (page.offset === 0 && page.limit > 0) return { count: 0, results: [] };
  const [counted] = await db.rows<{ count: number }>(
    Prisma.sql`SELECT count(*)::int AS count FROM feature_flags f WHERE ${where}`,
  );
  return { count: Number(counted!.count), results: [] };
}

/** Flags of a project by id or by key (soft-deleted ones included), whole, in no particular order. */
export async function selectFlags(
  db: Db,
  projectId: number,
  by: { ids: readonly number[] } | { keys: readonly string[] },
): Promise<FlagRecord[]> {
  const match =
    "ids" in by
      ? Prisma.sql`f.id = ANY(${[...by.ids]}::int[])`
      : Prisma.sql`f.key = ANY(${[...by.keys]}::text[])`;
  return db.rows<FlagRecord>(
    Prisma.sql`${WHOLE_SELECT} ${WHOLE_FROM} WHERE f.project_id = ${projectId} AND ${match}`,
  );
}

/** The project's non-deleted flag keyed `key`, or undefined when there is none (one statement). */
export async function findLiveFlag(
  reader: SqlReader,
  projectId: number,
  key: string,
): Promise<FlagRecord | undefined> {
  return (await selectFlags(reader, projectId, { keys: [key] })).find((flag) => !flag.deleted);
}

/** One flag of the project by id or by key, soft-deleted ones included. @throws NotFoundError */
export async function readFlag(
  db: Db,
  projectId: number,
  by: { id: number } | { key: string },
): Promise<FlagRecord> {
  const [flag] = await selectFlags(db, projectId, "id" in by ? { ids: [by.id] } : { keys: [by.key] });
  if (!flag) throw new NotFoundError();
  return flag;
}

/** The ids and keys of the project's non-deleted flags among `ids` (`bulk_keys`), in id order. */
export function selectFlagKeys(
  db: Db,
  projectId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; key: string }>> {
  return db.rows(Prisma.sql`SELECT f.id, f.key FROM feature_flags f
    WHERE f.project_id = ${projectId} AND NOT f.deleted AND f.id = ANY(${[...ids]}::int[]) ORDER BY f.id`);
}

/**
 * Moves the `last_called_at` of project `projectId`'s flags to their latest `$feature_flag_called`
 * event (property `$feature_flag` = key) with a timestamp in (`since`, `until`], where that is
 * newer than the stored one; soft-deleted flags too (their key is still theirs). One statement, on
 * the events index `(project_id, event, timestamp)`. Returns how many flags moved.
 */
export function rollUpProjectFlagCalls(
  tx: SqlTransaction,
  projectId: number,
  window: { since: Date; until: Date },
): Promise<number> {
  return tx.execute(Prisma.sql`UPDATE feature_flags f SET last_called_at = c.called_at
    FROM (SELECT e.properties ->> '$feature_flag' AS key, max(e.timestamp) AS called_at
          FROM events e
          WHERE e.project_id = ${projectId} AND e.event = ${FLAG_CALLED_EVENT}
            AND e.timestamp > ${window.since} AND e.timestamp <= ${window.until}
          GROUP BY 1) c
    WHERE f.project_id = ${projectId} AND f.key = c.key
      AND (f.last_called_at IS NULL OR f.last_called_at < c.called_at)`);
}

/** The event SDKs send when code reads a flag (posthog-behavior.md §2.12). */
export const FLAG_CALLED_EVENT = "$feature_flag_called";

/** The projects that have flags, in id order (those a roll-up visits). */
export async function selectProjectsWithFlags(tx: SqlTransaction): Promise<number[]> {
  const rows = await tx.rows<{ projectId: number }>(
    Prisma.sql`SELECT DISTINCT f.project_id AS "projectId" FROM feature_flags f ORDER BY 1`,
  );
  return rows.map((row) => row.projectId);
}
