/**
 * The printer from PostHog's HogQL AST (./parser.ts, placeholders already replaced by
 * ./placeholders.ts) to one parameterised PostgreSQL `SELECT` over our tables, as PostHog's
 * `posthog/hogql/printer.py`: statements and expressions as SQL. Names (scopes, tables, fields,
 * CTEs, aliases) are resolved in the same pass by ./resolver.ts, which the printer owns. Operators
 * as PostgreSQL spells them are ./operators.ts; how types meeting in one expression are made to
 * agree, ./coercion.ts; functions, ./functions.ts.
 *
 * Guarantees:
 * - Every constant of the query is a bound parameter; identifiers in the SQL are the printer's own
 *   (`t1`, `c1`, ...) except output column names, which are quoted with `"` doubled. Nothing of the
 *   input is spliced into the SQL text.
 * - Every table reference (FROM, joins, subqueries, CTEs, the lazy `person` join) reads a view that
 *   holds `project_id = <project>` inside it (./tables.ts), so no join type can reach another
 *   project's rows.
 * - Only the allow-listed nodes, tables and functions print; anything else is a ValidationError
 *   (400) naming the construct, in PostHog's words where it has them (`Unsupported function call
 *   'x(...)'. Perhaps you meant 'y(...)'?`, `Unknown table ...`, `Unable to resolve field: ...`).
 * - ClickHouse's null-safe comparisons (query-and-experiments.md 1b): `=`, `<`, `like`, `in`, ...
 *   are false when a side is NULL; `!=`, `not like`, `not in` are true; `x = NULL` is `x IS NULL`.
 * - `properties.x` is `properties ->> 'x'` (missing or JSON null → NULL), typed by the project's
 *   property definitions (Numeric → float, Boolean, DateTime; text otherwise); `/` is always float
 *   and NULL when dividing by zero.
 * - Printing is bounded whatever the input: expressions and queries nest at most `maxDepth` levels
 *   (column CTEs expanded), a column CTE expands inside itself at most 50 times (PostHog's resolver:
 *   `Too many CTE expansions (50+). Probably a CTE loop.`), and every printed expression is measured
 *   as it is made, so an alias or CTE reused at each level (`1 AS a0, a0 + a0 AS a1, ...`, whose SQL
 *   doubles per level) is refused once it passes `maxPrintedBytes`, before it costs more.
 */
import { Prisma } from "../../generated/prisma/client.js";
import { arithmeticType, coerce, numericOf, shiftByNumber, textOf } from "./coercion.js";
import { out } from "./functions/shared.js";
import { asTimestamp, type CallInfo, closestFunction, findFunction } from "./functions.js";
import { hogqlText } from "./hogql-text.js";
import {
  CAST_FUNCTIONS,
  COMPARE_SQL,
  frameBound,
  INT_WINDOW_ARGUMENTS,
  lookup,
  NULL_TRUE,
  operatorCall,
  SET_OPERATORS,
  TEXT_OPERATORS,
  WINDOW_FUNCTIONS,
} from "./operators.js";
import type { HogQLNode } from "./parser.js";
import { fail, nodes, quoteIdent } from "./print-shared.js";
import { parseRelativeDate, relativeDateSql } from "./relative-dates.js";
import {
  type CteDef,
  type ExpressionPrinter,
  type ResolveOptions,
  Resolver,
  type Scope,
} from "./resolver.js";
import {
  type HogQLType,
  NUMERIC_TYPES,
  type Printed,
  type PrintedColumn,
  type PrintedQuery,
} from "./types.js";

export type { PropertyTypes } from "./property-types.js";
export type { PrintedColumn, PrintedQuery } from "./types.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

/** The bounds of one print (src/config.ts `HOGQL_MAX_EXPRESSION_DEPTH`, `HOGQL_MAX_PRINTED_BYTES`). */
export interface PrintLimits {
  /** Deepest nesting of expressions and queries, column CTEs expanded. */
  maxDepth: number;
  /** Most bytes of printed SQL, bound values counted (`printedBytes`). */
  maxPrintedBytes: number;
}

