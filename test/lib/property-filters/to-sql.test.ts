/**
 * The translation run by the database, operator by operator, over fixture persons, on PGlite and
 * PostgreSQL: the same filters must select the same persons on both.
 */
import { beforeAll, expect, it } from "vitest";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { loadCohortDefinitions } from "../../../src/lib/property-filters/cohort-definitions.js";
import {
  type PropertyNode,
  propertyGroupSchema,
} from "../../../src/lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../../../src/lib/property-filters/regex-check.js";
import { toSql } from "../../../src/lib/property-filters/to-sql.js";
import { insertPerson } from "../../support/people.js";
import { describeEachBackend } from "../../support/server.js";

const NOW = new Date("2026-11-23T12:00:00Z");

const PEOPLE = {
  alice: {
    email: "alice@PostHog.com",
    age: 30,
    plan: "Pro",
    beta: true,
    signup: "2026-11-20T10:00:00Z",
    app_version: "1.2.3",
    nickname: null,
  },
  bob: {
    email: "bob@example.com",
    age: "25",
    plan: "free",
    beta: false,
    signup: "2026-01-15",
    app_version: "2.0.0",
  },
  carol: { age: 7.5, plan: "PRO", signup: "not a date", app_version: "v1.10.0" },
  dave: {},
};
type Name = keyof typeof PEOPLE;

