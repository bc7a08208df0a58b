/**
 * `POST :id/create_static_cohort_for_flag` (spec row 7, posthog-behavior.md §2.10 and decision 2)
 * through HTTP on PGlite and PostgreSQL (GraphQL's `createStaticCohortForFeatureFlag`:
 * static-cohort-for-flag.graphql.test.ts):
 * the cohort holds exactly the persons `evaluation_reasons` says the flag is enabled for (property
 * conditions, a partial rollout, variants, cohorts and flag dependencies in conditions), evaluated
 * as each person's first distinct id; it is answered complete with PostHog's name and shape and
 * logged; persons are read in pages (more persons than one page); deleted, inactive and
 * group-aggregated flags give an empty cohort, as PostHog's task; refusals write nothing.
 */
import { beforeAll, expect, it } from "vitest";
import { expectNothingWritten } from "../support/db-dump.js";
import { personCondition } from "../support/flag-evaluation.js";
import { cohortMemberUuids, createFlag, staticCohortPath } from "../support/flags.js";
import { insertGroupType } from "../support/groups.js";
import { type InsertedPerson, insertPerson, insertPersons } from "../support/people.js";
import { describeEachBackend, statementsOf, type TestServer } from "../support/server.js";

/** The services' clock: the cohort's name carries it. */
const NOW = new Date("2025-06-07T08:09:10.750Z");
const NAME_TIME = "2025-06-07 08:09:10";

/** A fixture person: the distinct id it is evaluated as (its first) and its row. */
interface Fixture {
  distinctId: string;
  person: InsertedPerson;
}

