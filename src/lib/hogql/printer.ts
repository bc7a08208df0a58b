/**
 * The printer from PostHog's HogQL AST (./parser.ts, placeholders already replaced by
 * ./placeholders.ts) to one parameterised PostgreSQL `SELECT` over our tables, as PostHog's
 * `posthog/hogql/printer.py`: statements and expressions as SQL. The walk of the AST, its
 * allow-lists and refusals and the printing bounds are shared with the ClickHouse printer
 * (./printer-base.ts; ./clickhouse/printer.ts); this module holds PostgreSQL's leaves. Names
 * (scopes, tables, fields, CTEs, aliases) are resolved in the same pass by ./resolver.ts, which the
 * printer owns. Operators as PostgreSQL spells them are ./operators.ts; how types meeting in one
 * expression are made to agree, ./coercion.ts; functions, ./functions.ts.
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
import type { RelativeDate } from "../relative-dates.js";
import { arithmeticType, coerce, numericOf, shiftByNumber, textOf } from "./coercion.js";
import { out } from "./functions/shared.js";
import { asTimestamp, type CallInfo, type FunctionDef } from "./functions.js";
import { INT_WINDOW_ARGUMENTS, lookup, SET_OPERATORS, TEXT_OPERATORS } from "./operators.js";
import type { HogQLNode } from "./parser.js";
import { fail, nodes, quoteIdent } from "./print-shared.js";
import { PrinterBase, type PrintOptions, refusePrintedSize, windowType } from "./printer-base.js";
import { relativeDateSql } from "./relative-dates.js";
import { Resolver, type Scope } from "./resolver.js";
import { NUMERIC_TYPES, type Printed, type PrintedQuery } from "./types.js";

export type { PrintLimits, PrintOptions } from "./printer-base.js";
export { refusePrintedSize } from "./printer-base.js";
export type { PropertyTypes } from "./property-types.js";
export type { PrintedColumn, PrintedQuery } from "./types.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

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

/** The PostgreSQL printer of one query: the leaves of ./printer-base.ts as PostgreSQL spells them. */
class Printer extends PrinterBase {
  protected readonly dialectName = "PostgreSQL";

  protected makeResolver(options: PrintOptions): Resolver {
    return new Resolver(options, this);
  }

  protected measure(statement: Prisma.Sql): number {
    return printedBytes(statement);
  }

  protected quote(name: string): Prisma.Sql {
    return quoteIdent(name);
  }

