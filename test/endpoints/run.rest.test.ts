/**
 * Running saved-query endpoints over REST (`GET`/`POST :name/run/` on both path families), on PGlite
 * and PostgreSQL, over events captured through `/batch/` into two projects: a HogQL and a Trends
 * endpoint; variables bound as constants (injection through a value or a name changes nothing and
 * returns only the project's rows); unknown variables; versions; inactive endpoints and versions;
 * overrides refused; limit/hasMore; the cache (is_cached, the same last_refresh) against
 * force_blocking and an advanced clock; the execution log and last_execution_times; missing scope;
 * 429 at the per-project cap with a run held in flight by a table lock (PostgreSQL).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { drfDateTime } from "../../src/rest/date-time.js";
import { capture, sendFixture } from "../queries/trends/fixture.js";
import { itWhere } from "../support/it-where.js";
import { describeEachBackend, startTestServer } from "../support/server.js";
import { lockTable, type TableLock } from "../support/table-lock.js";

const FAMILIES = ["environments", "projects"] as const;

/** The clock the server runs on: tests move it forward to age cached results. */
let clock = new Date("2026-11-26T08:00:00Z").getTime();
const now = () => new Date(clock);

const eventVariable = (value?: unknown) => ({
  "var-1": { variableId: "var-1", code_name: "event_name", ...(value === undefined ? {} : { value }) },
});

