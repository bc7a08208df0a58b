/**
 * Events and persons for the HogQL tests, in the server's project and in a second project of the
 * same organization (present in every test, so that any leak across projects shows), and a helper
 * that runs a HogQLQuery through the REST door (`POST /api/projects/:id/query/`).
 */

import { randomUUID } from "node:crypto";
import type { ClickHouseClient } from "../../../src/analytics/clickhouse/client.js";
import { Prisma, type PrismaClient } from "../../../src/generated/prisma/client.js";
import { clickHouseDateTime } from "../../../src/lib/hogql/clickhouse/params.js";
import { insertPerson } from "../../support/people.js";
import type { TestResponse, TestServer } from "../../support/server.js";

/** An event to insert. */
export interface EventFixture {
  event: string;
  distinctId: string;
  properties?: Record<string, unknown>;
  /** ISO 8601 instant. */
  timestamp: string;
}

/** Inserts events into `projectId` straight into the table, as capture leaves them. */
export async function insertEvents(
  server: TestServer,
  projectId: number,
  events: readonly EventFixture[],
): Promise<void> {
  for (const e of events) {
    await server.db.$executeRaw(Prisma.sql`INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
      VALUES (${projectId}, ${randomUUID()}::uuid, ${e.event}, ${e.distinctId}, ${JSON.stringify(e.properties ?? {})}::jsonb, ${e.timestamp}::timestamptz)`);
  }
}

/** The data every HogQL test file sees: two projects with overlapping names and distinct ids. */
export interface HogQLFixture {
  project: number;
  other: number;
}

/** Our project: 6 events of 2 persons; the other project: 5 events, same names, same distinct ids. */
export async function seed(server: TestServer): Promise<HogQLFixture> {
  const other = await server.createProject("Other");
  const project = server.projectId;
  await server.db.project.update({ where: { id: project }, data: { timezone: "Europe/Paris" } });
  await insertPerson(server.db, project, {
    distinctIds: ["alice"],
    properties: { email: "alice@example.com", plan: "pro" },
  });
  await insertPerson(server.db, project, {
    distinctIds: ["bob", "bob-2"],
    properties: { email: "bob@example.com" },
  });
  await insertPerson(server.db, other, {
    distinctIds: ["alice"],
    properties: { email: "alice@other.com", plan: "leak" },
  });
  await insertEvents(server, project, [
    {
      event: "$pageview",
      distinctId: "alice",
      properties: { $browser: "Chrome", price: "10", n: 1.5 },
      timestamp: "2026-11-20T10:00:00Z",
    },
    {
      event: "$pageview",
      distinctId: "alice",
      properties: { $browser: "Firefox", price: "9" },
      timestamp: "2026-11-20T23:30:00Z",
    },
    {
      event: "$pageview",
      distinctId: "bob",
      properties: { $browser: null, price: "abc" },
      timestamp: "2026-11-21T08:00:00Z",
    },
    {
      event: "signup",
      distinctId: "bob-2",
      properties: { plan: "free", nested: { a: { b: "deep" } } },
      timestamp: "2026-11-22T12:00:00Z",
    },
    {
      event: "purchase",
      distinctId: "alice",
      properties: { amount: 30, $browser: "Chrome" },
      timestamp: "2026-11-23T00:30:00Z",
    },
    {
      event: "anon",
      distinctId: "ghost",
      properties: { $session_id: "s1" },
      timestamp: "2026-11-24T15:00:00Z",
    },
  ]);
  await insertEvents(server, other, [
    {
      event: "$pageview",
      distinctId: "alice",
      properties: { $browser: "Leak" },
      timestamp: "2026-11-20T10:00:00Z",
    },
    {
      event: "$pageview",
      distinctId: "alice",
      properties: { $browser: "Leak" },
      timestamp: "2026-11-20T11:00:00Z",
    },
    { event: "signup", distinctId: "alice", properties: { plan: "leak" }, timestamp: "2026-11-21T10:00:00Z" },
    {
      event: "purchase",
      distinctId: "mallory",
      properties: { amount: 1000 },
      timestamp: "2026-11-22T10:00:00Z",
    },
    {
      event: "secret",
      distinctId: "mallory",
      properties: { token: "leak" },
      timestamp: "2026-11-23T10:00:00Z",
    },
  ]);
  return { project, other };
}

/** Runs a HogQLQuery (`query` text plus other HogQLQuery fields) in `projectId` through REST. */
export function runHogQL(
  server: TestServer,
  query: string,
  extra: Record<string, unknown> = {},
  projectId: number = server.projectId,
  key?: string,
): Promise<TestResponse> {
  return server.request("POST", `/api/projects/${projectId}/query/`, {
    body: { query: { kind: "HogQLQuery", query, ...extra } },
    ...(key ? { key } : {}),
  });
}

