/**
 * What every HogQL printer shares, whatever SQL it prints (PostgreSQL: ./printer.ts; ClickHouse:
 * ./clickhouse/printer.ts): the walk of PostHog's AST (`posthog/hogql/printer.py` visits the same
 * nodes), name resolution through one ./resolver.ts per query, the allow-lists (nodes, set and
 * window operators, functions and their arities) with their refusals, and the bounds of printing.
 * A dialect supplies the leaves: constants, operators, function calls, output columns.
 *
 * Guarantees kept for every dialect:
 * - Clauses are printed in the order PostHog's resolver visits them (visit_select_query), which is
 *   the order an alias becomes visible in; operands left to right, so two dialects number their
 *   aliases alike.
 * - Printing is bounded whatever the input: expressions and queries nest at most `maxDepth` levels
 *   (column CTEs expanded), and every printed expression is measured as it is made (the dialect's
 *   `measure`), so an alias or CTE reused at each level is refused once it passes
 *   `maxPrintedBytes`, before it costs more. The CTE expansion bound is the resolver's.
 */
import { Prisma } from "../../generated/prisma/client.js";
import type { RelativeDate } from "../relative-dates.js";
import { out } from "./functions/shared.js";
import { type CallInfo, closestFunction, type FunctionDef, findFunction } from "./functions.js";
import { hogqlText } from "./hogql-text.js";
import {
  CAST_FUNCTIONS,
  COMPARE_SQL,
  frameBound,
  lookup,
  NULL_TRUE,
  operatorCall,
  WINDOW_FUNCTIONS,
} from "./operators.js";
import type { HogQLNode } from "./parser.js";
import { fail, nodes } from "./print-shared.js";
import { parseRelativeDate } from "./relative-dates.js";
import type { CteDef, ExpressionPrinter, ResolveOptions, Resolver, Scope } from "./resolver.js";
import type { HogQLType, Printed, PrintedColumn, PrintedQuery } from "./types.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

/** The bounds of one print (src/config.ts `HOGQL_MAX_EXPRESSION_DEPTH`, `HOGQL_MAX_PRINTED_BYTES`). */
export interface PrintLimits {
  /** Deepest nesting of expressions and queries, column CTEs expanded. */
  maxDepth: number;
  /** Most bytes of printed SQL, bound values counted (the dialect's `measure`). */
  maxPrintedBytes: number;
}

/** What printing needs besides the AST (with what resolving needs, ./resolver.ts `ResolveOptions`). */
export interface PrintOptions extends ResolveOptions {
  timezone: string;
  limits: PrintLimits;
}

/**
 * The refusal of a query that prints past `maxPrintedBytes` of `dialect`'s SQL.
 * @throws ValidationError `max_size`.
 */
export function refusePrintedSize(bytes: number, maxPrintedBytes: number, dialect = "PostgreSQL"): void {
  if (bytes > maxPrintedBytes) {
    fail(
      `The query prints to more than the limit of ${maxPrintedBytes} bytes of ${dialect} (bound values included).`,
      "max_size",
    );
  }
}

/** The HogQL type of window function `fn` (PostgreSQL's name) over `args`. */
export function windowType(fn: string, args: readonly Printed[]): HogQLType {
  return ["row_number", "rank", "dense_rank", "ntile", "count"].includes(fn)
    ? "UInt64"
    : ["percent_rank", "cume_dist", "avg"].includes(fn)
      ? "Float64"
      : (args[0]?.type ?? "Unknown");
}

/**
 * A HogQL printer: the dialect-free walk (this class) over a dialect's leaves (its abstract
 * methods). One instance prints one query. Every method throws ValidationError for what it
 * refuses (see ./printer.ts for the messages, PostHog's where it has them).
 */
export abstract class PrinterBase implements ExpressionPrinter {
  /** Expressions and queries being printed, one inside the other. */
  private depth = 0;
  /** The resolver of this query's names. */
  protected readonly resolver: Resolver;

  constructor(protected readonly options: PrintOptions) {
    this.resolver = this.makeResolver(options);
  }

