/**
 * The SQL of group state: the project's group-type mapping (read, and new types added under a
 * per-project transaction lock) and the groups `$groupidentify` events touch (loaded locked, then
 * written in one statement per kind of write).
 *
 * Race safety of type indexes (PostgreSQL): PostHog inserts `ON CONFLICT DO NOTHING` and retries with
 * the next index (`insertGroupType`); two requests adding different types in different orders can then
 * wait on each other's uncommitted rows. Here a request adding types first takes
 * `pg_advisory_xact_lock(hashtext('group_type_mappings'), project)` and re-reads the mapping, so types
 * are added one request at a time per project (at most five times in a project's life).
 */
import { Prisma } from "../generated/prisma/client.js";
import type { IngestTx } from "./ingest-event.js";
import type { Properties } from "./rules/person-properties.js";

/** Group type name → index (0–4). */
export type GroupTypeMapping = Map<string, number>;

/** Reads the project's group-type mapping (one statement). */
export async function loadGroupTypes(tx: IngestTx, projectId: number): Promise<GroupTypeMapping> {
  const rows = await tx.rows<{ group_type: string; group_type_index: number }>(Prisma.sql`
    SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ${projectId}`);
  return new Map(rows.map((row) => [row.group_type, row.group_type_index]));
}

/** Takes the project's group-type lock until the transaction ends, then re-reads the mapping. */
export async function lockGroupTypes(tx: IngestTx, projectId: number): Promise<GroupTypeMapping> {
  await tx.rows(
    Prisma.sql`SELECT 1 FROM pg_advisory_xact_lock(hashtext('group_type_mappings'), ${projectId})`,
  );
  return loadGroupTypes(tx, projectId);
}

/** Inserts new types at the given indexes (one statement; call under `lockGroupTypes`). */
export async function insertGroupTypes(
  tx: IngestTx,
  projectId: number,
  types: ReadonlyArray<{ groupType: string; index: number }>,
): Promise<void> {
  if (types.length === 0) return;
  const rows = JSON.stringify(types.map((t) => ({ group_type: t.groupType, group_type_index: t.index })));
  await tx.execute(Prisma.sql`
    INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
    SELECT ${projectId}, v.group_type, v.group_type_index
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(group_type text, group_type_index integer)
    ON CONFLICT DO NOTHING`);
}

/** A group as the batch works on it. */
export interface WorkingGroup {
  groupTypeIndex: number;
  groupKey: string;
  properties: Properties;
  createdAt: Date;
  /** Stored version; the write stores version + 1 (1 for a new group). */
  version: bigint;
  /** False for a group the batch creates. */
  stored: boolean;
  changed: boolean;
}

/** A `groups` row as read (`version`, a bigint, as text: the same on every driver). */
interface GroupRow {
  group_type_index: number;
  group_key: string;
  group_properties: Properties;
  created_at: Date;
  version: string;
}

/** A row as the group it holds. */
const groupOf = (row: GroupRow): WrittenGroup => ({
  groupTypeIndex: row.group_type_index,
  groupKey: row.group_key,
  properties: row.group_properties,
  createdAt: row.created_at,
  version: BigInt(row.version),
});

/** Loads and locks (`FOR UPDATE`, in key order) the stored groups among `keys` (one statement). */
export async function loadGroups(
  tx: IngestTx,
  projectId: number,
  keys: ReadonlyArray<{ groupTypeIndex: number; groupKey: string }>,
): Promise<WorkingGroup[]> {
  if (keys.length === 0) return [];
  const rows = await tx.rows<GroupRow>(Prisma.sql`
    SELECT g.group_type_index, g.group_key, g.group_properties, g.created_at, g.version::text AS version
    FROM groups g
    WHERE g.project_id = ${projectId}
      AND (g.group_type_index, g.group_key) IN (
        SELECT * FROM unnest(${keys.map((k) => k.groupTypeIndex)}::integer[], ${keys.map((k) => k.groupKey)}::text[]))
    ORDER BY g.group_type_index, g.group_key
    FOR UPDATE OF g`);
  return rows.map((row) => ({ ...groupOf(row), stored: true, changed: false }));
}

function groupColumns(group: WorkingGroup) {
  return {
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    group_properties: group.properties,
    created_at: group.createdAt.toISOString(),
    version: (group.version + 1n).toString(),
  };
}

/** A group as written: its row after the write. */
export interface WrittenGroup {
  groupTypeIndex: number;
  groupKey: string;
  properties: Properties;
  createdAt: Date;
  version: bigint;
}

/** The columns `writeGroups` reads back from the rows it wrote, of the table named `table` in the statement. */
const written = (table: "groups" | "g") =>
  Prisma.sql`RETURNING ${Prisma.raw(table)}.group_type_index, ${Prisma.raw(table)}.group_key,
    ${Prisma.raw(table)}.group_properties, ${Prisma.raw(table)}.created_at, ${Prisma.raw(table)}.version::text AS version`;

/**
 * Writes changed groups: new ones in one insert (a group a concurrent request created meanwhile gets
 * these properties over its own, version + 1), stored ones in one update; returns the rows as
 * written. PostHog keeps no per-key bookkeeping for groups (it writes `{}`), neither do we.
 */
export async function writeGroups(
  tx: IngestTx,
  projectId: number,
  groups: readonly WorkingGroup[],
): Promise<WrittenGroup[]> {
  const created = groups.filter((g) => !g.stored);
  const updated = groups.filter((g) => g.stored && g.changed);
  const rows: GroupRow[] = [];
  if (created.length > 0) {
    rows.push(
      ...(await tx.rows<GroupRow>(Prisma.sql`
      INSERT INTO groups (project_id, group_type_index, group_key, group_properties, created_at, version)
      SELECT ${projectId}, v.group_type_index, v.group_key, v.group_properties, v.created_at, v.version
      FROM jsonb_to_recordset(${JSON.stringify(created.map(groupColumns))}::jsonb) AS v(
        group_type_index integer, group_key text, group_properties jsonb, created_at timestamptz, version bigint)
      ON CONFLICT (project_id, group_type_index, group_key) DO UPDATE
      SET group_properties = groups.group_properties || EXCLUDED.group_properties,
          created_at = LEAST(groups.created_at, EXCLUDED.created_at),
          version = groups.version + 1
      ${written("groups")}`)),
    );
  }
  if (updated.length > 0) {
    rows.push(
      ...(await tx.rows<GroupRow>(Prisma.sql`
      UPDATE groups g
      SET group_properties = v.group_properties, created_at = v.created_at, version = v.version
      FROM jsonb_to_recordset(${JSON.stringify(updated.map(groupColumns))}::jsonb) AS v(
        group_type_index integer, group_key text, group_properties jsonb, created_at timestamptz, version bigint)
      WHERE g.project_id = ${projectId} AND g.group_type_index = v.group_type_index
        AND g.group_key = v.group_key
      ${written("g")}`)),
    );
  }
  return rows.map(groupOf);
}
