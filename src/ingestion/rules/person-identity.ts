/**
 * Who an event's person is before any row exists: whether the event keeps a person profile at all,
 * and the person uuid a distinct id derives. PostHog's rules:
 * - `$process_person_profile: false` makes a personless event (`nodejs/src/utils/event.ts`,
 *   `normalizeProcessPerson`; `event-pipeline/processPersonlessStep.ts`): no person row is created
 *   or updated, no merge happens, and the event is stored with the uuid of the person its distinct id
 *   already has, or else the uuid derived below;
 * - a person's uuid is UUIDv5 of `"<team id>:<distinct id>"` in PostHog's person namespace
 *   (`nodejs/src/worker/ingestion/person-uuid.ts`, `uuidFromDistinctId`), so personless events and the
 *   person later created for the same id agree, and two requests creating it at once collide on it.
 */
import { v5 as uuidv5 } from "uuid";
import type { IngestEvent } from "../ingest-event.js";

/** PostHog's namespace for person uuids (a fixed random UUIDv4 of theirs). */
const PERSON_UUIDV5_NAMESPACE = "932979b4-65c3-4424-8467-0b66ec27bc22";

/** The deterministic person uuid of `distinctId` in project `projectId` (PostHog's team id). */
export function personUuidFor(projectId: number, distinctId: string): string {
  return uuidv5(`${projectId}:${distinctId}`, PERSON_UUIDV5_NAMESPACE);
}

/** False for a personless event: its `properties.$process_person_profile` is exactly `false`. */
export function processesPersonProfile(event: IngestEvent): boolean {
  return event.properties["$process_person_profile"] !== false;
}