/** A person as both stores keep it: PostgreSQL's `persons` and ClickHouse's `person`. */
export interface StorePerson {
  uuid: string;
  distinctIds: string[];
  properties: Record<string, unknown>;
  isIdentified: boolean;
  /** ISO 8601 instant (milliseconds: ClickHouse's `person.created_at` is DateTime64(3)). */
  createdAt: string;
}

/** An event as both stores keep it. */
export interface StoreEvent extends EventFixture {
  uuid: string;
  /** The person's uuid as stored at capture, or null. */
  personId: string | null;
}

/** ClickHouse's DateTime64 text of an ISO 8601 instant (UTC, as its JSONEachRow input reads it). */
const clickHouseTime = (iso: string): string => clickHouseDateTime(new Date(iso));

/**
 * Inserts persons into ClickHouse's `person` and `person_distinct_id2` for `projectId` (version 1,
 * not deleted), as the PostgreSQL twin `insertPerson` (test/support/people.ts) stores them.
 */
export async function insertClickHousePersons(
  client: ClickHouseClient,
  projectId: number,
  persons: readonly StorePerson[],
  version = 1,
): Promise<void> {
  await client.insert({
    table: "person",
    format: "JSONEachRow",
    values: persons.map((person) => ({
      id: person.uuid,
      created_at: clickHouseTime(person.createdAt),
      team_id: projectId,
      properties: JSON.stringify(person.properties),
      is_identified: person.isIdentified ? 1 : 0,
      is_deleted: 0,
      version,
      _timestamp: clickHouseTime(person.createdAt),
    })),
  });
  await client.insert({
    table: "person_distinct_id2",
    format: "JSONEachRow",
    values: persons.flatMap((person) =>
      person.distinctIds.map((distinctId) => ({
        team_id: projectId,
        distinct_id: distinctId,
        person_id: person.uuid,
        is_deleted: 0,
        version,
        _timestamp: clickHouseTime(person.createdAt),
      })),
    ),
  });
}

/** Inserts events into ClickHouse's `events` for `projectId`, as capture writes them. */
export async function insertClickHouseEvents(
  client: ClickHouseClient,
  projectId: number,
  events: readonly StoreEvent[],
): Promise<void> {
  await client.insert({
    table: "events",
    format: "JSONEachRow",
    values: events.map((e) => ({
      uuid: e.uuid,
      event: e.event,
      properties: JSON.stringify(e.properties ?? {}),
      timestamp: clickHouseTime(e.timestamp),
      team_id: projectId,
      distinct_id: e.distinctId,
      elements_chain: "",
      created_at: clickHouseTime(e.timestamp),
      person_id: e.personId,
      _timestamp: clickHouseTime(e.timestamp),
    })),
  });
}

/** Inserts events with their uuid and person into PostgreSQL's `events` (the twin of `insertClickHouseEvents`). */
export async function insertPostgresEvents(
  db: PrismaClient,
  projectId: number,
  events: readonly StoreEvent[],
): Promise<void> {
  for (const e of events) {
    await db.$executeRaw(Prisma.sql`INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp, created_at)
      VALUES (${projectId}, ${e.uuid}::uuid, ${e.event}, ${e.distinctId}, ${e.personId}::uuid, ${JSON.stringify(e.properties ?? {})}::jsonb, ${e.timestamp}::timestamptz, ${e.timestamp}::timestamptz)`);
  }
}

/**
 * The same persons and events in both stores for `projectId`: PostgreSQL through `insertPerson`
 * and `insertPostgresEvents`, ClickHouse through its twins. Each event's `personId` is its
 * distinct id's person (as capture stores it). Returns the persons as stored.
 */
export async function seedBothStores(
  db: PrismaClient,
  client: ClickHouseClient,
  projectId: number,
  data: {
    persons: ReadonlyArray<Omit<StorePerson, "uuid">>;
    events: readonly EventFixture[];
  },
): Promise<{ persons: StorePerson[]; events: StoreEvent[] }> {
  const persons: StorePerson[] = [];
  for (const person of data.persons) {
    const row = await insertPerson(db, projectId, {
      distinctIds: person.distinctIds,
      properties: person.properties,
      isIdentified: person.isIdentified,
      createdAt: new Date(person.createdAt),
    });
    persons.push({ ...person, uuid: row.uuid });
  }
  const personOf = new Map(persons.flatMap((p) => p.distinctIds.map((d) => [d, p.uuid] as const)));
  const events = data.events.map((e) => ({
    ...e,
    uuid: randomUUID(),
    personId: personOf.get(e.distinctId) ?? null,
  }));
  await insertPostgresEvents(db, projectId, events);
  await insertClickHousePersons(client, projectId, persons);
  await insertClickHouseEvents(client, projectId, events);
  return { persons, events };
}
