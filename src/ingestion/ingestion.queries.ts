/**
 * The SQL of a capture request, inside its transaction, each a single statement whatever the number
 * of events: the rows travel as one JSON parameter read back with `json_to_recordset`, so a batch of
 * 100 events is one INSERT with one bound value (no per-event statement, no parameter limit).
 * - events: `ON CONFLICT (project_id, uuid) DO NOTHING`, so a resent event is stored once;
 * - the catalogue, in one statement: event names upserted with `last_seen_at` moved only when older
 *   than an hour (a row not moved is not written, so it fires no revision trigger), property
 *   definitions and event/property pairs inserted only when new.
 */
import { v7 as uuidv7 } from "uuid";
import type { SqlStatements } from "../db/sql-transaction.js";
import { Prisma } from "../generated/prisma/client.js";
import type { IngestEvent, IngestTx } from "./ingest-event.js";
import type { PersonRead } from "./person-state.js";
import type { CatalogueEntries } from "./rules/catalogue.js";

/** The INSERT of `events` with the person each resolved to (`personIds[i]`), `guard` its WHERE. */
function eventsInsert(
  projectId: number,
  events: readonly IngestEvent[],
  personIds: readonly (string | null)[],
  guard: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  const rows = events.map((event, index) => ({
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinctId,
    person_id: personIds[index] ?? null,
    properties: event.properties,
    timestamp: event.timestamp.toISOString(),
  }));
  return Prisma.sql`
    INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
    SELECT ${projectId}, r.uuid, r.event, r.distinct_id, r.person_id, r.properties, r.timestamp
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(uuid uuid, event text, distinct_id text,
                                                               person_id uuid, properties jsonb, timestamp timestamptz)
    ${guard}
    ON CONFLICT (project_id, uuid) DO NOTHING`;
}

/** Inserts `events` with the person each resolved to (`personIds[i]`, or null); returns how many were new. */
export async function insertEvents(
  tx: IngestTx,
  projectId: number,
  events: readonly IngestEvent[],
  personIds: readonly (string | null)[],
): Promise<number> {
  return tx.execute(eventsInsert(projectId, events, personIds));
}

/**
 * Capture's steady state in ONE statement, outside any transaction (`db` commits it on its own):
 * inserts `events` as `insertEvents` does, but only if every person of `read` is still at the
 * `version` read (person-state.ts `steadyPersonState` decided on that read). Returns how many
 * events were new, or null when none was inserted: a person changed (nothing is inserted then), or
 * every event was a resend; either way the caller runs the request's transaction instead, which
 * answers both.
 *
 * Why this is enough under concurrency (PostgreSQL, READ COMMITTED): the check locks the persons
 * (`FOR SHARE`, in id order as `loadPersons` locks them) before the insert, and the locks last
 * until the statement commits. A request that changes or merges one of them (it holds it
 * `FOR UPDATE` from its load to its commit) either committed before: its new `version`, or the
 * person's deletion by a merge, fails the check (a lock waits for the holder, then re-reads the
 * latest row version); or comes after: its load waits for this commit, and its merge then finds
 * these events and moves them (person-store.ts `mergePersons`). The distinct ids need no check of
 * their own: an id leaves its person only when that person is merged away (person-store.ts), so a
 * person still at the version read still holds the ids it held then.
 */
export async function insertEventsIfPersonsUnchanged(
  db: SqlStatements,
  projectId: number,
  events: readonly IngestEvent[],
  personIds: readonly (string | null)[],
  read: readonly PersonRead[],
): Promise<number | null> {
  const versions = new Map(read.map((r) => [r.personId.toString(), r.version.toString()]));
  const guard = Prisma.sql`WHERE (SELECT count(*) FROM unchanged) = ${versions.size}`;
  const inserted = await db.execute(Prisma.sql`
    WITH unchanged AS MATERIALIZED (
      SELECT p.id
      FROM unnest(${[...versions.keys()]}::bigint[], ${[...versions.values()]}::bigint[]) AS v(id, version)
      JOIN persons p ON p.project_id = ${projectId} AND p.id = v.id AND p.version = v.version
      ORDER BY p.id
      FOR SHARE OF p
    )
    ${eventsInsert(projectId, events, personIds, guard)}`);
  return inserted > 0 ? inserted : null;
}

/** The index of each of `names` that the project's group type mapping has. */
export async function groupTypeIndexes(
  tx: IngestTx,
  projectId: number,
  names: readonly string[],
): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await tx.rows<{ group_type: string; group_type_index: number }>(Prisma.sql`
    SELECT group_type, group_type_index FROM group_type_mappings
    WHERE project_id = ${projectId} AND group_type = ANY(${[...names]}::text[])`);
  return new Map(rows.map((row) => [row.group_type, row.group_type_index]));
}

/**
 * Records `entries` in the catalogue (see the module comment) in ONE statement, whichever of its
 * three tables they touch (data-modifying CTEs), none when empty. Idempotent, so it may run inside
 * the request's transaction or on its own ahead of it (ingestion.service.ts). Rows are upserted in
 * the order `inLockOrder` gives them, so concurrent writers lock them in one order.
 */
export async function writeCatalogue(
  db: SqlStatements,
  projectId: number,
  entries: CatalogueEntries,
  now: Date,
) {
  const writes: Prisma.Sql[] = [];
  if (entries.eventNames.length > 0) {
    const rows = entries.eventNames.map((name) => ({ id: uuidv7(), name }));
    const at = now.toISOString();
    writes.push(Prisma.sql`
      INSERT INTO event_definitions (id, project_id, name, created_at, last_seen_at)
      SELECT r.id, ${projectId}, r.name, ${at}::timestamptz, ${at}::timestamptz
      FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, name text)
      ON CONFLICT (project_id, name) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at
      WHERE event_definitions.last_seen_at IS NULL
         OR event_definitions.last_seen_at < EXCLUDED.last_seen_at - interval '1 hour'`);
  }
  if (entries.properties.length > 0) {
    const rows = entries.properties.map((p) => ({
      id: uuidv7(),
      name: p.name,
      type: p.type,
      group_type_index: p.groupTypeIndex,
      property_type: p.propertyType,
      is_numerical: p.propertyType === "Numeric",
    }));
    writes.push(Prisma.sql`
      INSERT INTO property_definitions (id, project_id, name, type, group_type_index, property_type, is_numerical)
      SELECT r.id, ${projectId}, r.name, r.type, r.group_type_index, r.property_type, r.is_numerical
      FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, name text, type smallint,
                                                                 group_type_index smallint, property_type text,
                                                                 is_numerical boolean)
      ON CONFLICT (project_id, type, group_type_index, name) DO NOTHING`);
  }
  if (entries.eventProperties.length > 0) {
    writes.push(Prisma.sql`
      INSERT INTO event_properties (project_id, event, property)
      SELECT ${projectId}, r.event, r.property
      FROM json_to_recordset(${JSON.stringify(entries.eventProperties)}::json) AS r(event text, property text)
      ON CONFLICT (project_id, event, property) DO NOTHING`);
  }
  const last = writes.pop();
  if (!last) return;
  const ctes = writes.map((write, index) => Prisma.sql`${Prisma.raw(`w${index}`)} AS (${write})`);
  await db.execute(ctes.length > 0 ? Prisma.sql`WITH ${Prisma.join(ctes)} ${last}` : last);
}
