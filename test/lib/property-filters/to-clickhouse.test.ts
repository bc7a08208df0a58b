/**
 * ClickHouse's translation of property filters (src/lib/property-filters/to-clickhouse.ts) run by
 * the real engine (chdb) over the fixtures of `./filter-cases.ts`, written as capture would leave
 * them in ClickHouse's analytics tables: persons in `person`, distinct ids in `person_distinct_id2`
 * (with a moved id's older row and a deleted mapping), static cohort members in
 * `person_static_cohort`, events in `events` (one of them twice). Each case must select the same
 * persons as on PostgreSQL (`./to-sql.test.ts`), or the ClickHouse answer its case documents.
 * Another project's rows (a person, static cohort members, events and distinct ids under the same
 * names and ids) must never count.
 */

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { clickHouseDateTime, param, renderClickHouse } from "../../../src/lib/hogql/clickhouse/params.js";
import { storedCriteria } from "../../../src/lib/property-filters/cohort-definitions.js";
import {
  cohortCriteriaSchema,
  type PropertyNode,
} from "../../../src/lib/property-filters/property-filters.js";
import {
  checkClickHouseRegexPatterns,
  propertyTimestamp,
  toClickHouse,
} from "../../../src/lib/property-filters/to-clickhouse.js";
import type { CohortDefinition } from "../../../src/lib/property-filters/translate.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../../support/clickhouse.js";
import {
  behavioral,
  CASE_GROUPS,
  COHORTS,
  type CohortName,
  DATE_TEXTS,
  EVENTS,
  MISSING_COHORT,
  type Name,
  NOW,
  one,
  PEOPLE,
  treeOf,
} from "./filter-cases.js";

const PROJECT = 7;
const OTHER_PROJECT = 8;
const WRITTEN = "2026-11-23 11:00:00.000000";

