/**
 * The subject of an evaluation read in one statement (src/feature-flags/evaluation/subject.queries.ts),
 * on PGlite and PostgreSQL: person properties by distinct id, static-cohort memberships, requested
 * groups, hash keys of the distinct id's and the anonymous id's persons (the distinct id's winning),
 * and the hash keys written first when asked (first write wins), each in ONE statement.
 */
import { beforeAll, expect, it } from "vitest";
import { measureSql } from "../../src/db/sql-stats.js";
import { readSubject, type SubjectQuery } from "../../src/feature-flags/evaluation/subject.queries.js";
import { insertGroups, insertGroupType } from "../support/groups.js";
import { insertPerson } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("the evaluation subject's statement", (server) => {
  let cohort: number;
  let otherCohort: number;
  let anonymous: bigint;
  let known: bigint;
  beforeAll(async () => {
    const s = server();
    const person = await insertPerson(s.db, s.projectId, {
      distinctIds: ["known", "known-alias"],
      properties: { plan: "pro" },
    });
    known = person.id;
    anonymous = (await insertPerson(s.db, s.projectId, { distinctIds: ["anonymous"] })).id;
    const create = async (name: string, personIds: string[]) => {
      const answer = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: { name, is_static: true, _create_static_person_ids: personIds },
      });
      expect(answer.status, answer.text).toBe(201);
      return answer.body.id as number;
    };
    cohort = await create("members", [person.uuid]);
    otherCohort = await create("others", []);
    await insertGroupType(s.db, s.projectId, 0, "company");
    await insertGroupType(s.db, s.projectId, 1, "team");
    await insertGroups(s.db, s.projectId, [
      { groupTypeIndex: 0, groupKey: "acme", properties: { tier: "enterprise" } },
      { groupTypeIndex: 1, groupKey: "acme", properties: { size: 3 } },
    ]);
  });

  const query = (overrides: Partial<SubjectQuery>): SubjectQuery => ({
    projectId: server().projectId,
    distinctId: "known",
    staticCohortIds: [],
    groups: [],
    hashKeysOf: null,
    write: null,
    ...overrides,
  });
  const read = async (q: SubjectQuery) => {
    const { result, stats } = await measureSql(() => readSubject(server().database.reader, q));
    expect(stats.statements).toBe(1);
    return result;
  };

  it("reads the person, the memberships asked about and the groups asked for, in one statement, naming what it read", async () => {
    const { stored, dependsOn } = await read(
      query({
        distinctId: "known-alias",
        staticCohortIds: [cohort, otherCohort],
        groups: [
          { groupTypeIndex: 0, groupKey: "acme" },
          { groupTypeIndex: 1, groupKey: "nope" },
        ],
      }),
    );
    expect(stored).toEqual({
      personProperties: { plan: "pro" },
      staticCohortIds: [cohort],
      groups: [{ groupTypeIndex: 0, groupKey: "acme", properties: { tier: "enterprise" } }],
      hashKeys: [],
    });
    // What the change feed names when any of it changes (migration change_feed_subjects).
    expect(dependsOn).toEqual(["distinct:known-alias", `person:${known}`, "group:0:acme", "group:1:nope"]);
  });

  it("reads nothing of a distinct id no person has, and depends on that id alone", async () => {
    expect(
      await read(query({ distinctId: "nobody", staticCohortIds: [cohort], hashKeysOf: ["nobody"] })),
    ).toEqual({
      stored: { personProperties: null, staticCohortIds: [], groups: [], hashKeys: [] },
      dependsOn: ["distinct:nobody"],
    });
  });

  it("writes missing hash keys for both persons in the same statement, first write winning, and reads them back", async () => {
    const s = server();
    await s.db.featureFlagHashKeyOverride.create({
      data: { projectId: s.projectId, personId: anonymous, featureFlagKey: "sticky", hashKey: "older" },
    });
    const write = query({
      hashKeysOf: ["known", "anonymous"],
      write: { hashKey: "anonymous", flagKeys: ["sticky", "other"] },
    });
    const { result, stats } = await measureSql(() => s.database.transaction((tx) => readSubject(tx, write)));
    expect(stats.statements).toBeLessThanOrEqual(3); // the statement, with BEGIN and COMMIT on PostgreSQL
    const keys = (list: typeof result.stored.hashKeys) =>
      [...list].sort((a, b) => `${a.flagKey}${a.primary}`.localeCompare(`${b.flagKey}${b.primary}`));
    const expected = [
      { flagKey: "other", hashKey: "anonymous", primary: false },
      { flagKey: "other", hashKey: "anonymous", primary: true },
      { flagKey: "sticky", hashKey: "older", primary: false },
      { flagKey: "sticky", hashKey: "anonymous", primary: true },
    ];
    expect(keys(result.stored.hashKeys)).toEqual(expected);
    expect(new Set(result.dependsOn)).toEqual(
      new Set(["distinct:known", "distinct:anonymous", `person:${known}`, `person:${anonymous}`]),
    );
    const stored = await s.db.featureFlagHashKeyOverride.findMany({ where: { projectId: s.projectId } });
    expect(stored).toHaveLength(4);
    // Written again: nothing changes.
    await s.database.transaction((tx) =>
      readSubject(tx, { ...write, write: { hashKey: "late", flagKeys: ["sticky"] } }),
    );
    const again = await read(query({ hashKeysOf: ["known", "anonymous"] }));
    expect(keys(again.stored.hashKeys)).toEqual(expected);
  });
});
