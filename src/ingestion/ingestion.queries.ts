/**
 * The SQL of a capture request, inside its transaction, each a single statement whatever the number
 * of events: the rows travel as one JSON parameter read back with `json_to_recordset`, so a batch of
 * 100 events is one INSERT with one bound value (no per-event statement, no parameter limit).
 * - events: `ON CONFLICT (project_id, uuid) DO NOTHING`, so a resent event is stored once;
 * - the catalogue: event names upserted with `last_seen_at` moved only when older than an hour
 *   (a row not moved is not written, so it fires no revision trigger), property definitions and
 *   event/property pairs inserted only when new.
 */
import { v7 as uuidv7 } from "uuid";
import { Prisma } from "../generated/prisma/client.js";
import type { IngestEvent, IngestTx } from "./ingest-event.js";
import type { CatalogueEntries } from "./rules/catalogue.js";

/** Inserts `events` with the person each resolved to (`personIds[i]`, or null); returns how many were new. */
export async function insertEvents(
  tx: IngestTx,
  projectId: number,
  events: readonly IngestEvent[],
  personIds: readonly (string | null)[],
): Promise<number> {
  const rows = events.map((event, index) => ({
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinctId,
    person_id: personIds[index] ?? null,
    properties: event.properties,
    timestamp: event.timestamp.toISOString(),
  }));
  return tx.execute(Prisma.sql`
    INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
    SELECT ${projectId}, r.uuid, r.event, r.distinct_id, r.person_id, r.properties, r.timestamp
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(uuid uuid, event text, distinct_id text,
                                                               person_id uuid, properties jsonb, timestamp timestamptz)
    ON CONFLICT (project_id, uuid) DO NOTHING`);
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

/** Records `entries` in the catalogue (see the module comment): at most three statements, none when empty. */
export async function writeCatalogue(tx: IngestTx, projectId: number, entries: CatalogueEntries, now: Date) {
  if (entries.eventNames.length > 0) {
    const rows = entries.eventNames.map((name) => ({ id: uuidv7(), name }));
    const at = now.toISOString();
    await tx.execute(Prisma.sql`
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
    await tx.execute(Prisma.sql`
      INSERT INTO property_definitions (id, project_id, name, type, group_type_index, property_type, is_numerical)
      SELECT r.id, ${projectId}, r.name, r.type, r.group_type_index, r.property_type, r.is_numerical
      FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(id uuid, name text, type smallint,
                                                                 group_type_index smallint, property_type text,
                                                                 is_numerical boolean)
      ON CONFLICT (project_id, type, group_type_index, name) DO NOTHING`);
  }
  if (entries.eventProperties.length > 0) {
    await tx.execute(Prisma.sql`
      INSERT INTO event_properties (project_id, event, property)
      SELECT ${projectId}, r.event, r.property
      FROM json_to_recordset(${JSON.stringify(entries.eventProperties)}::json) AS r(event text, property text)
      ON CONFLICT (project_id, event, property) DO NOTHING`);
  }
}