  /** The resolver, with the dialect's tables and names. */
  protected abstract makeResolver(options: PrintOptions): Resolver;
  /** The size of `statement` as the limit counts it. */
  protected abstract measure(statement: Prisma.Sql): number;
  /** The dialect's name in the `max_size` refusal. */
  protected abstract readonly dialectName: string;
  /** A named window's identifier (`WINDOW w AS ...`, `OVER w`). */
  protected abstract quote(name: string): Prisma.Sql;
  /** `value AS name` for one output column; `positional` for the top-level SELECT (`_0`, `_1`, ...). */
  protected abstract outputColumn(printed: Printed, name: string, positional: boolean): Prisma.Sql;
  /** A set operator (`UNION ALL`, ...) as the dialect writes it; undefined when not allowed. */
  protected abstract setOperator(operator: string): string | undefined;
  /** The expression of LIMIT or OFFSET. */
  protected abstract limitCount(printed: Printed): Prisma.Sql;
  /** What ends a SELECT after its LIMIT and OFFSET (ClickHouse's SETTINGS); empty by default. */
  protected selectTail(_scope: Scope): Prisma.Sql {
    return Prisma.empty;
  }
  /** A constant node (value bound as a parameter). */
  protected abstract constant(node: HogQLNode): Printed;
  /** `x IS NULL` (`negated`: `IS NOT NULL`): `x = NULL` and `x != NULL`. */
  protected abstract isNullTest(value: Printed, negated: boolean): Printed;
  /** `left op right` for a non-IN comparison, before the NULL default. */
  protected abstract comparison(op: string, operator: string, left: Printed, right: Printed): Printed;
  /** `left IN right` (`operator`: COMPARE_SQL's `IN`/`NOT IN`), before the NULL default. */
  protected abstract inList(left: Printed, right: HogQLNode, operator: string, scope: Scope): Printed;
  /** A nullable comparison made false (or true, for `NULL_TRUE` operators) when it is NULL. */
  protected abstract nullDefault(body: Prisma.Sql, value: boolean): Printed;
  /** `left op right` for `+ - * / %`. */
  protected abstract arithmetic(op: string, left: Printed, right: Printed): Printed;
  /** `value [NOT] BETWEEN low AND high`, false (true) when a side is NULL. */
  protected abstract between(value: Printed, low: Printed, high: Printed, negated: boolean): Printed;
  /** An array literal. */
  protected abstract array(items: Printed[]): Printed;
  /** `target[index]` that is not a property access (1-based, negative from the end). */
  protected abstract arrayIndex(target: Printed, index: Printed): Printed;
  /** A call of an allowed function, its arguments checked and printed. */
  protected abstract callFunction(def: FunctionDef, args: Printed[], call: CallInfo): Printed;
  /** A window function over a printed OVER clause (`name` as HogQL wrote it, `fn` its PostgreSQL name). */
  protected abstract windowCall(name: string, fn: string, args: Printed[], over: Prisma.Sql): Printed;
  /** A relative date (`-7d`, `mStart`) in the project's timezone. */
  protected abstract relativeDate(date: RelativeDate): Printed;
  /** The `{filters}` placeholder in `scope`. */
  protected abstract filtersExpr(scope: Scope): Printed;

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

