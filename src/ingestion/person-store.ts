/**
 * The SQL of person state: one statement to load (and lock) the persons of a batch's distinct ids,
 * and a bounded number to write what the batch decided (`PersonWritePlan`), whatever its size:
 * every multi-row write passes its rows as one JSON parameter (`jsonb_to_recordset`).
 *
 * Concurrency (PostgreSQL): loaded persons are locked `FOR UPDATE` until the request's
 * transaction ends, so no other request changes or merges them meanwhile. (Capture's steady state
 * reads them unlocked, or remembers them, and has its one write check that they did not change,
 * ingestion.queries.ts `insertEventsIfPersonsUnchanged`.)
 *
 * Invariants that check rests on, kept by every write here: a person's row is written only with a
 * higher `version` (person-state.ts counts one per event that writes it, a merge takes the higher
 * of the two plus one), so a row at a given version is always the same row; and a distinct id
 * leaves its person only when that person is merged away and its row deleted (`mergePersons`). New persons and new
 * distinct ids are inserted `ON CONFLICT DO NOTHING`: when a concurrent request created one of them
 * first (the unique index makes us wait for its commit), the insert reports it, this module removes
 * what it inserted, and the caller reloads and decides again (`writePersonPlan` answers `retry`).
 */
import type { SqlReader } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { IngestTx } from "./ingest-event.js";
import type { PropertyOperation, PropertyState } from "./rules/person-properties.js";

/** A person as the batch works on it (a stored row, or a person the batch creates). */
export interface WorkingPerson {
  /** The row id; null for a person the batch creates until `writePersonPlan` inserts it. */
  id: bigint | null;
  uuid: string;
  state: PropertyState;
  isIdentified: boolean;
  version: bigint;
  createdAt: Date;
  /** A stored person whose row the batch changed. */
  changed: boolean;
  /** The batch's distinct ids this person holds now. */
  distinctIds: Set<string>;
  /** Set when this person was merged into another (its row, if any, is deleted). */
  mergedInto: WorkingPerson | null;
}

/** A stored person found for one of the batch's distinct ids. */
export interface LoadedPerson {
  distinctId: string;
  id: bigint;
  uuid: string;
  state: PropertyState;
  isIdentified: boolean;
  version: bigint;
  createdAt: Date;
}

/** What a batch writes, decided in memory (`person-state.ts`). */
export interface PersonWritePlan {
  /** Persons to insert (created by the batch and not merged away). */
  creates: WorkingPerson[];
  /** Distinct ids no stored person held at load, with the person that holds them now. */
  newDistinctIds: Array<{ distinctId: string; person: WorkingPerson }>;
  /** Stored persons merged away, each with the person that finally survives it. */
  merges: Array<{ source: WorkingPerson; target: WorkingPerson }>;
  /**
   * Distinct ids whose personless events (stored under the id's derived uuid) now belong to
   * another person: `derivedUuid` → the person's uuid (PostHog writes person overrides for them).
   */
  personlessOverrides: Array<{ distinctId: string; derivedUuid: string; person: WorkingPerson }>;
  /** Stored persons, not merged away, whose row changed. */
  updates: WorkingPerson[];
}

/** Whether `plan` writes nothing at all (the steady state of known persons that the batch leaves as they are). */
export function writesNothing(plan: PersonWritePlan): boolean {
  return (
    plan.creates.length === 0 &&
    plan.newDistinctIds.length === 0 &&
    plan.merges.length === 0 &&
    plan.personlessOverrides.length === 0 &&
    plan.updates.length === 0
  );
}

/** A stored distinct id a merge moved to the surviving person, with its new `version`. */
export interface MovedDistinctId {
  distinctId: string;
  personUuid: string;
  version: bigint;
}

/**
 * The outcome of `writePersonPlan`: written (with the distinct ids its merges moved, every one of
 * the merged persons', not only the batch's), or undone because a concurrent request got there first.
 */
export type WriteOutcome =
  | { written: true; moved: MovedDistinctId[] }
  | { written: false; conflictingUuids: string[] };

