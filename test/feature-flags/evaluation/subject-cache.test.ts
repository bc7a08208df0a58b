/**
 * The subject cache (src/feature-flags/evaluation/subject-cache.ts) through the real server, on
 * PGlite and PostgreSQL: a known person's `/flags` costs no statement once warm, yet every write to
 * what the subject was read from (a person's properties, a distinct id moved, a static cohort
 * membership, a group, a person deleted, a table truncated) is seen by the very next request; a read
 * overtaken by a change is not kept; on PostgreSQL another process's write reaches it within a second.
 */
import { beforeAll, expect, it } from "vitest";
import { CHANGE_CHANNEL } from "../../../src/db/change-feed.js";
import { openDatabase } from "../../../src/db/database.js";
import type { SubjectQuery } from "../../../src/feature-flags/evaluation/subject.queries.js";
import { SubjectCache } from "../../../src/feature-flags/evaluation/subject-cache.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { projectToken } from "../../support/capture.js";
import { eventually } from "../../support/eventually.js";
import { createFlag } from "../../support/flags.js";
import { insertGroups, insertGroupType } from "../../support/groups.js";
import { insertPerson } from "../../support/people.js";
import { describeEachBackend, statementsOf, type TestServer } from "../../support/server.js";

/** A condition on a stored person property. */
const personCondition = (key: string, value: string) => ({
  groups: [
    { properties: [{ key, value: [value], operator: "exact", type: "person" }], rollout_percentage: 100 },
  ],
});

