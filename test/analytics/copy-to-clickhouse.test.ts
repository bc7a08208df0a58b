/**
 * Moving a PostgreSQL event history into ClickHouse (src/analytics/clickhouse/copy.ts, `signalbox
 * copy-to-clickhouse`): what capture stored in PostgreSQL (events, persons after a merge, distinct
 * ids, groups, a static cohort's members) reads the same in ClickHouse after the copy, page by
 * page; a second copy changes nothing on read; the command refuses to run without CLICKHOUSE_URL.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyToClickHouse } from "../../src/analytics/clickhouse/copy.js";
import { projectToken, sendToSdk } from "../support/capture.js";
import { cli } from "../support/cli.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../support/clickhouse.js";
import { startTestServer, type TestServer } from "../support/server.js";

describe.skipIf(!chdbInstalled)("copying PostgreSQL's event history into ClickHouse", () => {
  let clickhouse: TestClickHouse;
  let server: TestServer;
  let other: number;

  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
    server = await startTestServer("pglite");
    other = await server.createProject("Other");
    const event = (name: string, distinctId: string, properties: Record<string, unknown> = {}) => ({
      event: name,
      distinct_id: distinctId,
      uuid: randomUUID(),
      properties,
      timestamp: "2026-11-29T10:00:00.123456Z",
    });
    for (const [projectId, events] of [
      [
        server.projectId,
        [
          event("$pageview", "a", { $set: { plan: "pro" } }),
          event("$pageview", "b", { $set: { plan: "free" } }),
          event("$merge_dangerously", "a", { alias: "b" }),
          event("$groupidentify", "a", {
            $group_type: "company",
            $group_key: "acme",
            $group_set: { size: 3 },
          }),
          event("signed up", "c"),
        ],
      ],
      [other, [event("$pageview", "a"), event("$pageview", "z")]],
    ] as const) {
      for (const e of events) {
        const sent = await sendToSdk(server, "/batch/", {
          json: { api_key: await projectToken(server, projectId), batch: [e] },
        });
        expect(sent.status, sent.text).toBe(200);
      }
    }
    const cohort = await server.db.cohort.create({
      data: { projectId: server.projectId, name: "Static", isStatic: true },
    });
    const persons = await server.db.person.findMany({ where: { projectId: server.projectId } });
    await server.db.cohortPerson.createMany({
      data: persons.map((p) => ({ projectId: server.projectId, cohortId: cohort.id, personId: p.id })),
    });
  });
  afterAll(async () => {
    await server?.close();
    await clickhouse?.close();
  });

  /** Each table as PostgreSQL has it and as ClickHouse reads it, side by side. */
  async function bothStores() {
    const ch = async (query: string) =>
      (await clickhouse.client.query({ query, format: "JSONEachRow" })).json<Record<string, unknown>>();
    const pg = <R>(query: TemplateStringsArray) => server.db.$queryRaw<R[]>(query);
    return {
      postgres: {
        events: await pg`SELECT project_id AS team_id, uuid::text AS uuid, event, distinct_id,
          to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS timestamp
          FROM events ORDER BY project_id, uuid`,
        persons: await pg`SELECT project_id AS team_id, uuid::text AS id, properties::text AS properties,
          version::int AS version FROM persons ORDER BY project_id, uuid`,
        distinctIds: await pg`SELECT d.project_id AS team_id, d.distinct_id, p.uuid::text AS person_id
          FROM person_distinct_ids d JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
          ORDER BY d.project_id, d.distinct_id`,
        groups: await pg`SELECT project_id AS team_id, group_key, group_properties::text AS properties
          FROM groups ORDER BY project_id, group_key`,
        members: await pg`SELECT m.cohort_id, p.uuid::text AS person_id FROM cohort_people m
          JOIN persons p ON p.project_id = m.project_id AND p.id = m.person_id ORDER BY p.uuid::text`,
      },
      clickhouse: {
        events: await ch(`SELECT e.team_id AS team_id, toString(e.uuid) AS uuid, e.event AS event,
          e.distinct_id AS distinct_id, e.timestamp AS timestamp FROM events AS e FINAL ORDER BY team_id, uuid`),
        persons: await ch(`SELECT p.team_id AS team_id, toString(p.id) AS id,
          argMax(p.properties, p.version) AS properties, toInt32(max(p.version)) AS version
          FROM person AS p GROUP BY p.team_id, p.id HAVING argMax(p.is_deleted, p.version) = 0 ORDER BY team_id, id`),
        distinctIds: await ch(`SELECT d.team_id AS team_id, d.distinct_id AS distinct_id,
          toString(argMax(d.person_id, d.version)) AS person_id FROM person_distinct_id2 AS d
          GROUP BY d.team_id, d.distinct_id ORDER BY team_id, distinct_id`),
        groups:
          await ch(`SELECT g.team_id AS team_id, g.group_key AS group_key, g.group_properties AS properties
          FROM groups AS g FINAL ORDER BY team_id, group_key`),
        members: await ch(`SELECT toInt32(s.cohort_id) AS cohort_id, toString(s.person_id) AS person_id
          FROM person_static_cohort AS s FINAL ORDER BY person_id`),
      },
    };
  }

  /** JSON text as an object, so PostgreSQL's jsonb text and ClickHouse's compact text compare. */
  const parsed = (rows: Array<Record<string, unknown>>) =>
    rows.map((row) => ({ ...row, properties: JSON.parse(row["properties"] as string) }));

  it("copies every project's tables page by page, so that ClickHouse reads what PostgreSQL has", async () => {
    const pages: string[] = [];
    const copied = await copyToClickHouse(server.database.reader, clickhouse.client, {
      pageRows: 2,
      onPage: (table, rows) => pages.push(`${table}:${rows}`),
    });
    const { postgres, clickhouse: copy } = await bothStores();
    expect(copied).toEqual({
      events: postgres.events.length,
      persons: postgres.persons.length,
      distinctIds: postgres.distinctIds.length,
      groups: postgres.groups.length,
      staticCohortMembers: postgres.members.length,
    });
    expect(pages).toContain("events:2");
    expect(copy.events).toEqual(postgres.events);
    expect(parsed(copy.persons)).toEqual(parsed(postgres.persons as Array<Record<string, unknown>>));
    expect(copy.distinctIds).toEqual(postgres.distinctIds);
    expect(parsed(copy.groups)).toEqual(parsed(postgres.groups as Array<Record<string, unknown>>));
    expect(copy.members).toEqual(postgres.members);
    // The merge left one person holding both ids; the other project kept its own.
    expect(postgres.persons.length).toBe(4);
    expect(postgres.events.length).toBe(7);
  });

  it("changes nothing on read when run again", async () => {
    const before = await bothStores();
    await copyToClickHouse(server.database.reader, clickhouse.client);
    expect((await bothStores()).clickhouse).toEqual(before.clickhouse);
  });

  it("signalbox copy-to-clickhouse needs CLICKHOUSE_URL, and copies an empty database to nothing", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-copy-"));
    try {
      const refused = await cli(["copy-to-clickhouse"], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("copy-to-clickhouse needs CLICKHOUSE_URL");
      await clickhouse.client.command({ query: "CREATE DATABASE IF NOT EXISTS empty_copy" });
      const url = clickhouse.url.replace(/\/signalbox$/, "/empty_copy");
      const run = await cli(["copy-to-clickhouse"], { DATA_DIR: dataDir, CLICKHOUSE_URL: url });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).copied).toEqual({
        events: 0,
        persons: 0,
        distinctIds: 0,
        groups: 0,
        staticCohortMembers: 0,
      });
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