/** A loaded row as the driver decodes it (bigint columns read as text, the same on every driver). */
interface LoadedRow {
  distinct_id: string;
  id: string;
  uuid: string;
  properties: Record<string, unknown>;
  properties_last_updated_at: Record<string, string>;
  properties_last_operation: Record<string, PropertyOperation>;
  is_identified: boolean;
  version: string;
  created_at: Date;
}

/**
 * Loads the persons holding any of `distinctIds`, one row per distinct id that has a person; one
 * statement, an index lookup per id on the primary keys once the planner has statistics
 * (PostgreSQL's autovacuum gathers them; PGlite has none until an `ANALYZE`, and then reads the
 * project's distinct ids once per batch). The ids are joined from `unnest` rather than matched by
 * `= ANY(...)`: the statement is prepared, and the generic plan PostgreSQL settles on after five
 * runs, not knowing the array, filtered a scan of every distinct id of the project with `ANY`
 * (1.7 ms at 1,000 ids, growing with the project); from `unnest` it looks each id up. `locked` (inside a transaction): locked `FOR UPDATE`, in
 * id order, so concurrent batches lock shared persons alike; unlocked, a snapshot that the caller
 * must check again before it writes anything that depends on it.
 */
export async function loadPersons(
  db: SqlReader,
  projectId: number,
  distinctIds: readonly string[],
  { locked }: { locked: boolean },
): Promise<LoadedPerson[]> {
  if (distinctIds.length === 0) return [];
  const rows = await db.rows<LoadedRow>(Prisma.sql`
    SELECT d.distinct_id, p.id::text AS id, p.uuid::text AS uuid, p.properties, p.properties_last_updated_at,
           p.properties_last_operation, p.is_identified, p.version::text AS version, p.created_at
    FROM unnest(${distinctIds}::text[]) AS i(distinct_id)
    JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = i.distinct_id
    JOIN persons p ON p.project_id = ${projectId} AND p.id = d.person_id
    ORDER BY p.id
    ${locked ? Prisma.sql`FOR UPDATE OF p` : Prisma.empty}`);
  return rows.map((row) => ({
    distinctId: row.distinct_id,
    id: BigInt(row.id),
    uuid: row.uuid,
    state: {
      properties: row.properties,
      lastUpdatedAt: row.properties_last_updated_at,
      lastOperation: row.properties_last_operation,
    },
    isIdentified: row.is_identified,
    version: BigInt(row.version),
    createdAt: row.created_at,
  }));
}

function personColumns(person: WorkingPerson) {
  return {
    uuid: person.uuid,
    properties: person.state.properties,
    properties_last_updated_at: person.state.lastUpdatedAt,
    properties_last_operation: person.state.lastOperation,
    is_identified: person.isIdentified,
    version: person.version.toString(),
    created_at: person.createdAt.toISOString(),
  };
}

function idOf(person: WorkingPerson): string {
  if (person.id === null) throw new Error(`person ${person.uuid} has no row id yet`);
  return person.id.toString();
}

/** Inserts the plan's new persons; returns the ids by uuid of those inserted (conflicts are absent). */
async function insertPersons(
  tx: IngestTx,
  projectId: number,
  creates: readonly WorkingPerson[],
): Promise<Map<string, bigint>> {
  if (creates.length === 0) return new Map();
  const rows = await tx.rows<{ id: string; uuid: string }>(Prisma.sql`
    INSERT INTO persons (project_id, uuid, properties, properties_last_updated_at,
                         properties_last_operation, is_identified, version, created_at)
    SELECT ${projectId}, v.uuid, v.properties, v.properties_last_updated_at, v.properties_last_operation,
           v.is_identified, v.version, v.created_at
    FROM jsonb_to_recordset(${JSON.stringify(creates.map(personColumns))}::jsonb) AS v(
      uuid uuid, properties jsonb, properties_last_updated_at jsonb, properties_last_operation jsonb,
      is_identified boolean, version bigint, created_at timestamptz)
    ON CONFLICT (project_id, uuid) DO NOTHING
    RETURNING id::text AS id, uuid::text AS uuid`);
  return new Map(rows.map((row) => [row.uuid, BigInt(row.id)]));
}

