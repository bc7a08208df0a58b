/**
 * The translation run by the database over fixture persons, on PGlite and PostgreSQL: the same
 * filters must select the same persons on both. The cases are `./filter-cases.ts`'s, which
 * ClickHouse's translation also runs (`./to-clickhouse.test.ts`); the PostgreSQL-only checks
 * (regex patterns refused up front, group rows) are below them.
 */
import { beforeAll, expect, it } from "vitest";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { loadCohortDefinitions } from "../../../src/lib/property-filters/cohort-definitions.js";
import {
  cohortCriteriaSchema,
  type PropertyNode,
  propertyGroupSchema,
} from "../../../src/lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../../../src/lib/property-filters/regex-check.js";
import { toSql } from "../../../src/lib/property-filters/to-sql.js";
import { insertPerson } from "../../support/people.js";
import { describeEachBackend } from "../../support/server.js";
import {
  CASE_GROUPS,
  COHORTS,
  type CohortName,
  DATE_TEXTS,
  EVENTS,
  MISSING_COHORT,
  type Name,
  NOW,
  PEOPLE,
  treeOf,
} from "./filter-cases.js";

describeEachBackend("property filters to SQL", (server) => {
  const names = new Map<bigint, Name>();
  const cohortIds = new Map<CohortName, number>();
  const cohortId = (name: CohortName) => cohortIds.get(name) ?? MISSING_COHORT;
  let projectId: number;

  beforeAll(async () => {
    const s = server();
    projectId = s.projectId;
    const people = new Map<Name, bigint>();
    for (const [name, person] of Object.entries(PEOPLE)) {
      const inserted = await insertPerson(s.db, projectId, {
        distinctIds: [...person.distinctIds],
        properties: person.properties,
      });
      names.set(inserted.id, name as Name);
      people.set(name as Name, inserted.id);
    }
    // A person of another project matches nothing here.
    await insertPerson(s.db, await s.createProject("Other"), {
      distinctIds: ["x"],
      properties: PEOPLE.alice.properties,
    });
    await s.db.event.createMany({
      data: EVENTS.map((e) => ({
        projectId,
        uuid: e.uuid,
        event: e.event,
        distinctId: e.distinctId,
        properties: e.properties,
        timestamp: e.timestamp,
      })),
    });
    // Every cohort first (criteria name each other, cycles included), then their criteria.
    for (const [name, fixture] of Object.entries(COHORTS)) {
      const row = await s.db.cohort.create({
        data: { projectId, name, isStatic: fixture.isStatic ?? false, deleted: fixture.deleted ?? false },
      });
      cohortIds.set(name as CohortName, row.id);
      for (const member of fixture.members ?? []) {
        await s.db.cohortPerson.create({
          data: { projectId, cohortId: row.id, personId: people.get(member)! },
        });
      }
    }
    for (const [name, fixture] of Object.entries(COHORTS)) {
      if (!fixture.criteria) continue;
      await s.db.cohort.update({
        where: { id: cohortId(name as CohortName) },
        data: { filters: { properties: fixture.criteria(cohortId) as object } },
      });
    }
  });

  /** The names of the persons `tree` selects, sorted. */
  async function matching(tree: unknown, semantics?: "flags" | "query"): Promise<Name[]> {
    const root = cohortCriteriaSchema.parse(tree) as PropertyNode;
    const db = server().db;
    const cohorts = await loadCohortDefinitions(db, projectId, root);
    const where = toSql(root, {
      projectId,
      now: NOW,
      targets: { person: "p" },
      cohorts,
      ...(semantics ? { semantics } : {}),
    });
    const rows = await db.$queryRaw<Array<{ id: bigint }>>(
      Prisma.sql`SELECT p.id FROM persons p WHERE p.project_id = ${projectId} AND ${where}`,
    );
    return rows.map((row) => names.get(row.id)!).sort();
  }

  for (const group of CASE_GROUPS) {
    it(group.title, async () => {
      for (const c of group.cases) {
        const tree = treeOf(c.tree, cohortId);
        const label = JSON.stringify({ tree, semantics: c.semantics }).slice(0, 300);
        if (c.error) {
          await expect(matching(tree, c.semantics), label).rejects.toMatchObject({ code: c.error });
        } else {
          expect(await matching(tree, c.semantics), label).toEqual(c.expected);
        }
      }
    });
  }

  it("reads date texts as property_timestamp does", async () => {
    const db = server().db;
    for (const [text, instant] of DATE_TEXTS) {
      const [row] = await db.$queryRaw<Array<{ at: Date | null }>>`SELECT property_timestamp(${text}) AS at`;
      expect(row!.at?.toISOString() ?? null, text).toEqual(instant);
    }
  });

  it("refuses a regex PostgreSQL cannot compile before any read", async () => {
    const root = propertyGroupSchema.parse({
      type: "AND",
      values: [
        { type: "person", key: "email", value: "fine", operator: "regex" },
        { type: "person", key: "email", value: ["(unclosed"], operator: "not_regex" },
      ],
    });
    await expect(checkRegexPatterns(server().db, root, "filters")).rejects.toMatchObject({
      code: "invalid_regex",
      detail: "Invalid regular expression: (unclosed",
      attr: "filters",
    });
    await expect(
      checkRegexPatterns(server().db, propertyGroupSchema.parse({ type: "AND", values: [] }), "filters"),
    ).resolves.toBeUndefined();
  });

  it("group filters read the group row of their type; persons-only targets refuse them", async () => {
    const s = server();
    await s.db.group.createMany({
      data: [
        { projectId, groupTypeIndex: 0, groupKey: "acme", groupProperties: { industry: "tech" } },
        { projectId, groupTypeIndex: 1, groupKey: "acme", groupProperties: { industry: "tech" } },
      ],
    });
    const root = propertyGroupSchema.parse({
      type: "AND",
      values: [{ type: "group", key: "industry", value: "TECH", group_type_index: 1 }],
    });
    const where = toSql(root, { projectId, now: NOW, targets: { group: "g" }, cohorts: new Map() });
    const rows = await s.db.$queryRaw<Array<{ index: number }>>(
      Prisma.sql`SELECT g.group_type_index AS index FROM groups g WHERE g.project_id = ${projectId} AND ${where}`,
    );
    expect(rows).toEqual([{ index: 1 }]);
    expect(() => toSql(root, { projectId, now: NOW, targets: { person: "p" }, cohorts: new Map() })).toThrow(
      /group properties cannot be used here/,
    );
  });
});
