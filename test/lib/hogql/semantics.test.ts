/**
 * HogQLQuery through the REST door on a real database: ClickHouse's null-safe comparisons, property
 * access and coercion by property definitions, the person join, joins/subqueries/CTEs/UNION ALL,
 * placeholders, PostHog's LIMIT rules, the project guard (a second project's events are always
 * there), injection attempts, unsupported constructs, scopes and the response shape.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { describeEachBackend } from "../../support/server.js";
import { type HogQLFixture, insertEvents, runHogQL, seed } from "./fixtures.js";

describeEachBackend("HogQLQuery", (server) => {
  let fx: HogQLFixture;
  beforeAll(async () => {
    fx = await seed(server());
  });

  const variable = (code: string, value: unknown, isNull = false) => ({
    variables: { "0f0e-uuid": { variableId: "0f0e-uuid", code_name: code, value, isNull } },
  });

  async function rows(query: string, extra: Record<string, unknown> = {}): Promise<unknown[][]> {
    const response = await runHogQL(server(), query, extra);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.results;
  }

  describe("response", () => {
    it("answers PostHog's HogQLQueryResponse with columns, CH-style types, pagination and cache fields", async () => {
      const response = await runHogQL(
        server(),
        "SELECT event, count(), min(timestamp) AS first FROM events GROUP BY event ORDER BY event",
      );
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body.columns).toEqual(["event", "count()", "first"]);
      expect(body.types).toEqual([
        ["event", "String"],
        ["count()", "UInt64"],
        ["first", "Nullable(DateTime64(6, 'Europe/Paris'))"],
      ]);
      expect(body.results).toEqual([
        ["$pageview", 3, "2026-11-20T11:00:00.000+01:00"],
        ["anon", 1, "2026-11-24T16:00:00.000+01:00"],
        ["purchase", 1, "2026-11-23T01:30:00.000+01:00"],
        ["signup", 1, "2026-11-22T13:00:00.000+01:00"],
      ]);
      expect(body).toMatchObject({
        hasMore: false,
        limit: 100,
        offset: 0,
        is_cached: false,
        timezone: "Europe/Paris",
        query_status: null,
      });
      expect(body.hogql).toContain("LIMIT 101");
      expect(typeof body.clickhouse).toBe("string");
      expect(body.cache_key).toMatch(/^cache_/);
      expect(Date.parse(body.next_allowed_client_refresh)).toBeGreaterThan(Date.parse(body.last_refresh));
      expect(body.timings.at(-1).k).toBe(".");
    });

    it("paginates a query without LIMIT (hasMore) and keeps, capped, a query's own LIMIT", async () => {
      for (let i = 0; i < 3; i++) {
        await insertEvents(
          server(),
          fx.project,
          Array.from({ length: 40 }, (_, j) => ({
            event: "bulk",
            distinctId: `bulk-${i}-${j}`,
            timestamp: "2026-11-10T00:00:00Z",
          })),
        );
      }
      const paged = await runHogQL(server(), "SELECT distinct_id FROM events WHERE event = 'bulk'");
      expect(paged.body.results).toHaveLength(100);
      expect(paged.body).toMatchObject({ hasMore: true, limit: 100, offset: 0 });
      const own = await runHogQL(server(), "SELECT distinct_id FROM events WHERE event = 'bulk' LIMIT 110");
      expect(own.body.results).toHaveLength(110);
      expect(own.body.hasMore).toBeUndefined();
      expect(own.body.limit).toBeUndefined();
      const capped = await runHogQL(
        server(),
        "SELECT distinct_id FROM events WHERE event = 'bulk' LIMIT 100000",
      );
      expect(capped.body.hogql).toContain("LIMIT 50000");
      const union = await runHogQL(
        server(),
        "SELECT distinct_id FROM events WHERE event = 'bulk' UNION ALL SELECT distinct_id FROM events WHERE event = 'bulk'",
      );
      expect(union.body.results).toHaveLength(100);
      expect(union.body.hasMore).toBe(true);
      const small = await rows("SELECT count() FROM events WHERE event = 'bulk'");
      expect(small).toEqual([[120]]);
    });
  });

  describe("null-safe comparisons (ClickHouse semantics)", () => {
    it("= < like in are false on NULL; != not like not in are true on NULL; = NULL is IS NULL", async () => {
      const pageviews = "FROM events WHERE event = '$pageview'";
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser = 'Chrome'`)).toEqual([[1]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser != 'Chrome'`)).toEqual([[2]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser < 'Z'`)).toEqual([[2]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser LIKE '%o%'`)).toEqual([[2]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser NOT LIKE '%Chr%'`)).toEqual([
        [2],
      ]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser ILIKE 'chrome'`)).toEqual([[1]]);
      expect(
        await rows(`SELECT count() ${pageviews} AND properties.$browser IN ('Chrome', 'Firefox')`),
      ).toEqual([[2]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser NOT IN ('Chrome')`)).toEqual([
        [2],
      ]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser = NULL`)).toEqual([[1]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser IS NOT NULL`)).toEqual([[2]]);
      expect(await rows(`SELECT count() ${pageviews} AND NOT (properties.$browser = 'Chrome')`)).toEqual([
        [2],
      ]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser =~ '^C'`)).toEqual([[1]]);
      expect(await rows(`SELECT count() ${pageviews} AND properties.$browser !~ '^C'`)).toEqual([[2]]);
    });

    it("BETWEEN is false on NULL and NOT BETWEEN true", async () => {
      expect(
        await rows(
          "SELECT count() FROM events WHERE event = '$pageview' AND toFloat(properties.price) BETWEEN 9 AND 10",
        ),
      ).toEqual([[2]]);
      expect(
        await rows(
          "SELECT count() FROM events WHERE event = '$pageview' AND toFloat(properties.price) NOT BETWEEN 9 AND 9.5",
        ),
      ).toEqual([[2]]);
    });
  });

  describe("properties", () => {
    it("reads properties.x, properties['x'], nested paths and person.properties.x (missing and JSON null are NULL)", async () => {
      expect(
        await rows(
          "SELECT properties.nested.a.b, properties['nested']['a']['b'], properties.plan, properties.missing, person.properties.email, person.id IS NOT NULL FROM events WHERE event = 'signup'",
        ),
      ).toEqual([["deep", "deep", "free", null, "bob@example.com", true]]);
      expect(
        await rows(
          "SELECT properties.n, properties.amount FROM events WHERE event = 'purchase' OR properties.n = '1.5' ORDER BY event",
        ),
      ).toEqual([
        ["1.5", null],
        [null, "30"],
      ]);
    });

    it("compares text unless the property definition says Numeric, then as numbers", async () => {
      expect(await rows("SELECT count() FROM events WHERE properties.price > 5")).toEqual([[2]]);
      await server().db.propertyDefinition.create({
        data: { projectId: fx.project, name: "price", type: 1, propertyType: "Numeric", isNumerical: true },
      });
      expect(
        await rows("SELECT count(), sum(properties.price) FROM events WHERE properties.price > 5"),
      ).toEqual([[2, 19]]);
      const typed = await runHogQL(
        server(),
        "SELECT properties.price FROM events WHERE event = '$pageview' ORDER BY timestamp",
      );
      expect(typed.body.results).toEqual([[10], [9], [null]]);
      expect(typed.body.types).toEqual([["price", "Nullable(Float64)"]]);
    });

    it("exposes $session_id ('' when absent) and hides it from SELECT *", async () => {
      expect(
        await rows("SELECT $session_id FROM events WHERE event IN ('anon', 'signup') ORDER BY event"),
      ).toEqual([["s1"], [""]]);
      const star = await runHogQL(server(), "SELECT * FROM events LIMIT 1");
      expect(star.body.columns).toEqual([
        "uuid",
        "event",
        "properties",
        "timestamp",
        "distinct_id",
        "elements_chain",
        "created_at",
        "person_id",
      ]);
    });
  });

  describe("joins, subqueries, CTEs, unions, windows", () => {
    it("joins persons and person_distinct_ids explicitly (INNER, LEFT, USING)", async () => {
      expect(
        await rows(
          "SELECT e.distinct_id, p.properties.email FROM events e INNER JOIN person_distinct_ids pdi ON pdi.distinct_id = e.distinct_id INNER JOIN persons p ON p.id = pdi.person_id WHERE e.event = 'signup'",
        ),
      ).toEqual([["bob-2", "bob@example.com"]]);
      expect(
        await rows(
          "SELECT count() FROM events e LEFT JOIN person_distinct_ids pdi ON pdi.distinct_id = e.distinct_id WHERE pdi.person_id IS NULL AND e.event != 'bulk'",
        ),
      ).toEqual([[1]]);
      expect(
        await rows(
          "SELECT count() FROM events INNER JOIN person_distinct_ids USING (distinct_id) WHERE event != 'bulk'",
        ),
      ).toEqual([[5]]);
      expect(await rows("SELECT count() FROM persons p FULL OUTER JOIN persons q ON p.id = q.id")).toEqual([
        [2],
      ]);
      expect(await rows("SELECT count() FROM persons a CROSS JOIN persons b")).toEqual([[4]]);
    });

    it("selects from subqueries and CTEs, filters with IN (SELECT ...), and unions", async () => {
      expect(
        await rows("SELECT count() FROM (SELECT distinct_id FROM events WHERE event = '$pageview') AS s"),
      ).toEqual([[3]]);
      expect(
        await rows(
          "WITH pv AS (SELECT distinct_id, count() AS c FROM events WHERE event = '$pageview' GROUP BY distinct_id) SELECT distinct_id, c FROM pv ORDER BY c DESC",
        ),
      ).toEqual([
        ["alice", 2],
        ["bob", 1],
      ]);
      expect(
        await rows(
          "SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids) AND event != 'bulk'",
        ),
      ).toEqual([[5]]);
      expect(await rows("SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2) ORDER BY x DESC")).toEqual([
        [2],
        [1],
      ]);
      expect(await rows("WITH 5 AS five SELECT five + 1")).toEqual([[6]]);
    });

    it("groups, filters groups with HAVING on an alias, orders with NULLs last, DISTINCT, OFFSET", async () => {
      expect(
        await rows(
          "SELECT distinct_id, count() AS c FROM events WHERE event != 'bulk' GROUP BY distinct_id HAVING c > 1 ORDER BY c DESC",
        ),
      ).toEqual([["alice", 3]]);
      expect(
        await rows("SELECT DISTINCT event FROM events WHERE event != 'bulk' ORDER BY event LIMIT 2 OFFSET 1"),
      ).toEqual([["anon"], ["purchase"]]);
      expect(
        await rows("SELECT properties.$browser AS b FROM events WHERE event = '$pageview' ORDER BY b DESC"),
      ).toEqual([["Firefox"], ["Chrome"], [null]]);
    });

    it("runs window functions", async () => {
      expect(
        await rows(
          "SELECT distinct_id, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp) AS n FROM events WHERE event = '$pageview' ORDER BY timestamp",
        ),
      ).toEqual([
        ["alice", 1],
        ["alice", 2],
        ["bob", 1],
      ]);
      expect(
        await rows(
          "SELECT sum(1) OVER w FROM events WHERE event = '$pageview' WINDOW w AS (ORDER BY timestamp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY timestamp",
        ),
      ).toEqual([[1], [2], [3]]);
    });
  });

  describe("placeholders", () => {
    it("binds {variables.x} as constants (strings, numbers, lists, null)", async () => {
      expect(
        await rows(
          "SELECT count() FROM events WHERE event = {variables.name}",
          variable("name", "$pageview"),
        ),
      ).toEqual([[3]]);
      expect(await rows("SELECT {variables.n} + 1", variable("n", 41))).toEqual([[42]]);
      expect(
        await rows(
          "SELECT count() FROM events WHERE event IN {variables.names}",
          variable("names", ["signup", "purchase"]),
        ),
      ).toEqual([[2]]);
      expect(await rows("SELECT {variables.v} IS NULL", variable("v", "x", true))).toEqual([[true]]);
    });

    it("resolves relative date values in the project's timezone", async () => {
      const [today, ago] = (
        (await rows(
          "SELECT toDate(now()), toDate({variables.since})",
          variable("since", "-7d"),
        )) as string[][]
      )[0]!;
      expect(Date.parse(today!) - Date.parse(ago!)).toBe(7 * 86_400_000);
      const start = ((await rows("SELECT {variables.m}", variable("m", "mStart"))) as string[][])[0]![0];
      // PostHog's `mStart` sets the day only: the 1st of this month at the current time of day.
      expect(start).toMatch(/^\d{4}-\d{2}-01T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/);
    });

    it("refuses missing variables with PostHog's message and hint", async () => {
      const missing = await runHogQL(server(), "SELECT {variables.event_nam}", variable("event_name", "x"));
      expect(missing.status).toBe(400);
      expect(missing.body.detail).toBe(
        "Set a value or a default for each query variable. Missing: event_nam. Did you mean: event_name?",
      );
      const noValue = await runHogQL(server(), "SELECT {variables.a}", variable("a", undefined));
      expect(noValue.body.detail).toBe("Set a value or a default for each query variable. Missing: a.");
    });

    it("binds {name} from values and refuses unknown names", async () => {
      expect(await rows("SELECT {x} || '!'", { values: { x: "hi" } })).toEqual([["hi!"]]);
      const unknown = await runHogQL(server(), "SELECT {y}", { values: { x: 1 } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.detail).toBe(
        "Placeholder {y} is not available in this context. You can use the following: {filters}, {x}",
      );
    });

    it("turns {filters} into property, person, cohort-free and date-range conditions (TRUE when empty)", async () => {
      expect(await rows("SELECT count() FROM events WHERE {filters} AND event != 'bulk'")).toEqual([[6]]);
      expect(
        await rows("SELECT count() FROM events WHERE {filters} AND event != 'bulk'", { filters: {} }),
      ).toEqual([[6]]);
      expect(
        await rows("SELECT count() FROM events WHERE {filters}", {
          filters: { properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] },
        }),
      ).toEqual([[2]]);
      expect(
        await rows("SELECT count() FROM events WHERE {filters} AND event != 'bulk'", {
          filters: { properties: [{ key: "email", value: "bob@example.com", type: "person" }] },
        }),
      ).toEqual([[2]]);
      expect(
        await rows("SELECT count() FROM events WHERE {filters} AND event != 'bulk'", {
          filters: {
            dateRange: { date_from: "2026-11-21", date_to: "2026-11-23T00:00:00" },
            filterTestAccounts: true,
          },
        }),
      ).toEqual([[3]]); // Paris midnight to Paris midnight: alice's 23:30Z on the 20th is the 21st there
      // `date_to` is exclusive (posthog/hogql/filters.py: `timestamp < date_to`): the signup at 13:00 sharp is out.
      const signups = (date_to: string) =>
        rows("SELECT count() FROM events WHERE {filters} AND event = 'signup'", {
          filters: { dateRange: { date_from: "2026-11-22", date_to } },
        });
      expect(await signups("2026-11-22T13:00:00")).toEqual([[0]]);
      expect(await signups("2026-11-22T13:00:01")).toEqual([[1]]);
    });
  });

  describe("the project guard and injection attempts", () => {
    it("reads only the project's rows in every table reference, join, subquery and CTE", async () => {
      expect(
        await rows(
          "SELECT count() FROM events WHERE event IN ('secret') OR properties.$browser = 'Leak' OR distinct_id = 'mallory'",
        ),
      ).toEqual([[0]]);
      expect(await rows("SELECT count() FROM persons")).toEqual([[2]]);
      expect(await rows("SELECT count() FROM person_distinct_ids")).toEqual([[3]]);
      expect(
        await rows(
          "SELECT count() FROM events e RIGHT JOIN persons p ON p.id = e.person_id WHERE e.event IS NULL",
        ),
      ).toEqual([[2]]);
      expect(await rows("SELECT count() FROM (SELECT * FROM events) WHERE properties.plan = 'leak'")).toEqual(
        [[0]],
      );
      expect(
        await rows("WITH x AS (SELECT * FROM persons) SELECT count() FROM x WHERE properties.plan = 'leak'"),
      ).toEqual([[0]]);
      expect(
        await rows("SELECT DISTINCT person.properties.email FROM events WHERE distinct_id = 'alice'"),
      ).toEqual([["alice@example.com"]]);
      const other = await runHogQL(server(), "SELECT count() FROM events", {}, fx.other);
      expect(other.body.results).toEqual([[5]]);
    });

    it("keeps variables, values and string escapes as values", async () => {
      const attacks = [
        "' OR 1=1 --",
        "$pageview'; DROP TABLE events; --",
        "x\\' OR '1'='1",
        "$1",
        "') UNION SELECT token FROM events --",
      ];
      for (const attack of attacks) {
        expect(
          await rows("SELECT count() FROM events WHERE event = {variables.e}", variable("e", attack)),
        ).toEqual([[0]]);
        expect(await rows("SELECT count() FROM events WHERE event = {v}", { values: { v: attack } })).toEqual(
          [[0]],
        );
        expect(await rows("SELECT {v}", { values: { v: attack } })).toEqual([[attack]]);
      }
      expect(await rows("SELECT count() FROM events WHERE event = 'x\\' OR 1=1 --'")).toEqual([[0]]);
      expect(await rows("SELECT count() FROM events WHERE event = 'a'' OR ''1''=''1'")).toEqual([[0]]);
    });

    it("keeps quoted identifiers, aliases, comments and semicolons harmless", async () => {
      const quoted = await runHogQL(
        server(),
        "SELECT event AS `x\"; DROP TABLE events; --` FROM events WHERE event = 'signup'",
      );
      expect(quoted.status).toBe(200);
      expect(quoted.body.columns).toEqual(['x"; DROP TABLE events; --']);
      expect(quoted.body.results).toEqual([["signup"]]);
      const field = await runHogQL(server(), 'SELECT `event"; SELECT 1; --` FROM events');
      expect(field.status).toBe(400);
      expect(field.body.detail).toBe('Unable to resolve field: event"; SELECT 1; --');
      const table = await runHogQL(server(), "SELECT 1 FROM `events WHERE 1=1; --`");
      expect(table.body.detail).toBe("Unknown table `events WHERE 1=1; --`.");
      const statements = await runHogQL(server(), "SELECT 1; DELETE FROM events");
      expect(statements.status).toBe(400);
      const comment = await runHogQL(
        server(),
        "SELECT count() FROM events -- WHERE project_id = 2\n WHERE event = 'signup'",
      );
      expect(comment.body.results).toEqual([[1]]);
      expect(await rows("SELECT count() FROM events", {})).not.toEqual([[0]]);
      const after = await runHogQL(server(), "SELECT count() FROM events", {}, fx.other);
      expect(after.body.results).toEqual([[5]]);
    });
  });

  describe("refusals", () => {
    it.each([
      [
        "SELECT arrayMap(x -> x + 1, [1, 2])",
        "Lambdas (x -> ...) are not supported: arrayMap(...) cannot be printed for PostgreSQL.",
      ],
      ["SELECT cont() FROM events", "Unsupported function call 'cont(...)'. Perhaps you meant 'count(...)'?"],
      ["SELECT xyzzyplugh()", "Unsupported function call 'xyzzyplugh(...)'"],
      ["SELECT * FROM sessions", "Unknown table `sessions`."],
      ["SELECT nope FROM events", "Unable to resolve field: nope"],
      [
        "SELECT * FROM events ARRAY JOIN [1] AS x",
        "ARRAY JOIN is not supported: use arrayJoin() in the SELECT list.",
      ],
      [
        "SELECT event FROM events LIMIT 1 BY event",
        "LIMIT BY is not supported: use row_number() OVER (PARTITION BY ...) in a subquery.",
      ],
      ["SELECT * FROM events SAMPLE 0.1", "SAMPLE is not supported."],
      ["SELECT * FROM events FINAL", "FINAL is not supported."],
      ["SELECT (1, 2)", "Tuples are supported only on the right of IN."],
      ["SELECT {a: 1}", "Dictionaries ({key: value}) are not supported."],
      ["SELECT count(1, 2)", "Function 'count' expects 0 to 1 argument(s), got 2."],
      ["SELECT formatDateTime(now(), '%Q%K')", "formatDateTime() does not support the format code '%K'."],
      [
        "SELECT event, distinct_id FROM events e JOIN person_distinct_ids p ON 1 = 1 WHERE distinct_id = 'x'",
        "Ambiguous query. Found multiple sources for field: distinct_id",
      ],
      ["SELEC 1", null],
    ])("%s → 400", async (query, detail) => {
      const response = await runHogQL(server(), query);
      expect(response.status).toBe(400);
      expect(response.body.type).toBe("validation_error");
      if (detail) expect(response.body.detail).toBe(detail);
      else expect(response.body.detail).toMatch(/^Invalid HogQL query: /);
    });

    it.each([
      ["SELECT count() FROM events GROUP BY 1", {}],
      ["SELECT person.nope FROM events", {}],
      ["SELECT properties FROM events LIMIT 1", {}],
      ["SELECT event FROM events e WHERE e.person.properties.email = 'x'", {}],
      ["SELECT toStartOfInterval(timestamp, 5) FROM events", {}],
      ["SELECT [1, 2][1], 9999999999999999999, toDateTime(1700000000)", {}],
      ["SELECT * FROM (SELECT 1 AS a, 2 AS a)", {}],
      ["SELECT quantile(2)(1)", {}],
      ["SELECT count() OVER (), lagInFrame(event) OVER (ORDER BY timestamp) FROM events", {}],
      ["SELECT {filters}", { filters: { properties: [{ key: "a", value: "b", type: "event" }] } }],
      [
        "SELECT 1 FROM events WHERE {filters}",
        { filters: { properties: [{ key: "x", type: "group", group_type_index: 0, value: "a" }] } },
      ],
      ["SELECT 1 FROM events WHERE {filters}", { filters: { dateRange: { date_from: "yesterday-ish" } } }],
      [
        "SELECT 1 FROM events WHERE {filters}",
        { filters: { properties: [{ key: "x", value: "(", operator: "regex", type: "event" }] } },
      ],
      ["SELECT dateDiff('fortnight', now(), now())", {}],
      ["SELECT event FROM events ORDER BY person.properties.email LIMIT 1", {}],
      ["SELECT e.*, arrayJoin(splitByChar(',', 'a,b')) FROM events e LIMIT 1", {}],
      ["SELECT 1 AS x, x + 1 AS y, y * 2", {}],
      [
        "SELECT toDate(timestamp) - toDate('2026-01-01'), timestamp - INTERVAL 1 MONTH FROM events LIMIT 1",
        {},
      ],
      [
        "SELECT count() FROM events WHERE timestamp > '2026-11-21' AND timestamp < now() - INTERVAL 1 DAY",
        {},
      ],
    ])("%s never answers 5xx", async (query, extra) => {
      const response = await runHogQL(server(), query, extra as Record<string, unknown>);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      if (response.status !== 200) expect(response.body.type).toBe("validation_error");
    });

    it("answers database errors of the query as 400 Query execution failed", async () => {
      const response = await runHogQL(server(), "SELECT properties.x = 1 + 'a' FROM events");
      expect(response.status).toBe(400);
      expect(response.body.detail).toMatch(/^Query execution failed: /);
    });
  });

  describe("the REST door", () => {
    it("needs query:read", async () => {
      const key = await server().createKey(["event_definition:read"]);
      const denied = await runHogQL(server(), "SELECT 1", {}, server().projectId, key);
      expect(denied.status).toBe(403);
      const allowed = await runHogQL(
        server(),
        "SELECT 1",
        {},
        server().projectId,
        await server().createKey(["query:read"]),
      );
      expect(allowed.status).toBe(200);
    });

    it("refuses a body without a query and an unknown kind", async () => {
      const none = await server().request("POST", `/api/projects/${server().projectId}/query/`, { body: {} });
      expect(none.status).toBe(400);
      expect(none.body.attr).toBe("query");
      const kind = await server().request("POST", `/api/projects/${server().projectId}/query/`, {
        body: { query: { kind: "FunnelsQuery" } },
      });
      expect(kind.status).toBe(400);
      expect(kind.body.detail).toBe(
        "Unsupported query kind: FunnelsQuery. Supported: HogQLQuery, TrendsQuery, ExperimentQuery.",
      );
    });
  });
});
