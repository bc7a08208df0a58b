/**
 * The printer's SQL run on a real database (PGlite, on a copy of the migrated template): what
 * each construct answers on a few events and persons, with a second project's rows always present,
 * and the ValidationError each unsupported construct gets (in PostHog's words where it has them).
 * No HTTP server: a printed query costs milliseconds, so the mutation run
 * (vitest.mutation.config.ts) can run these against each mutant of the printer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { ValidationError } from "../../../src/core/errors.js";
import type { Database } from "../../../src/db/database.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { prepareFilters } from "../../../src/lib/hogql/filters.js";
import { type HogQLNode, parseHogQLSelect } from "../../../src/lib/hogql/parser.js";
import { replacePlaceholders } from "../../../src/lib/hogql/placeholders.js";
import { type PrintOptions, printedBytes, printHogQL } from "../../../src/lib/hogql/printer.js";
import { runReadOnly } from "../../../src/queries/run-sql.js";
import { bootstrap } from "../../../src/users/bootstrap.js";
import { openTestDatabase } from "../../support/server.js";

let database: Database;
let drop: () => Promise<void>;
let projectId: number;

/** Events of the project (and, for the guard, the same events in a second project). */
const EVENTS = [
  {
    event: "$pageview",
    distinctId: "d1",
    properties: { n: 1, s: "b", url: "/a" },
    at: "2026-11-20T10:00:00Z",
  },
  { event: "$pageview", distinctId: "d1", properties: { n: 2, s: "a" }, at: "2026-11-21T10:00:00Z" },
  {
    event: "$pageview",
    distinctId: "d2",
    properties: { n: 3, nested: { k: "v" } },
    at: "2026-11-22T10:00:00Z",
  },
  { event: "signup", distinctId: "d2", properties: { n: null, flag: "true" }, at: "2026-11-23T10:00:00Z" },
  {
    event: "purchase",
    distinctId: "d3",
    properties: { n: 10, price: "9.5", paid_at: "2026-11-24T09:30:00Z" },
    at: "2026-11-24T10:00:00Z",
  },
];

async function insertAll(project: number): Promise<void> {
  const db = database.prisma;
  const persons = [
    { distinctIds: ["d1"], properties: { email: "ada@example.com", plan: "pro" } },
    { distinctIds: ["d2", "d2b"], properties: { email: "bob@example.com" } },
  ];
  for (const person of persons) {
    const [row] = await db.$queryRaw<
      Array<{ id: bigint }>
    >`INSERT INTO persons (project_id, properties, is_identified)
      VALUES (${project}, ${JSON.stringify(person.properties)}::jsonb, true) RETURNING id`;
    for (const distinctId of person.distinctIds) {
      await db.$executeRaw`INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
        VALUES (${project}, ${distinctId}, ${row!.id})`;
    }
  }
  for (const e of EVENTS) {
    await db.$executeRaw`INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
      VALUES (${project}, gen_random_uuid(), ${e.event}, ${e.distinctId}, ${JSON.stringify(e.properties)}::jsonb, ${e.at}::timestamptz)`;
  }
}

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase("pglite"));
  const boot = await bootstrap(database.prisma, {
    email: "ada@example.com",
    organizationName: "Acme",
    projectName: "Web",
  });
  projectId = boot.project_id;
  const first = await database.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
  const other = await database.prisma.project.create({
    data: { name: "Other", organizationId: first.organizationId, apiToken: "phc_other_project" },
  });
  await insertAll(projectId);
  await insertAll(other.id);
});

afterAll(async () => {
  await database.close();
  await drop();
});

const NO_TYPES = { event: new Map<string, string>(), person: new Map<string, string>() };
const { hogqlMaxExpressionDepth, hogqlMaxPrintedBytes } = loadConfig({}).limits;
/** The configured defaults. */
const LIMITS = { maxDepth: hogqlMaxExpressionDepth, maxPrintedBytes: hogqlMaxPrintedBytes };

/** Prints `ast` (parsed, or made by hand) for the project, in UTC, without property types unless given, within the default limits. */
function print(ast: HogQLNode, options: Partial<PrintOptions> = {}) {
  return printHogQL(ast, { projectId, timezone: "UTC", propertyTypes: NO_TYPES, limits: LIMITS, ...options });
}

/** Prints `ast` (parsed, or made by hand) for the project (UTC) and runs it: its rows as arrays and its columns. */
async function runAst(ast: HogQLNode, options: Partial<PrintOptions> = {}) {
  const printed = print(ast, options);
  const rows = await runReadOnly<Record<string, unknown>>(database.prisma, printed.sql, {
    timeoutMs: 30_000,
    timezone: "UTC",
  });
  return {
    rows: rows.map((row) => printed.columns.map((_, i) => plain(row[`_${i}`]))),
    columns: printed.columns,
  };
}

/** Prints `query` for the project (UTC) and runs it: its rows as arrays and its columns. */
async function run(query: string, options: Partial<PrintOptions> = {}) {
  return runAst(await parseHogQLSelect(query), options);
}

/** Database values as plain JSON-like values (bigint → number, Decimal → number). */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Prisma.Decimal) return value.toNumber();
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

async function rowsOf(query: string, options: Partial<PrintOptions> = {}): Promise<unknown[][]> {
  return (await run(query, options)).rows;
}

/** The message printing `ast` (parsed, or made by hand) is refused with. */
function refusalOf(ast: HogQLNode): string {
  try {
    print(ast);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`printed: ${JSON.stringify(ast)}`);
}

/** The message printing `query` is refused with. */
async function refusal(query: string): Promise<string> {
  return refusalOf(await parseHogQLSelect(query));
}

describe("the project guard and plain SELECTs", () => {
  it("reads the project's rows only, in every table", async () => {
    expect(await rowsOf("SELECT count() FROM events")).toEqual([[5]]);
    expect(await rowsOf("SELECT count() FROM persons")).toEqual([[2]]);
    expect(await rowsOf("SELECT distinct_id FROM person_distinct_ids ORDER BY distinct_id")).toEqual([
      ["d1"],
      ["d2"],
      ["d2b"],
    ]);
  });

  it("DISTINCT, WHERE, GROUP BY, HAVING, ORDER BY both ways, LIMIT and OFFSET", async () => {
    expect(await rowsOf("SELECT DISTINCT event FROM events ORDER BY event")).toEqual([
      ["$pageview"],
      ["purchase"],
      ["signup"],
    ]);
    expect(
      await rowsOf(
        "SELECT event, count() AS c FROM events WHERE distinct_id != 'd3' GROUP BY event HAVING c > 1 ORDER BY c DESC",
      ),
    ).toEqual([["$pageview", 3]]);
    expect(
      await rowsOf("SELECT properties.n FROM events ORDER BY toFloat(properties.n) DESC LIMIT 2 OFFSET 1"),
    ).toEqual([["3"], ["2"]]);
    // ClickHouse sorts NULLs last in both directions.
    expect(await rowsOf("SELECT properties.n FROM events ORDER BY toFloat(properties.n) ASC")).toEqual([
      ["1"],
      ["2"],
      ["3"],
      ["10"],
      [null],
    ]);
    expect(
      await rowsOf("SELECT properties.n FROM events ORDER BY toFloat(properties.n) DESC LIMIT 1 + 1"),
    ).toEqual([["10"], ["3"]]);
  });

  it("PREWHERE and WHERE both apply", async () => {
    expect(
      await rowsOf("SELECT count() FROM events PREWHERE event = '$pageview' WHERE distinct_id = 'd1'"),
    ).toEqual([[2]]);
  });

  it("names its columns by HogQL's text or alias, with their types", async () => {
    const { columns, rows } = await run(
      "SELECT event, 1, 2.5, 'x', true, NULL, timestamp AS at, uuid, person_id FROM events WHERE properties.n = '1'",
    );
    expect(columns).toEqual([
      { name: "event", type: "String", nullable: false },
      { name: "1", type: "Int64", nullable: false },
      { name: "2.5", type: "Float64", nullable: false },
      { name: "'x'", type: "String", nullable: false },
      { name: "true", type: "Bool", nullable: false },
      { name: "NULL", type: "Null", nullable: true },
      { name: "at", type: "DateTime", nullable: false },
      { name: "uuid", type: "UUID", nullable: false },
      { name: "person_id", type: "UUID", nullable: true },
    ]);
    expect(rows[0]!.slice(0, 7)).toEqual([
      "$pageview",
      1,
      2.5,
      "x",
      true,
      null,
      "2026-11-20T10:00:00.000000Z",
    ]);
  });
});

