/**
 * Events PostHog's ingestion pipeline drops after capture accepted them, so they are never stored
 * (nor recorded in the catalogue): an `$identify`, `$create_alias`, `$merge_dangerously` or
 * `$groupidentify` sent with `$process_person_profile: false` asks for person or group work the
 * same event forbids (nodejs `normalizeEventStep`: ingestion warning
 * `invalid_event_when_process_person_profile_is_false`, `drop('invalid_event_for_flags')`). The
 * request still succeeds, as capture answered before the pipeline ran.
 */
import type { IngestEvent } from "../ingest-event.js";
import { processesPersonProfile } from "./person-identity.js";

const PERSON_OR_GROUP_EVENTS = new Set([
  "$identify",
  "$create_alias",
  "$merge_dangerously",
  "$groupidentify",
]);

/** Whether the pipeline drops `event` instead of storing it (see the module comment). */
export function droppedByPipeline(event: IngestEvent): boolean {
  return PERSON_OR_GROUP_EVENTS.has(event.event) && !processesPersonProfile(event);
}
