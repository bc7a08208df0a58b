/**
 * Capture's writes of events into ClickHouse (issue 30 §3): one INSERT per capture request, batched
 * across requests by ClickHouse itself (asynchronous inserts: the server gathers the inserts of
 * many requests into one part), each request answered only once its rows are in a part on disk
 * (`wait_for_async_insert = 1`): what ClickHouse acknowledges is what a restart keeps. Idempotent
 * by uuid: `events` is a ReplacingMergeTree whose sorting key ends with the uuid, so a resent event
 * is one row once parts merge, and reads take `FINAL` before they do (the migration's comment).
 *
 * Durability: an acknowledged insert's part is written; on a cluster, `insert_quorum` makes it
 * replicated before the answer (docs/scaling.md). ClickHouse does not fsync parts by default
 * (`fsync_after_insert`): a power loss, unlike a process crash, can lose the last seconds on one
 * server, as PostHog's own ClickHouse can.
 */
import { clickHouseDateTime } from "../../lib/hogql/clickhouse/params.js";
import type { ClickHouseClient } from "./client.js";

/** An event as capture stores it. */
export interface EventRow {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  /** When it happened (after clock-skew correction). */
  timestamp: Date;
  /** The uuid of the person it resolved to at capture, or null. */
  personId: string | null;
}

/**
 * ClickHouse's settings of a capture insert: batched by the server, answered once written; the
 * server flushes a batch after at most 50 ms or 10 MB, whichever comes first (ClickHouse's adaptive
 * wait, `async_insert_use_adaptive_busy_timeout`, shortens it when inserts are few). Capture waits
 * for the flush, so the wait bounds its latency; ClickHouse's own maximum, 200 ms, held a
 * connection sending 100-event batches to 500 events/s.
 */
const CAPTURE_INSERT_SETTINGS = {
  async_insert: 1,
  wait_for_async_insert: 1,
  async_insert_busy_timeout_max_ms: 50,
  async_insert_max_data_size: "10485760",
  date_time_input_format: "best_effort",
} as const;

/**
 * Stores `events` of project `projectId` in ClickHouse, resolving once they are written.
 * @throws the client's ClickHouseError (or a connection error): nothing acknowledged, the caller
 *   answers the request with an error and the SDK sends it again.
 */
export async function insertEvents(
  client: ClickHouseClient,
  projectId: number,
  events: readonly EventRow[],
  now: Date,
): Promise<void> {
  if (events.length === 0) return;
  const written = clickHouseDateTime(now);
  await client.insert({
    table: "events",
    format: "JSONEachRow",
    clickhouse_settings: CAPTURE_INSERT_SETTINGS,
    values: events.map((event) => ({
      uuid: event.uuid,
      event: event.event,
      properties: JSON.stringify(event.properties),
      timestamp: clickHouseDateTime(event.timestamp),
      team_id: projectId,
      distinct_id: event.distinctId,
      elements_chain: "",
      created_at: written,
      person_id: event.personId,
      _timestamp: written,
    })),
  });
}
