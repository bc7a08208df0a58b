/**
 * Events and persons for the HogQL tests, in the server's project and in a second project of the
 * same organization (present in every test, so that any leak across projects shows), and a helper
 * that runs a HogQLQuery through the REST door (`POST /api/projects/:id/query/`).
 */
import { randomUUID } from "node:crypto";
import { Prisma } from "../../../src/generated/prisma/client.js";
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