  /** The refusal past `maxPrintedBytes` of a whole statement. @throws ValidationError `max_size`. */
  refuseSize(statement: Prisma.Sql): void {
    refusePrintedSize(this.measure(statement), this.options.limits.maxPrintedBytes, this.dialectName);
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
      const operator = this.setOperator(String(part["set_operator"]));
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
        selectSql.push(this.outputColumn(column.printed, name, positional));
      }
    }
    if (selectSql.length === 0) fail("A SELECT needs at least one column.");

    // Printed in the order PostHog's resolver visits the clauses (visit_select_query), which is the
    // order an alias becomes visible in.
    const where: Prisma.Sql[] = [];
    for (const clause of ["where", "prewhere"]) {
      if (node[clause]) where.push(this.expr(node[clause] as HogQLNode, scope).sql);
    }
    const having = node["having"] ? this.expr(node["having"] as HogQLNode, scope).sql : null;
    const groupBy = nodes(node["group_by"]).map((expr) => this.expr(expr, scope).sql);
    const orderBy = nodes(node["order_by"]).map((order) => this.orderExpr(order, scope));
    const limit = node["limit"] ? this.limitCount(this.expr(node["limit"] as HogQLNode, scope)) : null;
    const offset = node["offset"] ? this.limitCount(this.expr(node["offset"] as HogQLNode, scope)) : null;
    const windows = Object.entries((node["window_exprs"] as Record<string, HogQLNode> | null) ?? {}).map(
      ([name, spec]) => sql`${this.quote(name)} AS (${this.windowSpec(spec, scope)})`,
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
    const tail = this.selectTail(scope);
    if (tail !== Prisma.empty) parts.push(tail);
    return { sql: join(parts, " "), columns };
  }

  private orderExpr(node: HogQLNode, scope: Scope): Prisma.Sql {
    if (node.node !== "OrderExpr") fail(`Unsupported HogQL construct: ${node.node} in ORDER BY.`);
    const direction = String(node["order"]) === "DESC" ? "DESC" : "ASC";
    // ClickHouse sorts NULLs last in both directions.
    return sql`${this.expr(node["expr"] as HogQLNode, scope).sql} ${raw(direction)} NULLS LAST`;
  }

  /** A join's ON condition: the expression, as any other (ClickHouse overrides it). */
  joinConstraint(node: HogQLNode, scope: Scope): Prisma.Sql {
    return this.expr(node, scope).sql;
  }

  /** Any expression, measured (see the module comment). */
  expr(node: HogQLNode, scope: Scope): Printed {
    return this.nested(() => {
      const printed = this.exprOf(node, scope);
      refusePrintedSize(this.measure(printed.sql), this.options.limits.maxPrintedBytes, this.dialectName);
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
      case "ArithmeticOperation": {
        const op = String(node["op"]);
        const left = this.expr(node["left"] as HogQLNode, scope);
        const right = this.expr(node["right"] as HogQLNode, scope);
        return this.arithmetic(op, left, right);
      }
      case "BetweenExpr": {
        const value = this.expr(node["expr"] as HogQLNode, scope);
        const low = this.expr(node["low"] as HogQLNode, scope);
        const high = this.expr(node["high"] as HogQLNode, scope);
        return this.between(value, low, high, node["negated"] === true);
      }
      case "Call":
        return this.call(node, scope);
      case "TypeCast": {
        const fn = lookup(CAST_FUNCTIONS, String(node["type_name"]).toLowerCase());
        if (!fn) fail(`Unsupported type cast: ::${String(node["type_name"])}.`);
        return this.call({ node: "Call", name: fn, args: [node["expr"]], distinct: false }, scope);
      }
      case "Array":
        return this.array(nodes(node["exprs"]).map((item) => this.expr(item, scope)));
      case "ArrayAccess": {
        const field = this.resolver.arrayAccessField(node, scope);
        if (field) return field;
        const target = this.expr(node["array"] as HogQLNode, scope);
        const index = this.expr(node["property"] as HogQLNode, scope);
        return this.arrayIndex(target, index);
      }
      case "WindowFunction":
        return this.windowFunction(node, scope);
      case "SelectQuery":
      case "SelectSetQuery": {
        const printed = this.query(node, scope.ctes);
        if (printed.columns.length !== 1) fail("A subquery used as a value must select one column.");
        return out(sql`(${printed.sql})`, printed.columns[0]!.type, true);
      }
      case "RelativeDate": {
        const date = parseRelativeDate(String(node["text"]));
        if (!date) fail(`Unsupported relative date: ${String(node["text"])}.`);
        return this.relativeDate(date);
      }
      case "FiltersExpr":
        return this.filtersExpr(scope);
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

  private compare(node: HogQLNode, scope: Scope): Printed {
    const op = String(node["op"]);
    const operator = lookup(COMPARE_SQL, op);
    if (!operator) fail(`Unsupported comparison operator: ${op}.`);
    const leftNode = node["left"] as HogQLNode;
    const rightNode = node["right"] as HogQLNode;
    const left = this.expr(leftNode, scope);
    const isNullConstant = rightNode.node === "Constant" && rightNode["value"] === null;
    if (isNullConstant && (op === "==" || op === "!=")) return this.isNullTest(left, op === "!=");
    const body =
      op === "in" || op === "not in"
        ? this.inList(left, rightNode, operator, scope)
        : this.comparison(op, operator, left, this.expr(rightNode, scope));
    if (!body.nullable) return out(body.sql, "Bool", false);
    return this.nullDefault(body.sql, NULL_TRUE.has(op));
  }

  private call(node: HogQLNode, scope: Scope): Printed {
    const name = String(node["name"]);
    const argNodes = nodes(node["args"]);
    const operator = operatorCall(name, argNodes);
    if (operator) return this.expr(operator, scope);
    if (argNodes.some((arg) => arg.node === "Lambda")) {
      fail(`Lambdas (x -> ...) are not supported: ${name}(...) cannot be printed for ${this.dialectName}.`);
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
    return this.callFunction(def, args, info);
  }

  private windowFunction(node: HogQLNode, scope: Scope): Printed {
    const name = String(node["name"]);
    const fn = lookup(WINDOW_FUNCTIONS, name);
    if (!fn) fail(`Unsupported window function '${name}'.`);
    if (nodes(node["args"]).length > 0) fail(`Window function '${name}' takes no parameters.`);
    const args = nodes(node["exprs"]).map((arg) => this.expr(arg, scope));
    const over = node["over_identifier"]
      ? this.quote(String(node["over_identifier"]))
      : sql`(${this.windowSpec(node["over_expr"] as HogQLNode, scope)})`;
    return this.windowCall(name, fn, args, over);
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
}