describeEachBackend(
  "create_static_cohort_for_flag",
  (server) => {
    let persons: Fixture[];
    let twoIds: InsertedPerson;
    let flags: Record<string, number>;

    beforeAll(async () => {
      const s = server();
      const inserted = await insertPersons(
        s.db,
        s.projectId,
        Array.from({ length: 40 }, (_, i) => ({
          distinctIds: [`sc-${String(i).padStart(2, "0")}`],
          properties: { plan: i % 2 === 0 ? "pro" : "free", n: i },
        })),
      );
      persons = inserted.map((person, i) => ({ distinctId: `sc-${String(i).padStart(2, "0")}`, person }));
      // Evaluated as `aa-first`, its first distinct id in text order.
      twoIds = await insertPerson(s.db, s.projectId, {
        distinctIds: ["zz-second", "aa-first"],
        properties: { plan: "pro" },
      });
      persons.push({ distinctId: "aa-first", person: twoIds });
      // A person without distinct ids: never a member (PostHog skips "almost-deleted" persons).
      await s.db.person.create({ data: { projectId: s.projectId, properties: { plan: "pro" } } });

      const vip = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: {
          name: "vip",
          is_static: true,
          _create_static_person_ids: persons.slice(0, 10).map((p) => p.person.uuid),
        },
      });
      expect(vip.status, vip.text).toBe(201);
      const proCohort = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
        body: {
          name: "pro",
          filters: {
            properties: {
              type: "AND",
              values: [
                { type: "AND", values: [{ key: "plan", value: "pro", type: "person", operator: "exact" }] },
              ],
            },
          },
        },
      });
      expect(proCohort.status, proCohort.text).toBe(201);

      await insertGroupType(s.db, s.projectId, 0, "company");
      const proHalf = await createFlag(s, {
        key: "pro-half",
        filters: { groups: [personCondition("plan", "pro", 50)] },
      });
      const multivariate = await createFlag(s, {
        key: "checkout",
        filters: {
          groups: [personCondition("plan", "free", 60)],
          multivariate: {
            variants: [
              { key: "control", rollout_percentage: 50 },
              { key: "test", rollout_percentage: 50 },
            ],
          },
        },
      });
      const dependent = await createFlag(s, {
        key: "vip-or-pro-half",
        filters: {
          groups: [
            { properties: [{ key: "id", value: vip.body.id, type: "cohort" }], rollout_percentage: 100 },
            {
              properties: [
                { key: "id", value: proCohort.body.id, type: "cohort" },
                { key: String(proHalf.id), type: "flag", value: true, operator: "flag_evaluates_to" },
              ],
              rollout_percentage: 100,
            },
          ],
        },
      });
      const firstId = await createFlag(s, {
        key: "first-id",
        filters: { groups: [personCondition("distinct_id", "aa-first")] },
      });
      const secondId = await createFlag(s, {
        key: "second-id",
        filters: { groups: [personCondition("distinct_id", "zz-second")] },
      });
      const inactive = await createFlag(s, {
        key: "inactive",
        active: false,
        filters: { groups: [{ rollout_percentage: 100 }] },
      });
      const companies = await createFlag(s, {
        key: "companies",
        filters: { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 100 }] },
      });
      const deleted = await createFlag(s, {
        key: "gone",
        filters: { groups: [{ rollout_percentage: 100 }] },
      });
      const removed = await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${deleted.id}/`, {
        body: { deleted: true },
      });
      expect(removed.status, removed.text).toBe(200);
      flags = {
        proHalf: proHalf.id,
        multivariate: multivariate.id,
        dependent: dependent.id,
        firstId: firstId.id,
        secondId: secondId.id,
        inactive: inactive.id,
        companies: companies.id,
        deleted: deleted.id,
      };
    });

    /** The uuids of the fixture persons `evaluation_reasons` gives a truthy value of `key`. */
    async function enabledFor(s: TestServer, key: string): Promise<string[]> {
      const enabled: string[] = [];
      for (const { distinctId, person } of persons) {
        const reasons = await s.request(
          "GET",
          `/api/projects/${s.projectId}/feature_flags/evaluation_reasons/?distinct_id=${distinctId}`,
        );
        expect(reasons.status, reasons.text).toBe(200);
        if (reasons.body[key].value !== false) enabled.push(person.uuid);
      }
      return enabled.sort();
    }

    for (const [flag, key] of [
      ["proHalf", "pro-half"],
      ["multivariate", "checkout"],
      ["dependent", "vip-or-pro-half"],
    ] as const) {
      it(`holds exactly the persons evaluation_reasons enables ${key} for`, async () => {
        const s = server();
        const expected = await enabledFor(s, key);
        // Neither nobody nor everybody: the comparison says something.
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(persons.length);

        const response = await s.request("POST", staticCohortPath(s.projectId, flags[flag]!), { body: {} });
        expect(response.status, response.text).toBe(201);
        expect(response.body.cohort.count).toBe(expected.length);
        expect(await cohortMemberUuids(s, s.projectId, response.body.cohort.id)).toEqual(expected);
      });
    }

    it("answers PostHog's 201 shape, complete, named after the flag and the time, and logs it", async () => {
      const s = server();
      const response = await s.request("POST", staticCohortPath(s.projectId, flags.proHalf!));
      expect(response.status, response.text).toBe(201);
      expect(Object.keys(response.body)).toEqual(["cohort"]);
      const cohort = response.body.cohort;
      expect(cohort).toMatchObject({
        name: `Users with feature flag pro-half enabled at ${NAME_TIME}`,
        description: "",
        is_static: true,
        cohort_type: "static",
        is_calculating: false,
        deleted: false,
        errors_calculating: 0,
        created_by: { email: "admin@example.com" },
      });
      expect(cohort.count).toBeGreaterThan(0);
      // The same record the cohort routes answer.
      const read = await s.request("GET", `/api/projects/${s.projectId}/cohorts/${cohort.id}/`);
      expect(read.body).toEqual(cohort);
      const activity = await s.request("GET", `/api/projects/${s.projectId}/cohorts/${cohort.id}/activity/`);
      expect(activity.body.results).toHaveLength(1);
      expect(activity.body.results[0]).toMatchObject({
        activity: "created",
        scope: "Cohort",
        item_id: String(cohort.id),
        user: { email: "admin@example.com" },
        detail: { name: cohort.name },
      });
    });

    it("evaluates each person as its first distinct id", async () => {
      const s = server();
      const first = await s.request("POST", staticCohortPath(s.projectId, flags.firstId!));
      expect(await cohortMemberUuids(s, s.projectId, first.body.cohort.id)).toEqual([twoIds.uuid]);
      const second = await s.request("POST", staticCohortPath(s.projectId, flags.secondId!));
      expect(second.body.cohort.count).toBe(0);
    });

    it("creates an empty cohort for a deleted, inactive or group-aggregated flag, as PostHog's task", async () => {
      const s = server();
      for (const [flag, key] of [
        ["deleted", "gone"],
        ["inactive", "inactive"],
        ["companies", "companies"],
      ] as const) {
        const response = await s.request("POST", staticCohortPath(s.projectId, flags[flag]!));
        expect(response.status, `${key}: ${response.text}`).toBe(201);
        expect(response.body.cohort).toMatchObject({
          name: `Users with feature flag ${key} enabled at ${NAME_TIME}`,
          count: 0,
          is_static: true,
        });
        expect(await cohortMemberUuids(s, s.projectId, response.body.cohort.id)).toEqual([]);
      }
    });

    it("refuses an unknown flag, and keys without feature_flag:read or cohort:write, writing nothing", async () => {
      const s = server();
      const unknown = await expectNothingWritten(s.db, "unknown flag", () =>
        s.request("POST", staticCohortPath(s.projectId, 987654)),
      );
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        type: "invalid_request",
        code: "not_found",
        detail: "Not found.",
        attr: null,
      });

      for (const [scopes, missing] of [
        [["cohort:write"], "feature_flag:read"],
        [["feature_flag:write", "cohort:read"], "cohort:write"],
      ] as const) {
        const key = await s.createKey([...scopes]);
        const refused = await expectNothingWritten(s.db, `a key without ${missing}`, () =>
          s.request("POST", staticCohortPath(s.projectId, flags.proHalf!), { key }),
        );
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({
          type: "authentication_error",
          code: "permission_denied",
          detail: `API key missing required scope '${missing}'`,
          attr: null,
        });
      }
      const enough = await s.createKey(["feature_flag:read", "cohort:write"]);
      const allowed = await s.request("POST", staticCohortPath(s.projectId, flags.proHalf!), { key: enough });
      expect(allowed.status, allowed.text).toBe(201);
    });
  },
  { now: () => NOW },
);

describeEachBackend("create_static_cohort_for_flag over more persons than one page", (server) => {
  const PERSONS = 2_500;

  it("reads persons in pages, a bounded number of statements, and keeps every match", async () => {
    const s = server();
    const project = await s.createProject("Many persons");
    // One statement: persons 1..2500, every third in bucket `a`, each with one distinct id.
    await s.db.$executeRaw`
      WITH inserted AS (
        INSERT INTO persons (project_id, properties)
        SELECT ${project}, jsonb_build_object('bucket', CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END, 'i', i)
        FROM generate_series(1, ${PERSONS}) AS i
        RETURNING id, properties)
      INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
      SELECT ${project}, 'many-' || (properties->>'i'), id FROM inserted`;
    const flag = await createFlag(
      s,
      { key: "bucket-a", filters: { groups: [personCondition("bucket", "a")] } },
      project,
    );

    const response = await s.request("POST", staticCohortPath(project, flag.id));
    expect(response.status, response.text).toBe(201);
    const expected = Math.floor(PERSONS / 3);
    expect(response.body.cohort.count).toBe(expected);
    // Three pages of persons beside the fixed cost (authorization, the flag, the definitions, the
    // write's transaction: about a dozen), not a statement per person.
    expect(statementsOf(response)).toBeLessThanOrEqual(20);

    const members = await s.db.$queryRaw<Array<{ bucket: string; n: bigint }>>`
      SELECT p.properties->>'bucket' AS bucket, count(*) AS n
      FROM cohort_people m JOIN persons p ON p.project_id = m.project_id AND p.id = m.person_id
      WHERE m.project_id = ${project} AND m.cohort_id = ${response.body.cohort.id}
      GROUP BY 1`;
    expect(members.map((row) => ({ bucket: row.bucket, n: Number(row.n) }))).toEqual([
      { bucket: "a", n: expected },
    ]);
  });
});
