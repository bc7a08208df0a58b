/**
 * Capture's person writes mirrored into ClickHouse (issue 30 §3): PostgreSQL stays the persons'
 * source of truth (row locks, versions, flag evaluation read it); ClickHouse gets each version
 * written, as PostHog's plugin server produces each person write to ClickHouse
 * (plugin-server/src/utils/db/db.ts `updatePerson`, `moveDistinctIds`, `deletePerson`):
 * - `person`: a row per person created or changed, at its new `version`; a person merged away, a
 *   row with `is_deleted = 1` at its version + 100 (posthog/models/person/util.py `delete_person`);
 * - `person_distinct_id2`: a row per distinct id that joined a person (version 0) or moved to
 *   another by a merge (its new version);
 * - `groups`: a row per group created or changed, at PostgreSQL's version.
 * The rows are sent inside capture's transaction, before it commits, so a request whose ClickHouse
 * write fails rolls back and is answered with an error (the SDK sends it again); a crash between
 * the ClickHouse write and the commit leaves ClickHouse a version PostgreSQL does not have, which
 * the resend writes again (the same version: ReplacingMergeTree keeps the last inserted).
 */

import type { WrittenGroup } from "../../ingestion/group-store.js";
import type { MovedDistinctId, PersonWritePlan, WorkingPerson } from "../../ingestion/person-store.js";
import { clickHouseDateTime } from "../../lib/hogql/clickhouse/params.js";
import type { ClickHouseClient } from "./client.js";

/** A `person` row. */
interface PersonRow {
  id: string;
  created_at: string;
  team_id: number;
  properties: string;
  is_identified: number;
  is_deleted: number;
  version: string;
  _timestamp: string;
}

/** A `person_distinct_id2` row. */
interface DistinctIdRow {
  team_id: number;
  distinct_id: string;
  person_id: string;
  is_deleted: number;
  version: string;
  _timestamp: string;
}

/** A `groups` row. */
interface GroupRow {
  group_type_index: number;
  group_key: string;
  created_at: string;
  team_id: number;
  group_properties: string;
  version: string;
  _timestamp: string;
}

/** The version PostHog gives a deleted person's row: above any its live rows had. */
const DELETED_VERSION_STEP = 100n;

/** What a capture request mirrors into ClickHouse. */
export interface MirrorRows {
  persons: PersonRow[];
  distinctIds: DistinctIdRow[];
  groups: GroupRow[];
}

/** The rows mirroring `groups` as written for project `projectId`. */
export function groupRows(projectId: number, groups: readonly WrittenGroup[], now: Date): GroupRow[] {
  return groups.map((group) => ({
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    created_at: clickHouseDateTime(group.createdAt),
    team_id: projectId,
    group_properties: JSON.stringify(group.properties),
    version: group.version.toString(),
    _timestamp: clickHouseDateTime(now),
  }));
}

/** The person rows mirroring what `plan` wrote for project `projectId` (the module comment). */
export function personRows(
  projectId: number,
  plan: PersonWritePlan,
  moved: readonly MovedDistinctId[],
  now: Date,
): Pick<MirrorRows, "persons" | "distinctIds"> {
  const written = clickHouseDateTime(now);
  const person = (p: WorkingPerson, deleted: boolean): PersonRow => ({
    id: p.uuid,
    created_at: clickHouseDateTime(p.createdAt),
    team_id: projectId,
    properties: JSON.stringify(p.state.properties),
    is_identified: p.isIdentified ? 1 : 0,
    is_deleted: deleted ? 1 : 0,
    version: (deleted ? p.version + DELETED_VERSION_STEP : p.version).toString(),
    _timestamp: written,
  });
  const distinctId = (id: string, personUuid: string, version: bigint): DistinctIdRow => ({
    team_id: projectId,
    distinct_id: id,
    person_id: personUuid,
    is_deleted: 0,
    version: version.toString(),
    _timestamp: written,
  });
  return {
    persons: [
      ...plan.creates.map((p) => person(p, false)),
      ...plan.updates.map((p) => person(p, false)),
      ...plan.merges.map(({ source }) => person(source, true)),
    ],
    distinctIds: [
      ...plan.newDistinctIds.map(({ distinctId: id, person: p }) => distinctId(id, p.uuid, 0n)),
      ...moved.map((m) => distinctId(m.distinctId, m.personUuid, m.version)),
    ],
  };
}

/**
 * Writes `rows` to ClickHouse, a table at a time, answered once written.
 * @throws the client's ClickHouseError or a connection error.
 */
export async function insertMirrorRows(client: ClickHouseClient, rows: MirrorRows): Promise<void> {
  const tables: ReadonlyArray<[string, readonly object[]]> = [
    ["person", rows.persons],
    ["person_distinct_id2", rows.distinctIds],
    ["groups", rows.groups],
  ];
  for (const [table, values] of tables) {
    if (values.length === 0) continue;
    await client.insert({
      table,
      values: values as Array<Record<string, unknown>>,
      format: "JSONEachRow",
      clickhouse_settings: { date_time_input_format: "best_effort" },
    });
  }
}
