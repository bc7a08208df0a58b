/**
 * A person's events, newest first, read by its distinct ids (`events (project_id, distinct_id,
 * timestamp)`): so the events of ids merged into the person count as its own, whatever person
 * they were stored with. One statement per page, keyset-paged on `(timestamp, uuid)`.
 */
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";

/** An event as the doors show it. */
export interface EventRecord {
  projectId: number;
  uuid: string;
  event: string;
  distinctId: string;
  /** The uuid of the person the event was stored with; null when it had none. */
  personId: string | null;
  properties: Prisma.JsonValue;
  /** When it happened (after clock-skew correction). */
  timestamp: Date;
  /** `timestamp` as PostgreSQL prints it, with its microseconds: the page position. */
  timestampText: string;
  /** When the server received it. */
  createdAt: Date;
  elementsChain: string;
}

/** Where a page of events starts: strictly after (older than) this event. */
export interface EventPosition {
  timestampText: string;
  uuid: string;
}

/**
 * Up to `limit` events of person `personId` (integer id) in project `projectId`, newest first
 * (`timestamp DESC, uuid DESC`), older than `after` when given.
 */
export async function selectPersonEvents(
  db: QueryClient,
  projectId: number,
  personId: bigint,
  limit: number,
  after: EventPosition | null,
): Promise<EventRecord[]> {
  const seek =
    after === null
      ? Prisma.empty
      : Prisma.sql`AND (e.timestamp, e.uuid) < (${after.timestampText}::timestamptz, ${after.uuid}::uuid)`;
  return db.$queryRaw<EventRecord[]>`
    SELECT e.project_id AS "projectId", e.uuid::text AS uuid, e.event, e.distinct_id AS "distinctId",
      e.person_id::text AS "personId", e.properties, e.timestamp, e.timestamp::text AS "timestampText",
      e.created_at AS "createdAt", e.elements_chain AS "elementsChain"
    FROM events e
    WHERE e.project_id = ${projectId}
      AND e.distinct_id IN (SELECT d.distinct_id FROM person_distinct_ids d
                            WHERE d.project_id = ${projectId} AND d.person_id = ${String(personId)}::bigint)
      ${seek}
    ORDER BY e.timestamp DESC, e.uuid DESC
    LIMIT ${limit}`;
}