describeEachBackend(
  "endpoint run over REST",
  (server, backend) => {
    let other: number;
    let counter = 0;
    const fresh = (prefix = "run") => `${prefix}_${++counter}`;

    beforeAll(async () => {
      const s = server();
      other = await s.createProject("Other tenant");
      await sendFixture(s, s.projectId);
      // The second project has far more pageviews, and an event whose name is an injection attempt.
      await capture(
        s,
        other,
        Array.from({ length: 7 }, (_, i) => ({
          event: i === 0 ? "' OR 1=1 --" : "$pageview",
          distinct_id: `o${i}`,
          timestamp: "2020-01-12T12:00:00Z",
          properties: { $browser: "Chrome" },
        })),
      );
    });

    for (const family of FAMILIES) {
      describe(`/api/${family}/:project_id/endpoints/:name/run/`, () => {
        const base = (project = server().projectId) => `/api/${family}/${project}/endpoints`;
        const create = async (body: Record<string, unknown>, project?: number) => {
          const answer = await server().request("POST", `${base(project)}/`, { body });
          expect(answer.status, answer.text).toBe(201);
          return answer.body;
        };
        const run = (
          name: string,
          body?: Record<string, unknown>,
          options: { key?: string; query?: string } = {},
        ) =>
          server().request(
            body === undefined ? "GET" : "POST",
            `${base()}/${name}/run/${options.query ?? ""}`,
            {
              ...(body === undefined ? {} : { body }),
              ...(options.key ? { key: options.key } : {}),
            },
          );
        // Not materialized (a HogQL endpoint is by default): these tests run the query itself;
        // answers from a materialized result are materialization.rest.test.ts's.
        const hogqlEndpoint = async (query: string, variables?: Record<string, unknown>, extra = {}) => {
          const name = fresh();
          await create({
            name,
            query: { kind: "HogQLQuery", query, ...(variables ? { variables } : {}) },
            is_materialized: false,
            ...extra,
          });
          return name;
        };

        it("runs a HogQL endpoint over the project's events only, results first, debug keys removed", async () => {
          const name = await hogqlEndpoint(
            "SELECT event, count() AS c FROM events GROUP BY event ORDER BY event",
          );
          const answer = await run(name);
          expect(answer.status, answer.text).toBe(200);
          expect(Object.keys(answer.body)[0]).toBe("results");
          expect(answer.body.results).toEqual([
            ["$pageleave", 6],
            ["$pageview", 10],
          ]);
          expect(answer.body).toMatchObject({
            columns: ["event", "c"],
            hasMore: false,
            limit: 100,
            offset: 0,
            is_cached: false,
            name,
            endpoint_version: 1,
            endpoint_version_created_at: expect.any(String),
            execution_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          });
          for (const key of ["timings", "hogql", "modifiers", "cache_key"])
            expect(answer.body).not.toHaveProperty(key);
          const debug = await run(name, { debug: true, refresh: "force_blocking" });
          expect(debug.status, debug.text).toBe(200);
          expect(debug.body).toHaveProperty("timings");
          expect(debug.body).toHaveProperty("hogql");
        });

        it("binds variable values as constants: an injection attempt through a value or a name changes nothing", async () => {
          const name = await hogqlEndpoint(
            "SELECT count() FROM events WHERE event = {variables.event_name}",
            eventVariable("$pageleave"),
          );
          expect((await run(name)).body.results).toEqual([[6]]);
          expect((await run(name, { variables: { event_name: "$pageview" } })).body.results).toEqual([[10]]);
          // The other project's event is named exactly like the attempt: still only this project's rows (none).
          for (const attempt of ["' OR 1=1 --", "$pageview' OR '1'='1", "x'); DROP TABLE events; --"]) {
            const answer = await run(name, { variables: { event_name: attempt } });
            expect(answer.status, answer.text).toBe(200);
            expect(answer.body.results).toEqual([[0]]);
          }
          const byName = await run(name, { variables: { "event_name} OR 1=1 --": "x" } });
          expect(byName.status).toBe(400);
          expect(byName.body).toMatchObject({
            detail: "Unknown variable(s): event_name} OR 1=1 --",
            attr: "variables",
          });
          expect(await server().db.event.count()).toBeGreaterThan(0);
        });

        it("refuses unknown variables and answers a missing value with the engine's message", async () => {
          const name = await hogqlEndpoint(
            "SELECT count() FROM events WHERE event = {variables.event_name}",
            eventVariable(),
          );
          const unknown = await run(name, { variables: { zeta: 1, alpha: 2, event_name: "$pageview" } });
          expect(unknown.status).toBe(400);
          expect(unknown.body).toMatchObject({
            type: "validation_error",
            detail: "Unknown variable(s): alpha, zeta",
          });
          const missing = await run(name);
          expect(missing.status).toBe(400);
          expect(missing.body.detail).toBe(
            "Query execution failed: Set a value or a default for each query variable. Missing: event_name.",
          );
          expect((await run(name, { variables: { event_name: "$pageview" } })).body.results).toEqual([[10]]);
        });

        it("runs a Trends endpoint with date and breakdown variables", async () => {
          const name = fresh("trends");
          await create({
            name,
            query: {
              kind: "TrendsQuery",
              series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
              dateRange: { date_from: "2020-01-09", date_to: "2020-01-19" },
              breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
            },
          });
          const all = await run(name);
          expect(all.status, all.text).toBe(200);
          const counts = Object.fromEntries(
            all.body.results.map((r: { breakdown_value: string; count: number }) => [
              r.breakdown_value,
              r.count,
            ]),
          );
          expect(counts).toEqual({ Chrome: 6, Firefox: 2, Edge: 1, Safari: 1 });
          const chrome = await run(name, { variables: { $browser: "Chrome", date_from: "2020-01-15" } });
          expect(chrome.status, chrome.text).toBe(200);
          expect(chrome.body.results.map((r: { breakdown_value: string }) => r.breakdown_value)).toEqual([
            "Chrome",
          ]);
          expect(chrome.body.results[0].count).toBe(3);
          expect(chrome.body.results[0].days[0]).toBe("2020-01-15");
          expect(chrome.body.hasMore).toBe(false);
          const unknown = await run(name, { variables: { $os: "Mac" } });
          expect(unknown.body).toMatchObject({ detail: "Unknown variable(s): $os", attr: "variables" });
          const offset = await run(name, { offset: 1 });
          expect(offset.body).toMatchObject({
            detail: "offset is only supported for HogQL endpoints",
            attr: "offset",
          });
        });

        it("pages a HogQL endpoint with limit and offset, hasMore from the runner", async () => {
          const name = await hogqlEndpoint("SELECT timestamp FROM events ORDER BY timestamp");
          const first = await run(name, { limit: 10 });
          expect(first.body).toMatchObject({ hasMore: true, limit: 10, offset: 0 });
          expect(first.body.results).toHaveLength(10);
          const last = await run(name, { limit: 10, offset: 10 });
          expect(last.body).toMatchObject({ hasMore: false, limit: 10, offset: 10 });
          expect(last.body.results).toHaveLength(6);
          const own = await hogqlEndpoint("SELECT 1 LIMIT 1");
          const ownAnswer = await run(own);
          expect(ownAnswer.body.hasMore).toBe(false);
          expect(ownAnswer.body).not.toHaveProperty("limit");
        });

        it("runs versions, and answers PostHog's version errors", async () => {
          const name = await hogqlEndpoint("SELECT 1");
          const patched = await server().request("PATCH", `${base()}/${name}/`, {
            body: { query: { kind: "HogQLQuery", query: "SELECT 2" } },
          });
          expect(patched.body.current_version).toBe(2);
          expect((await run(name)).body).toMatchObject({ results: [[2]], endpoint_version: 2 });
          expect((await run(name, { version: 1 })).body).toMatchObject({
            results: [[1]],
            endpoint_version: 1,
          });
          expect((await run(name, undefined, { query: "?version=1" })).body.results).toEqual([[1]]);
          const bad = await run(name, undefined, { query: "?version=x" });
          expect({ status: bad.status, body: bad.body }).toEqual({
            status: 400,
            body: { error: "Invalid version parameter: x" },
          });
          const missing = await run(name, { version: 9 });
          expect({ status: missing.status, body: missing.body }).toEqual({
            status: 404,
            body: { error: `Version 9 not found for endpoint '${name}'`, current_version: 2 },
          });
          await server().request("PATCH", `${base()}/${name}/?version=1`, { body: { is_active: false } });
          const inactive = await run(name, { version: 1 });
          expect(inactive.status).toBe(400);
          expect(inactive.body.detail).toBe("Version 1 is inactive and cannot be executed.");
        });

        it("answers 404 for an inactive or unknown endpoint, or another project's", async () => {
          const name = await hogqlEndpoint("SELECT 1", undefined, { is_active: false });
          expect((await run(name)).status).toBe(404);
          expect((await run("no_such_endpoint")).status).toBe(404);
          const theirs = fresh();
          await create({ name: theirs, query: { kind: "HogQLQuery", query: "SELECT 1" } }, other);
          expect((await run(theirs)).status).toBe(404);
        });

        it("refuses overrides, unknown fields, async and direct refresh modes", async () => {
          const name = await hogqlEndpoint("SELECT 1");
          const cases: Array<[Record<string, unknown>, string, string | null]> = [
            [
              { query_override: { query: "SELECT 2" } },
              "query_override is not allowed. Use variables instead.",
              "query_override",
            ],
            [
              { filters_override: { date_from: "-7d" } },
              "filters_override is not allowed. Use variables instead.",
              "filters_override",
            ],
            [{ refresh: "async" }, "Only sync modes are supported (refresh param)", "refresh"],
            [
              { refresh: "direct" },
              expect.stringContaining("'direct' refresh mode is only valid for materialized endpoints."),
              "refresh",
            ],
            [{ refresh: "sometimes" }, '"sometimes" is not a valid choice.', "refresh"],
            [{ surprise: 1 }, "Extra inputs are not permitted", "surprise"],
          ];
          for (const [body, detail, attr] of cases) {
            const answer = await run(name, body);
            expect(answer.status, JSON.stringify(body)).toBe(400);
            expect(answer.body, JSON.stringify(body)).toMatchObject({
              type: "validation_error",
              detail,
              attr,
            });
          }
          for (const refresh of ["cache", "force", "blocking", "force_blocking"]) {
            expect((await run(name, { refresh })).status, refresh).toBe(200);
          }
        });

        it("answers engine errors with 400 Query execution failed", async () => {
          const name = await hogqlEndpoint("SELECT nosuchfunction(1)");
          const answer = await run(name);
          expect(answer.status).toBe(400);
          expect(answer.body.detail).toMatch(/^Query execution failed: .*nosuchfunction/);
        });

        it("serves a fresh result from the cache and recomputes on force_blocking or when stale", async () => {
          const name = await hogqlEndpoint("SELECT count() FROM events", undefined, {
            cache_age_seconds: 300,
          });
          const first = await run(name);
          expect(first.body).toMatchObject({ results: [[16]], is_cached: false });
          clock += 60_000;
          const cached = await run(name, {});
          expect(cached.body).toMatchObject({
            results: [[16]],
            is_cached: true,
            last_refresh: first.body.last_refresh,
          });
          // Other variables, limit or version are other results.
          expect((await run(name, { limit: 5 })).body.is_cached).toBe(false);
          const forced = await run(name, { refresh: "force_blocking" });
          expect(forced.body.is_cached).toBe(false);
          expect(forced.body.last_refresh).not.toBe(first.body.last_refresh);
          expect((await run(name)).body).toMatchObject({
            is_cached: true,
            last_refresh: forced.body.last_refresh,
          });
          clock += 301_000;
          expect((await run(name)).body.is_cached).toBe(false);
        });

        it("logs every run and answers last_execution_times and last_executed_at from it", async () => {
          const s = server();
          const name = await hogqlEndpoint("SELECT 1");
          expect((await run(name)).status).toBe(200);
          expect((await run(name, { surprise: 1 })).status).toBe(400); // refused, not run: not logged
          expect((await run(name, { limit: 0 })).status).toBe(400);
          const failing = await hogqlEndpoint("SELECT nosuchfunction(1)");
          expect((await run(failing)).status).toBe(400);
          const failed = await s.db.endpointExecution.findFirstOrThrow({ where: { endpointName: failing } });
          expect(failed).toMatchObject({
            version: 1,
            rows: null,
            error: expect.stringMatching(/^Query execution failed: /),
          });
          // The log is written before the answer: the next request sees it.
          const rows = await s.db.endpointExecution.findMany({
            where: { endpointName: name },
            orderBy: { executedAt: "asc" },
          });
          expect(rows.map((row) => [row.version, row.rows, row.error, row.viaPersonalApiKey])).toEqual(
            expect.arrayContaining([[1, 1, null, true]]),
          );
          expect(rows).toHaveLength(1);
          const endpoint = await s.db.endpoint.findFirstOrThrow({ where: { name, projectId: s.projectId } });
          expect(endpoint.lastExecutedAt?.toISOString()).toBe(
            rows.find((r) => r.error === null)!.executedAt.toISOString(),
          );
          // Within 30 minutes, a second run does not move it.
          clock += 60_000;
          await run(name, { refresh: "force_blocking" });
          expect(await s.db.endpointExecution.count({ where: { endpointName: name } })).toBe(2);
          const again = await s.db.endpoint.findFirstOrThrow({ where: { id: endpoint.id } });
          expect(again.lastExecutedAt).toEqual(endpoint.lastExecutedAt);
          const times = await s.request("POST", `${base()}/last_execution_times/`, {
            body: { names: [name] },
          });
          const latest = await s.db.endpointExecution.findFirstOrThrow({
            where: { endpointName: name },
            orderBy: { executedAt: "desc" },
          });
          expect(times.body.query_status.results).toEqual([[name, drfDateTime(latest.executedAt)]]);
        });

        it("needs endpoint:read only", async () => {
          const s = server();
          const name = await hogqlEndpoint("SELECT 1");
          const reader = await s.createKey(["endpoint:read"]);
          expect((await run(name, undefined, { key: reader })).status).toBe(200);
          const other = await s.createKey(["query:read"]);
          const refused = await run(name, {}, { key: other });
          expect(refused.status).toBe(403);
          expect(refused.body.detail).toBe("API key missing required scope 'endpoint:read'");
        });
      });
    }

    itWhere(backend === "postgres")(
      "answers 429 when the project's runs in flight reach the cap (a run held by a table lock)",
      async () => {
        const s = await startTestServer("postgres", {
          now,
          env: { QUERY_MAX_CONCURRENT_PER_PROJECT: "1" },
        });
        const base = `/api/projects/${s.projectId}/endpoints`;
        let lock: TableLock | undefined;
        try {
          const created = await s.request("POST", `${base}/`, {
            // Not materialized: a background refresh would wait on the lock too and take the only slot.
            body: {
              name: "held",
              query: { kind: "HogQLQuery", query: "SELECT count() FROM events" },
              is_materialized: false,
            },
          });
          expect(created.status, created.text).toBe(201);
          lock = await lockTable(s.databaseUrl!, "events");
          const held = s.request("POST", `${base}/held/run/`, { body: {} });
          // Wait until the held run's statement waits on the lock: it holds the project's only slot.
          await lock.waitForWaiter();
          const refused = await s.request("POST", `${base}/held/run/`, { body: {} });
          expect({ status: refused.status, body: refused.body }).toEqual({
            status: 429,
            body: {
              type: "throttled_error",
              code: "throttled",
              detail: "Too many concurrent requests. Please try again later.",
              attr: null,
            },
          });
          await lock.release();
          const answer = await held;
          expect(answer.status, answer.text).toBe(200);
          const errors = await s.db.endpointExecution.findMany({ where: { endpointName: "held" } });
          expect(errors.map((row) => row.error).sort()).toEqual(
            ["Too many concurrent requests. Please try again later.", null].sort(),
          );
        } finally {
          await lock?.release();
          await s.close();
        }
      },
    );
  },
  { now },
);
