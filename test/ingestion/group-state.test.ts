/**
 * Group state against the real database (PGlite and PostgreSQL): `applyGroupState` inside a
 * transaction of the test server's client, as capture calls it. Each test uses a project of its own,
 * since group types are per project and at most five.
 */
import { describe, expect, it } from "vitest";
import { measureSql } from "../../src/db/sql-stats.js";
import { applyGroupState } from "../../src/ingestion/group-state.js";
import type { IngestEvent } from "../../src/ingestion/ingest-event.js";
import { ingestEvent } from "../support/ingest.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

let projects = 0;
async function freshProject(s: TestServer): Promise<number> {
  projects += 1;
  return s.createProject(`groups ${projects}`);
}

async function apply(s: TestServer, projectId: number, events: IngestEvent[]): Promise<number> {
  return s.database.transaction(async (tx) => {
    const { stats } = await measureSql(() => applyGroupState(tx, projectId, events));
    return stats.statements;
  });
}

async function mapping(s: TestServer, projectId: number): Promise<Record<string, number>> {
  const rows = await s.db.groupTypeMapping.findMany({ where: { projectId } });
  return Object.fromEntries(rows.map((r) => [r.groupType, r.groupTypeIndex]));
}

function groupIdentify(
  type: string,
  key: unknown,
  set?: Record<string, unknown>,
  iso = "2026-11-20T10:00:00Z",
) {
  return ingestEvent(
    "user",
    { $group_type: type, $group_key: key, ...(set ? { $group_set: set } : {}) },
    { event: "$groupidentify", timestamp: new Date(iso) },
  );
}

describeEachBackend("group state", (server, backend) => {
  describe("group types", () => {
    it("gives types the next free index in the order events name them, and ignores a sixth", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [
        ingestEvent("u", { $groups: { company: "acme", team: "t1" } }),
        groupIdentify("project", "p1", { name: "P" }),
      ]);
      expect(await mapping(s, projectId)).toEqual({ company: 0, team: 1, project: 2 });
      await apply(s, projectId, [
        ingestEvent("u", { $groups: { company: "acme", org: "o", region: "eu", sixth: "x" } }),
        groupIdentify("seventh", "k", { a: 1 }),
      ]);
      expect(await mapping(s, projectId)).toEqual({ company: 0, team: 1, project: 2, org: 3, region: 4 });
      expect(await s.db.group.count({ where: { projectId, groupKey: "k" } })).toBe(0);
    });

    it("costs one statement when every type is known and nothing is identified", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [ingestEvent("u", { $groups: { company: "acme" } })]);
      expect(await apply(s, projectId, [ingestEvent("u", { $groups: { company: "other" } })])).toBe(1);
      expect(await apply(s, projectId, [ingestEvent("u", { $current_url: "x" })])).toBe(0);
    });

    it("takes no type from personless events or non-object $groups", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [
        ingestEvent("u", { $groups: { company: "acme" }, $process_person_profile: false }),
        ingestEvent("u", { $groups: ["company"] }),
      ]);
      expect(await mapping(s, projectId)).toEqual({});
    });
  });

  describe("$groupidentify", () => {
    it("creates the group, then updates changed properties and bumps its version", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [
        groupIdentify("company", "acme", { name: "Acme", size: 10 }, "2026-11-20T10:00:00Z"),
      ]);
      const where = { projectId_groupTypeIndex_groupKey: { projectId, groupTypeIndex: 0, groupKey: "acme" } };
      expect(await s.db.group.findUnique({ where })).toMatchObject({
        groupProperties: { name: "Acme", size: 10 },
        version: 1n,
        createdAt: new Date("2026-11-20T10:00:00Z"),
      });
      await apply(s, projectId, [
        groupIdentify("company", "acme", { size: 11, plan: "pro" }, "2026-11-19T10:00:00Z"),
        groupIdentify("company", "acme", { size: 12 }, "2026-11-21T10:00:00Z"),
      ]);
      expect(await s.db.group.findUnique({ where })).toMatchObject({
        groupProperties: { name: "Acme", size: 12, plan: "pro" },
        version: 2n,
        createdAt: new Date("2026-11-19T10:00:00Z"),
      });
    });

    it("writes nothing when the properties are unchanged", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [groupIdentify("company", 42, { tags: ["a"] })]);
      // read the mapping, load the group; no write
      expect(await apply(s, projectId, [groupIdentify("company", 42, { tags: ["a"] })])).toBe(2);
      const group = await s.db.group.findFirstOrThrow({ where: { projectId } });
      expect(group).toMatchObject({ groupKey: "42", version: 1n });
    });

    it("ignores an identify without a type or key, and creates a group without $group_set", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [groupIdentify("company", "", { a: 1 }), groupIdentify("company", "bare")]);
      const groups = await s.db.group.findMany({ where: { projectId } });
      expect(groups.map((g) => [g.groupKey, g.groupProperties])).toEqual([["bare", {}]]);
    });
  });

  describe.skipIf(backend !== "postgres")("concurrency", () => {
    it("requests adding types at once never give two types one index", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await Promise.all(
        [
          ["a", "b", "c"],
          ["c", "d", "a"],
          ["e", "b", "f"],
        ].map((names) =>
          apply(s, projectId, [
            ingestEvent("u", { $groups: Object.fromEntries(names.map((n) => [n, "k"])) }),
          ]),
        ),
      );
      const types = await mapping(s, projectId);
      expect(Object.keys(types)).toHaveLength(5);
      expect(new Set(Object.values(types))).toEqual(new Set([0, 1, 2, 3, 4]));
    });

    it("requests creating one group at once keep both requests' properties", async () => {
      const s = server();
      const projectId = await freshProject(s);
      await apply(s, projectId, [ingestEvent("u", { $groups: { company: "x" } })]);
      await Promise.all([
        apply(s, projectId, [groupIdentify("company", "same", { a: 1 })]),
        apply(s, projectId, [groupIdentify("company", "same", { b: 2 })]),
      ]);
      const group = await s.db.group.findFirstOrThrow({ where: { projectId, groupKey: "same" } });
      expect(group.groupProperties).toEqual({ a: 1, b: 2 });
    });
  });
});
