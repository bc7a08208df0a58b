/**
 * Hostile HogQL and formulas through the real server, on both backends (issue 24 items 1 and 5):
 * each answers a 400 in PostHog's shape naming the limit and its value, or a correct result, never
 * a 500; a parser that traps is replaced and the next query answers; a worker busy with an
 * expensive parse holds up neither `/healthz` nor another query (shown by the order the answers
 * come in); endpoint writes and runs meet the same limits.
 *
 * The first server keeps the default limits (its time budget is raised so that a loaded test
 * machine does not turn a legitimate slow parse into a refusal); the second lifts the text limits,
 * so that input reaches the parser and the printer as an attacker's would on the code before them.
 */
import { expect, it } from "vitest";
import { describeEachBackend, type TestResponse, type TestServer } from "../../support/server.js";
import { runHogQL } from "./fixtures.js";

/** `n` copies of `part` joined by `separator`. */
const repeat = (part: string, n: number, separator = "") =>
  Array.from({ length: n }, () => part).join(separator);

/** `SELECT 1 AS a0, a0 + a0 AS a1, …` up to `a<n>`: each alias uses the one before twice. */
const aliasChain = (n: number) =>
  `SELECT 1 AS a0, ${Array.from({ length: n }, (_, i) => `a${i} + a${i} AS a${i + 1}`).join(", ")}`;

