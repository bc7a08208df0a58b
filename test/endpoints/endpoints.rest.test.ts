/**
 * Saved-query endpoints over REST, on PGlite and PostgreSQL, on both path families
 * (`/api/environments/:id/endpoints/` and `/api/projects/:id/endpoints/`, decision 3): create with
 * PostHog's validations and messages, list pages and filters, retrieve (`?version=N`), PATCH/PUT with
 * versioning only when the query changes, `?version=N` updates, DELETE, versions, materialization
 * status, last_execution_times from the execution log; missing scopes, other projects' names,
 * activity entries. Materialization's own tests are in materialization.rest.test.ts; running
 * endpoints: run.rest.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { drfDateTime } from "../../src/rest/date-time.js";
import { describeEachBackend, statementsOf, type TestServer } from "../support/server.js";

const FAMILIES = ["environments", "projects"] as const;

/**
 * A HogQL node as PostHog stores and echoes it (`HogQLQuery.model_dump()`): every field of the
 * model, unset ones null.
 */
const storedHogql = (node: Record<string, unknown>) => ({
  explain: null,
  filters: null,
  kind: "HogQLQuery",
  modifiers: null,
  name: null,
  query: null,
  response: null,
  tags: null,
  values: null,
  variables: null,
  version: null,
  ...node,
});

const hogql = (query: string, extra: Record<string, unknown> = {}) => ({
  kind: "HogQLQuery",
  query,
  ...extra,
});
const trends = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }] };

