/**
 * The printer's output shapes, without a database: every table reference carries the project
 * guard as a bound parameter, no constant or identifier of the input reaches the SQL text, the
 * null-safe comparison forms, property typing by definitions, and the LIMIT rules on the AST.
 */
import { describe, expect, it } from "vitest";
import { translateDateFormat } from "../../../src/lib/hogql/functions.js";
import { applyLimits } from "../../../src/lib/hogql/limits.js";
import { parseHogQLSelect } from "../../../src/lib/hogql/parser.js";
import { replacePlaceholders } from "../../../src/lib/hogql/placeholders.js";
import { printHogQL } from "../../../src/lib/hogql/printer.js";
import { bindOnce } from "../../../src/queries/run-sql.js";

const NO_TYPES = { event: new Map<string, string>(), person: new Map<string, string>() };
const LIMITS = { maxDepth: 200, maxPrintedBytes: 1024 * 1024 };

async function print(query: string, propertyTypes = NO_TYPES) {
  const printed = printHogQL(await parseHogQLSelect(query), {
    projectId: 42,
    timezone: "UTC",
    propertyTypes,
    limits: LIMITS,
  });
  return { ...bindOnce(printed.sql), columns: printed.columns };
}

describe("HogQL printer", () => {
  it("guards every table reference with the project, as a parameter", async () => {
    const { text, values } = await print(
      "WITH c AS (SELECT * FROM persons) SELECT person.properties.email FROM events e JOIN person_distinct_ids p ON p.distinct_id = e.distinct_id LEFT JOIN c ON c.id = p.person_id WHERE e.event IN (SELECT event FROM events)",
    );
    expect(values[0] === 42 || values.includes(42)).toBe(true);
    const projectParam = `$${values.indexOf(42) + 1}`;
    const guards = text.split(`project_id = ${projectParam}::int`).length - 1;
    // persons (CTE), events e, person_distinct_ids (2), the lazy person join (2), events in IN.
    expect(guards).toBe(7);
    expect(text).not.toMatch(/project_id = \d/);
  });

  it("binds every constant and keeps input out of identifiers", async () => {
    const { text, values } = await print(
      "SELECT event AS `a\"b`, 'x'' OR 1=1' AS s, 3.5, properties.`weird\"key` FROM events AS `e\"; DROP` WHERE event = 'DROP TABLE'",
    );
    expect(text).not.toContain("DROP");
    expect(text).not.toContain("OR 1=1");
    expect(text).not.toContain("weird");
    expect(text).toMatch(/ AS t1\b/);
    expect(values).toEqual(expect.arrayContaining(["x' OR 1=1", 3.5, 'weird"key', "DROP TABLE"]));
  });

  it("prints ClickHouse's null-safe comparisons", async () => {
    const { text } = await print(
      "SELECT properties.a = 'x', properties.a != 'x', properties.a NOT LIKE 'x', properties.a IN ('x'), properties.a = NULL, event = 'x' FROM events",
    );
    expect(text).toContain('COALESCE(((t1."properties" ->> $1::text) = $2::text), FALSE)');
    expect(text).toContain('COALESCE(((t1."properties" ->> $1::text) <> $2::text), TRUE)');
    expect(text).toContain('COALESCE(((t1."properties" ->> $1::text) NOT LIKE $2::text), TRUE)');
    expect(text).toContain('COALESCE(((t1."properties" ->> $1::text) IN ($2::text)), FALSE)');
    expect(text).toContain('((t1."properties" ->> $1::text) IS NULL)');
    // A column that cannot be NULL is compared plainly.
    expect(text).toContain('(t1."event" = $2::text)');
  });

  it("types properties by their definitions and divides as floats", async () => {
    const types = {
      event: new Map([
        ["price", "Numeric"],
        ["ok", "Boolean"],
        ["at", "DateTime"],
      ]),
      person: new Map(),
    };
    const { text, columns } = await print(
      "SELECT properties.price, properties.ok, properties.at, properties.other, 1 / 2 FROM events",
      types,
    );
    expect(text).toContain('hogql_to_float((t1."properties" ->> $1::text))');
    expect(text).toContain(
      "CASE (t1.\"properties\" ->> $2::text) WHEN 'true' THEN true WHEN 'false' THEN false END",
    );
    expect(text).toContain('hogql_to_timestamptz((t1."properties" ->> $3::text))');
    expect(text).toContain("::float8 / NULLIF(");
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ["price", "Float64"],
      ["ok", "Bool"],
      ["at", "DateTime"],
      ["other", "String"],
      ["divide(1, 2)", "Float64"],
    ]);
  });

  it("applies PostHog's LIMIT rules to the top-level SELECT only", async () => {
    const plain = applyLimits(await parseHogQLSelect("SELECT 1 FROM (SELECT 1 LIMIT 7)"), { limit: 10 });
    expect(plain.plan).toEqual({ kind: "paginated", limit: 10, offset: 0 });
    expect(plain.ast["limit"]).toEqual({ node: "Constant", value: 11 });
    const own = applyLimits(await parseHogQLSelect("SELECT 1 LIMIT 60000"), {});
    expect(own.plan).toEqual({ kind: "own" });
    expect(own.ast["limit"]).toEqual({ node: "Constant", value: 50_000 });
    const computed = applyLimits(await parseHogQLSelect("SELECT 1 LIMIT 1 + 1"), {});
    expect((computed.ast["limit"] as { name: string }).name).toBe("least");
    expect(applyLimits(await parseHogQLSelect("SELECT 1"), { limit: 10 ** 9 }).plan).toMatchObject({
      limit: 50_000,
    });
  });

  it("replaces placeholders with constant nodes, never text", async () => {
    const ast = replacePlaceholders(await parseHogQLSelect("SELECT {variables.a}, {b}"), {
      variables: { id: { code_name: "a", value: "') --" } },
      values: { b: [1, 2] },
    });
    expect(ast["select"]).toEqual([
      { node: "Constant", value: "') --" },
      {
        node: "Array",
        exprs: [
          { node: "Constant", value: 1 },
          { node: "Constant", value: 2 },
        ],
      },
    ]);
  });

  it("translates formatDateTime codes and quotes literal text", () => {
    expect(translateDateFormat("%Y-%m-%d %H:%i:%S")).toBe('YYYY"-"MM"-"DD" "HH24":"MI":"SS');
    expect(translateDateFormat('at "%H"')).toBe('"at \\""HH24"\\""');
  });
});