describe("SELECT *", () => {
  it("lists the visible columns of every table, or of one", async () => {
    const { columns } = await run("SELECT * FROM events LIMIT 1");
    expect(columns.map((c) => c.name)).toEqual([
      "uuid",
      "event",
      "properties",
      "timestamp",
      "distinct_id",
      "elements_chain",
      "created_at",
      "person_id",
    ]);
    const both = await run(
      "SELECT p.* FROM events e JOIN person_distinct_ids p ON p.distinct_id = e.distinct_id WHERE e.event = 'signup'",
    );
    expect(both.columns.map((c) => c.name)).toEqual(["distinct_id", "person_id"]);
    expect(both.rows[0]![0]).toBe("d2");
    const all = await run("SELECT * FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id LIMIT 1");
    expect(all.columns.map((c) => c.name)).toEqual([
      "id",
      "created_at",
      "properties",
      "is_identified",
      "distinct_id",
      "person_id",
    ]);
  });

  it("needs a FROM, and a known table alias", async () => {
    expect(await refusal("SELECT *")).toBe("SELECT * needs a FROM.");
    expect(await refusal("SELECT x.* FROM events")).toBe("Unable to resolve field: x.*");
    expect(await refusal("SELECT count(*) + * FROM events")).toBe(
      "* is supported only in the SELECT list and in count(*).",
    );
  });
});

describe("set operations and CTEs", () => {
  it("UNION ALL keeps duplicates, UNION DISTINCT, INTERSECT and EXCEPT as PostgreSQL's", async () => {
    const a = "SELECT event FROM events WHERE distinct_id = 'd1'";
    const b = "SELECT event FROM events WHERE distinct_id = 'd2'";
    expect(await rowsOf(`SELECT count() FROM (${a} UNION ALL ${b})`)).toEqual([[4]]);
    expect(await rowsOf(`SELECT count() FROM (${a} UNION DISTINCT ${b})`)).toEqual([[2]]);
    expect(await rowsOf(`SELECT event FROM (${a} INTERSECT ${b})`)).toEqual([["$pageview"]]);
    expect(await rowsOf(`SELECT event FROM (${b} EXCEPT ${a})`)).toEqual([["signup"]]);
  });

  it("a set query at the top names its columns by the first part, and refuses parts of other widths", async () => {
    const { columns, rows } = await run("SELECT 1 AS one UNION ALL SELECT 2");
    expect(columns.map((c) => c.name)).toEqual(["one"]);
    expect(rows).toEqual([[1], [2]]);
    expect(await refusal("SELECT 1 UNION ALL SELECT 1, 2")).toBe(
      "Each part of UNION ALL must select the same number of columns.",
    );
  });

  it("reads subquery CTEs, column CTEs, and CTEs inside CTEs", async () => {
    expect(
      await rowsOf(
        "WITH p AS (SELECT distinct_id FROM events WHERE event = '$pageview'), q AS (SELECT distinct_id FROM p WHERE distinct_id = 'd2') SELECT count() FROM q",
      ),
    ).toEqual([[1]]);
    expect(
      await rowsOf("WITH 3 AS three SELECT count() FROM events WHERE toFloat(properties.n) = three"),
    ).toEqual([[1]]);
    expect(await refusal("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r")).toBe(
      "Recursive CTEs are not supported.",
    );
  });
});

describe("joins", () => {
  const join = (type: string) =>
    `SELECT e.distinct_id, p.distinct_id FROM (SELECT DISTINCT distinct_id FROM events) e ${type} person_distinct_ids p ON p.distinct_id = e.distinct_id ORDER BY e.distinct_id, p.distinct_id`;

  it("prints each join type as its PostgreSQL join", async () => {
    const inner = [
      ["d1", "d1"],
      ["d2", "d2"],
    ];
    expect(await rowsOf(join("JOIN"))).toEqual(inner);
    expect(await rowsOf(join("INNER JOIN"))).toEqual(inner);
    const left = [...inner, ["d3", null]];
    expect(await rowsOf(join("LEFT JOIN"))).toEqual(left);
    expect(await rowsOf(join("LEFT OUTER JOIN"))).toEqual(left);
    const right = [...inner, [null, "d2b"]];
    expect(await rowsOf(join("RIGHT JOIN"))).toEqual(right);
    expect(await rowsOf(join("RIGHT OUTER JOIN"))).toEqual(right);
    const full = [...inner, ["d3", null], [null, "d2b"]];
    expect(await rowsOf(join("FULL JOIN"))).toEqual(full);
    expect(await rowsOf(join("FULL OUTER JOIN"))).toEqual(full);
    expect(
      await rowsOf(
        "SELECT count() FROM (SELECT DISTINCT distinct_id FROM events) e CROSS JOIN person_distinct_ids p",
      ),
    ).toEqual([[9]]);
  });

  it("USING names columns; the lazy person join reaches the event's person", async () => {
    expect(
      await rowsOf(
        "SELECT count() FROM events e JOIN person_distinct_ids p USING distinct_id WHERE e.event = '$pageview'",
      ),
    ).toEqual([[3]]);
    expect(
      await rowsOf("SELECT count() FROM events e JOIN person_distinct_ids p USING (distinct_id, person_id)"),
    ).toEqual([[0]]);
    expect(
      await rowsOf(
        "SELECT distinct_id, person.properties.email FROM events WHERE event != 'purchase' ORDER BY timestamp",
      ),
    ).toEqual([
      ["d1", "ada@example.com"],
      ["d1", "ada@example.com"],
      ["d2", "bob@example.com"],
      ["d2", "bob@example.com"],
    ]);
    expect(await rowsOf("SELECT e.person.properties.plan FROM events e WHERE e.distinct_id = 'd3'")).toEqual([
      [null],
    ]);
  });

  it("refuses joins it cannot print", async () => {
    expect(await refusal("SELECT 1 FROM events e JOIN persons p USING properties.x")).toBe(
      "USING takes column names.",
    );
    expect(await refusal("SELECT 1 FROM events e JOIN events e ON 1 = 1")).toBe("Duplicate table alias: e.");
    expect(await refusal("SELECT 1 FROM nothing")).toBe("Unknown table `nothing`.");
    expect(await refusal("SELECT 1 FROM events SAMPLE 0.1")).toBe("SAMPLE is not supported.");
    expect(await refusal("SELECT 1 FROM events FINAL")).toBe("FINAL is not supported.");
    expect(await refusal("SELECT 1 FROM numbers(10)")).toBe("Table functions are not supported.");
  });
});

describe("fields", () => {
  it("resolve select aliases, refuse ambiguous and unknown fields", async () => {
    expect(
      await rowsOf("SELECT toFloat(properties.n) AS n, n * 2 AS m FROM events WHERE m > 5 ORDER BY n"),
    ).toEqual([
      [3, 6],
      [10, 20],
    ]);
    expect(await refusal("SELECT distinct_id FROM events e JOIN person_distinct_ids p ON 1 = 1")).toBe(
      "Ambiguous query. Found multiple sources for field: distinct_id",
    );
    expect(await refusal("SELECT nope FROM events")).toBe("Unable to resolve field: nope");
    expect(await refusal("SELECT event.x FROM events")).toBe("Unable to resolve field: event.x");
    expect(await refusal("SELECT e.nope FROM events e")).toBe("Unable to resolve field: e.nope");
  });

  it("read nested properties, and type them by their definitions only at the top level", async () => {
    expect(
      await rowsOf(
        "SELECT properties.nested.k, properties['nested']['k'] FROM events WHERE event = '$pageview' AND distinct_id = 'd2'",
      ),
    ).toEqual([["v", "v"]]);
    const propertyTypes = {
      event: new Map([
        ["price", "Numeric"],
        ["flag", "Boolean"],
      ]),
      person: new Map([["email", "Numeric"]]),
    };
    expect(
      await rowsOf(
        "SELECT properties.price + 1, properties.flag, person.properties.email FROM events WHERE event IN ('purchase', 'signup') ORDER BY event",
        { propertyTypes },
      ),
    ).toEqual([
      [10.5, null, null],
      [null, true, null],
    ]);
  });
});

