/**
 * Cohorts over REST, on both backends: PostHog's record, dynamic membership computed by SQL,
 * static membership by person uuid and CSV upload, PostHog's validation, soft delete, activity,
 * and the flag rules that read cohorts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { expectNothingWritten } from "../support/db-dump.js";
import { type InsertedPerson, insertPersons } from "../support/people.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";

const cohortsPath = (s: TestServer, suffix = "") => `/api/projects/${s.projectId}/cohorts/${suffix}`;

const COHORT_FIELDS = [
  "id",
  "name",
  "description",
  "groups",
  "deleted",
  "filters",
  "query",
  "is_calculating",
  "created_by",
  "created_at",
  "last_calculation",
  "errors_calculating",
  "count",
  "is_static",
  "cohort_type",
  "experiment_set",
].sort();

const person = (key: string, value: unknown, operator = "exact") => ({
  type: "person",
  key,
  value,
  operator,
});
const criteria = (...values: unknown[]) => ({
  properties: { type: "OR", values: [{ type: "AND", values }] },
});

/** Sends a multipart form with the all-scopes key. */
async function sendForm(s: TestServer, method: string, path: string, form: FormData): Promise<TestResponse> {
  const response = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}` },
    body: form,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? JSON.parse(text) : undefined,
  };
}

function csvForm(csv: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set("csv", new Blob([csv], { type: "text/csv" }), "people.csv");
  return form;
}

describeEachBackend("cohorts over REST", (server) => {
  let people: InsertedPerson[];

  async function create(body: Record<string, unknown>) {
    const response = await server().request("POST", cohortsPath(server()), { body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  beforeAll(async () => {
    const s = server();
    people = await insertPersons(s.db, s.projectId, [
      { distinctIds: ["ann", "ann-phone"], properties: { email: "ann@acme.com", plan: "pro", age: 31 } },
      { distinctIds: ["ben"], properties: { email: "ben@other.io", plan: "free", age: 19 } },
      { distinctIds: ["cal"], properties: { email: "cal@acme.com", plan: "pro", age: 45 } },
      { distinctIds: ["dee"], properties: { name: "Dee" } },
    ]);
  });

  describe("dynamic cohorts", () => {
    it("creates one with PostHog's fields, counted at once by its criteria", async () => {
      const s = server();
      const cohort = await create({
        name: "Pro users",
        description: "paying",
        filters: criteria(person("plan", "pro")),
      });
      expect(Object.keys(cohort).sort()).toEqual(COHORT_FIELDS);
      expect(cohort).toMatchObject({
        name: "Pro users",
        description: "paying",
        is_static: false,
        is_calculating: false,
        count: 2,
        cohort_type: "person_property",
        deleted: false,
        errors_calculating: 0,
        experiment_set: [],
        groups: [],
        query: null,
        filters: criteria(person("plan", "pro")),
        created_by: { email: "admin@example.com" },
      });
      expect(cohort.last_calculation).not.toBeNull();
      const read = await s.request("GET", cohortsPath(s, `${cohort.id}/`));
      expect(read.body).toEqual(cohort);
    });

    it("lists its persons, computed by SQL, page by page", async () => {
      const s = server();
      const cohort = await create({
        name: "acme",
        filters: criteria(person("email", "@acme.com", "icontains")),
      });
      const first = await s.request("GET", cohortsPath(s, `${cohort.id}/persons/?limit=1`));
      expect(first.status, first.text).toBe(200);
      expect(first.headers.get("etag")).toBeNull();
      expect(first.body.results).toEqual([
        {
          type: "person",
          id: people[0]!.uuid,
          uuid: people[0]!.uuid,
          name: "ann@acme.com",
          distinct_ids: ["ann", "ann-phone"],
          properties: { email: "ann@acme.com", plan: "pro", age: 31 },
          is_identified: false,
          created_at: expect.any(String),
          matched_recordings: [],
          value_at_data_point: null,
        },
      ]);
      expect(first.body.previous).toBeNull();
      const second = await s.request(
        "GET",
        new URL(first.body.next).pathname + new URL(first.body.next).search,
      );
      expect(second.body.results.map((p: { uuid: string }) => p.uuid)).toEqual([people[2]!.uuid]);
      expect(second.body.next).toBeNull();
      expect(second.body.previous).not.toBeNull();
    });

    it("recalculates on PATCH and logs the change", async () => {
      const s = server();
      const cohort = await create({ name: "adults", filters: criteria(person("age", "30", "gt")) });
      expect(cohort.count).toBe(2);
      const patched = await s.request("PATCH", cohortsPath(s, `${cohort.id}/`), {
        body: { filters: criteria(person("age", "18", "gt")), name: "grown-ups" },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ count: 3, name: "grown-ups" });
      const activity = await s.request("GET", cohortsPath(s, `${cohort.id}/activity/`));
      expect(activity.body.results.map((e: { activity: string }) => e.activity)).toEqual([
        "updated",
        "created",
      ]);
      expect(activity.body.results[0].detail.changes.map((c: { field: string }) => c.field).sort()).toEqual([
        "filters",
        "name",
      ]);
      const all = await s.request("GET", cohortsPath(s, "activity/"));
      expect(all.body.results.length).toBeGreaterThanOrEqual(2);
    });

    it("nests cohorts with negation", async () => {
      const s = server();
      const pro = await create({ name: "pro", filters: criteria(person("plan", "pro")) });
      const nonPro = await create({
        name: "not pro, with email",
        filters: criteria(
          { type: "cohort", key: "id", value: pro.id, negation: true },
          person("email", null, "is_set"),
        ),
      });
      expect(nonPro.count).toBe(1);
      const members = await s.request("GET", cohortsPath(s, `${nonPro.id}/persons/`));
      expect(members.body.results.map((p: { name: string }) => p.name)).toEqual(["ben@other.io"]);
    });

    it("refuses malformed criteria with PostHog's messages, writing nothing", async () => {
      const s = server();
      const cases: Array<[unknown, Record<string, unknown>]> = [
        [
          { type: "AND", values: [] },
          { detail: "Must contain a 'properties' key with type and values", attr: "filters" },
        ],
        [
          criteria({ type: "person", key: "plan", value: "pro" }),
          { detail: "Missing required keys for person filter: operator" },
        ],
        [criteria(person("email", "(unclosed", "regex")), { code: "invalid_regex" }],
        [criteria({ type: "cohort", key: "id", value: 999_999 }), { detail: "Invalid Cohort ID in filter" }],
        [
          criteria(person("plan", "pro", "bogus")),
          { code: "invalid_choice", attr: "filters__properties__values__0__values__0__operator" },
        ],
        [criteria(person("joined", "last week", "is_date_after")), { code: "invalid_date" }],
      ];
      for (const [filters, error] of cases) {
        const response = await expectNothingWritten(s.db, JSON.stringify(filters), () =>
          s.request("POST", cohortsPath(s), { body: { name: "bad", filters } }),
        );
        expect(response.status, response.text).toBe(400);
        expect(response.body).toMatchObject({ type: "validation_error", ...error });
      }
    });

    it("refuses a loop of cohorts", async () => {
      const s = server();
      const a = await create({ name: "a", filters: criteria(person("plan", "pro")) });
      const b = await create({ name: "b", filters: criteria({ type: "cohort", key: "id", value: a.id }) });
      const looped = await s.request("PATCH", cohortsPath(s, `${a.id}/`), {
        body: { filters: criteria({ type: "cohort", key: "id", value: b.id }) },
      });
      expect(looped.status).toBe(400);
      expect(looped.body.detail).toBe("Cohorts cannot reference other cohorts in a loop.");
    });

    it("refuses a query on a dynamic cohort, and both a query and filters", async () => {
      const s = server();
      const dynamic = await s.request("POST", cohortsPath(s), { body: { query: { kind: "HogQLQuery" } } });
      expect(dynamic.body.detail).toBe("Cannot create a dynamic cohort with a query. Set is_static to true.");
      const both = await s.request("POST", cohortsPath(s), {
        body: { is_static: true, query: { kind: "HogQLQuery" }, filters: criteria() },
      });
      expect(both.body.detail).toBe("Cannot set both query and filters at the same time.");
      const queried = await s.request("POST", cohortsPath(s), {
        body: { is_static: true, query: { kind: "HogQLQuery" } },
      });
      expect(queried.status).toBe(501);
    });
  });

  describe("static cohorts", () => {
    it("takes members from a CSV of distinct ids, and more from a later upload", async () => {
      const s = server();
      const created = await sendForm(
        s,
        "POST",
        cohortsPath(s),
        csvForm("ann\nben\nnobody\n", { name: "csv", is_static: "true" }),
      );
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ is_static: true, count: 2, cohort_type: "static" });
      const more = await sendForm(
        s,
        "PATCH",
        cohortsPath(s, `${created.body.id}/`),
        csvForm("email,plan\ncal@acme.com,pro\n"),
      );
      expect(more.status, more.text).toBe(200);
      expect(more.body.count).toBe(3);
      const members = await s.request("GET", cohortsPath(s, `${created.body.id}/persons/`));
      expect(members.body.results.map((p: { uuid: string }) => p.uuid)).toEqual(
        people.slice(0, 3).map((p) => p.uuid),
      );
    });

    it("refuses a bad CSV with PostHog's messages, writing nothing", async () => {
      const s = server();
      const cases: Array<[string, string]> = [
        ["\n\n", "CSV file is empty. Please upload a CSV file with at least one row of data."],
        [
          "name,plan\nann,pro\n",
          "Multi-column CSV must contain at least one column with a supported ID header",
        ],
        ["person_id\n", "CSV file contains no valid person IDs, distinct IDs, or email addresses."],
      ];
      for (const [csv, detail] of cases) {
        const response = await expectNothingWritten(s.db, csv, () =>
          sendForm(s, "POST", cohortsPath(s), csvForm(csv, { name: "bad", is_static: "true" })),
        );
        expect(response.status, response.text).toBe(400);
        expect(response.body).toMatchObject({ attr: "csv" });
        expect(response.body.detail).toContain(detail);
      }
    });

    it("adds and removes persons by uuid", async () => {
      const s = server();
      const cohort = await create({
        name: "hand-picked",
        is_static: true,
        _create_static_person_ids: [people[3]!.uuid],
      });
      expect(cohort.count).toBe(1);
      const path = cohortsPath(s, `${cohort.id}/add_persons_to_static_cohort/`);
      const added = await s.request("PATCH", path, {
        body: { person_ids: [people[0]!.uuid, people[1]!.uuid] },
      });
      expect(added.status, added.text).toBe(200);
      expect(added.body).toEqual({ success: true });
      expect((await s.request("GET", cohortsPath(s, `${cohort.id}/`))).body.count).toBe(3);

      const removed = await s.request(
        "PATCH",
        cohortsPath(s, `${cohort.id}/remove_person_from_static_cohort/`),
        {
          body: { person_id: people[1]!.uuid },
        },
      );
      expect(removed.body).toEqual({ success: true });
      const again = await s.request(
        "PATCH",
        cohortsPath(s, `${cohort.id}/remove_person_from_static_cohort/`),
        {
          body: { person_id: people[1]!.uuid },
        },
      );
      expect(again.status).toBe(404);
      expect(again.body.detail).toBe("Person is not part of the cohort");
      expect((await s.request("GET", cohortsPath(s, `${cohort.id}/`))).body.count).toBe(2);
      const log = await s.request("GET", cohortsPath(s, `${cohort.id}/activity/`));
      expect(log.body.results.map((e: { activity: string }) => e.activity)).toEqual([
        "person_removed_manually",
        "persons_added_manually",
        "created",
      ]);
    });

    it("refuses bad person lists with PostHog's messages, writing nothing", async () => {
      const s = server();
      const cohort = await create({ name: "static", is_static: true });
      const dynamic = await create({ name: "dynamic", filters: criteria(person("plan", "pro")) });
      const cases: Array<[number, unknown, string]> = [
        [cohort.id, {}, "person_ids must be a list"],
        [cohort.id, { person_ids: [] }, "person_ids cannot be empty"],
        [
          cohort.id,
          { person_ids: ["00000000-0000-4000-8000-000000000000"] },
          "No valid users to add to cohort",
        ],
        [cohort.id, { person_ids: ["not-a-uuid"] }, "Must be a valid UUID."],
        [dynamic.id, { person_ids: [people[0]!.uuid] }, "Can only add users to static cohorts"],
      ];
      for (const [id, body, detail] of cases) {
        const response = await expectNothingWritten(s.db, JSON.stringify(body), () =>
          s.request("PATCH", cohortsPath(s, `${id}/add_persons_to_static_cohort/`), { body }),
        );
        expect(response.status, response.text).toBe(400);
        expect(response.body.detail).toBe(detail);
      }
    });

    it("duplicates a dynamic cohort as a static copy of its members now", async () => {
      const s = server();
      const pro = await create({ name: "pro now", filters: criteria(person("plan", "pro")) });
      const copy = await s.request("GET", cohortsPath(s, `${pro.id}/duplicate_as_static_cohort/`));
      expect(copy.status, copy.text).toBe(200);
      expect(copy.body).toMatchObject({ name: "pro now (static copy)", is_static: true, count: 2 });
      const again = await s.request("GET", cohortsPath(s, `${copy.body.id}/duplicate_as_static_cohort/`));
      expect(again.body.detail).toBe("Cannot duplicate a static cohort as a static cohort.");
    });
  });

  describe("list, soft delete, scopes", () => {
    it("lists non-deleted cohorts newest first, filtered, and soft-deletes by PATCH", async () => {
      const s = server();
      const doomed = await create({ name: "Doomed zebra", filters: criteria(person("plan", "free")) });
      const listed = await s.request("GET", cohortsPath(s, "?search=ZEBRA"));
      expect(listed.body).toMatchObject({
        count: 1,
        next: null,
        previous: null,
        results: [{ id: doomed.id }],
      });
      const statics = await s.request("GET", cohortsPath(s, "?type=static&limit=1"));
      expect(statics.body.results.every((c: { is_static: boolean }) => c.is_static)).toBe(true);
      expect(statics.body.next).toContain("offset=1");

      const deleted = await s.request("PATCH", cohortsPath(s, `${doomed.id}/`), { body: { deleted: true } });
      expect(deleted.body.deleted).toBe(true);
      expect((await s.request("GET", cohortsPath(s, "?search=zebra"))).body.count).toBe(0);
      expect((await s.request("GET", cohortsPath(s, `${doomed.id}/`))).body.deleted).toBe(true);
      const hard = await s.request("DELETE", cohortsPath(s, `${doomed.id}/`));
      expect(hard.status).toBe(405);
      expect(hard.text).toBe("");
    });

    it("answers 404 for another project's cohort", async () => {
      const s = server();
      const other = await s.createProject("Elsewhere");
      const cohort = await create({ name: "mine", filters: criteria(person("plan", "pro")) });
      const response = await s.request("GET", `/api/projects/${other}/cohorts/${cohort.id}/`);
      expect(response.status).toBe(404);
    });

    it("needs cohort:write to write and person:read to list persons", async () => {
      const s = server();
      const cohort = await create({ name: "scoped", filters: criteria(person("plan", "pro")) });
      const reader = await s.createKey(["cohort:read"]);
      const write = await s.request("POST", cohortsPath(s), { key: reader, body: { name: "x" } });
      expect(write.status).toBe(403);
      expect(write.body.detail).toBe("API key missing required scope 'cohort:write'");
      const persons = await s.request("GET", cohortsPath(s, `${cohort.id}/persons/`), { key: reader });
      expect(persons.body.detail).toBe("API key missing required scope 'person:read'");
      const both = await s.createKey(["cohort:read", "person:read"]);
      expect((await s.request("GET", cohortsPath(s, `${cohort.id}/persons/`), { key: both })).status).toBe(
        200,
      );
    });
  });

  describe("behavioral cohorts and flags", () => {
    const behavioral = {
      type: "behavioral",
      key: "$pageview",
      value: "performed_event",
      event_type: "events",
      time_value: 7,
      time_interval: "day",
    };

    it("calculates performed_event, stores the criteria it does not calculate, and hides both on request", async () => {
      const s = server();
      // No events in this project's last week: calculated, nobody (behavioral.rest.test.ts has events).
      const cohort = await create({ name: "Viewers", filters: criteria(behavioral) });
      expect(cohort).toMatchObject({ count: 0, cohort_type: "behavioral", is_calculating: false });
      const first = await create({
        name: "First viewers",
        filters: criteria({ ...behavioral, value: "performed_event_first_time" }),
      });
      expect(first).toMatchObject({ count: null, cohort_type: "behavioral" });
      const members = await s.request("GET", cohortsPath(s, `${first.id}/persons/`));
      expect(members.status).toBe(501);
      expect(members.body.detail).toContain("'performed_event_first_time' are not calculated");
      const hidden = await s.request("GET", cohortsPath(s, "?hide_behavioral_cohorts=true&limit=1000"));
      const shown = hidden.body.results.map((c: { id: number }) => c.id);
      expect(shown).not.toContain(cohort.id);
      expect(shown).not.toContain(first.id);
    });

    it("lets flags use cohorts of the project, but not ones using events (behavioral_cohort_found)", async () => {
      const s = server();
      const pro = await create({ name: "Flag pro", filters: criteria(person("plan", "pro")) });
      const viewers = await create({ name: "Flag viewers", filters: criteria(behavioral) });
      const nested = await create({
        name: "Nested",
        filters: criteria({ type: "cohort", key: "id", value: viewers.id }),
      });
      const flag = (key: string, cohortId: number) =>
        s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
          body: {
            key,
            filters: {
              groups: [
                { properties: [{ type: "cohort", key: "id", value: cohortId }], rollout_percentage: 100 },
              ],
            },
          },
        });
      expect((await flag("pro-flag", pro.id)).status).toBe(201);
      const missing = await flag("missing-flag", 999_999);
      expect(missing.body).toMatchObject({
        code: "cohort_does_not_exist",
        detail: "Cohort with id 999999 does not exist",
      });
      const events = await flag("events-flag", nested.id);
      expect(events.body).toMatchObject({
        code: "behavioral_cohort_found",
        detail: "Cohort 'Nested' with filters on events cannot be used in feature flags.",
      });

      // A cohort that an active flag uses may neither be deleted nor gain criteria on events.
      const deletion = await s.request("PATCH", cohortsPath(s, `${pro.id}/`), { body: { deleted: true } });
      expect(deletion.status).toBe(400);
      expect(deletion.body.detail).toBe(
        "This cohort is used in 1 active feature flag(s): pro-flag. Please remove the cohort from these feature flags before deleting it.",
      );
      const gained = await s.request("PATCH", cohortsPath(s, `${pro.id}/`), {
        body: { filters: criteria(behavioral) },
      });
      expect(gained.body).toMatchObject({ code: "behavioral_cohort_found" });
    });
  });
});