describe.skipIf(!chdbInstalled)("property filters to ClickHouse on chdb", () => {
  let clickhouse: TestClickHouse;
  const uuids = new Map<Name, string>(Object.keys(PEOPLE).map((name) => [name as Name, randomUUID()]));
  const names = new Map<string, Name>([...uuids].map(([name, uuid]) => [uuid, name]));
  // Cohort ids are the fixture's order from 101; their definitions read as PostgreSQL's loader reads them.
  const cohortIds = new Map<CohortName, number>(
    Object.keys(COHORTS).map((name, i) => [name as CohortName, 101 + i]),
  );
  const cohortId = (name: CohortName) => cohortIds.get(name) ?? MISSING_COHORT;
  const cohorts = new Map<number, CohortDefinition>(
    Object.entries(COHORTS).map(([name, fixture]) => {
      const id = cohortId(name as CohortName);
      const isStatic = fixture.isStatic ?? false;
      const criteria =
        isStatic || !fixture.criteria
          ? null
          : storedCriteria({ properties: fixture.criteria(cohortId) }, null);
      return [id, { id, name, deleted: fixture.deleted ?? false, isStatic, criteria }];
    }),
  );

  async function insert(table: string, values: Array<Record<string, unknown>>) {
    await clickhouse.client.insert({ table, values, format: "JSONEachRow" });
  }

  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
    const other = randomUUID();
    await insert("person", [
      ...[...uuids].map(([name, id]) => ({
        id,
        team_id: PROJECT,
        properties: JSON.stringify(PEOPLE[name].properties),
        created_at: WRITTEN,
        is_identified: 0,
        version: 1,
        _timestamp: WRITTEN,
      })),
      // An older version of alice's row, which the persons view below never reads.
      {
        id: uuids.get("alice"),
        team_id: PROJECT,
        properties: JSON.stringify({ plan: "free", note: "stale" }),
        created_at: WRITTEN,
        is_identified: 0,
        version: 0,
        _timestamp: WRITTEN,
      },
      // Another project's alice.
      {
        id: other,
        team_id: OTHER_PROJECT,
        properties: JSON.stringify(PEOPLE.alice.properties),
        created_at: WRITTEN,
        is_identified: 0,
        version: 1,
        _timestamp: WRITTEN,
      },
    ]);
    const mapping = (team: number, distinctId: string, personId: string, version: number, deleted = 0) => ({
      team_id: team,
      distinct_id: distinctId,
      person_id: personId,
      is_deleted: deleted,
      version,
      _timestamp: WRITTEN,
    });
    await insert("person_distinct_id2", [
      ...[...uuids].flatMap(([name, id]) => PEOPLE[name].distinctIds.map((d) => mapping(PROJECT, d, id, 1))),
      // `moved` was bob's before it was carol's; `forgotten` was dave's until its mapping was deleted.
      mapping(PROJECT, "moved", uuids.get("bob")!, 0),
      mapping(PROJECT, "forgotten", uuids.get("dave")!, 0),
      mapping(PROJECT, "forgotten", uuids.get("dave")!, 1, 1),
      // Another project's ids: its alice, and its own id for dave (whose events are project 7's below).
      mapping(OTHER_PROJECT, "alice", other, 1),
      mapping(OTHER_PROJECT, "elsewhere", uuids.get("dave")!, 1),
    ]);
    const event = (team: number, e: (typeof EVENTS)[number]) => ({
      uuid: e.uuid,
      event: e.event,
      properties: JSON.stringify(e.properties),
      timestamp: clickHouseDateTime(e.timestamp),
      team_id: team,
      distinct_id: e.distinctId,
      elements_chain: "",
      created_at: clickHouseDateTime(e.timestamp),
      person_id: null,
      _timestamp: WRITTEN,
    });
    const recent = { ...EVENTS[0]!, uuid: randomUUID() };
    await insert("events", [
      ...EVENTS.map((e) => event(PROJECT, e)),
      // Another project's pageviews by bob, and by an id that is dave's only there.
      event(OTHER_PROJECT, { ...recent, distinctId: "bob" }),
      event(PROJECT, { ...recent, distinctId: "elsewhere" }),
    ]);
    // One of alice's events sent twice: it counts once.
    await insert("events", [event(PROJECT, EVENTS[0]!)]);
    const member = (team: number, cohort: number, person: string) => ({
      id: randomUUID(),
      person_id: person,
      cohort_id: cohort,
      team_id: team,
      _timestamp: WRITTEN,
    });
    await insert("person_static_cohort", [
      ...Object.entries(COHORTS).flatMap(([name, fixture]) =>
        (fixture.members ?? []).map((m) => member(PROJECT, cohortId(name as CohortName), uuids.get(m)!)),
      ),
      // Another project's member of a cohort with the same id.
      member(OTHER_PROJECT, cohortId("static"), uuids.get("bob")!),
    ]);
  }, 120_000);

  afterAll(async () => {
    await clickhouse?.close();
  });

  async function rows<T>(statement: Prisma.Sql): Promise<T[]> {
    const { sql, params } = renderClickHouse(statement);
    const result = await clickhouse.client.query({ query: sql, query_params: params, format: "JSONEachRow" });
    return result.json<T>();
  }

  /** The names of the persons `tree` selects, sorted. */
  async function matching(tree: unknown, semantics?: "flags" | "query"): Promise<Name[]> {
    const root = cohortCriteriaSchema.parse(tree) as PropertyNode;
    const where = toClickHouse(root, {
      projectId: PROJECT,
      now: NOW,
      targets: { person: "p" },
      cohorts,
      ...(semantics ? { semantics } : {}),
    });
    const found = await rows<{ id: string }>(Prisma.sql`SELECT toString(p.id) AS id
      FROM (SELECT id, argMax(properties, version) AS properties FROM person
        WHERE team_id = ${param(PROJECT, "Int64")} GROUP BY id HAVING argMax(is_deleted, version) = 0) AS p
      WHERE ${where}`);
    return found.map((row) => names.get(row.id)!).sort();
  }

  for (const group of CASE_GROUPS) {
    it(group.title, async () => {
      for (const c of group.cases) {
        const tree = treeOf(c.tree, cohortId);
        const label = JSON.stringify({ tree, semantics: c.semantics }).slice(0, 300);
        if (c.error) {
          await expect(matching(tree, c.semantics), label).rejects.toMatchObject({ code: c.error });
        } else {
          expect(await matching(tree, c.semantics), label).toEqual(c.clickhouse?.expected ?? c.expected);
        }
      }
    });
  }

  it("reads date texts as PostgreSQL's property_timestamp does", async () => {
    for (const [text, instant, clickhouseInstant] of DATE_TEXTS) {
      const [row] = await rows<{ at: string | null }>(
        Prisma.sql`SELECT ${propertyTimestamp(param(text, "String"))} AS at`,
      );
      expect(row!.at === null ? null : new Date(row!.at).toISOString(), text).toEqual(
        clickhouseInstant ?? instant,
      );
    }
  });

  // PostgreSQL's translation fails these statements today (22009: the driver writes year -7973 as
  // an offset), so they are not shared cases yet.
  it("binds instants of any year a relative value reaches (9,999 years back: year -7973)", async () => {
    expect(await matching(one({ key: "signup", value: "-9999y", operator: "is_date_after" }))).toEqual([
      "alice",
      "bob",
    ]);
    expect(await matching(one({ key: "signup", value: "-9999y", operator: "is_date_before" }))).toEqual([]);
    expect(await matching(behavioral({ explicit_datetime: "-9999y" }))).toEqual(["alice", "bob", "carol"]);
  });

  it("binds every value: the statement's text holds none of the filters' values", () => {
    const tree = one({ key: "note", value: ["it's", "{p0:String}", "%_\\"], operator: "icontains" });
    const { sql, params } = renderClickHouse(
      toClickHouse(cohortCriteriaSchema.parse(tree), {
        projectId: PROJECT,
        now: NOW,
        targets: { person: "p" },
        cohorts,
      }),
    );
    expect(sql).not.toMatch(/it's|note|%_/);
    expect(Object.values(params)).toEqual(expect.arrayContaining(["note", "it's", "{p0:string}", "%_\\"]));
  });

  it("refuses a regex re2 cannot compile before any read", async () => {
    const root = cohortCriteriaSchema.parse({
      type: "AND",
      values: [
        { type: "person", key: "email", value: "fine", operator: "regex" },
        // Valid for PostgreSQL's ARE (a backreference), not for re2.
        { type: "person", key: "email", value: ["(a)\\1"], operator: "not_regex" },
      ],
    });
    await expect(checkClickHouseRegexPatterns(clickhouse.client, root, "filters")).rejects.toMatchObject({
      code: "invalid_regex",
      detail: "Invalid regular expression: (a)\\1",
      attr: "filters",
    });
    await expect(
      checkClickHouseRegexPatterns(
        clickhouse.client,
        cohortCriteriaSchema.parse(one({ key: "a", value: "^x$", operator: "regex" })),
        "filters",
      ),
    ).resolves.toBeUndefined();
  });

  it("group filters read the group row of their type; persons-only targets refuse them", async () => {
    await insert(
      "groups",
      [0, 1].map((index) => ({
        group_type_index: index,
        group_key: "acme",
        created_at: WRITTEN,
        team_id: PROJECT,
        group_properties: JSON.stringify({ industry: "tech" }),
        _timestamp: WRITTEN,
      })),
    );
    const root = cohortCriteriaSchema.parse({
      type: "AND",
      values: [{ type: "group", key: "industry", value: "TECH", group_type_index: 1 }],
    });
    const where = toClickHouse(root, {
      projectId: PROJECT,
      now: NOW,
      targets: { group: "g" },
      cohorts: new Map(),
    });
    expect(
      await rows(Prisma.sql`SELECT g.group_type_index AS index FROM groups AS g FINAL
        WHERE g.team_id = ${param(PROJECT, "Int64")} AND ${where}`),
    ).toEqual([{ index: 1 }]);
    expect(() =>
      toClickHouse(root, { projectId: PROJECT, now: NOW, targets: { person: "p" }, cohorts: new Map() }),
    ).toThrow(/group properties cannot be used here/);
  });
});