describe("comparisons", () => {
  const count = async (where: string) => (await rowsOf(`SELECT count() FROM events WHERE ${where}`))[0]![0];

  it("are ClickHouse's null-safe comparisons", async () => {
    expect(await count("properties.n = '1'")).toBe(1);
    expect(await count("properties.n != '1'")).toBe(4);
    expect(await count("properties.n = NULL")).toBe(1);
    expect(await count("properties.n != NULL")).toBe(4);
    expect(await count("properties.missing < 'z'")).toBe(0);
    expect(await count("properties.missing <= 'z'")).toBe(0);
    expect(await count("properties.missing > ''")).toBe(0);
    expect(await count("properties.missing >= ''")).toBe(0);
    expect(await count("properties.s like 'a%'")).toBe(1);
    expect(await count("properties.s ilike 'A%'")).toBe(1);
    expect(await count("properties.s not like 'a%'")).toBe(4);
    expect(await count("properties.s not ilike 'A%'")).toBe(4);
    expect(await count("properties.s =~ '^b'")).toBe(1);
    expect(await count("properties.s =~* '^B'")).toBe(1);
    expect(await count("properties.s !~ '^b'")).toBe(4);
    expect(await count("properties.s !~* '^B'")).toBe(4);
    expect(await count("properties.s in ('a', 'b')")).toBe(2);
    expect(await count("properties.s not in ('a')")).toBe(4);
    expect(await count("event in (SELECT 'signup')")).toBe(1);
    expect(await count("event not in (SELECT 'signup')")).toBe(4);
    expect(await count("event in ['signup', 'purchase']")).toBe(2);
  });

  it("compare numbers with numbers, text with numbers as text, and dates with text as dates", async () => {
    expect(await count("toFloat(properties.n) > 2")).toBe(2);
    expect(await count("toFloat(properties.n) >= 2")).toBe(3);
    expect(await count("toFloat(properties.n) < 2")).toBe(1);
    expect(await count("toFloat(properties.n) <= 2")).toBe(2);
    expect(await count("properties.n = 10")).toBe(1);
    expect(await count("timestamp >= '2026-11-23'")).toBe(2);
    expect(await count("'2026-11-23' <= timestamp")).toBe(2);
    expect(await count("toString(uuid) = toString(uuid)")).toBe(5);
    expect(await count("equals(event, 'signup')")).toBe(1);
    expect(await count("notEquals(event, 'signup')")).toBe(4);
    expect(await count("less(toFloat(properties.n), 2)")).toBe(1);
    expect(await count("lessOrEquals(toFloat(properties.n), 2)")).toBe(2);
    expect(await count("greater(toFloat(properties.n), 2)")).toBe(2);
    expect(await count("greaterOrEquals(toFloat(properties.n), 2)")).toBe(3);
    expect(await count("notLike(event, 's%')")).toBe(4);
    expect(await count("notILike(event, 'S%')")).toBe(4);
    expect(await count("in(event, ('signup'))")).toBe(1);
    expect(await count("notIn(event, ('signup'))")).toBe(4);
  });

  it("BETWEEN and NOT BETWEEN, false and true for NULL", async () => {
    expect(await count("toFloat(properties.n) BETWEEN 2 AND 3")).toBe(2);
    expect(await count("toFloat(properties.n) NOT BETWEEN 2 AND 3")).toBe(3);
    expect(await count("timestamp BETWEEN '2026-11-21' AND '2026-11-23'")).toBe(2);
  });

  it("AND, OR and NOT, as operators and as functions", async () => {
    expect(await count("event = '$pageview' AND distinct_id = 'd1'")).toBe(2);
    expect(await count("event = 'signup' OR distinct_id = 'd3'")).toBe(2);
    expect(await count("NOT (event = 'signup')")).toBe(4);
    expect(await count("and(event = '$pageview', distinct_id = 'd2')")).toBe(1);
    expect(await count("or(event = 'signup')")).toBe(1);
    expect(await count("not(event = 'signup')")).toBe(4);
    expect(await refusal("SELECT 1 FROM events WHERE properties.a <=> 1")).toMatch(/./);
  });
});

describe("arithmetic and values", () => {
  it("divides as floats (NULL by zero), keeps integer types, and counts dates", async () => {
    const { rows, columns } = await run(
      "SELECT 7 / 2, 7 / 0, 7 % 3, 7 % 0, 7 + 2, 7 - 2, 7 * 2, 1.5 * 2, divide(1, 4), plus(1, 1), minus(3, 1), multiply(2, 3), modulo(7, 4)",
    );
    expect(rows).toEqual([[3.5, null, 1, null, 9, 5, 14, 3, 0.25, 2, 2, 6, 3]]);
    expect(columns.map((c) => c.type)).toEqual([
      "Float64",
      "Float64",
      "Int64",
      "Int64",
      "Int64",
      "Int64",
      "Int64",
      "Float64",
      "Float64",
      "Int64",
      "Int64",
      "Int64",
      "Int64",
    ]);
    const dates = await run(
      "SELECT toDate('2026-11-20') - toDate('2026-11-10'), toDate('2026-11-20') - toDate('2026-11-19'), toDate('2026-11-20') + toIntervalDay(1), '2026-11-20T00:00:00Z' + toIntervalHour(1), toDate('2026-11-20') + (toIntervalDay(1) + toIntervalDay(1)), timestamp - toIntervalDay(1) FROM events WHERE event = 'signup'",
    );
    expect(dates.columns.map((c) => c.type)).toEqual([
      "Int64",
      "Int64",
      "DateTime",
      "DateTime",
      "DateTime",
      "DateTime",
    ]);
    expect(dates.rows[0]![0]).toBe(10);
    expect(dates.rows[0]![3]).toBe("2026-11-20T01:00:00.000000Z");
    expect(dates.rows[0]![4]).toBe("2026-11-22T00:00:00.000000Z");
    expect(dates.rows[0]![5]).toBe("2026-11-22T10:00:00.000000Z");
  });

  it("arrays, array access from 1 and from the end, casts and numeric strings", async () => {
    expect(
      await rowsOf("SELECT [1, 2, 3][1], [1, 2, 3][-1], [], ['a'], 5::String, '7'::Int, '1.5'::float"),
    ).toEqual([[1, 3, [], ["a"], "5", 7, 1.5]]);
    expect(await refusal("SELECT 1::Nope")).toBe("Unsupported type cast: ::nope.");
    expect(await refusal("SELECT 'a'[1]")).toBe(
      "Array access needs an array and an integer index, or properties and a constant key.",
    );
  });

  it("a subquery as a value selects one column", async () => {
    expect(await rowsOf("SELECT (SELECT count() FROM events)")).toEqual([[5]]);
    expect(await refusal("SELECT (SELECT 1, 2)")).toBe("A subquery used as a value must select one column.");
    expect(await refusal("SELECT 1 FROM events WHERE event IN (SELECT 1, 2)")).toBe(
      "A subquery after IN must select one column.",
    );
  });
});

describe("window functions", () => {
  it("rank, number, aggregate and shift rows over partitions and frames", async () => {
    const { rows, columns } = await run(
      `SELECT distinct_id, row_number() OVER w, rank() OVER w, dense_rank() OVER w, count() OVER w,
         sum(toFloat(properties.n)) OVER (PARTITION BY distinct_id ORDER BY timestamp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
         avg(toFloat(properties.n)) OVER (PARTITION BY distinct_id),
         lagInFrame(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
         max(timestamp) OVER (ORDER BY timestamp ROWS 1 PRECEDING)
       FROM events WINDOW w AS (PARTITION BY distinct_id ORDER BY timestamp) ORDER BY timestamp`,
    );
    expect(rows.map((row) => row.slice(0, 8))).toEqual([
      ["d1", 1, 1, 1, 1, 1, 1.5, null],
      ["d1", 2, 2, 2, 2, 3, 1.5, "$pageview"],
      ["d2", 1, 1, 1, 1, 3, 3, null],
      ["d2", 2, 2, 2, 2, 3, 3, "$pageview"],
      ["d3", 1, 1, 1, 1, 10, 10, null],
    ]);
    expect(columns.slice(1).map((c) => c.type)).toEqual([
      "UInt64",
      "UInt64",
      "UInt64",
      "UInt64",
      "Float64",
      "Float64",
      "String",
      "DateTime",
    ]);
  });

  it("refuse unknown window functions, parameters and odd frames", async () => {
    expect(await refusal("SELECT nope() OVER ()")).toBe("Unsupported window function 'nope'.");
    // Names of Object.prototype are no table entries.
    expect(await refusal("SELECT toString() OVER ()")).toBe("Unsupported window function 'toString'.");
    expect(await refusal("SELECT lag(1)(event) OVER () FROM events")).toBe(
      "Window function 'lag' takes no parameters.",
    );
    expect(await refusal("SELECT sum(1) OVER (ROWS BETWEEN 1.5 PRECEDING AND CURRENT ROW)")).toBe(
      "Window frame offsets must be non-negative integers.",
    );
  });
});