/** The refusal `response` carries: 400, PostHog's validation error shape. */
function refusal(response: TestResponse): { code: string; detail: string; attr: string | null } {
  expect(response.status, response.text).toBe(400);
  expect(response.body.type).toBe("validation_error");
  expect(response.text).not.toMatch(/at .*\.ts:\d+|SELECT .* FROM \(SELECT/);
  return { code: response.body.code, detail: response.body.detail, attr: response.body.attr };
}

/** The rows of a query that must succeed. */
async function rows(s: TestServer, query: string): Promise<unknown[][]> {
  const response = await runHogQL(s, query);
  expect(response.status, response.text).toBe(200);
  return response.body.results;
}

const EXPRESSION_DEPTH = {
  code: "max_depth",
  attr: "query",
  detail: expect.stringMatching(
    /^HogQL expressions may nest at most 200 levels deep .*; this query reaches \d+\.$/,
  ),
};
const NESTING = {
  code: "max_depth",
  attr: "query",
  detail: "HogQL queries may nest brackets at most 32 levels deep.",
};
const PRINTED_SIZE = {
  code: "max_size",
  attr: null,
  detail: "The query prints to more than the limit of 1048576 bytes of PostgreSQL (bound values included).",
};
const CTE_LOOP = {
  code: "invalid_input",
  attr: null,
  detail: "Too many CTE expansions (50+). Probably a CTE loop.",
};

describeEachBackend(
  "HogQL limits, at their defaults",
  (server) => {
    it("refuses the attacker's inputs with the limit they pass", async () => {
      const s = server();
      expect(refusal(await runHogQL(s, `SELECT ${repeat("1", 400, " + ")}`))).toEqual(EXPRESSION_DEPTH);
      for (const depth of [150, 500]) {
        expect(refusal(await runHogQL(s, `SELECT ${"(".repeat(depth)}1${")".repeat(depth)}`))).toEqual(
          NESTING,
        );
      }
      // 600 bytes that printed 7.8 MB of SQL: refused while printing, once past the limit.
      expect(refusal(await runHogQL(s, aliasChain(18)))).toEqual(PRINTED_SIZE);
      expect(refusal(await runHogQL(s, "WITH x + 1 AS x SELECT x"))).toEqual(CTE_LOOP);
      expect(refusal(await runHogQL(s, "WITH b AS a, a AS b SELECT a"))).toEqual(CTE_LOOP);
    });

    it("answers the same shapes within the limits", async () => {
      const s = server();
      expect(await rows(s, aliasChain(4))).toEqual([[1, 2, 4, 8, 16]]);
      expect(await rows(s, `SELECT ${"(".repeat(20)}7${")".repeat(20)}`)).toEqual([[7]]);
      expect(await rows(s, `SELECT ${repeat("1", 150, " + ")}`)).toEqual([[150]]);
      expect(await rows(s, "WITH 2 AS x, x + 1 AS y SELECT y * y")).toEqual([[9]]);
    });

    it("refuses deep nesting of every bracket kind", async () => {
      const s = server();
      const nested = {
        parentheses: (n: number) => `SELECT ${"(".repeat(n)}1${")".repeat(n)}`,
        calls: (n: number) => `SELECT ${"abs(".repeat(n)}1${")".repeat(n)}`,
        arrays: (n: number) => `SELECT ${"[".repeat(n)}1${"]".repeat(n)}`,
        braces: (n: number) => `SELECT ${"{".repeat(n)}a${"}".repeat(n)}`,
        subqueries: (n: number) => `SELECT ${"(SELECT ".repeat(n)}1${")".repeat(n)}`,
        cases: (n: number) => `SELECT ${"CASE WHEN true THEN ".repeat(n)}1${" END".repeat(n)}`,
        templates: (n: number) => `SELECT ${"f'{".repeat(n)}1${"}'".repeat(n)}`,
      };
      for (const [kind, text] of Object.entries(nested)) {
        expect(refusal(await runHogQL(s, text(33))), kind).toEqual(NESTING);
      }
      expect(await rows(s, nested.calls(10))).toEqual([[1]]);
      expect(await rows(s, nested.subqueries(10))).toEqual([[1]]);
      expect(await rows(s, nested.cases(10))).toEqual([[1]]);
    });

    it("refuses long chains of every operator, and evaluates shorter ones", async () => {
      const s = server();
      const chains: Array<[string, string, unknown]> = [
        ["+", "1", 50],
        ["-", "1", -48],
        ["*", "1", 1],
        ["/", "1", 1],
        ["%", "7", 0],
        ["||", "'a'", "a".repeat(50)],
        ["AND", "true", true],
        ["OR", "false", false],
        ["??", "1", 1],
      ];
      for (const [operator, operand, value] of chains) {
        expect(
          refusal(await runHogQL(s, `SELECT ${repeat(operand, 400, ` ${operator} `)}`)),
          operator,
        ).toEqual(EXPRESSION_DEPTH);
        expect(await rows(s, `SELECT ${repeat(operand, 50, ` ${operator} `)}`), operator).toEqual([[value]]);
      }
      expect(refusal(await runHogQL(s, `SELECT ${"NOT ".repeat(101)}1`))).toEqual(EXPRESSION_DEPTH);
      expect(refusal(await runHogQL(s, `SELECT 1${"::int".repeat(201)}`))).toEqual(EXPRESSION_DEPTH);
      expect(refusal(await runHogQL(s, `SELECT arrayMap(${"x -> ".repeat(51)}1, [1])`))).toEqual(
        EXPRESSION_DEPTH,
      );
    });

    it("refuses expressions that nest past the limit once column CTEs are expanded", async () => {
      // Each CTE is 80 levels deep, within the text limit; expanded into each other, three are 240.
      const query =
        `WITH ${repeat("1", 80, " + ")} AS c0, c0 + ${repeat("1", 79, " + ")} AS c1, ` +
        `c1 + ${repeat("1", 79, " + ")} AS c2 SELECT c2`;
      expect(refusal(await runHogQL(server(), query))).toEqual({
        code: "max_depth",
        attr: null,
        detail: "HogQL expressions may nest at most 200 levels deep (column CTEs expanded).",
      });
      expect(await rows(server(), query.replace(" SELECT c2", " SELECT c1"))).toEqual([[159]]);
    });

    it("counts joins and long field chains, which the parser also nests", async () => {
      const s = server();
      const joins = (n: number) =>
        `SELECT count() FROM events a0 ${Array.from({ length: n }, (_, i) => `JOIN events a${i + 1} ON 1 = 1`).join(" ")}`;
      expect(refusal(await runHogQL(s, joins(120)))).toEqual(EXPRESSION_DEPTH);
      const commas = `SELECT 1 FROM ${Array.from({ length: 250 }, (_, i) => `events a${i}`).join(", ")}`;
      expect(refusal(await runHogQL(s, commas))).toEqual(EXPRESSION_DEPTH);
      expect(refusal(await runHogQL(s, `SELECT properties${".k".repeat(120)} FROM events`))).toEqual(
        EXPRESSION_DEPTH,
      );
      expect(await rows(s, joins(3))).toEqual([[0]]);
    });

    it("refuses CTE chains that double, and answers long ones that do not", async () => {
      const s = server();
      const doubling = Array.from({ length: 18 }, (_, i) => `c${i} + c${i} AS c${i + 1}`).join(", ");
      expect(refusal(await runHogQL(s, `WITH 1 AS c0, ${doubling} SELECT c18`))).toEqual(PRINTED_SIZE);
      const subqueries = Array.from({ length: 59 }, (_, i) => `c${i + 1} AS (SELECT v + 1 AS v FROM c${i})`);
      expect(await rows(s, `WITH c0 AS (SELECT 1 AS v), ${subqueries.join(", ")} SELECT v FROM c59`)).toEqual(
        [[60]],
      );
    });

    it("answers long IN lists and string literals up to the limits, and refuses past them", async () => {
      const s = server();
      const list = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(", ");
      expect(await rows(s, `SELECT 3000 IN (${list(3000)})`)).toEqual([[true]]);
      expect(await rows(s, `SELECT 3001 IN (${list(3000)})`)).toEqual([[false]]);
      expect(refusal(await runHogQL(s, `SELECT 1 IN (${list(6000)})`))).toEqual({
        code: "max_tokens",
        attr: "query",
        detail: "HogQL queries may hold at most 10000 tokens.",
      });
      expect(await rows(s, `SELECT length('${"x".repeat(60_000)}')`)).toEqual([[60_000]]);
      const long = `SELECT length('${"x".repeat(70_000)}')`;
      expect(refusal(await runHogQL(s, long))).toEqual({
        code: "max_length",
        attr: "query",
        detail: `HogQL queries may be at most 65536 characters long; this one has ${long.length}.`,
      });
    });

    it("refuses formulas too long or too deep, and evaluates the rest", async () => {
      const s = server();
      const trends = (formula: string) =>
        s.request("POST", `/api/projects/${s.projectId}/query/`, {
          body: {
            query: {
              kind: "TrendsQuery",
              series: [
                { kind: "EventsNode", event: "$pageview" },
                { kind: "EventsNode", event: "$pageleave" },
              ],
              dateRange: { date_from: "2020-01-01", date_to: "2020-01-03" },
              trendsFilter: { formula },
            },
          },
        });
      const tooLong = {
        code: "max_length",
        attr: "trendsFilter",
        detail: "Formulas may be at most 1000 characters long.",
      };
      expect(refusal(await trends(`${"(".repeat(5000)}A${")".repeat(5000)}`))).toEqual(tooLong);
      expect(refusal(await trends(repeat("A", 20_000, "+")))).toEqual(tooLong);
      expect(refusal(await trends(`${"(".repeat(33)}A${")".repeat(33)}`))).toEqual({
        code: "max_depth",
        attr: "trendsFilter",
        detail: "Formulas may nest parentheses at most 32 levels deep.",
      });
      const answer = await trends(`${"(".repeat(32)}A + 2 * B${")".repeat(32)} + ${repeat("A", 100, " - ")}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.results[0].data).toEqual([0, 0, 0]);
    });

    it("refuses hostile queries on endpoint create and update, and at run time what only printing finds", async () => {
      const s = server();
      const endpoints = `/api/projects/${s.projectId}/endpoints/`;
      const create = (name: string, query: string) =>
        s.request("POST", endpoints, { body: { name, query: { kind: "HogQLQuery", query } } });
      expect(refusal(await create("chain", `SELECT ${repeat("1", 400, " + ")}`))).toEqual(EXPRESSION_DEPTH);
      expect(refusal(await create("parens", `SELECT ${"(".repeat(500)}1${")".repeat(500)}`))).toEqual(
        NESTING,
      );
      const created = await create("fine", "SELECT 1");
      expect(created.status, created.text).toBe(201);
      const update = await s.request("PATCH", `${endpoints}fine/`, {
        body: { query: { kind: "HogQLQuery", query: `SELECT ${repeat("1", 400, " * ")}` } },
      });
      expect(refusal(update)).toEqual(EXPRESSION_DEPTH);
      // These parse: only printing them finds the loop and the size, at run time (whose engine
      // errors PostHog's run prefixes).
      for (const [name, query, expected] of [
        ["loop", "WITH x + 1 AS x SELECT x", CTE_LOOP],
        ["doubling", aliasChain(18), PRINTED_SIZE],
      ] as const) {
        const made = await s.request("POST", endpoints, {
          body: { name, query: { kind: "HogQLQuery", query }, is_materialized: false },
        });
        expect(made.status, made.text).toBe(201);
        expect(refusal(await s.request("POST", `${endpoints}${name}/run/`, { body: {} }))).toEqual({
          ...expected,
          detail: `Query execution failed: ${expected.detail}`,
        });
      }
    });
  },
  { env: { QUERY_WORKER_TIMEOUT_MS: "60000" } },
);

describeEachBackend(
  "HogQL workers, with the text limits lifted",
  (server) => {
    it("answers a parser trap with a 400, replaces the parser, and answers the next query", async () => {
      const s = server();
      for (let attempt = 0; attempt < 2; attempt++) {
        expect(refusal(await runHogQL(s, `SELECT ${repeat("1", 400, " + ")}`))).toEqual({
          code: "too_complex",
          attr: null,
          detail: "Processing the query failed: the input is too complex.",
        });
        expect(await rows(s, "SELECT 1 + 1")).toEqual([[2]]);
      }
    });

    it("answers /healthz and other queries while a worker parses an expensive query", async () => {
      const s = server();
      const order: string[] = [];
      const track = <T>(name: string, promise: Promise<T>) =>
        promise.then((value) => {
          order.push(name);
          return value;
        });
      // 60 nested calls: the parser needs several seconds, past this server's budget.
      const expensive = track("expensive", runHogQL(s, `SELECT ${"abs(".repeat(60)}1${")".repeat(60)}`));
      // Once the expensive query is in its worker (the parse takes seconds; this waits for 1/10th).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const health = track("healthz", s.request("GET", "/healthz"));
      const normal = track("normal", runHogQL(s, "SELECT 40 + 2"));
      expect((await health).status).toBe(200);
      expect((await normal).body.results).toEqual([[42]]);
      expect(refusal(await expensive)).toEqual({
        code: "max_time",
        attr: null,
        detail: "Processing the query took longer than the limit of 3000 ms.",
      });
      expect(order).toEqual(["healthz", "normal", "expensive"]);
      // The worker that ran out of time was replaced.
      expect(await rows(s, "SELECT 'after'")).toEqual([["after"]]);
    });
  },
  {
    env: {
      HOGQL_MAX_EXPRESSION_DEPTH: "100000",
      HOGQL_MAX_NESTING: "100000",
      HOGQL_MAX_TOKENS: "1000000",
      QUERY_WORKER_TIMEOUT_MS: "3000",
    },
  },
);