describeEachBackend("saved-query endpoints over REST", (server) => {
  let counter = 0;
  const fresh = (prefix = "ep") => `${prefix}_${++counter}`;
  const activity = (s: TestServer, itemId: string) =>
    s.db.activityLog.findMany({ where: { scope: "Endpoint", itemId }, orderBy: { createdAt: "asc" } });

  for (const family of FAMILIES) {
    describe(`/api/${family}/:project_id/endpoints/`, () => {
      const base = (project = server().projectId) => `/api/${family}/${project}/endpoints`;
      const create = (body: Record<string, unknown>, options: { key?: string; project?: number } = {}) =>
        server().request("POST", `${base(options.project)}/`, { body, key: options.key });
      const created = async (body: Record<string, unknown>) => {
        const answer = await create(body);
        expect(answer.status, answer.text).toBe(201);
        return answer.body;
      };

      it("creates version 1 and answers PostHog's serialized endpoint", async () => {
        const s = server();
        const name = fresh("Weekly-signups");
        const query = hogql("SELECT count() FROM events WHERE event = {variables.event_name}", {
          variables: { "0d6b": { variableId: "0d6b", code_name: "event_name", value: "$pageview" } },
        });
        const body = await created({ name, query, description: "signups", cache_age_seconds: 600 });
        const user = await s.db.user.findUniqueOrThrow({ where: { id: s.userId } });
        const origin = new URL(s.baseUrl).origin;
        expect(body).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name,
          description: "signups",
          // Echoed as PostHog stores it: every field of HogQLQuery, unset ones null (issue 26 A4).
          query: storedHogql(query),
          is_active: true,
          cache_age_seconds: 600,
          endpoint_path: `/api/projects/${s.projectId}/endpoints/${name}/run`,
          url: `${origin}/api/projects/${s.projectId}/endpoints/${name}/run`,
          ui_url: `${origin}/project/${s.projectId}/endpoints/${name}`,
          created_at: expect.any(String),
          updated_at: expect.any(String),
          created_by: expect.objectContaining({ id: s.userId, uuid: user.uuid, email: user.email }),
          // A query with variables is not materialized here (PostHog's older rule; see rules/materialization.ts).
          is_materialized: false,
          current_version: 1,
          versions_count: 1,
          derived_from_insight: null,
          materialization: {
            can_materialize: false,
            reason: expect.stringMatching(/^Variables not supported: /),
          },
        });
        expect((await activity(s, body.id)).map((entry) => entry.activity)).toEqual(["created"]);
        const retrieved = await s.request("GET", `${base()}/${name}/`);
        expect(retrieved.status, retrieved.text).toBe(200);
        expect(retrieved.body).toEqual(body);
        // Without the trailing slash too.
        expect((await s.request("GET", `${base()}/${name}`)).body).toEqual(body);
      });

      it("stores an insight query as given", async () => {
        const body = await created({ name: fresh(), query: trends, derived_from_insight: "abc123" });
        expect(body.query).toEqual(trends);
        expect(body.derived_from_insight).toBe("abc123");
        // Insight queries are not materialized here (PostHog converts them to HogQL first).
        expect(body.is_materialized).toBe(false);
        expect(body.materialization).toEqual({
          can_materialize: false,
          reason: expect.stringMatching(/^Query type 'TrendsQuery' cannot be materialized here: /),
        });
      });

      it("refuses bad input with PostHog's messages and writes nothing", async () => {
        const s = server();
        const cases: Array<[Record<string, unknown>, string, string | null]> = [
          [{ name: fresh() }, "Must specify query", null],
          [{ query: hogql("SELECT 1") }, "Endpoint must have a name.", null],
          [
            { name: "1starts-with-digit", query: hogql("SELECT 1") },
            "Endpoint name must start with a letter, contain only alphanumeric characters, hyphens, or underscores, and be between 1 and 128 characters long.",
            null,
          ],
          [
            { name: "a".repeat(129), query: hogql("SELECT 1") },
            expect.stringContaining("between 1 and 128"),
            null,
          ],
          [
            { name: "has space", query: hogql("SELECT 1") },
            expect.stringContaining("must start with a letter"),
            null,
          ],
          [
            { name: fresh(), query: hogql("SELEC 1 FROM") },
            expect.stringMatching(/^Invalid HogQL query: /),
            "query",
          ],
          [
            { name: fresh(), query: { kind: "EventsQuery" } },
            expect.stringContaining("not supported"),
            "query",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), cache_age_seconds: 299 },
            "Cache age must be between 300 and 86400 seconds.",
            "cache_age_seconds",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), cache_age_seconds: 86401 },
            "Cache age must be between 300 and 86400 seconds.",
            "cache_age_seconds",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), surprise: 1 },
            "Extra inputs are not permitted",
            "surprise",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), sync_frequency: "2min" },
            '"2min" is not a valid choice.',
            "sync_frequency",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), is_active: false, is_materialized: true },
            "Cannot enable materialization on inactive endpoint.",
            "is_materialized",
          ],
          [
            { name: fresh(), query: hogql("SELECT 1"), is_materialized: false, sync_frequency: "1hour" },
            "Cannot set sync_frequency when disabling materialization.",
            "sync_frequency",
          ],
        ];
        const before = await s.db.endpoint.count();
        for (const [body, detail, attr] of cases) {
          const answer = await create(body);
          expect(answer.status, JSON.stringify(body)).toBe(400);
          expect(answer.body, JSON.stringify(body)).toMatchObject({ type: "validation_error", detail, attr });
        }
        expect(await s.db.endpoint.count()).toBe(before);
      });

      it("answers a duplicate name with PostHog's `Failed to create endpoint.`", async () => {
        const name = fresh();
        await created({ name, query: hogql("SELECT 1") });
        const again = await create({ name, query: hogql("SELECT 2") });
        expect(again.status).toBe(400);
        expect(again.body).toMatchObject({ detail: "Failed to create endpoint.", attr: null });
      });

      it("refuses to materialize a query that cannot be, and changes nothing", async () => {
        const s = server();
        const name = fresh();
        const answer = await create({ name, query: trends, is_materialized: true });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ attr: "is_materialized" });
        expect(answer.body.detail).toMatch(/^Cannot materialize endpoint: Query type 'TrendsQuery'/);
        expect(await s.db.endpoint.count({ where: { name } })).toBe(0);
      });

      it("refuses keys without the endpoint scopes, naming them", async () => {
        const s = server();
        const readOnly = await s.createKey(["endpoint:read"]);
        const refused = await create({ name: fresh(), query: hogql("SELECT 1") }, { key: readOnly });
        expect(refused.status).toBe(403);
        expect(refused.body.detail).toBe("API key missing required scope 'endpoint:write'");
        const none = await s.createKey(["feature_flag:read"]);
        const list = await s.request("GET", `${base()}/`, { key: none });
        expect(list.status).toBe(403);
        expect(list.body.detail).toBe("API key missing required scope 'endpoint:read'");
        const times = await s.request("POST", `${base()}/last_execution_times/`, {
          key: none,
          body: { names: [] },
        });
        expect(times.status).toBe(403);
        // endpoint:read is enough for the read actions (decision 2).
        const own = await created({ name: fresh(), query: hogql("SELECT 1") });
        for (const path of [
          `${own.name}/`,
          `${own.name}/materialization_status/`,
          `${own.name}/versions/`,
          `${own.name}/versions/1/`,
        ]) {
          expect((await s.request("GET", `${base()}/${path}`, { key: readOnly })).status, path).toBe(200);
        }
        expect(
          (await s.request("POST", `${base()}/last_execution_times/`, { key: readOnly, body: { names: [] } }))
            .status,
        ).toBe(200);
      });

      it("reaches an endpoint by the longest name it may have (128 characters)", async () => {
        const s = server();
        const name = `${fresh("long")}_`.padEnd(128, "x");
        await created({ name, query: hogql("SELECT 1") });
        for (const path of [`${name}/`, `${name}/versions/`, `${name}/materialization_status/`]) {
          const response = await s.request("GET", `${base()}/${path}`);
          expect(response.status, `${path}: ${response.text}`).toBe(200);
        }
      });

      it("answers another project's endpoint name with 404", async () => {
        const s = server();
        const other = await s.createProject(fresh("other"));
        const name = fresh();
        const answer = await create({ name, query: hogql("SELECT 1") }, { project: other });
        expect(answer.status, answer.text).toBe(201);
        for (const [method, path] of [
          ["GET", `${name}/`],
          ["PATCH", `${name}/`],
          ["DELETE", `${name}/`],
          ["GET", `${name}/versions/`],
          ["GET", `${name}/versions/1/`],
          ["GET", `${name}/materialization_status/`],
        ] as const) {
          const response = await s.request(
            method,
            `${base()}/${path}`,
            method === "PATCH" ? { body: {} } : {},
          );
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(response.body).toEqual({
            type: "invalid_request",
            code: "not_found",
            detail: "Not found.",
            attr: null,
          });
        }
      });

      it("makes a new version only when the query changes (key order aside)", async () => {
        const s = server();
        const name = fresh();
        const first = await created({
          name,
          query: hogql("SELECT 1", { tags: { a: 1, b: 2 } }),
          description: "one",
        });
        const patch = (body: Record<string, unknown>, method = "PATCH") =>
          s.request(method, `${base()}/${name}/`, { body });
        // Same query with its keys in another order: no version.
        const same = await patch({ query: { tags: { b: 2, a: 1 }, query: "SELECT 1", kind: "HogQLQuery" } });
        expect(same.status, same.text).toBe(200);
        expect(same.body).toMatchObject({ current_version: 1, versions_count: 1 });
        // The query as echoed (every field, unset ones null) is the same query: no version.
        const echoed = await patch({ query: same.body.query });
        expect(echoed.body).toMatchObject({ current_version: 1, versions_count: 1 });
        expect(echoed.body.query).toEqual(storedHogql(hogql("SELECT 1", { tags: { a: 1, b: 2 } })));
        // Description, cache age and is_active only: no version.
        const described = await patch({ description: "two", cache_age_seconds: 900, is_active: false });
        expect(described.body).toMatchObject({
          current_version: 1,
          versions_count: 1,
          description: "two",
          cache_age_seconds: 900,
          is_active: false,
        });
        // A new query: version 2, copying description and cache age.
        const changed = await patch({ query: hogql("SELECT 2") }, "PUT");
        expect(changed.status, changed.text).toBe(200);
        expect(changed.body).toMatchObject({
          current_version: 2,
          versions_count: 2,
          query: hogql("SELECT 2"),
          description: "two",
          cache_age_seconds: 900,
          is_materialized: false,
        });
        // Description and cache age apply to every version.
        await patch({ description: "three", cache_age_seconds: null });
        const versions = await s.request("GET", `${base()}/${name}/versions/`);
        expect(versions.status, versions.text).toBe(200);
        expect(versions.body).toMatchObject({ count: 2, next: null, previous: null });
        expect(
          versions.body.results.map((v: Record<string, unknown>) => [
            v.version,
            v.description,
            v.cache_age_seconds,
            v.query,
          ]),
        ).toEqual([
          [2, "three", null, storedHogql(hogql("SELECT 2"))],
          [1, "three", null, storedHogql(hogql("SELECT 1", { tags: { a: 1, b: 2 } }))],
        ]);
        const entries = (await activity(s, first.id)).map((entry) => entry.activity);
        expect(entries).toEqual(["created", "updated", "version_created", "updated", "updated"]);
        // A bad query on update is refused the same way as on create.
        const bad = await patch({ query: hogql("SELECT FROM WHERE") });
        expect(bad.status).toBe(400);
        expect(bad.body.attr).toBe("query");
        const extra = await patch({ nope: true });
        expect(extra.body).toMatchObject({ detail: "Extra inputs are not permitted", attr: "nope" });
      });

      it("retrieves and deactivates one version with ?version=N, with PostHog's version errors", async () => {
        const s = server();
        const name = fresh();
        await created({ name, query: hogql("SELECT 1") });
        await s.request("PATCH", `${base()}/${name}/`, { body: { query: hogql("SELECT 2") } });
        const v1 = await s.request("GET", `${base()}/${name}/?version=1`);
        expect(v1.status, v1.text).toBe(200);
        expect(v1.body).toMatchObject({
          version: 1,
          query: hogql("SELECT 1"),
          is_active: true,
          endpoint_is_active: true,
          current_version: 2,
        });
        expect(v1.body.version_id).toMatch(/^[0-9a-f-]{36}$/);
        const off = await s.request("PATCH", `${base()}/${name}/?version=1`, { body: { is_active: false } });
        expect(off.status, off.text).toBe(200);
        expect(off.body).toMatchObject({ version: 1, is_active: false, endpoint_is_active: true });
        const one = await s.request("GET", `${base()}/${name}/versions/1/`);
        expect(one.body).toMatchObject({ version: 1, is_active: false });
        expect((await s.request("GET", `${base()}/${name}/`)).body).toMatchObject({
          is_active: true,
          current_version: 2,
        });
        const missing = await s.request("GET", `${base()}/${name}/versions/9/`);
        expect({ status: missing.status, body: missing.body }).toEqual({
          status: 404,
          body: { error: "Version 9 not found" },
        });
        const missingQuery = await s.request("PATCH", `${base()}/${name}/?version=9`, {
          body: { is_active: true },
        });
        expect({ status: missingQuery.status, body: missingQuery.body }).toEqual({
          status: 404,
          body: { error: "Version 9 not found" },
        });
        const invalid = await s.request("GET", `${base()}/${name}/?version=x`);
        expect(invalid.status).toBe(400);
        expect(invalid.body).toMatchObject({ detail: "Invalid version parameter: x", attr: "version" });
        expect((await s.request("GET", `${base()}/${name}/versions/abc/`)).status).toBe(404);
      });

      it("lists endpoints in DRF pages with the is_active and created_by filters", async () => {
        const s = server();
        const project = await s.createProject(fresh("listing"));
        const make = (name: string, is_active: boolean) =>
          s.request("POST", `${base(project)}/`, { body: { name, query: hogql("SELECT 1"), is_active } });
        for (const [name, active] of [
          ["a1", true],
          ["a2", false],
          ["a3", true],
        ] as const) {
          expect((await make(name, active)).status).toBe(201);
        }
        const page = await s.request("GET", `${base(project)}/?limit=2`);
        expect(page.status, page.text).toBe(200);
        expect(page.body.count).toBe(3);
        expect(page.body.results.map((e: { name: string }) => e.name)).toEqual(["a3", "a2"]);
        expect(page.body.next).toContain("offset=2");
        const active = await s.request("GET", `${base(project)}/?is_active=true`);
        expect(active.body.results.map((e: { name: string }) => e.name)).toEqual(["a3", "a1"]);
        const mine = await s.request("GET", `${base(project)}/?created_by=${s.userId}`);
        expect(mine.body.count).toBe(3);
        const others = await s.request("GET", `${base(project)}/?created_by=999999`);
        expect(others.body.count).toBe(0);
        const bad = await s.request("GET", `${base(project)}/?created_by=me`);
        expect(bad.status).toBe(400);
        expect(bad.body.attr).toBe("created_by");
      });

      it("reads a page of endpoints in as many statements whatever its length", async () => {
        const s = server();
        const project = await s.createProject(fresh("statements"));
        const make = (name: string) =>
          s.request("POST", `${base(project)}/`, {
            // Not materialized: a background refresh would bump the project's revision mid-test.
            body: { name, query: hogql("SELECT 1"), is_materialized: false },
          });
        // The fewest of three reads: another test's background refresh (the materialization jobs) may
        // change a project's revision between reads, which costs a read its cached project once.
        const fewest = async () => {
          const answers = [];
          for (let i = 0; i < 3; i++) answers.push(await s.request("GET", `${base(project)}/`));
          return { body: answers[0]!.body, statements: Math.min(...answers.map(statementsOf)) };
        };
        expect((await make("one")).status).toBe(201);
        const single = (await fewest()).statements;
        for (const name of ["two", "three", "four", "five"]) expect((await make(name)).status).toBe(201);
        const five = await fewest();
        expect(five.body.count).toBe(5);
        expect(five.statements).toBe(single);
        expect(single).toBeLessThanOrEqual(3);
      });

      it("deletes an endpoint and its versions with 204 and an activity entry", async () => {
        const s = server();
        const body = await created({ name: fresh(), query: hogql("SELECT 1") });
        const deleted = await s.request("DELETE", `${base()}/${body.name}/`);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe("");
        expect((await s.request("GET", `${base()}/${body.name}/`)).status).toBe(404);
        expect(await s.db.endpointVersion.count({ where: { endpointId: body.id } })).toBe(0);
        expect((await activity(s, body.id)).map((entry) => entry.activity)).toEqual(["created", "deleted"]);
      });

      it("reports whether the current query could be materialized, with PostHog's reasons", async () => {
        const s = server();
        const status = async (query: Record<string, unknown>) => {
          const body = await created({ name: fresh(), query });
          const answer = await s.request("GET", `${base()}/${body.name}/materialization_status/`);
          expect(answer.status, answer.text).toBe(200);
          return answer.body;
        };
        // PostHog's newer rule would materialize this by rewriting the predicate; not built here.
        expect(await status(hogql("SELECT count() FROM events WHERE event = {variables.e}"))).toEqual({
          can_materialize: false,
          reason: expect.stringMatching(/^Variables not supported: /),
        });
        expect(
          await status({
            ...trends,
            breakdownFilter: { breakdowns: [{ property: "a" }, { property: "b" }] },
          }),
        ).toEqual({
          can_materialize: false,
          reason: "Multiple breakdowns not supported for materialization",
        });
        const variable = await status(hogql("SELECT {variables.e} FROM events"));
        expect(variable.can_materialize).toBe(false);
        expect(variable.reason).toMatch(/^Variables not supported: /);
      });

      it("answers last_execution_times from the execution log of the last 6 months", async () => {
        const s = server();
        const name = fresh();
        await created({ name, query: hogql("SELECT 1") });
        const other = await s.createProject(fresh("other"));
        const day = 24 * 60 * 60 * 1000;
        const now = Date.now();
        await s.db.endpointExecution.createMany({
          data: [
            {
              projectId: s.projectId,
              endpointName: name,
              executedAt: new Date(now - 2 * day),
              durationMs: 5,
            },
            { projectId: s.projectId, endpointName: name, executedAt: new Date(now - day), durationMs: 5 },
            {
              projectId: s.projectId,
              endpointName: "old",
              executedAt: new Date(now - 200 * day),
              durationMs: 5,
            },
            {
              projectId: s.projectId,
              endpointName: "ui",
              executedAt: new Date(now - day),
              durationMs: 5,
              viaPersonalApiKey: false,
            },
            { projectId: other, endpointName: "elsewhere", executedAt: new Date(now - day), durationMs: 5 },
          ],
        });
        const times = (names: unknown) =>
          s.request("POST", `${base()}/last_execution_times/`, { body: { names } });
        const answer = await times([name, "old", "ui", "elsewhere", "never"]);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.query_status).toMatchObject({
          id: "",
          team_id: s.projectId,
          complete: true,
          error: false,
          query_async: false,
          results: [[name, drfDateTime(new Date(now - day))]],
        });
        // No names: PostHog answers a complete status with results unset (null), without querying.
        const none = await times([]);
        expect(none.body.query_status).toMatchObject({ complete: true, results: null });
        expect(statementsOf(none)).toBe(statementsOf(await times([name])) - 1);
        const invalid = await times(["ok", "not ok"]);
        expect(invalid.status).toBe(400);
        expect(invalid.body.detail).toBe("Invalid endpoint name: not ok");
        expect((await times("x")).status).toBe(400);
        expect((await s.request("POST", `${base()}/last_execution_times/`, { body: {} })).status).toBe(400);
      });
    });
  }

  describe("both families show the same endpoints", () => {
    let name: string;
    beforeAll(async () => {
      name = fresh();
      const s = server();
      const answer = await s.request("POST", `/api/environments/${s.projectId}/endpoints/`, {
        body: { name, query: hogql("SELECT 1") },
      });
      expect(answer.status, answer.text).toBe(201);
    });

    it("reads through /api/projects/ what /api/environments/ created", async () => {
      const s = server();
      const answer = await s.request("GET", `/api/projects/${s.projectId}/endpoints/${name}/`);
      expect(answer.status).toBe(200);
      expect(answer.body.name).toBe(name);
    });
  });
});

describeEachBackend(
  "saved-query endpoints listed with one query worker and no waiting line",
  (server) => {
    it("lists a page of HogQL endpoints: their stored queries are parsed one at a time, and once", async () => {
      const s = server();
      const base = `/api/projects/${s.projectId}/endpoints`;
      for (let i = 0; i < 12; i++) {
        const answer = await s.request("POST", `${base}/`, {
          body: {
            name: `listed_${i}`,
            query: hogql(`SELECT ${i} AS n, count() FROM events`),
            is_materialized: false,
          },
        });
        expect(answer.status, answer.text).toBe(201);
      }
      for (let round = 0; round < 2; round++) {
        const page = await s.request("GET", `${base}/?limit=100`);
        expect(page.status, page.text).toBe(200);
        expect(page.body.results).toHaveLength(12);
      }
    });
  },
  { env: { QUERY_WORKER_THREADS: "1", QUERY_WORKER_MAX_WAITING: "0" } },
);