describe("functions", () => {
  it("count(*), and the errors of calls", async () => {
    expect(await rowsOf("SELECT count(*), count(properties.n) FROM events")).toEqual([[5, 4]]);
    expect(await refusal("SELECT cout() FROM events")).toBe(
      "Unsupported function call 'cout(...)'. Perhaps you meant 'count(...)'?",
    );
    expect(await refusal("SELECT zzzzzzzz()")).toBe("Unsupported function call 'zzzzzzzz(...)'");
    // toString is no comparison (Object.prototype's toString is not COMPARE_CALLS' entry).
    expect(await refusal("SELECT toString(1, 2)")).toBe("Function 'toString' expects 1 argument(s), got 2.");
    expect(await refusal("SELECT 1::constructor")).toBe("Unsupported type cast: ::constructor.");
    expect(await refusal("SELECT now(1)")).toBe("Function 'now' expects 0 argument(s), got 1.");
    expect(await refusal("SELECT toString(1)(2)")).toBe("Function 'toString' takes no parameters.");
    expect(await refusal("SELECT arrayMap(x -> x, [1])")).toBe(
      "Lambdas (x -> ...) are not supported: arrayMap(...) cannot be printed for PostgreSQL.",
    );
    expect(await refusal("SELECT x -> x")).toBe(
      "Lambdas (x -> ...) are not supported: rewrite with arrayJoin() or a subquery.",
    );
  });
});

describe("constructs ClickHouse has and PostgreSQL does not", () => {
  it("are refused, naming the construct", async () => {
    expect(await refusal("SELECT 1 FROM events ARRAY JOIN [1] AS x")).toBe(
      "ARRAY JOIN is not supported: use arrayJoin() in the SELECT list.",
    );
    expect(await refusal("SELECT event FROM events LIMIT 1 BY event")).toBe(
      "LIMIT BY is not supported: use row_number() OVER (PARTITION BY ...) in a subquery.",
    );
    expect(await refusal("SELECT event FROM events LIMIT 1 WITH TIES")).toBe(
      "LIMIT ... WITH TIES is not supported.",
    );
    expect(await refusal("SELECT (1, 2)")).toBe("Tuples are supported only on the right of IN.");
    expect(await refusal("SELECT {'a': 1}")).toBe("Dictionaries ({key: value}) are not supported.");
    expect(await refusal("SELECT {x}")).toBe("Unresolved placeholder: {x}");
  });
});

/** `query` with its `{name}` placeholders replaced by `values`, printed and run. */
async function rowsWith(query: string, values: Record<string, unknown>, options: Partial<PrintOptions> = {}) {
  return runAst(replacePlaceholders(await parseHogQLSelect(query), { values }), options);
}

describe("comparisons between types", () => {
  const one = async (query: string) => (await rowsOf(query))[0];

  it("compare a number beside text as text, on either side, in lists, subqueries and BETWEEN", async () => {
    expect(
      await one("SELECT '1' = 1, 1 = '1', 1 < '2', '2' > 1, 2 BETWEEN '1' AND '3', 1 IN 1, 2 IN 1"),
    ).toEqual([true, true, true, true, true, true, false]);
    expect(
      await one(
        "SELECT 10 = properties.n, properties.n = 10, properties.n IN (SELECT 10), 10 IN (SELECT properties.n FROM events), 1 IN (SELECT '1') FROM events WHERE event = 'purchase'",
      ),
    ).toEqual([true, true, true, true, true]);
  });

  it("compare booleans beside numbers as `<> 0`, and booleans, UUIDs and JSON beside text as text", async () => {
    const persons = async (where: string) =>
      (await rowsOf(`SELECT count() FROM persons WHERE ${where}`))[0]![0];
    expect(await persons("is_identified = 1")).toBe(2);
    expect(await persons("1 = is_identified")).toBe(2);
    expect(await persons("is_identified = 0")).toBe(0);
    expect(await persons("is_identified = 'true'")).toBe(2);
    expect(await persons("'true' = is_identified")).toBe(2);
    expect(await persons(`properties = '{"email": "bob@example.com"}'`)).toBe(1);
    expect(await persons(`'{"email": "bob@example.com"}' = properties`)).toBe(1);
    const events = async (where: string) =>
      (await rowsOf(`SELECT count() FROM events WHERE ${where}`))[0]![0];
    expect(await events("toString(uuid) = uuid")).toBe(5);
    expect(await events("uuid = toString(uuid)")).toBe(5);
    expect(await events("toString(uuid) IN (SELECT uuid FROM events)")).toBe(5);
    expect(await events("uuid IN (SELECT toString(uuid) FROM events)")).toBe(5);
    expect(await events("toDate(timestamp) = '2026-11-20'")).toBe(1);
    expect(await events("'2026-11-20' = toDate(timestamp)")).toBe(1);
  });

  it("answer a value, not NULL, when a side is NULL or missing", async () => {
    const { rows, columns } = await run(
      "SELECT NULL = 1, 1 = NULL, NULL = NULL, NULL != NULL, 1 < NULL, 1 != NULL, NULL < 1",
    );
    expect(rows).toEqual([[false, false, true, false, false, true, false]]);
    expect(columns.every((column) => column.type === "Bool" && !column.nullable)).toBe(true);
    const missing = await run(
      `SELECT properties.missing = 'a', properties.missing != 'a', properties.missing like 'a',
         properties.missing not like 'a', properties.missing ilike 'a', properties.missing not ilike 'a',
         properties.missing =~ 'a', properties.missing !~ 'a', properties.missing =~* 'a', properties.missing !~* 'a',
         properties.missing in ('a'), properties.missing not in ('a'),
         properties.missing in splitByChar(',', 'a,b'), properties.missing not in splitByChar(',', 'a,b'),
         properties.missing in (SELECT 'a'), properties.missing not in (SELECT 'a')
       FROM events WHERE event = 'signup'`,
    );
    // Each operator beside its negation: false, then true.
    expect(missing.rows).toEqual([Array.from({ length: 8 }, () => [false, true]).flat()]);
    expect(missing.columns.every((column) => column.type === "Bool" && !column.nullable)).toBe(true);
  });

  it("IN an array value is ANY of it, NOT IN is ALL; an empty list holds nothing", async () => {
    expect(
      await one(
        "SELECT 'a' IN splitByChar(',', 'a,b'), 'c' IN splitByChar(',', 'a,b'), 'a' NOT IN splitByChar(',', 'a,b'), 'c' NOT IN splitByChar(',', 'a,b')",
      ),
    ).toEqual([true, false, false, true]);
    expect((await rowsWith("SELECT 'a' IN {list}, 'a' NOT IN {list}", { list: [] })).rows).toEqual([
      [false, true],
    ]);
    expect((await rowsWith("SELECT 'a' IN {list}, 'c' NOT IN {list}", { list: ["a", "b"] })).rows).toEqual([
      [true, true],
    ]);
  });

  it("refuse operators PostgreSQL cannot print", async () => {
    expect(await refusal("SELECT 1 WHERE 1 in cohort 3")).toBe("Unsupported comparison operator: in cohort.");
    expect(await refusal("SELECT 1 <=> 2")).toBe("Unsupported HogQL construct: IsDistinctFrom.");
  });
});

