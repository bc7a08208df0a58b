/**
 * Events for tests of the ingestion stages (person and group state), built as capture would hand
 * them over, and a helper that applies a batch inside one transaction of the real database.
 */
import { randomUUID } from "node:crypto";
import { applyGroupState } from "../../src/ingestion/group-state.js";
import type { IngestEvent } from "../../src/ingestion/ingest-event.js";
import { applyPersonState } from "../../src/ingestion/person-state.js";
import type { TestServer } from "./server.js";

/** An event of `distinctId` named `event` (default `$pageview`), with `properties` and `extra` fields. */
export function ingestEvent(
  distinctId: string,
  properties: Record<string, unknown> = {},
  extra: Partial<IngestEvent> = {},
): IngestEvent {
  return {
    uuid: randomUUID(),
    event: "$pageview",
    distinctId,
    properties,
    topLevel: {},
    timestamp: new Date("2026-11-20T10:00:00.000Z"),
    ...extra,
  };
}

/** Applies person then group state for `events` in one transaction, as capture does; returns the person uuids. */
export async function applyBatch(
  server: TestServer,
  events: readonly IngestEvent[],
  projectId: number = server.projectId,
): Promise<string[]> {
  return server.database.transaction(async (tx) => {
    const uuids = await applyPersonState(tx, projectId, events);
    await applyGroupState(tx, projectId, events);
    return uuids;
  });
}