/** What printing needs besides the AST (with what resolving needs, ./resolver.ts `ResolveOptions`). */
export interface PrintOptions extends ResolveOptions {
  timezone: string;
  limits: PrintLimits;
}

/**
 * The size of `statement` as sent to PostgreSQL, in characters: its text, plus each bound value
 * (a string by its length, anything else as 8).
 */
export function printedBytes(statement: Prisma.Sql): number {
  let bytes = 0;
  for (const part of statement.strings) bytes += part.length;
  for (const value of statement.values) bytes += typeof value === "string" ? value.length : 8;
  return bytes;
}

/**
 * The refusal of a query that prints past `maxPrintedBytes`.
 * @throws ValidationError `max_size`.
 */
export function refusePrintedSize(bytes: number, maxPrintedBytes: number): void {
  if (bytes > maxPrintedBytes) {
    fail(
      `The query prints to more than the limit of ${maxPrintedBytes} bytes of PostgreSQL (bound values included).`,
      "max_size",
    );
  }
}

/** The printer of one query, with the resolver of its names. */
class Printer implements ExpressionPrinter {
  /** Expressions and queries being printed, one inside the other. */
  private depth = 0;
  private readonly resolver: Resolver;

  constructor(private readonly options: PrintOptions) {
    this.resolver = new Resolver(options, this);
  }

  /** `print()` one level deeper. @throws ValidationError `max_depth` past the limit. */
  private nested<T>(print: () => T): T {
    if (this.depth >= this.options.limits.maxDepth) {
      fail(
        `HogQL expressions may nest at most ${this.options.limits.maxDepth} levels deep (column CTEs expanded).`,
        "max_depth",
      );
    }
    this.depth += 1;
    try {
      return print();
    } finally {
      this.depth -= 1;
    }
  }

  /** A SELECT or set of SELECTs, with the CTEs visible from where it stands. */
  query(node: HogQLNode, ctes: ReadonlyMap<string, CteDef>, positional = false): PrintedQuery {
    return this.nested(() => {
      if (node.node === "SelectQuery") return this.select(node, ctes, positional);
      if (node.node === "SelectSetQuery") return this.selectSet(node, ctes, positional);
      return fail(`Unsupported HogQL construct: ${node.node} where a query was expected.`);
    });
  }

  private selectSet(node: HogQLNode, ctes: ReadonlyMap<string, CteDef>, positional: boolean): PrintedQuery {
    const first = this.query(node["initial_select_query"] as HogQLNode, ctes, positional);
    const parts: Prisma.Sql[] = [sql`(${first.sql})`];
    for (const part of nodes(node["subsequent_select_queries"])) {
      const operator = lookup(SET_OPERATORS, String(part["set_operator"]));
      if (!operator) fail(`Unsupported set operator: ${String(part["set_operator"])}.`);
      const next = this.query(part["select_query"] as HogQLNode, ctes);
      if (next.columns.length !== first.columns.length) {
        fail(`Each part of ${String(part["set_operator"])} must select the same number of columns.`);
      }
      parts.push(sql`${raw(operator)} (${next.sql})`);
    }
    return { sql: join(parts, " "), columns: first.columns };
  }

  private refuseClickHouseOnly(node: HogQLNode): void {
    if (node["array_join_op"]) fail("ARRAY JOIN is not supported: use arrayJoin() in the SELECT list.");
    if (node["limit_by"])
      fail("LIMIT BY is not supported: use row_number() OVER (PARTITION BY ...) in a subquery.");
    if (node["qualify"]) fail("QUALIFY is not supported: filter a subquery instead.");
    if (node["limit_with_ties"]) fail("LIMIT ... WITH TIES is not supported.");
    if (node["settings"]) fail("SETTINGS are not supported.");
    if (node["view_name"]) fail("Views are not supported.");
  }