describeEachBackend("property filters to SQL", (server) => {
  const names = new Map<bigint, Name>();
  let projectId: number;

  beforeAll(async () => {
    const s = server();
    projectId = s.projectId;
    for (const [name, properties] of Object.entries(PEOPLE)) {
      const person = await insertPerson(s.db, projectId, { distinctIds: [name], properties });
      names.set(person.id, name as Name);
    }
    // A person of another project matches nothing here.
    await insertPerson(s.db, await s.createProject("Other"), {
      distinctIds: ["x"],
      properties: PEOPLE.alice,
    });
  });

  /** The names of the persons `tree` selects, sorted. */
  async function matching(tree: unknown, semantics?: "flags" | "query"): Promise<Name[]> {
    const root = propertyGroupSchema.parse(tree) as PropertyNode;
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
  const one = (filter: Record<string, unknown>, semantics?: "flags" | "query") =>
    matching({ type: "AND", values: [{ type: "person", ...filter }] }, semantics);

  it("exact and is_not: case-insensitive text forms, lists as any of, missing matches is_not", async () => {
    expect(await one({ key: "plan", value: "pro" })).toEqual(["alice", "carol"]);
    expect(await one({ key: "plan", value: ["free", "PRO"], operator: "exact" })).toEqual([
      "alice",
      "bob",
      "carol",
    ]);
    expect(await one({ key: "beta", value: "true" })).toEqual(["alice"]);
    expect(await one({ key: "beta", value: false })).toEqual(["bob"]);
    expect(await one({ key: "age", value: 30 })).toEqual(["alice"]);
    expect(await one({ key: "plan", value: "pro", operator: "is_not" })).toEqual(["bob", "dave"]);
    expect(await one({ key: "plan", value: ["pro", "free"], operator: "is_not" })).toEqual(["dave"]);
  });

  it("exact and is_not in a query's filters: case-sensitive as HogQL's = and !=", async () => {
    expect(await one({ key: "plan", value: "pro" }, "query")).toEqual([]);
    expect(await one({ key: "plan", value: "Pro" }, "query")).toEqual(["alice"]);
    expect(await one({ key: "plan", value: ["free", "PRO"] }, "query")).toEqual(["bob", "carol"]);
    expect(await one({ key: "plan", value: "Pro", operator: "is_not" }, "query")).toEqual([
      "bob",
      "carol",
      "dave",
    ]);
    expect(await one({ key: "beta", value: true }, "query")).toEqual(["alice"]);
    expect(await one({ key: "beta", value: "True" }, "query")).toEqual([]);
    expect(await one({ key: "age", value: 30 }, "query")).toEqual(["alice"]);
    expect(await one({ key: "email", value: "alice@posthog.com" }, "query")).toEqual([]);
  });

  it("is_set and is_not_set: a JSON null counts as not set", async () => {
    expect(await one({ key: "email", operator: "is_set" })).toEqual(["alice", "bob"]);
    expect(await one({ key: "email", operator: "is_not_set" })).toEqual(["carol", "dave"]);
    expect(await one({ key: "nickname", operator: "is_set" })).toEqual([]);
  });

  it("icontains and not_icontains", async () => {
    expect(await one({ key: "email", value: "posthog.COM", operator: "icontains" })).toEqual(["alice"]);
    expect(await one({ key: "email", value: ["@example", "@posthog"], operator: "icontains" })).toEqual([
      "alice",
      "bob",
    ]);
    expect(await one({ key: "email", value: "posthog", operator: "not_icontains" })).toEqual([
      "bob",
      "carol",
      "dave",
    ]);
    // Literal text: % and _ are not wildcards.
    expect(await one({ key: "email", value: "%", operator: "icontains" })).toEqual([]);
  });

  it("regex and not_regex, with PostgreSQL's syntax", async () => {
    expect(await one({ key: "email", value: "^[a-z]+@example\\.com$", operator: "regex" })).toEqual(["bob"]);
    expect(await one({ key: "email", value: "PostHog", operator: "not_regex" })).toEqual([
      "bob",
      "carol",
      "dave",
    ]);
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

  it("gt/gte/lt/lte: numbers numerically, strings as text (PostHog's rule)", async () => {
    // alice 30 (number), bob "25" (string, compared as text), carol 7.5 (number).
    expect(await one({ key: "age", value: "8", operator: "gt" })).toEqual(["alice"]);
    expect(await one({ key: "age", value: "10", operator: "gt" })).toEqual(["alice", "bob"]);
    expect(await one({ key: "age", value: "30", operator: "gte" })).toEqual(["alice"]);
    // "25" <= "7.5" as text ("2" < "7"), as Python compares a string property.
    expect(await one({ key: "age", value: "7.5", operator: "lte" })).toEqual(["bob", "carol"]);
    expect(await one({ key: "age", value: 26, operator: "lt" })).toEqual(["bob", "carol"]);
    // A non-numeric value compares text forms in code-point order: "Pro" and "PRO" < "a" < "free".
    expect(await one({ key: "plan", value: "a", operator: "gt" })).toEqual(["bob"]);
    expect(await one({ key: "plan", value: "a", operator: "lt" })).toEqual(["alice", "carol"]);
  });

  it("date operators: relative and absolute values; unreadable dates match nothing", async () => {
    expect(await one({ key: "signup", value: "-7d", operator: "is_date_after" })).toEqual(["alice"]);
    expect(await one({ key: "signup", value: "-7d", operator: "is_date_before" })).toEqual(["bob"]);
    expect(await one({ key: "signup", value: "2026-01-15", operator: "is_date_exact" })).toEqual(["bob"]);
    expect(
      await one({ key: "signup", value: "2026-11-20T12:00:00+05:00", operator: "is_date_after" }),
    ).toEqual(["alice"]);
  });

  it("semver operators", async () => {
    expect(await one({ key: "app_version", value: "1.2.0", operator: "semver_gt" })).toEqual([
      "alice",
      "bob",
      "carol",
    ]);
    expect(await one({ key: "app_version", value: "1.2.3", operator: "semver_eq" })).toEqual(["alice"]);
    expect(await one({ key: "app_version", value: "1.2.3", operator: "semver_neq" })).toEqual([
      "bob",
      "carol",
    ]);
    expect(await one({ key: "app_version", value: "1.2.0", operator: "semver_tilde" })).toEqual(["alice"]);
    expect(await one({ key: "app_version", value: "1.0.0", operator: "semver_caret" })).toEqual([
      "alice",
      "carol",
    ]);
    expect(await one({ key: "app_version", value: "1.*", operator: "semver_wildcard" })).toEqual([
      "alice",
      "carol",
    ]);
  });

  it("negation, nested groups, and empty groups", async () => {
    expect(await one({ key: "plan", value: "pro", negation: true })).toEqual(["bob", "dave"]);
    expect(
      await matching({
        type: "OR",
        values: [
          {
            type: "AND",
            values: [
              { type: "person", key: "plan", value: "pro" },
              { type: "person", key: "beta", value: true },
            ],
          },
          {
            type: "AND",
            values: [
              { type: "person", key: "email", operator: "is_not_set" },
              { type: "person", key: "age", operator: "is_not_set" },
            ],
          },
        ],
      }),
    ).toEqual(["alice", "dave"]);
    expect(await matching({ type: "AND", values: [] })).toEqual(["alice", "bob", "carol", "dave"]);
    expect(await matching({ type: "OR", values: [{ type: "AND", values: [] }] })).toEqual([
      "alice",
      "bob",
      "carol",
      "dave",
    ]);
  });

  it("cohort membership: static lists, dynamic criteria, nested cohorts, in and not_in", async () => {
    const db = server().db;
    const [aliceId] = [...names].find(([, n]) => n === "alice")!;
    const staticCohort = await db.cohort.create({ data: { projectId, name: "static", isStatic: true } });
    await db.cohortPerson.create({ data: { projectId, cohortId: staticCohort.id, personId: aliceId } });
    const pro = await db.cohort.create({
      data: {
        projectId,
        name: "pro",
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [{ type: "person", key: "plan", value: "pro" }] }],
          },
        },
      },
    });
    const proNotStatic = await db.cohort.create({
      data: {
        projectId,
        name: "pro, not static",
        filters: {
          properties: {
            type: "AND",
            values: [
              { type: "cohort", key: "id", value: pro.id, operator: "in" },
              { type: "cohort", key: "id", value: staticCohort.id, operator: "not_in" },
            ],
          },
        },
      },
    });
    const deleted = await db.cohort.create({
      data: { projectId, name: "gone", deleted: true, filters: { properties: { type: "AND", values: [] } } },
    });
    const cohort = (id: number, operator = "in") => ({
      type: "AND",
      values: [{ type: "cohort", key: "id", value: id, operator }],
    });

    expect(await matching(cohort(staticCohort.id))).toEqual(["alice"]);
    expect(await matching(cohort(pro.id))).toEqual(["alice", "carol"]);
    expect(await matching(cohort(pro.id, "not_in"))).toEqual(["bob", "dave"]);
    expect(await matching(cohort(proNotStatic.id))).toEqual(["carol"]);
    expect(await matching(cohort(deleted.id))).toEqual([]);
    expect(await matching(cohort(999_999))).toEqual([]);
  });

  it("refuses a cycle of cohorts instead of following it", async () => {
    const db = server().db;
    const a = await db.cohort.create({ data: { projectId, name: "a" } });
    const b = await db.cohort.create({
      data: {
        projectId,
        name: "b",
        filters: { properties: { type: "AND", values: [{ type: "cohort", key: "id", value: a.id }] } },
      },
    });
    await db.cohort.update({
      where: { id: a.id },
      data: {
        filters: { properties: { type: "AND", values: [{ type: "cohort", key: "id", value: b.id }] } },
      },
    });
    await expect(
      matching({ type: "AND", values: [{ type: "cohort", key: "id", value: a.id }] }),
    ).rejects.toMatchObject({
      code: "cohort_cycle",
    });
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