/** Inserts the plan's new distinct ids; returns those inserted (conflicts are absent). */
async function insertDistinctIds(
  tx: IngestTx,
  projectId: number,
  newDistinctIds: PersonWritePlan["newDistinctIds"],
): Promise<string[]> {
  if (newDistinctIds.length === 0) return [];
  const rows = newDistinctIds.map(({ distinctId, person }) => ({
    distinct_id: distinctId,
    person_id: idOf(person),
  }));
  const inserted = await tx.rows<{ distinct_id: string }>(Prisma.sql`
    INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, version)
    SELECT ${projectId}, v.distinct_id, v.person_id, 0
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(distinct_id text, person_id bigint)
    ON CONFLICT (project_id, distinct_id) DO NOTHING
    RETURNING distinct_id`);
  return inserted.map((row) => row.distinct_id);
}

/** Removes rows this request inserted before it found a conflict (two statements, only then). */
async function undoInserts(
  tx: IngestTx,
  projectId: number,
  personIds: readonly bigint[],
  distinctIds: readonly string[],
): Promise<void> {
  if (distinctIds.length > 0) {
    await tx.execute(Prisma.sql`
      DELETE FROM person_distinct_ids
      WHERE project_id = ${projectId} AND distinct_id = ANY(${distinctIds}::text[])`);
  }
  if (personIds.length > 0) {
    await tx.execute(Prisma.sql`
      DELETE FROM persons WHERE project_id = ${projectId} AND id = ANY(${personIds.map(String)}::bigint[])`);
  }
}

/**
 * Merges stored persons away (four statements for all of the batch's merges): their distinct ids
 * move to the survivor (`version` + 1, PostHog's marker of a moved id), their static-cohort
 * memberships and experience-continuity hash keys too (`cohort_people` and
 * `feature_flag_hash_key_overrides`, PostHog's `updateCohortsAndFeatureFlagsForMerge`; a hash key the
 * survivor already has for a flag wins), their events are re-attributed to the survivor (what
 * PostHog's person overrides achieve), and their rows go. Returns the distinct ids moved.
 */
async function mergePersons(
  tx: IngestTx,
  projectId: number,
  merges: PersonWritePlan["merges"],
): Promise<MovedDistinctId[]> {
  if (merges.length === 0) return [];
  const mapping = JSON.stringify(
    merges.map(({ source, target }) => ({
      source_id: idOf(source),
      target_id: idOf(target),
      source_uuid: source.uuid,
      target_uuid: target.uuid,
    })),
  );
  const moved = await tx.rows<{ distinct_id: string; person_uuid: string; version: string }>(Prisma.sql`
    UPDATE person_distinct_ids d
    SET person_id = m.target_id, version = d.version + 1
    FROM jsonb_to_recordset(${mapping}::jsonb) AS m(source_id bigint, target_id bigint, target_uuid uuid)
    WHERE d.project_id = ${projectId} AND d.person_id = m.source_id
    RETURNING d.distinct_id, m.target_uuid::text AS person_uuid, d.version::text AS version`);
  // One statement for both copies: the hash keys' INSERT runs as a data-modifying CTE.
  await tx.execute(Prisma.sql`
    WITH hash_keys AS (
      INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
      SELECT o.project_id, m.target_id, o.feature_flag_key, o.hash_key
      FROM feature_flag_hash_key_overrides o
      JOIN jsonb_to_recordset(${mapping}::jsonb) AS m(source_id bigint, target_id bigint)
        ON o.person_id = m.source_id
      WHERE o.project_id = ${projectId}
      ON CONFLICT (project_id, person_id, feature_flag_key) DO NOTHING
    )
    INSERT INTO cohort_people (project_id, cohort_id, person_id, version)
    SELECT c.project_id, c.cohort_id, m.target_id, c.version
    FROM cohort_people c
    JOIN jsonb_to_recordset(${mapping}::jsonb) AS m(source_id bigint, target_id bigint)
      ON c.person_id = m.source_id
    WHERE c.project_id = ${projectId}
    ON CONFLICT (project_id, cohort_id, person_id) DO NOTHING`);
  await tx.execute(Prisma.sql`
    UPDATE events e
    SET person_id = m.target_uuid
    FROM jsonb_to_recordset(${mapping}::jsonb) AS m(source_uuid uuid, target_uuid uuid)
    WHERE e.project_id = ${projectId} AND e.person_id = m.source_uuid`);
  await tx.execute(Prisma.sql`
    DELETE FROM persons p
    USING jsonb_to_recordset(${mapping}::jsonb) AS m(source_id bigint)
    WHERE p.project_id = ${projectId} AND p.id = m.source_id`);
  return moved.map((row) => ({
    distinctId: row.distinct_id,
    personUuid: row.person_uuid,
    version: BigInt(row.version),
  }));
}