  private select(node: HogQLNode, outerCtes: ReadonlyMap<string, CteDef>, positional: boolean): PrintedQuery {
    this.refuseClickHouseOnly(node);
    const { scope, withParts } = this.resolver.selectScope(node, outerCtes);
    const fromEntries = this.resolver.fromEntries(node["select_from"] as HogQLNode | null, scope);

    const columns: PrintedColumn[] = [];
    const selectSql: Prisma.Sql[] = [];
    for (const item of nodes(node["select"])) {
      for (const column of this.resolver.selectItem(item, scope)) {
        columns.push({ name: column.name, type: column.printed.type, nullable: column.printed.nullable });
        const name = positional ? `_${columns.length - 1}` : column.name;
        // Result timestamps leave as UTC text: drivers read a timestamptz in a non-UTC session
        // (the project's TimeZone) inconsistently; the runner formats them in the project's zone.
        // Intervals leave as seconds (their type is IntervalSecond): drivers cannot read an interval.
        const value = !positional
          ? column.printed.sql
          : column.printed.type === "DateTime"
            ? sql`to_char((${column.printed.sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
            : column.printed.type === "Interval"
              ? sql`extract(epoch from (${column.printed.sql}))::float8`
              : column.printed.sql;
        selectSql.push(sql`${value} AS ${quoteIdent(name)}`);
      }
    }
    if (selectSql.length === 0) fail("A SELECT needs at least one column.");

    // Printed in the order PostHog's resolver visits the clauses (visit_select_query), which is the
    // order an alias becomes visible in.
    const where: Prisma.Sql[] = [];
    for (const clause of ["where", "prewhere"]) {
      if (node[clause]) where.push(this.condition(node[clause] as HogQLNode, scope));
    }
    const having = node["having"] ? this.condition(node["having"] as HogQLNode, scope) : null;
    const groupBy = nodes(node["group_by"]).map((expr) => this.expr(expr, scope).sql);
    const orderBy = nodes(node["order_by"]).map((order) => this.orderExpr(order, scope));
    const limit = node["limit"] ? this.count(node["limit"] as HogQLNode, scope) : null;
    const offset = node["offset"] ? this.count(node["offset"] as HogQLNode, scope) : null;
    const windows = Object.entries((node["window_exprs"] as Record<string, HogQLNode> | null) ?? {}).map(
      ([name, spec]) => sql`${quoteIdent(name)} AS (${this.windowSpec(spec, scope)})`,
    );
    const joinsSql = fromEntries.map((entry) => entry());

    const parts: Prisma.Sql[] = [];
    if (withParts.length > 0) parts.push(sql`WITH ${join(withParts, ", ")}`);
    parts.push(sql`SELECT ${node["distinct"] ? raw("DISTINCT ") : Prisma.empty}${join(selectSql, ", ")}`);
    if (joinsSql.length > 0) parts.push(sql`FROM ${join(joinsSql, " ")}`);
    if (where.length > 0) parts.push(sql`WHERE ${join(where, " AND ")}`);
    if (groupBy.length > 0) parts.push(sql`GROUP BY ${join(groupBy, ", ")}`);
    if (having) parts.push(sql`HAVING ${having}`);
    if (windows.length > 0) parts.push(sql`WINDOW ${join(windows, ", ")}`);
    if (orderBy.length > 0) parts.push(sql`ORDER BY ${join(orderBy, ", ")}`);
    if (limit) parts.push(sql`LIMIT ${limit}`);
    if (offset) parts.push(sql`OFFSET ${offset}`);
    return { sql: join(parts, " "), columns };
  }

  private count(node: HogQLNode, scope: Scope): Prisma.Sql {
    return sql`(${this.expr(node, scope).sql})::bigint`;
  }

  /** A boolean condition (WHERE, PREWHERE, HAVING; ON in ./resolver.ts). */
  private condition(node: HogQLNode, scope: Scope): Prisma.Sql {
    return this.expr(node, scope).sql;
  }

  private orderExpr(node: HogQLNode, scope: Scope): Prisma.Sql {
    if (node.node !== "OrderExpr") fail(`Unsupported HogQL construct: ${node.node} in ORDER BY.`);
    const direction = String(node["order"]) === "DESC" ? "DESC" : "ASC";
    // ClickHouse sorts NULLs last in both directions.
    return sql`${this.expr(node["expr"] as HogQLNode, scope).sql} ${raw(direction)} NULLS LAST`;
  }

  /** Any expression, measured (see the module comment). */
  expr(node: HogQLNode, scope: Scope): Printed {
    return this.nested(() => {
      const printed = this.exprOf(node, scope);
      refusePrintedSize(printedBytes(printed.sql), this.options.limits.maxPrintedBytes);
      return printed;
    });
  }

  private exprOf(node: HogQLNode, scope: Scope): Printed {
    switch (node.node) {
      case "Constant":
        return this.constant(node);
      case "Field":
        return this.resolver.field((node["chain"] as unknown[]).map(String), scope);
      case "Alias":
        return this.resolver.alias(node, scope);
      case "And":
      case "Or": {
        const parts = nodes(node["exprs"]).map((part) => this.expr(part, scope));
        if (parts.length === 0)
          return out(sql`${node.node === "And" ? raw("TRUE") : raw("FALSE")}`, "Bool", false);
        return out(
          sql`(${join(
            parts.map((part) => part.sql),
            node.node === "And" ? " AND " : " OR ",
          )})`,
          "Bool",
          parts.some((part) => part.nullable),
        );
      }
      case "Not": {
        const inner = this.expr(node["expr"] as HogQLNode, scope);
        return out(sql`(NOT ${inner.sql})`, "Bool", inner.nullable);
      }
      case "CompareOperation":
        return this.compare(node, scope);
      case "ArithmeticOperation":
        return this.arithmetic(node, scope);
      case "BetweenExpr": {
        const value = this.expr(node["expr"] as HogQLNode, scope);
        const lowValue = this.expr(node["low"] as HogQLNode, scope);
        const low = coerce(lowValue, value);
        const high = coerce(this.expr(node["high"] as HogQLNode, scope), value);
        const v = coerce(value, lowValue);
        const negated = node["negated"] === true;
        const between = sql`(${v.sql} ${negated ? raw("NOT BETWEEN") : raw("BETWEEN")} ${low.sql} AND ${high.sql})`;
        return out(sql`COALESCE(${between}, ${negated ? raw("TRUE") : raw("FALSE")})`, "Bool", false);
      }
      case "Call":
        return this.call(node, scope);
      case "TypeCast": {
        const fn = lookup(CAST_FUNCTIONS, String(node["type_name"]).toLowerCase());
        if (!fn) fail(`Unsupported type cast: ::${String(node["type_name"])}.`);
        return this.call({ node: "Call", name: fn, args: [node["expr"]], distinct: false }, scope);
      }
      case "Array": {
        const items = nodes(node["exprs"]).map((item) => this.expr(item, scope));
        if (items.length === 0) return out(sql`'{}'::text[]`, "Array", false);
        return out(
          sql`ARRAY[${join(
            items.map((item) => item.sql),
            ", ",
          )}]`,
          "Array",
          false,
        );
      }
      case "ArrayAccess":
        return this.arrayAccess(node, scope);
      case "WindowFunction":
        return this.windowFunction(node, scope);
      case "SelectQuery":
      case "SelectSetQuery": {
        const printed = this.query(node, scope.ctes);
        if (printed.columns.length !== 1) fail("A subquery used as a value must select one column.");
        return out(sql`(${printed.sql})`, printed.columns[0]!.type, true);
      }
      case "RelativeDate":
        return this.relativeDate(node);
      case "FiltersExpr":
        return this.resolver.filters(scope);
      case "Placeholder":
        return fail(`Unresolved placeholder: ${hogqlText(node)}`);
      case "Lambda":
        return fail("Lambdas (x -> ...) are not supported: rewrite with arrayJoin() or a subquery.");
      case "Tuple":
        return fail("Tuples are supported only on the right of IN.");
      case "TupleAccess":
        return fail("Tuple access (.1) is not supported.");
      case "Dict":
        return fail("Dictionaries ({key: value}) are not supported.");
      default:
        return fail(`Unsupported HogQL construct: ${node.node}.`);
    }
  }

  private constant(node: HogQLNode): Printed {
    const value = node["value"];
    if (value === null || value === undefined) return out(sql`NULL`, "Null", true);
    if (typeof value === "boolean") return out(sql`${value}::boolean`, "Bool", false);
    if (typeof value === "number") {
      if (!Number.isFinite(value)) fail("Numbers must be finite.");
      return Number.isSafeInteger(value)
        ? out(sql`${value}::bigint`, "Int64", false)
        : out(sql`${value}::float8`, "Float64", false);
    }
    if (typeof value === "string") {
      if (node["value_type"] === "number") return out(sql`${value}::numeric`, "Float64", false);
      return out(sql`${value}::text`, "String", false);
    }
    return fail("Unsupported constant.");
  }

  private arrayAccess(node: HogQLNode, scope: Scope): Printed {
    const field = this.resolver.arrayAccessField(node, scope);
    if (field) return field;
    const target = this.expr(node["array"] as HogQLNode, scope);
    const index = this.expr(node["property"] as HogQLNode, scope);
    if (target.type === "Array" && NUMERIC_TYPES.has(index.type)) {
      // ClickHouse: 1-based, negative counts from the end.
      return out(
        sql`(${target.sql})[CASE WHEN (${index.sql}) < 0 THEN cardinality(${target.sql}) + 1 + (${index.sql})::int ELSE (${index.sql})::int END]`,
        "Unknown",
        true,
      );
    }
    return fail("Array access needs an array and an integer index, or properties and a constant key.");
  }

  private compare(node: HogQLNode, scope: Scope): Printed {
    const op = String(node["op"]);
    const operator = lookup(COMPARE_SQL, op);
    if (!operator) fail(`Unsupported comparison operator: ${op}.`);
    const leftNode = node["left"] as HogQLNode;
    const rightNode = node["right"] as HogQLNode;
    const left = this.expr(leftNode, scope);
    const isNullConstant = rightNode.node === "Constant" && rightNode["value"] === null;
    if (isNullConstant && (op === "==" || op === "!=")) {
      return out(sql`(${left.sql} ${op === "==" ? raw("IS NULL") : raw("IS NOT NULL")})`, "Bool", false);
    }
    let body: Prisma.Sql;
    let nullable: boolean;
    if (op === "in" || op === "not in") {
      ({ body, nullable } = this.inList(left, rightNode, operator, scope));
    } else {
      const printedRight = this.expr(rightNode, scope);
      const [l, right] = TEXT_OPERATORS.has(op)
        ? [textOf(left), textOf(printedRight)]
        : [coerce(left, printedRight), coerce(printedRight, left)];
      body = sql`(${l.sql} ${raw(operator)} ${right.sql})`;
      nullable = l.nullable || right.nullable;
    }
    if (!nullable) return out(body, "Bool", false);
    return out(sql`COALESCE(${body}, ${NULL_TRUE.has(op) ? raw("TRUE") : raw("FALSE")})`, "Bool", false);
  }

  private inList(
    left: Printed,
    right: HogQLNode,
    operator: string,
    scope: Scope,
  ): { body: Prisma.Sql; nullable: boolean } {
    if (right.node === "SelectQuery" || right.node === "SelectSetQuery") {
      const printed = this.query(right, scope.ctes);
      if (printed.columns.length !== 1) fail("A subquery after IN must select one column.");
      // The subquery's one column, as `s.v`, made comparable with the left side as a list item is.
      const column = out(raw("s.v"), printed.columns[0]!.type, true);
      const l = coerce(left, column);
      const item = coerce(column, left);
      return {
        body: sql`(${l.sql} ${raw(operator)} (SELECT ${item.sql} FROM (${printed.sql}) AS s(v)))`,
        nullable: true,
      };
    }
    const items = right.node === "Tuple" || right.node === "Array" ? nodes(right["exprs"]) : [right];
    if (items.length === 0) {
      return { body: operator === "IN" ? sql`FALSE` : sql`TRUE`, nullable: false };
    }
    const printed = items.map((item) => coerce(this.expr(item, scope), left));
    if (right.node !== "Tuple" && right.node !== "Array" && printed[0]!.type === "Array") {
      const any =
        operator === "IN"
          ? sql`(${left.sql} = ANY(${printed[0]!.sql}))`
          : sql`(${left.sql} <> ALL(${printed[0]!.sql}))`;
      return { body: any, nullable: true };
    }
    const l = coerce(left, printed[0]!);
    return {
      body: sql`(${l.sql} ${raw(operator)} (${join(
        printed.map((item) => item.sql),
        ", ",
      )}))`,
      nullable: l.nullable || printed.some((item) => item.nullable),
    };
  }

  private arithmetic(node: HogQLNode, scope: Scope): Printed {
    const op = String(node["op"]);
    const left = this.expr(node["left"] as HogQLNode, scope);
    const right = this.expr(node["right"] as HogQLNode, scope);
    switch (op) {
      case "/":
        // ClickHouse's `/` is always float division; dividing by zero answers NULL here (not inf/nan).
        return out(sql`((${left.sql})::float8 / NULLIF((${right.sql})::float8, 0))`, "Float64", true);
      case "%":
        // PostgreSQL has `%` for integers only; ClickHouse's `7.5 % 2` is 1.5.
        return numericOf(left, right) === "Float64"
          ? out(sql`((${left.sql})::numeric % NULLIF((${right.sql})::numeric, 0))::float8`, "Float64", true)
          : out(sql`((${left.sql}) % NULLIF(${right.sql}, 0))`, "Int64", true);
      case "+":
      case "-":
      case "*": {
        // Text beside an interval or a timestamp is a timestamp, and so is the result.
        const l =
          left.type === "String" && (right.type === "Interval" || right.type === "DateTime")
            ? out(asTimestamp(left), "DateTime", true)
            : left;
        const shifted = op === "*" ? null : shiftByNumber(l, right, op);
        if (shifted) return shifted;
        return out(
          sql`(${l.sql} ${raw(op)} ${right.sql})`,
          arithmeticType(l, right, op),
          l.nullable || right.nullable,
        );
      }
      default:
        return fail(`Unsupported arithmetic operator: ${op}.`);
    }
  }

  private call(node: HogQLNode, scope: Scope): Printed {
    const name = String(node["name"]);
    const argNodes = nodes(node["args"]);
    const operator = operatorCall(name, argNodes);
    if (operator) return this.expr(operator, scope);
    if (argNodes.some((arg) => arg.node === "Lambda")) {
      fail(`Lambdas (x -> ...) are not supported: ${name}(...) cannot be printed for PostgreSQL.`);
    }
    const def = findFunction(name);
    if (!def) {
      const close = closestFunction(name);
      fail(`Unsupported function call '${name}(...)'${close ? `. Perhaps you meant '${close}(...)'?` : ""}`);
    }
    if (node["filter_expr"])
      fail(`${name}(...) FILTER (WHERE ...) is not supported: use the -If form (countIf, sumIf).`);
    if (node["order_by"]) fail(`${name}(... ORDER BY ...) is not supported.`);
    const paramNodes = nodes(node["params"]);
    const [minParams, maxParams] = def.params ?? [0, 0];
    if (paramNodes.length < minParams || paramNodes.length > maxParams) {
      fail(
        maxParams === 0
          ? `Function '${name}' takes no parameters.`
          : `Function '${name}' takes ${minParams === maxParams ? minParams : `${minParams} to ${maxParams}`} parameter(s).`,
      );
    }
    const isCountStar =
      name === "count" &&
      argNodes.length === 1 &&
      argNodes[0]!.node === "Field" &&
      (argNodes[0]!["chain"] as unknown[])[0] === "*";
    const effectiveArgs = isCountStar ? [] : argNodes;
    if (effectiveArgs.length < def.minArgs || effectiveArgs.length > def.maxArgs) {
      const expected = def.minArgs === def.maxArgs ? `${def.minArgs}` : `${def.minArgs} to ${def.maxArgs}`;
      fail(`Function '${name}' expects ${expected} argument(s), got ${effectiveArgs.length}.`);
    }
    const args = effectiveArgs.map((arg) => this.expr(arg, scope));
    const info: CallInfo = {
      name,
      argNodes: effectiveArgs,
      params: paramNodes.map((param) => this.expr(param, scope)),
      paramNodes,
      distinct: node["distinct"] === true,
      timezone: this.options.timezone,
    };
    return def.print(args, info);
  }

  private windowFunction(node: HogQLNode, scope: Scope): Printed {
    const name = String(node["name"]);
    const fn = lookup(WINDOW_FUNCTIONS, name);
    if (!fn) fail(`Unsupported window function '${name}'.`);
    if (nodes(node["args"]).length > 0) fail(`Window function '${name}' takes no parameters.`);
    const args = nodes(node["exprs"]).map((arg) => this.expr(arg, scope));
    const over = node["over_identifier"]
      ? quoteIdent(String(node["over_identifier"]))
      : sql`(${this.windowSpec(node["over_expr"] as HogQLNode, scope)})`;
    // PostgreSQL takes integers where ClickHouse takes any number: ntile's buckets, nth_value's n,
    // lag's and lead's offset.
    const intArgument = INT_WINDOW_ARGUMENTS.get(fn);
    const argList = args.map((arg, i) =>
      fn === "avg" ? sql`(${arg.sql})::float8` : i === intArgument ? sql`(${arg.sql})::int` : arg.sql,
    );
    const type: HogQLType = ["row_number", "rank", "dense_rank", "ntile", "count"].includes(fn)
      ? "UInt64"
      : ["percent_rank", "cume_dist", "avg"].includes(fn)
        ? "Float64"
        : (args[0]?.type ?? "Unknown");
    const call =
      argList.length > 0
        ? sql`${raw(fn)}(${join(argList, ", ")})`
        : fn === "count"
          ? sql`count(*)`
          : sql`${raw(fn)}()`;
    return out(sql`${call} OVER ${over}`, type, true);
  }

  private windowSpec(spec: HogQLNode | null, scope: Scope): Prisma.Sql {
    if (!spec) return Prisma.empty;
    const parts: Prisma.Sql[] = [];
    const partition = nodes(spec["partition_by"]);
    if (partition.length > 0) {
      parts.push(
        sql`PARTITION BY ${join(
          partition.map((p) => this.expr(p, scope).sql),
          ", ",
        )}`,
      );
    }
    const order = nodes(spec["order_by"]);
    if (order.length > 0) {
      parts.push(
        sql`ORDER BY ${join(
          order.map((o) => this.orderExpr(o, scope)),
          ", ",
        )}`,
      );
    }
    if (spec["frame_method"]) {
      const method = String(spec["frame_method"]) === "RANGE" ? "RANGE" : "ROWS";
      const start = frameBound(spec["frame_start"] as HogQLNode | null);
      const end = spec["frame_end"] ? frameBound(spec["frame_end"] as HogQLNode) : null;
      parts.push(end ? raw(`${method} BETWEEN ${start} AND ${end}`) : raw(`${method} ${start}`));
    }
    return parts.length > 0 ? join(parts, " ") : Prisma.empty;
  }

  /** A relative date (`-7d`, `mStart`) resolved at run time in the project's timezone. */
  private relativeDate(node: HogQLNode): Printed {
    const date = parseRelativeDate(String(node["text"]));
    if (!date) fail(`Unsupported relative date: ${String(node["text"])}.`);
    return out(relativeDateSql(date), "DateTime", false);
  }
}

/**
 * Prints a HogQL query (placeholders already replaced) as one parameterised PostgreSQL SELECT whose
 * output columns are named `_0`, `_1`, ... (HogQL's names, which may repeat, are in `columns`).
 * @throws ValidationError naming the first construct, table, field or function that is not supported;
 *   `max_depth` or `max_size` past `options.limits`; PostHog's CTE loop error.
 */
export function printHogQL(ast: HogQLNode, options: PrintOptions): PrintedQuery {
  const printed = new Printer(options).query(ast, new Map(), true);
  refusePrintedSize(printedBytes(printed.sql), options.limits.maxPrintedBytes);
  return printed;
}
