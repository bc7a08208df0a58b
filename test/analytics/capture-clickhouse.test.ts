/**
 * Capture through the real HTTP server into the ClickHouse analytics store (issue 30 §3), on both
 * PostgreSQL backends for persons: events land in ClickHouse (none in PostgreSQL's table), each
 * person write is mirrored (`person` at PostgreSQL's version, `person_distinct_id2` as each id
 * joined or moved, a merged person deleted), a resent batch counts once on read, and a ClickHouse
 * that does not answer fails the request with nothing written in PostgreSQL either.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openClickHouse } from "../../src/analytics/clickhouse/client.js";
import { projectToken, sendToSdk } from "../support/capture.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../support/clickhouse.js";
import { availableBackends, startTestServer, type TestServer } from "../support/server.js";

for (const backend of availableBackends()) {
  describe.skipIf(!chdbInstalled)(`capture into ClickHouse [${backend}]`, () => {
    let clickhouse: TestClickHouse;
    let server: TestServer;
    let token: string;
    beforeAll(async () => {
      clickhouse = await openTestClickHouse();
      server = await startTestServer(backend, { clickhouse: clickhouse.client });
      token = await projectToken(server);
    });
    afterAll(async () => {
      await server?.close();
      await clickhouse?.close();
    });

    const batch = (events: Array<Record<string, unknown>>) =>
      sendToSdk(server, "/batch/", { json: { api_key: token, batch: events } });

    /** ClickHouse's rows of a query of this project, as JSON objects. */
    async function rows(query: string): Promise<Array<Record<string, unknown>>> {
      const result = await clickhouse.client.query({
        query,
        query_params: { project: server.projectId },
        format: "JSONEachRow",
      });
      return result.json();
    }

    /** Each live person as ClickHouse reads it now (latest version, not deleted), by uuid. */
    const clickhousePersons = () =>
      rows(`SELECT toString(p.id) AS uuid, argMax(p.properties, p.version) AS properties,
          argMax(p.is_identified, p.version) AS is_identified, max(p.version) AS latest
        FROM person AS p WHERE p.team_id = {project:Int64}
        GROUP BY p.id HAVING argMax(p.is_deleted, p.version) = 0 ORDER BY uuid`).then((persons) =>
        persons.map(({ latest, properties, ...person }) => ({
          ...person,
          properties: JSON.parse(properties as string),
          version: latest,
        })),
      );

    /** Each distinct id's current person as ClickHouse reads it. */
    const clickhouseDistinctIds = () =>
      rows(`SELECT d.distinct_id AS distinct_id, toString(argMax(d.person_id, d.version)) AS person_uuid
        FROM person_distinct_id2 AS d WHERE d.team_id = {project:Int64}
        GROUP BY d.distinct_id HAVING argMax(d.is_deleted, d.version) = 0 ORDER BY distinct_id`);

    /** The same, as PostgreSQL has them (the source of truth). */
    async function postgresState() {
      const persons = await server.db.$queryRaw<
        Array<{ uuid: string; properties: unknown; is_identified: boolean; version: bigint }>
      >`
        SELECT uuid::text AS uuid, properties, is_identified, version FROM persons
        WHERE project_id = ${server.projectId} ORDER BY uuid::text`;
      const distinctIds = await server.db.$queryRaw<Array<{ distinct_id: string; person_uuid: string }>>`
        SELECT d.distinct_id, p.uuid::text AS person_uuid FROM person_distinct_ids d
        JOIN persons p ON p.project_id = d.project_id AND p.id = d.person_id
        WHERE d.project_id = ${server.projectId} ORDER BY d.distinct_id`;
      return {
        persons: persons.map((p) => ({
          uuid: p.uuid,
          properties: p.properties,
          is_identified: p.is_identified ? 1 : 0,
          version: Number(p.version),
        })),
        distinctIds,
      };
    }

    const event = (name: string, distinctId: string, properties: Record<string, unknown> = {}) => ({
      event: name,
      distinct_id: distinctId,
      uuid: randomUUID(),
      properties,
      timestamp: "2026-11-29T10:00:00.000Z",
    });

    it("stores events in ClickHouse only, and mirrors persons created, updated, identified and merged", async () => {
      const sent = [
        event("$pageview", "anon-1", { $set: { plan: "free" } }),
        event("$pageview", "user-1", { $set: { email: "a@example.com" } }),
        event("$identify", "user-1", { $anon_distinct_id: "anon-1", $set: { plan: "pro" } }),
        event("$pageview", "user-2", { $set_once: { first: 1 } }),
        event("$create_alias", "user-2", { alias: "user-2-alias" }),
      ];
      const response = await batch(sent);
      expect(response.status, response.text).toBe(200);

      const stored = await rows(`SELECT toString(uuid) AS uuid, event, distinct_id FROM events FINAL
        WHERE team_id = {project:Int64} ORDER BY uuid`);
      expect(stored).toEqual(
        sent
          .map((e) => ({ uuid: e.uuid, event: e.event, distinct_id: e.distinct_id }))
          .sort((a, b) => a.uuid.localeCompare(b.uuid)),
      );
      expect(await server.db.event.count({ where: { projectId: server.projectId } })).toBe(0);

      const postgres = await postgresState();
      expect(await clickhousePersons()).toEqual(postgres.persons);
      expect(await clickhouseDistinctIds()).toEqual(postgres.distinctIds);
      // Two persons: anon-1 and user-1 became one, user-2 has an alias.
      expect(postgres.persons).toHaveLength(2);
      expect(postgres.distinctIds.map((d) => d.distinct_id)).toEqual([
        "anon-1",
        "user-1",
        "user-2",
        "user-2-alias",
      ]);
    });

    it("mirrors a merge of two stored persons: the ids move, the merged person is deleted", async () => {
      expect((await batch([event("$pageview", "m-a"), event("$pageview", "m-b")])).status).toBe(200);
      const merged = await batch([event("$merge_dangerously", "m-a", { alias: "m-b" })]);
      expect(merged.status, merged.text).toBe(200);
      const postgres = await postgresState();
      expect(await clickhousePersons()).toEqual(postgres.persons);
      expect(await clickhouseDistinctIds()).toEqual(postgres.distinctIds);
      const ma = postgres.distinctIds.find((d) => d.distinct_id === "m-a")!;
      expect(postgres.distinctIds.find((d) => d.distinct_id === "m-b")!.person_uuid).toBe(ma.person_uuid);
      const deleted = await rows(
        `SELECT count() AS n FROM person FINAL WHERE team_id = {project:Int64} AND is_deleted = 1`,
      );
      expect(deleted).toEqual([{ n: 1 }]);
    });

    it("mirrors groups as PostgreSQL writes them, at its version", async () => {
      const identify = (properties: Record<string, unknown>) =>
        event("$groupidentify", "user-1", {
          $group_type: "company",
          $group_key: "acme",
          $group_set: properties,
        });
      expect((await batch([identify({ name: "Acme", size: 10 })])).status).toBe(200);
      expect((await batch([identify({ size: 12 })])).status).toBe(200);
      const postgres = await server.db.$queryRaw<Array<{ group_properties: unknown; version: bigint }>>`
        SELECT group_properties, version FROM groups WHERE project_id = ${server.projectId} AND group_key = 'acme'`;
      const mirrored = await rows(`SELECT g.group_properties AS properties, g.version AS version
        FROM groups AS g FINAL WHERE g.team_id = {project:Int64} AND g.group_key = 'acme'`);
      expect(
        mirrored.map((g) => ({
          group_properties: JSON.parse(g["properties"] as string),
          version: g["version"],
        })),
      ).toEqual(postgres.map((g) => ({ ...g, version: Number(g.version) })));
      expect(postgres[0]!.group_properties).toEqual({ name: "Acme", size: 12 });
    });

    it("counts a resent batch once on read, through the steady path", async () => {
      const sent = [event("resent", "user-1"), event("resent", "user-2")];
      expect((await batch(sent)).status).toBe(200);
      expect((await batch(sent)).status).toBe(200);
      expect(
        await rows(
          `SELECT count() AS n FROM events FINAL WHERE team_id = {project:Int64} AND event = 'resent'`,
        ),
      ).toEqual([{ n: 2 }]);
    });

    it("fails the request, writing nothing in PostgreSQL, when ClickHouse does not answer", async () => {
      const unreachable = openClickHouse("http://127.0.0.1:9/signalbox");
      const down = await startTestServer(backend, { clickhouse: unreachable });
      try {
        const downToken = await projectToken(down);
        const send = (events: Array<Record<string, unknown>>) =>
          sendToSdk(down, "/batch/", { json: { api_key: downToken, batch: events } });
        // A new person (the transaction) and, once one exists, the steady path.
        const created = await send([event("$pageview", "new-person", { $set: { a: 1 } })]);
        expect(created.status).toBeGreaterThanOrEqual(500);
        expect(await down.db.person.count({ where: { projectId: down.projectId } })).toBe(0);
        expect(await down.db.event.count({ where: { projectId: down.projectId } })).toBe(0);
      } finally {
        await down.close();
        await unreachable.close();
      }
    });
  });
}