/** Re-attributes personless events of distinct ids now held by a person of another uuid (one statement). */
async function overridePersonlessEvents(
  tx: IngestTx,
  projectId: number,
  overrides: PersonWritePlan["personlessOverrides"],
): Promise<void> {
  if (overrides.length === 0) return;
  const rows = overrides.map(({ distinctId, derivedUuid, person }) => ({
    distinct_id: distinctId,
    derived_uuid: derivedUuid,
    person_uuid: person.uuid,
  }));
  await tx.execute(Prisma.sql`
    UPDATE events e
    SET person_id = v.person_uuid
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
      distinct_id text, derived_uuid uuid, person_uuid uuid)
    WHERE e.project_id = ${projectId} AND e.distinct_id = v.distinct_id AND e.person_id = v.derived_uuid`);
}

/** Writes the changed stored persons (one statement). */
async function updatePersons(
  tx: IngestTx,
  projectId: number,
  updates: readonly WorkingPerson[],
): Promise<void> {
  if (updates.length === 0) return;
  const rows = updates.map((person) => ({ id: idOf(person), ...personColumns(person) }));
  await tx.execute(Prisma.sql`
    UPDATE persons p
    SET properties = v.properties,
        properties_last_updated_at = v.properties_last_updated_at,
        properties_last_operation = v.properties_last_operation,
        is_identified = v.is_identified,
        version = v.version,
        created_at = v.created_at
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
      id bigint, properties jsonb, properties_last_updated_at jsonb, properties_last_operation jsonb,
      is_identified boolean, version bigint, created_at timestamptz)
    WHERE p.project_id = ${projectId} AND p.id = v.id`);
}

/**
 * Writes `plan`: new persons and distinct ids first; if a concurrent request created any of them,
 * undoes those inserts and answers `written: false` with the person uuids that were taken (nothing
 * else written). Otherwise merges, personless overrides and updates follow, and the created
 * persons get their row ids; the answer names the distinct ids the merges moved.
 */
export async function writePersonPlan(
  tx: IngestTx,
  projectId: number,
  plan: PersonWritePlan,
): Promise<WriteOutcome> {
  const createdIds = await insertPersons(tx, projectId, plan.creates);
  const conflictingUuids = plan.creates.map((p) => p.uuid).filter((uuid) => !createdIds.has(uuid));
  for (const person of plan.creates) person.id = createdIds.get(person.uuid) ?? null;
  if (conflictingUuids.length > 0) {
    await undoInserts(tx, projectId, [...createdIds.values()], []);
    return { written: false, conflictingUuids };
  }
  const insertedIds = await insertDistinctIds(tx, projectId, plan.newDistinctIds);
  if (insertedIds.length < plan.newDistinctIds.length) {
    await undoInserts(tx, projectId, [...createdIds.values()], insertedIds);
    return { written: false, conflictingUuids: [] };
  }
  const moved = await mergePersons(tx, projectId, plan.merges);
  await overridePersonlessEvents(tx, projectId, plan.personlessOverrides);
  await updatePersons(tx, projectId, plan.updates);
  return { written: true, moved };
}
