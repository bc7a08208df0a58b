/**
 * PostHog's Trends fixture (`test_trends_query_runner.py` `_create_test_events`, query-and-experiments.md
 * 1d) sent through capture (`/batch/`) to a project, and a runner bound to a test server.
 */
import { expect } from "vitest";
import type { SqlReader } from "../../../src/db/sql-reader.js";
import { runTrendsQuery, type TrendsQueryResponse } from "../../../src/queries/trends/run-trends.js";
import type { TrendsStore } from "../../../src/queries/trends/store.js";
import { projectToken, sendToSdk } from "../../support/capture.js";
import type { TestServer } from "../../support/server.js";

/** One person of the fixture: its event properties and its events (name → timestamps). */
interface FixturePerson {
  distinctId: string;
  properties: Record<string, unknown>;
  events: Record<string, string[]>;
}

/** PostHog's four persons, their properties and their `$pageview`/`$pageleave` events (all 12:00Z). */
export const FIXTURE: FixturePerson[] = [
  {
    distinctId: "p1",
    properties: { $browser: "Chrome", prop: 10, bool_field: true },
    events: {
      $pageview: ["2020-01-11", "2020-01-12", "2020-01-13", "2020-01-15", "2020-01-17", "2020-01-19"],
      $pageleave: ["2020-01-11", "2020-01-12", "2020-01-13"],
    },
  },
  {
    distinctId: "p2",
    properties: { $browser: "Firefox", prop: 20, bool_field: false },
    events: { $pageview: ["2020-01-09", "2020-01-12"], $pageleave: ["2020-01-13"] },
  },
  {
    distinctId: "p3",
    properties: { $browser: "Edge", prop: 30, bool_field: true },
    events: { $pageview: ["2020-01-12"], $pageleave: ["2020-01-13"] },
  },
  {
    distinctId: "p4",
    properties: { $browser: "Safari", prop: 40, bool_field: false },
    events: { $pageview: ["2020-01-15"], $pageleave: ["2020-01-16"] },
  },
];

/** A raw capture event. */
export interface CaptureEvent {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

/** Sends `events` to `projectId` through `/batch/` and expects them stored. */
export async function capture(s: TestServer, projectId: number, events: CaptureEvent[]): Promise<void> {
  const token = await projectToken(s, projectId);
  const answer = await sendToSdk(s, "/batch/", { json: { api_key: token, batch: events } });
  expect(answer.status, answer.text).toBe(200);
}

/** Sends PostHog's fixture to `projectId`: persons get `name` (and p1 an `email`) through `$set`. */
export async function sendFixture(s: TestServer, projectId: number): Promise<void> {
  const events: CaptureEvent[] = [];
  for (const person of FIXTURE) {
    const $set = {
      name: person.distinctId,
      ...(person.distinctId === "p1" ? { email: "test@posthog.com" } : {}),
    };
    for (const [event, days] of Object.entries(person.events)) {
      for (const day of days) {
        events.push({
          event,
          distinct_id: person.distinctId,
          timestamp: `${day}T12:00:00Z`,
          properties: { ...person.properties, $set },
        });
      }
    }
  }
  await capture(s, projectId, events);
}

/** A reader that counts the statements it runs (the engine's own reader, decorated). */
export function countingReader(reader: SqlReader): { reader: SqlReader; count: () => number } {
  let statements = 0;
  return {
    reader: {
      rows: (query) => {
        statements += 1;
        return reader.rows(query);
      },
    },
    count: () => statements,
  };
}

/** Options of `runOn`. */
export interface RunOptions {
  projectId?: number;
  timezone?: string;
  now?: Date;
  reader?: SqlReader;
  /** The analytics store (default PostgreSQL's, through `reader`). */
  store?: TrendsStore;
}

/** Runs a Trends query on `s` for a project (default the server's, UTC). */
export function runOn(
  s: TestServer,
  query: Record<string, unknown>,
  options: RunOptions = {},
): Promise<TrendsQueryResponse> {
  return runTrendsQuery(
    {
      reader: options.reader ?? s.database.reader,
      db: s.db,
      formulas: s.services.queryWorkers,
      ...(options.store ? { store: options.store } : {}),
    },
    { id: options.projectId ?? s.projectId, timezone: options.timezone ?? "UTC" },
    { kind: "TrendsQuery", ...query },
    { now: options.now ?? new Date("2020-01-20T10:00:00Z") },
  );
}

/** A `$pageview` (or another event) series. */
export const pageviews = (extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event: "$pageview",
  ...extra,
});
/** A `$pageleave` series. */
export const pageleaves = (extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event: "$pageleave",
  ...extra,
});