describeEachBackend("the subject cache", (server, backend) => {
  let token: string;
  let cohortId: number;

  beforeAll(async () => {
    const s = server();
    token = await projectToken(s);
    await insertGroupType(s.db, s.projectId, 0, "company");
    await insertGroups(s.db, s.projectId, [
      { groupTypeIndex: 0, groupKey: "acme", properties: { tier: "enterprise" } },
    ]);
    const cohort = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
      body: { name: "cache members", is_static: true },
    });
    expect(cohort.status, cohort.text).toBe(201);
    cohortId = cohort.body.id;
    await createFlag(s, { key: "cache-pro", filters: personCondition("plan", "pro") });
    await createFlag(s, {
      key: "cache-member",
      filters: {
        groups: [{ properties: [{ key: "id", value: cohortId, type: "cohort" }], rollout_percentage: 100 }],
      },
    });
    await createFlag(s, {
      key: "cache-enterprise",
      filters: {
        aggregation_group_type_index: 0,
        groups: [
          {
            properties: [
              { key: "tier", value: ["enterprise"], operator: "exact", type: "group", group_type_index: 0 },
            ],
            rollout_percentage: 100,
          },
        ],
      },
    });
  });

  /** `/flags` for `distinctId` (in company `acme`): each flag's answer, and the statements it cost. */
  async function flagsFor(s: TestServer, distinctId: string) {
    const answer = await s.request("POST", "/flags/?v=2", {
      key: null,
      body: { token, distinct_id: distinctId, groups: { company: "acme" } },
    });
    expect(answer.status, answer.text).toBe(200);
    const enabled = (key: string) => answer.body.flags[key]?.enabled as boolean;
    return {
      pro: enabled("cache-pro"),
      member: enabled("cache-member"),
      enterprise: enabled("cache-enterprise"),
      statements: statementsOf(answer),
    };
  }

  it("answers a known person without a statement once warm", async () => {
    const s = server();
    await insertPerson(s.db, s.projectId, { distinctIds: ["warm-user"], properties: { plan: "pro" } });
    expect((await flagsFor(s, "warm-user")).statements).toBeGreaterThan(0);
    const warm = await flagsFor(s, "warm-user");
    expect(warm).toEqual({ pro: true, member: false, enterprise: true, statements: 0 });
  });

  it("sees each write to what the subject was read from on the very next request", async () => {
    const s = server();
    // No person yet: the answer is kept, and the person's creation voids it.
    expect((await flagsFor(s, "late-user")).pro).toBe(false);
    expect((await flagsFor(s, "late-user")).statements).toBe(0);
    const person = await insertPerson(s.db, s.projectId, {
      distinctIds: ["late-user"],
      properties: { plan: "pro" },
    });
    expect((await flagsFor(s, "late-user")).pro).toBe(true);

    // The person's properties.
    await s.db.person.update({
      where: { projectId_id: { projectId: s.projectId, id: person.id } },
      data: { properties: { plan: "free" } },
    });
    expect((await flagsFor(s, "late-user")).pro).toBe(false);

    // A static cohort membership.
    await s.db.cohortPerson.create({ data: { projectId: s.projectId, cohortId, personId: person.id } });
    expect((await flagsFor(s, "late-user")).member).toBe(true);

    // A group's properties.
    await s.db.group.update({
      where: {
        projectId_groupTypeIndex_groupKey: { projectId: s.projectId, groupTypeIndex: 0, groupKey: "acme" },
      },
      data: { groupProperties: { tier: "free" } },
    });
    expect((await flagsFor(s, "late-user")).enterprise).toBe(false);

    // The distinct id moved to another person (a merge).
    const other = await insertPerson(s.db, s.projectId, {
      distinctIds: ["other-user"],
      properties: { plan: "pro" },
    });
    expect((await flagsFor(s, "late-user")).pro).toBe(false);
    await s.db.personDistinctId.update({
      where: { projectId_distinctId: { projectId: s.projectId, distinctId: "late-user" } },
      data: { personId: other.id },
    });
    expect(await flagsFor(s, "late-user")).toMatchObject({ pro: true, member: false });

    // The person deleted.
    await s.db.person.delete({ where: { projectId_id: { projectId: s.projectId, id: other.id } } });
    expect((await flagsFor(s, "late-user")).pro).toBe(false);
  });

  it("does not keep a read that a change of what it read overtook", async () => {
    const s = server();
    const cache = new SubjectCache(s.database.changes);
    const query: SubjectQuery = {
      projectId: s.projectId,
      distinctId: "raced",
      staticCohortIds: [],
      groups: [],
      hashKeysOf: null,
      write: null,
    };
    let loads = 0;
    const load = async () => {
      loads++;
      // A write of the read's distinct id commits while the read is under way.
      await s.database.autocommit.rows(
        Prisma.sql`SELECT pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify({
          kind: "subject",
          transaction: `race-${loads}`,
          project: s.projectId,
          distinct: "raced",
        })})`,
      );
      return {
        stored: { personProperties: null, staticCohortIds: [], groups: [], hashKeys: [] },
        dependsOn: ["distinct:raced"],
      };
    };
    await cache.read(query, load);
    await cache.read(query, load);
    expect(loads).toBe(2);
    // A read nothing overtook is kept.
    const quiet = async () => {
      loads++;
      return {
        stored: { personProperties: { a: 1 }, staticCohortIds: [], groups: [], hashKeys: [] },
        dependsOn: ["distinct:raced"],
      };
    };
    await cache.read(query, quiet);
    expect(await cache.read(query, quiet)).toEqual({
      personProperties: { a: 1 },
      staticCohortIds: [],
      groups: [],
      hashKeys: [],
    });
    expect(loads).toBe(3);
  });

  if (backend === "postgres") {
    it("hears another process's write within a second", async () => {
      const s = server();
      await insertPerson(s.db, s.projectId, { distinctIds: ["far-user"], properties: { plan: "free" } });
      expect((await flagsFor(s, "far-user")).pro).toBe(false);
      const other = await openDatabase({ kind: "postgres", url: s.databaseUrl! });
      try {
        await other.prisma.person.updateMany({
          where: { projectId: s.projectId, distinctIds: { some: { distinctId: "far-user" } } },
          data: { properties: { plan: "pro" } },
        });
      } finally {
        await other.close();
      }
      expect(await eventually(async () => (await flagsFor(s, "far-user")).pro)).toBe(true);
    });
  }

  // Last: it empties the persons of the file's project.
  it("forgets everything when a table it reads is truncated", async () => {
    const s = server();
    await insertPerson(s.db, s.projectId, { distinctIds: ["truncated-user"], properties: { plan: "pro" } });
    expect((await flagsFor(s, "truncated-user")).pro).toBe(true);
    expect((await flagsFor(s, "truncated-user")).statements).toBe(0);
    await s.db.$executeRawUnsafe("TRUNCATE persons CASCADE");
    expect((await flagsFor(s, "truncated-user")).pro).toBe(false);
  });
});