  protected outputColumn(printed: Printed, name: string, positional: boolean): Prisma.Sql {
    // Result timestamps leave as UTC text: drivers read a timestamptz in a non-UTC session
    // (the project's TimeZone) inconsistently; the runner formats them in the project's zone.
    // Intervals leave as seconds (their type is IntervalSecond): drivers cannot read an interval.
    const value = !positional
      ? printed.sql
      : printed.type === "DateTime"
        ? sql`to_char((${printed.sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
        : printed.type === "Interval"
          ? sql`extract(epoch from (${printed.sql}))::float8`
          : printed.sql;
    return sql`${value} AS ${quoteIdent(name)}`;
  }

  protected setOperator(operator: string): string | undefined {
    return lookup(SET_OPERATORS, operator);
  }

  protected limitCount(printed: Printed): Prisma.Sql {
    return sql`(${printed.sql})::bigint`;
  }

  protected constant(node: HogQLNode): Printed {
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

  protected isNullTest(value: Printed, negated: boolean): Printed {
    return out(sql`(${value.sql} ${negated ? raw("IS NOT NULL") : raw("IS NULL")})`, "Bool", false);
  }

  protected comparison(op: string, operator: string, left: Printed, right: Printed): Printed {
    const [l, r] = TEXT_OPERATORS.has(op)
      ? [textOf(left), textOf(right)]
      : [coerce(left, right), coerce(right, left)];
    return out(sql`(${l.sql} ${raw(operator)} ${r.sql})`, "Bool", l.nullable || r.nullable);
  }

  protected nullDefault(body: Prisma.Sql, value: boolean): Printed {
    return out(sql`COALESCE(${body}, ${value ? raw("TRUE") : raw("FALSE")})`, "Bool", false);
  }

  protected inList(left: Printed, right: HogQLNode, operator: string, scope: Scope): Printed {
    if (right.node === "SelectQuery" || right.node === "SelectSetQuery") {
      const printed = this.query(right, scope.ctes);
      if (printed.columns.length !== 1) fail("A subquery after IN must select one column.");
      // The subquery's one column, as `s.v`, made comparable with the left side as a list item is.
      const column = out(raw("s.v"), printed.columns[0]!.type, true);
      const l = coerce(left, column);
      const item = coerce(column, left);
      return out(
        sql`(${l.sql} ${raw(operator)} (SELECT ${item.sql} FROM (${printed.sql}) AS s(v)))`,
        "Bool",
        true,
      );
    }
    const items = right.node === "Tuple" || right.node === "Array" ? nodes(right["exprs"]) : [right];
    if (items.length === 0) return out(operator === "IN" ? sql`FALSE` : sql`TRUE`, "Bool", false);
    const printed = items.map((item) => coerce(this.expr(item, scope), left));
    if (right.node !== "Tuple" && right.node !== "Array" && printed[0]!.type === "Array") {
      const any =
        operator === "IN"
          ? sql`(${left.sql} = ANY(${printed[0]!.sql}))`
          : sql`(${left.sql} <> ALL(${printed[0]!.sql}))`;
      return out(any, "Bool", true);
    }
    const l = coerce(left, printed[0]!);
    return out(
      sql`(${l.sql} ${raw(operator)} (${join(
        printed.map((item) => item.sql),
        ", ",
      )}))`,
      "Bool",
      l.nullable || printed.some((item) => item.nullable),
    );
  }

  protected between(value: Printed, lowValue: Printed, highValue: Printed, negated: boolean): Printed {
    const low = coerce(lowValue, value);
    const high = coerce(highValue, value);
    const v = coerce(value, lowValue);
    const between = sql`(${v.sql} ${negated ? raw("NOT BETWEEN") : raw("BETWEEN")} ${low.sql} AND ${high.sql})`;
    return out(sql`COALESCE(${between}, ${negated ? raw("TRUE") : raw("FALSE")})`, "Bool", false);
  }

  protected arithmetic(op: string, left: Printed, right: Printed): Printed {
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

  protected array(items: Printed[]): Printed {
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

  protected arrayIndex(target: Printed, index: Printed): Printed {
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

  protected callFunction(def: FunctionDef, args: Printed[], call: CallInfo): Printed {
    return def.print(args, call);
  }

  protected windowCall(_name: string, fn: string, args: Printed[], over: Prisma.Sql): Printed {
    // PostgreSQL takes integers where ClickHouse takes any number: ntile's buckets, nth_value's n,
    // lag's and lead's offset.
    const intArgument = INT_WINDOW_ARGUMENTS.get(fn);
    const argList = args.map((arg, i) =>
      fn === "avg" ? sql`(${arg.sql})::float8` : i === intArgument ? sql`(${arg.sql})::int` : arg.sql,
    );
    const call =
      argList.length > 0
        ? sql`${raw(fn)}(${join(argList, ", ")})`
        : fn === "count"
          ? sql`count(*)`
          : sql`${raw(fn)}()`;
    return out(sql`${call} OVER ${over}`, windowType(fn, args), true);
  }

  /** A relative date (`-7d`, `mStart`) resolved at run time in the project's timezone. */
  protected relativeDate(date: RelativeDate): Printed {
    return out(relativeDateSql(date), "DateTime", false);
  }

  protected filtersExpr(scope: Scope): Printed {
    return this.resolver.filters(scope);
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
