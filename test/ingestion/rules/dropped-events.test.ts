/** Which events the pipeline drops (nodejs `normalizeEventStep`, `invalid_event_when_process_person_profile_is_false`). */
import { describe, expect, it } from "vitest";
import type { IngestEvent } from "../../../src/ingestion/ingest-event.js";
import { droppedByPipeline } from "../../../src/ingestion/rules/dropped-events.js";

const event = (name: string, properties: Record<string, unknown>): IngestEvent => ({
  uuid: "0190b2d4-4c4e-7c4e-8d7e-000000000001",
  event: name,
  distinctId: "u",
  properties,
  topLevel: {},
  timestamp: new Date("2026-11-23T12:00:00Z"),
});

describe("droppedByPipeline", () => {
  it("drops person and group events sent with $process_person_profile: false", () => {
    for (const name of ["$identify", "$create_alias", "$merge_dangerously", "$groupidentify"]) {
      expect(droppedByPipeline(event(name, { $process_person_profile: false })), name).toBe(true);
      expect(droppedByPipeline(event(name, {})), name).toBe(false);
      expect(droppedByPipeline(event(name, { $process_person_profile: "false" })), name).toBe(false);
    }
  });

  it("keeps other personless events", () => {
    expect(droppedByPipeline(event("$pageview", { $process_person_profile: false }))).toBe(false);
  });
});