describe("arithmetic between types", () => {
  it("moves dates by days and date-times by seconds; differences are days, or seconds as intervals", async () => {
    const { rows, columns } = await run(
      `SELECT toString(toDate('2026-11-20') + 1), toString(toDate('2026-11-20') - 1), toString(1 + toDate('2026-11-20')),
         toDateTime('2026-11-20T00:00:00Z') + 90, toDateTime('2026-11-20T00:00:00Z') - 1.5, 60 + toDateTime('2026-11-20T00:00:00Z'),
         toIntervalDay(1) + toIntervalDay(1), toIntervalHour(1) * 3, timestamp - toDateTime('2026-11-23T09:00:00Z'),
         toDate('2026-11-20') - toDate('2026-11-10'), toDate('2026-11-20') + 1, timestamp + 1
       FROM events WHERE event = 'signup'`,
    );
    expect(rows[0]!.slice(0, 10)).toEqual([
      "2026-11-21",
      "2026-11-19",
      "2026-11-21",
      "2026-11-20T00:01:30.000000Z",
      "2026-11-19T23:59:58.500000Z",
      "2026-11-20T00:01:00.000000Z",
      172_800,
      10_800,
      3_600,
      10,
    ]);
    expect(columns.map((column) => column.type)).toEqual([
      "String",
      "String",
      "String",
      "DateTime",
      "DateTime",
      "DateTime",
      "Interval",
      "Interval",
      "Interval",
      "Int64",
      "Date",
      "DateTime",
    ]);
    // A date read from text can be NULL; a column and an interval of a constant cannot.
    expect(columns.slice(3).map((column) => column.nullable)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it("takes `%` of floats as ClickHouse does, NULL by zero", async () => {
    const { rows, columns } = await run("SELECT 7.5 % 2, -7 % 3, 7 % 0, 7.5 % 0, 7 % 2.5");
    expect(rows).toEqual([[1.5, -1, null, null, 2]]);
    expect(columns.map((column) => column.type)).toEqual(["Float64", "Int64", "Int64", "Float64", "Float64"]);
  });

  it("is nullable when a side is", async () => {
    const { columns } = await run(
      "SELECT toFloat(properties.n) + 1, 1 + 1, 1 - toFloat(properties.n), 2 * 3 FROM events LIMIT 1",
    );
    expect(columns.map((column) => column.nullable)).toEqual([true, false, true, false]);
  });
});

describe("property types", () => {
  it("read a top-level property as its definition's type: Numeric, Boolean, DateTime", async () => {
    const propertyTypes = {
      event: new Map([
        ["n", "Numeric"],
        ["paid_at", "DateTime"],
        ["flag", "Boolean"],
        ["s", "Boolean"],
      ]),
      person: new Map<string, string>(),
    };
    const { rows, columns } = await run(
      "SELECT properties.n, properties.paid_at, properties.paid_at + toIntervalHour(1), properties.flag, properties.s FROM events WHERE event IN ('purchase', 'signup') ORDER BY event",
      { propertyTypes },
    );
    expect(rows).toEqual([
      [10, "2026-11-24T09:30:00.000000Z", "2026-11-24T10:30:00.000000Z", null, null],
      [null, null, null, true, null],
    ]);
    expect(columns.map((column) => [column.type, column.nullable])).toEqual([
      ["Float64", true],
      ["DateTime", true],
      ["DateTime", true],
      ["Bool", true],
      ["Bool", true],
    ]);
  });

  it("type persons' properties by person definitions and events' by event definitions", async () => {
    const propertyTypes = {
      event: new Map([["plan", "Numeric"]]),
      person: new Map([["email", "Numeric"]]),
    };
    const persons = await run(
      "SELECT properties.email, properties.plan FROM persons ORDER BY properties.email",
      {
        propertyTypes,
      },
    );
    expect(persons.rows).toEqual([
      [null, "pro"],
      [null, null],
    ]);
    expect(persons.columns.map((column) => column.type)).toEqual(["Float64", "String"]);
    const joined = await run(
      "SELECT person.properties.plan, person.properties.email FROM events WHERE distinct_id = 'd1' LIMIT 1",
      { propertyTypes },
    );
    expect(joined.rows).toEqual([["pro", null]]);
    expect(joined.columns.map((column) => column.type)).toEqual(["String", "Float64"]);
  });

  it("leave a subquery's properties untyped", async () => {
    const propertyTypes = { event: new Map([["n", "Numeric"]]), person: new Map<string, string>() };
    const { rows, columns } = await run(
      "SELECT p.properties.n FROM (SELECT properties FROM events WHERE event = 'purchase') p",
      { propertyTypes },
    );
    expect(rows).toEqual([["10"]]);
    expect(columns[0]!.type).toBe("String");
  });
});

describe("{filters} and relative dates", () => {
  const bob = [{ key: "email", type: "person", operator: "exact", value: "bob@example.com" }];
  const filtersOf = (filters: Parameters<typeof prepareFilters>[2]) =>
    prepareFilters(database.prisma, projectId, filters, new Date());

  it("{filters} is TRUE without filters, on any table", async () => {
    expect((await rowsWith("SELECT count() FROM events WHERE {filters}", {})).rows).toEqual([[5]]);
    expect((await rowsWith("SELECT count() FROM persons WHERE {filters}", {})).rows).toEqual([[2]]);
  });

  it("{filters} applies property filters and the date range to the events table of the SELECT", async () => {
    const filters = await filtersOf({ properties: bob });
    const count = async (query: string) => (await rowsWith(query, {}, { filters })).rows;
    expect(await count("SELECT count() FROM events WHERE {filters}")).toEqual([[2]]);
    expect(await count("SELECT count() FROM events WHERE {filters} AND {filters}")).toEqual([[2]]);
    expect(
      await count(
        "SELECT count() FROM person_distinct_ids p JOIN events e ON e.distinct_id = p.distinct_id WHERE {filters}",
      ),
    ).toEqual([[2]]);
    expect(
      await count("SELECT DISTINCT person.properties.email FROM events WHERE {filters} AND event = 'signup'"),
    ).toEqual([["bob@example.com"]]);
    const dated = await filtersOf({
      dateRange: { date_from: "2026-11-22", date_to: "2026-11-23T23:59:59Z" },
    });
    expect(
      (await rowsWith("SELECT count() FROM events WHERE {filters}", {}, { filters: dated })).rows,
    ).toEqual([[2]]);
    const ast = replacePlaceholders(
      await parseHogQLSelect("SELECT count() FROM persons WHERE {filters}"),
      {},
    );
    expect(() => print(ast, { filters })).toThrow(
      "The {filters} placeholder needs the events table in FROM.",
    );
  });

  it("a relative date is an instant of the run, the time of day kept (PostHog's relative_date_parse)", async () => {
    const { rows, columns } = await rowsWith(
      `SELECT {d} < now() - toIntervalDay(6), {d} > now() - toIntervalDay(8), {d} = now() - toIntervalDay(7),
         {h} < now() - toIntervalHour(23), {h} > now() - toIntervalHour(25), toStartOfMonth({m}) = toStartOfMonth(now()),
         toDayOfMonth({m}) = 1 AND toHour({m}) = toHour(now()), {e} = {m} - toIntervalDay(1)`,
      { d: "-7d", h: "-24h", m: "mStart", e: "-1mEnd" },
    );
    expect(rows).toEqual([[true, true, true, true, true, true, true, true]]);
    expect(columns.every((column) => column.type === "Bool" && !column.nullable)).toBe(true);
    const types = await rowsWith("SELECT {d}", { d: "-7d" });
    expect(types.columns).toEqual([{ name: "toDateTime('-7d')", type: "DateTime", nullable: false }]);
  });
});

describe("window functions over PostgreSQL's signatures", () => {
  it("rank into buckets, pick the n-th row, shift by offsets and frame by range", async () => {
    const { rows, columns } = await run(
      `SELECT ntile(2) OVER w, percent_rank() OVER w, cume_dist() OVER w, first_value(event) OVER w,
         nth_value(event, 2) OVER w, lead(event) OVER w, lag(event, 2) OVER w, min(timestamp) OVER (),
         count(event) OVER (), sum(1) OVER (ORDER BY timestamp RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
         count() OVER (ORDER BY timestamp DESC ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING),
         sum(1) OVER (ROWS UNBOUNDED PRECEDING)
       FROM events WINDOW w AS (ORDER BY timestamp) ORDER BY timestamp`,
    );
    const first = "2026-11-20T10:00:00.000000Z";
    expect(rows).toEqual([
      [1, 0, 0.2, "$pageview", null, "$pageview", null, first, 5, 5, 1, 1],
      [1, 0.25, 0.4, "$pageview", "$pageview", "$pageview", null, first, 5, 4, 2, 2],
      [1, 0.5, 0.6, "$pageview", "$pageview", "signup", "$pageview", first, 5, 3, 2, 3],
      [2, 0.75, 0.8, "$pageview", "$pageview", "purchase", "$pageview", first, 5, 2, 2, 4],
      [2, 1, 1, "$pageview", "$pageview", null, "$pageview", first, 5, 1, 2, 5],
    ]);
    expect(columns.map((column) => column.type)).toEqual([
      "UInt64",
      "Float64",
      "Float64",
      "String",
      "String",
      "String",
      "String",
      "DateTime",
      "UInt64",
      "Int64",
      "UInt64",
      "Int64",
    ]);
  });
});

describe("more fields, joins and calls", () => {
  it("a table's own name qualifies its fields; `person` is a field of events only", async () => {
    expect(await rowsOf("SELECT events.event FROM events WHERE event = 'signup'")).toEqual([["signup"]]);
    const { columns } = await run("SELECT person.properties, person.id FROM events LIMIT 1");
    expect(columns).toEqual([
      { name: "properties", type: "JSON", nullable: true },
      { name: "id", type: "UUID", nullable: true },
    ]);
    expect(await refusal("SELECT person.id FROM persons")).toBe("Unable to resolve field: person.id");
    expect(await refusal("SELECT person FROM events")).toBe("Unable to resolve field: person");
    expect(await refusal("WITH 3 AS three SELECT three.x")).toBe("Unable to resolve field: three.x");
  });

  it("refuses joins without constraints and ClickHouse's join kinds", async () => {
    expect(await refusal("SELECT 1 FROM events e JOIN persons p")).toBe(
      "INNER JOIN needs an ON or USING constraint.",
    );
    expect(await refusal("SELECT 1 FROM events e LEFT SEMI JOIN persons p ON 1 = 1")).toBe(
      "Unsupported join type: LEFT SEMI JOIN.",
    );
    expect(await refusal("SELECT 1 FROM events e ANY LEFT JOIN persons p ON 1 = 1")).toBe(
      "Unsupported join type: LEFT ANY JOIN.",
    );
  });

  it("counts distinct values, and refuses FILTER, parameters a function lacks and tuple access", async () => {
    expect(await rowsOf("SELECT count(DISTINCT distinct_id), count(distinct_id) FROM events")).toEqual([
      [3, 5],
    ]);
    expect(await rowsOf("SELECT quantile(0.5)(toFloat(properties.n)) FROM events")).toEqual([[2.5]]);
    expect(await refusal("SELECT count() FILTER (WHERE 1) FROM events")).toBe(
      "count(...) FILTER (WHERE ...) is not supported: use the -If form (countIf, sumIf).",
    );
    expect(await refusal("SELECT quantile(toFloat(properties.n)) FROM events")).toBe(
      "Function 'quantile' takes 1 parameter(s).",
    );
    expect(await refusal("SELECT quantile(0.5, 0.6)(toFloat(properties.n)) FROM events")).toBe(
      "Function 'quantile' takes 1 parameter(s).",
    );
    expect(await refusal("SELECT (1, 2).1")).toBe("Tuple access (.1) is not supported.");
  });
});

describe("ASTs the parser does not make", () => {
  const constant = (value: unknown): HogQLNode => ({ node: "Constant", value });
  const selectOf = (...select: HogQLNode[]): HogQLNode => ({ node: "SelectQuery", select });

  it("are refused by name, as the printer's input is any HogQL AST", () => {
    expect(refusalOf(constant(1))).toBe("Unsupported HogQL construct: Constant where a query was expected.");
    expect(refusalOf(selectOf())).toBe("A SELECT needs at least one column.");
    expect(
      refusalOf(selectOf({ node: "ArithmeticOperation", op: "^", left: constant(2), right: constant(3) })),
    ).toBe("Unsupported arithmetic operator: ^.");
    expect(refusalOf(selectOf(constant(Number.POSITIVE_INFINITY)))).toBe("Numbers must be finite.");
    expect(refusalOf(selectOf(constant({ a: 1 })))).toBe("Unsupported constant.");
    expect(refusalOf(selectOf({ node: "Field", chain: [] }))).toBe("Empty field.");
    expect(refusalOf(selectOf({ node: "Nope" }))).toBe("Unsupported HogQL construct: Nope.");
    expect(refusalOf({ ...selectOf(constant(1)), select_from: constant(1) })).toBe(
      "Unsupported HogQL construct: Constant in FROM.",
    );
    expect(refusalOf({ ...selectOf(constant(1)), order_by: [constant(1)] })).toBe(
      "Unsupported HogQL construct: Constant in ORDER BY.",
    );
    expect(
      refusalOf({
        node: "SelectSetQuery",
        initial_select_query: selectOf(constant(1)),
        subsequent_select_queries: [
          { node: "SelectSetNode", set_operator: "MINUS", select_query: selectOf(constant(2)) },
        ],
      }),
    ).toBe("Unsupported set operator: MINUS.");
    const frame = (frame_start: HogQLNode) =>
      selectOf({
        node: "WindowFunction",
        name: "sum",
        exprs: [constant(1)],
        over_expr: { node: "WindowExpr", frame_method: "ROWS", frame_start },
      });
    expect(refusalOf(frame({ node: "WindowFrameExpr", frame_type: "SOMETIMES" }))).toBe(
      "Unsupported window frame: SOMETIMES.",
    );
    expect(refusalOf(frame({ node: "WindowFrameExpr", frame_type: "PRECEDING", frame_value: -1 }))).toBe(
      "Window frame offsets must be non-negative integers.",
    );
  });

  it("print empty AND as TRUE and empty OR as FALSE", async () => {
    const { rows } = await runAst(selectOf({ node: "And", exprs: [] }, { node: "Or", exprs: [] }));
    expect(rows).toEqual([[true, false]]);
  });
});

describe("what the printer reports of each expression", () => {
  it("its type, and whether it can be NULL", async () => {
    const propertyTypes = { event: new Map([["flag", "Boolean"]]), person: new Map<string, string>() };
    const { rows, columns } = await run(
      `SELECT properties.flag AND true, true AND true, properties.flag OR false, NOT properties.flag, NOT true,
         1 BETWEEN 0 AND 2, [], [1], (SELECT 1), toString(12345678901234567890), 12345678901234567890,
         [1, 2][1], properties.n = NULL, 7 / 2, 7 % 2, '2026-11-24T10:00:00Z' - timestamp
       FROM events WHERE event = 'purchase'`,
      { propertyTypes },
    );
    expect(rows[0]!.slice(0, 10)).toEqual([
      null,
      true,
      null,
      null,
      false,
      true,
      [],
      [1],
      1,
      "12345678901234567890",
    ]);
    expect(rows[0]!.slice(11)).toEqual([1, false, 3.5, 1, 0]);
    expect(columns.map((column) => [column.type, column.nullable])).toEqual([
      ["Bool", true],
      ["Bool", false],
      ["Bool", true],
      ["Bool", true],
      ["Bool", false],
      ["Bool", false],
      ["Array", false],
      ["Array", false],
      ["Int64", true],
      ["String", false],
      ["Float64", false],
      ["Unknown", true],
      ["Bool", false],
      ["Float64", true],
      ["Int64", true],
      ["Interval", true],
    ]);
  });

  it("a missing list item makes IN false and NOT IN true, as a missing left side does", async () => {
    expect(
      await rowsOf(
        "SELECT 'b' NOT IN ('a', properties.missing), 'b' IN ('a', properties.missing), 'a' IN ('a', properties.missing) FROM events LIMIT 1",
      ),
    ).toEqual([[true, false, true]]);
  });

  it("text operators read numbers as text", async () => {
    expect(await rowsOf("SELECT 10 like '1%', 5 =~ '^5$', 5 not ilike '6'")).toEqual([[true, true, true]]);
  });
});

describe("more SELECT clauses", () => {
  it("PREWHERE alone filters; GROUP BY and WINDOW take several", async () => {
    expect(await rowsOf("SELECT count() FROM events PREWHERE event = 'signup'")).toEqual([[1]]);
    expect(
      await rowsOf(
        "SELECT event, distinct_id, count() FROM events GROUP BY event, distinct_id ORDER BY event, distinct_id",
      ),
    ).toEqual([
      ["$pageview", "d1", 2],
      ["$pageview", "d2", 1],
      ["purchase", "d3", 1],
      ["signup", "d2", 1],
    ]);
    expect(
      await rowsOf(
        "SELECT row_number() OVER a, row_number() OVER b FROM events WINDOW a AS (ORDER BY timestamp), b AS (ORDER BY timestamp DESC) ORDER BY timestamp",
      ),
    ).toEqual([
      [1, 5],
      [2, 4],
      [3, 3],
      [4, 2],
      [5, 1],
    ]);
  });

  it("a RANGE frame groups ties, a ROWS frame does not; an offset may be 0", async () => {
    expect(
      await rowsOf(
        `SELECT event, sum(1) OVER (ORDER BY event RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           sum(1) OVER (ORDER BY event, timestamp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           sum(1) OVER (ORDER BY timestamp ROWS BETWEEN 0 PRECEDING AND CURRENT ROW)
         FROM events ORDER BY event, timestamp`,
      ),
    ).toEqual([
      ["$pageview", 3, 1, 1],
      ["$pageview", 3, 2, 1],
      ["$pageview", 3, 3, 1],
      ["purchase", 4, 4, 1],
      ["signup", 5, 5, 1],
    ]);
  });

  it("an alias inside an expression is its expression, visible to the rest of the query as PostHog's", async () => {
    expect(await rowsOf("SELECT (event AS e) = 'signup' FROM events WHERE event = 'signup'")).toEqual([
      [true],
    ]);
    // Defined anywhere (inside an expression, in WHERE), seen by every clause printed after it.
    expect(
      await rowsOf(
        "SELECT (event AS e) = 'signup' AS is_signup, e FROM events WHERE e IN ('signup', 'purchase') ORDER BY is_signup, e",
      ),
    ).toEqual([
      [false, "purchase"],
      [true, "signup"],
    ]);
    expect(
      await rowsOf("SELECT count() FROM events WHERE (event AS e) = 'signup' GROUP BY e HAVING e <> ''"),
    ).toEqual([[1]]);
    // Before its definition, a name is a column's; an alias may read the column it shadows.
    expect(await refusal("SELECT e, event AS e FROM events")).toBe("Unable to resolve field: e");
    expect(
      await rowsOf("SELECT event AS event, event || '!' AS shout FROM events WHERE event = 'signup'"),
    ).toEqual([["signup", "signup!"]]);
    // Never redefined, wherever the second one is (posthog/hogql/resolver.py `visit_alias`).
    for (const query of [
      "SELECT event AS e, distinct_id AS e FROM events",
      "SELECT event AS e FROM events WHERE (distinct_id AS e) = 'd1'",
    ]) {
      expect(await refusal(query)).toBe("Cannot redefine an alias with the name: e");
    }
    // The check comes before the expression, as PostHog's: an outer alias may repeat an inner one's
    // name, and stands for the whole.
    expect(await rowsOf("SELECT (event AS e) = 'signup' AS e FROM events WHERE e")).toEqual([[true]]);
    // A subquery has aliases of its own.
    expect(await rowsOf("SELECT 1 AS e, (SELECT 2 AS e), x.e FROM (SELECT 3 AS e) x")).toEqual([[1, 2, 3]]);
  });

  it("quotes output names, and lets unnamed subqueries stand side by side", async () => {
    const { rows, columns } = await run(`SELECT x."a""b" FROM (SELECT 1 AS "a""b") x`);
    expect(rows).toEqual([[1]]);
    expect(columns.map((column) => column.name)).toEqual(['a"b']);
    expect(await rowsOf("SELECT count() FROM (SELECT 1) CROSS JOIN (SELECT 2)")).toEqual([[1]]);
  });
});

describe("more refusals", () => {
  const one: HogQLNode = { node: "Constant", value: 1 };
  const events: HogQLNode = { node: "JoinExpr", table: { node: "Field", chain: ["events"] } };

  it("of FROM, fields, calls and array access", async () => {
    expect(await refusal("SELECT 1 FROM a.b")).toBe("Unknown table `a.b`.");
    expect(await refusal("SELECT 1 FROM {t}")).toBe("Unresolved placeholder in FROM.");
    expect(await refusal("SELECT a.b.* FROM events ab")).toBe("Unable to resolve field: a.b.*");
    expect(await refusal("SELECT 1 QUALIFY 1")).toBe("QUALIFY is not supported: filter a subquery instead.");
    expect(await refusal("SELECT sum(*) FROM events")).toBe(
      "* is supported only in the SELECT list and in count(*).",
    );
    expect(await refusal("SELECT round()")).toBe("Function 'round' expects 1 to 2 argument(s), got 0.");
    expect(await refusal("SELECT groupArray(event ORDER BY timestamp) FROM events")).toBe(
      "groupArray(... ORDER BY ...) is not supported.",
    );
    expect(await refusal("SELECT properties[1] FROM events")).toBe(
      "Array access needs an array and an integer index, or properties and a constant key.",
    );
    expect(await refusal("SELECT properties['nested'][1] FROM events")).toBe(
      "Array access needs an array and an integer index, or properties and a constant key.",
    );
    expect(await rowsOf("SELECT splitByChar(',', 'a,b')[2]")).toEqual([["b"]]);
  });

  it("of hand-made ASTs: settings, views, tables of other kinds, CROSS JOIN constraints", () => {
    const selectFrom = (select_from: HogQLNode): HogQLNode => ({
      node: "SelectQuery",
      select: [one],
      select_from,
    });
    expect(refusalOf({ node: "SelectQuery", select: [one], settings: { a: 1 } })).toBe(
      "SETTINGS are not supported.",
    );
    expect(refusalOf({ node: "SelectQuery", select: [one], view_name: "v" })).toBe(
      "Views are not supported.",
    );
    expect(refusalOf(selectFrom({ node: "JoinExpr", table: one }))).toBe(
      "Unsupported table expression: Constant. Only tables, CTEs and subqueries can be selected from.",
    );
    expect(
      refusalOf(
        selectFrom({
          ...events,
          alias: "e",
          next_join: {
            ...events,
            join_type: "CROSS JOIN",
            constraint: { node: "JoinConstraint", constraint_type: "ON", expr: one },
          },
        }),
      ),
    ).toBe("A CROSS JOIN takes no constraint.");
    expect(
      refusalOf({
        node: "SelectQuery",
        select: [{ node: "Constant" }, { node: "Call", name: "and", args: [] }],
      }),
    ).toBe("Unsupported function call 'and(...)'. Perhaps you meant 'any(...)'?");
  });
});

describe("edges of fields, lists and arithmetic", () => {
  it("resolve fields by alias, table, CTE and column in that order", async () => {
    expect(await refusal("SELECT event AS e, e.x FROM events")).toBe("Unable to resolve field: e.x");
    expect(await refusal("SELECT event, undefined FROM events")).toBe("Unable to resolve field: undefined");
    expect(await rowsOf("SELECT event FROM events event WHERE event = 'signup'")).toEqual([["signup"]]);
    expect(
      await rowsOf(
        "SELECT count() FROM events e JOIN person_distinct_ids p ON p.distinct_id = e.distinct_id WHERE event = 'signup'",
      ),
    ).toEqual([[1]]);
    expect(await refusal("SELECT properties.x FROM events e JOIN persons p ON 1 = 1")).toBe(
      "Ambiguous query. Found multiple sources for field: properties.x",
    );
    expect(await refusal("SELECT x.person.id FROM (SELECT 1 AS person) x")).toBe(
      "Unable to resolve field: x.person.id",
    );
    const propertyTypes = { event: new Map([["nested", "Numeric"]]), person: new Map<string, string>() };
    const nested = await run(
      "SELECT properties.nested.k FROM events WHERE distinct_id = 'd2' AND event = '$pageview'",
      { propertyTypes },
    );
    expect(nested.rows).toEqual([["v"]]);
    expect(nested.columns[0]!.type).toBe("String");
  });

  it("IN a set query reads its rows; a set query is a value too", async () => {
    expect(
      await rowsOf("SELECT count() FROM events WHERE toFloat(properties.n) IN (SELECT 1 UNION ALL SELECT 2)"),
    ).toEqual([[2]]);
    expect(await rowsOf("SELECT (SELECT 1 INTERSECT SELECT 1)")).toEqual([[1]]);
  });

  it("refuse text plus a number and a number minus a date, as ClickHouse does", async () => {
    await expect(rowsOf("SELECT '2026-11-20' + 1")).rejects.toThrow(/operator does not exist/);
    await expect(rowsOf("SELECT 1 - toDate('2026-11-20')")).rejects.toThrow(/operator does not exist/);
  });

  it("report an empty AND and a float remainder with their types", async () => {
    const printed = print({ node: "SelectQuery", select: [{ node: "And", exprs: [] }] });
    expect(printed.columns).toEqual([{ name: "and()", type: "Bool", nullable: false }]);
    const { columns } = await run("SELECT 7.5 % 2");
    expect(columns).toEqual([{ name: "modulo(7.5, 2)", type: "Float64", nullable: true }]);
  });
});

describe("the last edges the mutation run found", () => {
  it("names, CTE keys and candidates of unqualified fields", async () => {
    expect(await rowsOf(`SELECT x."a""b", x.ab FROM (SELECT 1 AS "a""b", 2 AS ab) x`)).toEqual([[1, 2]]);
    expect(await refusal("WITH r USING KEY (a) AS (SELECT 1 AS a) SELECT 1")).toBe(
      "Recursive CTEs are not supported.",
    );
    expect(await rowsOf("SELECT count() FROM events e JOIN persons p ON 1 = 1 WHERE is_identified")).toEqual([
      [10],
    ]);
    expect(await rowsOf("SELECT count(1) FROM events")).toEqual([[5]]);
  });

  it("array access on what is not a property path", async () => {
    const message = "Array access needs an array and an integer index, or properties and a constant key.";
    expect(await refusal("SELECT splitByChar(',', 'a,b')['x']")).toBe(message);
    expect(await refusal("SELECT properties[1]['k'] FROM events")).toBe(message);
    expect(await refusal("SELECT splitByChar(',', 'a,b')[1]['k']")).toBe(message);
    expect(await refusal("SELECT splitByChar(',', 'a,b')['x']['k']")).toBe(message);
  });

  it("lists of arrays, numbers beside dates and text PostgreSQL cannot read as a date", async () => {
    await expect(rowsOf("SELECT 'a' IN (splitByChar(',', 'a,b'), splitByChar(',', 'c'))")).rejects.toThrow(
      /operator does not exist/,
    );
    await expect(rowsOf("SELECT 'a' IN [splitByChar(',', 'a,b')]")).rejects.toThrow(
      /operator does not exist/,
    );
    await expect(rowsOf("SELECT 1 = toDate('2026-11-20')")).rejects.toThrow(/operator does not exist/);
    expect(await rowsOf("SELECT timestamp >= 'not a date' FROM events LIMIT 1")).toEqual([[false]]);
  });

  it("differences between a date and a date-time are intervals", async () => {
    const { rows, columns } = await run(
      "SELECT toDate('2026-11-21') - toDateTime('2026-11-20T00:00:00Z'), toDateTime('2026-11-21T12:00:00Z') - toDate('2026-11-21')",
    );
    expect(rows).toEqual([[86_400, 43_200]]);
    expect(columns.map((column) => column.type)).toEqual(["Interval", "Interval"]);
  });

  it("window functions: partitions by several values, avg as a float, every value nullable", async () => {
    const { rows, columns } = await run(
      "SELECT row_number() OVER (PARTITION BY event, distinct_id ORDER BY timestamp), avg(1) OVER () FROM events ORDER BY timestamp",
    );
    expect(rows).toEqual([
      [1, 1],
      [2, 1],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(columns.map((column) => [column.type, column.nullable])).toEqual([
      ["UInt64", true],
      ["Float64", true],
    ]);
    const frame = await runAst({
      node: "SelectQuery",
      select: [
        {
          node: "WindowFunction",
          name: "sum",
          exprs: [{ node: "Constant", value: 1 }],
          over_expr: { node: "WindowExpr", frame_method: "ROWS", frame_start: { frame_type: "PRECEDING" } },
        },
      ],
    });
    expect(frame.rows).toEqual([[1]]);
  });

  it("{filters} is a non-null boolean, and finds the events table after a subquery", async () => {
    const none = await rowsWith("SELECT {filters}", {});
    expect(none.rows).toEqual([[true]]);
    expect(none.columns.map((column) => [column.type, column.nullable])).toEqual([["Bool", false]]);
    const filters = await prepareFilters(
      database.prisma,
      projectId,
      { properties: [{ key: "email", type: "person", operator: "exact", value: "bob@example.com" }] },
      new Date(),
    );
    const some = await rowsWith("SELECT {filters} FROM events WHERE event = 'signup'", {}, { filters });
    expect(some.rows).toEqual([[true]]);
    expect(some.columns.map((column) => [column.type, column.nullable])).toEqual([["Bool", false]]);
    expect(
      (await rowsWith("SELECT count() FROM (SELECT 1) s CROSS JOIN events WHERE {filters}", {}, { filters }))
        .rows,
    ).toEqual([[2]]);
  });

  it("operator functions take their operators' arity, else they are unknown functions", async () => {
    expect(await rowsOf("SELECT count() FROM events WHERE or(event = 'signup', event = 'purchase')")).toEqual(
      [[2]],
    );
    expect(await refusal("SELECT not(true, false)")).toMatch(/^Unsupported function call 'not\(\.\.\.\)'/);
    expect(await refusal("SELECT equals(1)")).toMatch(/^Unsupported function call 'equals\(\.\.\.\)'/);
    expect(await refusal("SELECT plus(1)")).toMatch(/^Unsupported function call 'plus\(\.\.\.\)'/);
  });
});

describe("the edges the mutation run after the split found", () => {
  const constant = (value: unknown): HogQLNode => ({ node: "Constant", value });
  const selectOf = (...select: HogQLNode[]): HogQLNode => ({ node: "SelectQuery", select });

  it("a set query after IN selects one column, as a SELECT does", async () => {
    expect(await refusal("SELECT 1 WHERE 1 IN (SELECT 1, 2 UNION ALL SELECT 3, 4)")).toBe(
      "A subquery after IN must select one column.",
    );
  });

  it("`*` moves no date: a date or date-time times a number is PostgreSQL's error over the types written", async () => {
    await expect(rowsOf("SELECT toDate('2026-11-20') * 2")).rejects.toThrow(
      "operator does not exist: date * bigint",
    );
    await expect(rowsOf("SELECT toDateTime('2026-11-20T00:00:00Z') * 2")).rejects.toThrow(
      "operator does not exist: timestamp with time zone * bigint",
    );
  });

  it("a function's parameters are resolved as any expression is", async () => {
    expect(await refusal("SELECT quantile(nope)(toFloat(properties.n)) FROM events")).toBe(
      "Unable to resolve field: nope",
    );
  });

  it("a window avg is a float, as text too (PostgreSQL's avg of integers is numeric, printed to 16 places)", async () => {
    expect(await rowsOf("SELECT toString(avg(n) OVER ()) FROM (SELECT 1 AS n UNION ALL SELECT 2)")).toEqual([
      ["1.5"],
      ["1.5"],
    ]);
  });

  it("a window function without its argument is PostgreSQL's error", async () => {
    await expect(rowsOf("SELECT first_value() OVER ()")).rejects.toThrow(
      "function first_value() does not exist",
    );
  });

  it("a CTE is named by one identifier, never by a table's dotted name", async () => {
    expect(await rowsOf("WITH `a.b` AS (SELECT 1 AS x) SELECT x FROM `a.b`")).toEqual([[1]]);
    expect(await refusal("WITH `a.b` AS (SELECT 1 AS x) SELECT x FROM a.b")).toBe("Unknown table `a.b`.");
  });

  it("of hand-made ASTs: a window function without OVER is over all rows; an unparsable relative date", async () => {
    const { rows } = await runAst(selectOf({ node: "WindowFunction", name: "sum", exprs: [constant(1)] }));
    expect(rows).toEqual([[1]]);
    expect(refusalOf(selectOf({ node: "RelativeDate", text: "soon" }))).toBe(
      "Unsupported relative date: soon.",
    );
  });
});

describe("bounds on printing", () => {
  /** The ValidationError printing `query` with `limits` is refused with, as `{code, message}`. */
  async function bounded(
    query: string,
    limits: Partial<typeof LIMITS>,
  ): Promise<{ code: string; message: string }> {
    try {
      print(await parseHogQLSelect(query), { limits: { ...LIMITS, ...limits } });
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return { code: (error as ValidationError).code, message: (error as ValidationError).message };
    }
    throw new Error(`printed: ${query}`);
  }

  it("expands a column CTE inside itself at most 50 times, with PostHog's loop error", async () => {
    const loop = "Too many CTE expansions (50+). Probably a CTE loop.";
    expect(await refusal("WITH x + 1 AS x SELECT x")).toBe(loop);
    expect(await refusal("WITH b AS a, a AS b SELECT a")).toBe(loop);
    // 50 nested expansions are allowed, the 51st is not.
    const chain = (n: number) =>
      `WITH 1 AS c0, ${Array.from({ length: n }, (_, i) => `c${i} AS c${i + 1}`).join(", ")} SELECT c${n}`;
    expect(await rowsOf(chain(49))).toEqual([[1]]);
    expect(await refusal(chain(50))).toBe(loop);
    // Uses side by side are not nested: each is expanded afresh, however many there are.
    const uses = Array.from({ length: 60 }, () => "x").join(", ");
    expect(await rowsOf(`WITH 1 AS x SELECT [${uses}]`)).toEqual([[Array.from({ length: 60 }, () => 1)]]);
  });

  it("nests expressions and queries at most maxDepth levels, column CTEs expanded", async () => {
    // The query, then `+`, `+`, and the constants: four levels.
    expect((await bounded("SELECT 1 + 1 + 1", { maxDepth: 3 })).code).toBe("max_depth");
    expect(
      print(await parseHogQLSelect("SELECT 1 + 1 + 1"), { limits: { ...LIMITS, maxDepth: 4 } }).columns,
    ).toHaveLength(1);
    expect(await bounded("WITH 1 + 1 AS c SELECT c + 1", { maxDepth: 4 })).toEqual({
      code: "max_depth",
      message: "HogQL expressions may nest at most 4 levels deep (column CTEs expanded).",
    });
    expect((await bounded("SELECT (SELECT (SELECT 1))", { maxDepth: 5 })).code).toBe("max_depth");
  });

  it("measures each expression as it is printed, so a doubling alias is refused at the limit", async () => {
    const query = `SELECT 1 AS a0, ${Array.from({ length: 12 }, (_, i) => `a${i} + a${i} AS a${i + 1}`).join(", ")}`;
    const size = printedBytes(print(await parseHogQLSelect(query)).sql);
    expect(
      print(await parseHogQLSelect(query), { limits: { ...LIMITS, maxPrintedBytes: size } }).columns,
    ).toHaveLength(13);
    expect(await bounded(query, { maxPrintedBytes: size - 1 })).toEqual({
      code: "max_size",
      message: `The query prints to more than the limit of ${size - 1} bytes of PostgreSQL (bound values included).`,
    });
    // The doubling is refused when the expression that passes the limit is made: the last alias,
    // about half the statement, is over a limit a third of the statement's size.
    expect((await bounded(query, { maxPrintedBytes: Math.floor(size / 3) })).code).toBe("max_size");
  });

  it("counts a statement's text and each bound value (strings by length, others as 8)", () => {
    expect(printedBytes(Prisma.sql`a ${"xyz"} b ${5}`)).toBe("a ".length + " b ".length + 3 + 8);
  });
});
