/**
 * The printer from PostHog's HogQL AST (../parser.ts, placeholders replaced by ../placeholders.ts,
 * LIMIT rules applied by ../limits.ts) to one parameterised ClickHouse `SELECT`, as PostHog's
 * `posthog/hogql/printer.py` prints for ClickHouse. The walk, name resolution, allow-lists,
 * refusals and printing bounds are the PostgreSQL printer's (../printer-base.ts, ../resolver.ts);
 * this module holds ClickHouse's leaves, ./tables.ts its tables and names, ./functions.ts its
 * functions, ./params.ts its bound values.
 *
 * Guarantees (as the PostgreSQL printer's):
 * - Every constant of the query is a bound parameter, `{p0:String}`, `{p1:Int64}`, ... (returned in
 *   `params`); identifiers are the printer's own (`t1`, `c1`, ...) except output column names, in
 *   backticks with backslashes and backticks escaped. Nothing of the input is spliced into the SQL.
 * - Every table reference reads a view holding `team_id = {pN:Int64}` inside it (./tables.ts).
 * - The same tables, columns, types, functions and ValidationErrors as the PostgreSQL printer;
 *   ClickHouse-only syntax (SETTINGS, FINAL, SAMPLE, ARRAY JOIN, LIMIT BY, table functions such as
 *   `numbers()`, `url()`, `file()`, `remote()`, other databases such as `system.*`) stays refused.
 *
 * Semantics are ClickHouse's own where the PostgreSQL printer emulates them: comparisons print as
 * PostHog's `ifNull(equals(a, b), 0)` (`ifNull(notEquals(a, b), 1)`, `isNull(x)` for `x = NULL`),
 * arithmetic as `plus`/`minus`/`multiply`/`divide`/`modulo`. Intended differences from the
 * PostgreSQL printer's results (docs/hogql.md, "ClickHouse"):
 * 1. Types meeting in a comparison are not coerced: `10 > '9'` compares numbers (a constant string
 *    is read as the other side's type), and comparing a text column with a number (an untyped
 *    property with `10`) is ClickHouse's error `There is no supertype ...`, not a text comparison.
 * 2. `/` by zero is inf or nan (NULL in JSON results, but `1/0 > 5` is true); `%` and `intDiv` by
 *    zero are ClickHouse's `Division by zero` error, not NULL.
 * 3. Aggregates over no rows: `min`, `max`, `any`, `argMax`, `argMin` of a column that cannot be
 *    NULL answer its type's default (0, '', 1970-01-01), not NULL; `avg` answers nan (NULL in JSON).
 * 4. `uniq` and `quantile`/`median` are ClickHouse's approximations (exact on small sets); `uniqExact`
 *    is exact.
 * 5. Text is bytes: `length`, `substring`, `position`, `reverse` count bytes; `lower`/`upper` change
 *    ASCII only; regular expressions are re2.
 * 6. `properties.x` is PostHog's JSON text extraction: a string keeps its JSON escapes (`a\"b`), an
 *    object or array is its JSON text as stored (no spaces added); `JSONExtractRaw` likewise.
 * 7. `toString` of a timestamp has its fraction (`2026-11-20 10:00:00.000000`); `toInt(1.5)` and
 *    `toInt('1.5')` are NULL (`accurateCastOrNull`), as are `toFloat(' 2')`.
 * 8. `lag`/`lead`/`lagInFrame`/`leadInFrame` past the frame answer the type's default, not NULL.
 * 9. `events.person_id` is the distinct id's current person where `person_distinct_id2` has one,
 *    else the person stored at capture (PostgreSQL: as stored at capture).
 * 10. Relative dates (`{variables.x}` = `-7d`) are resolved when printing (PostHog's
 *    `relative_date_parse`), not by the database when running.
 * 11. `{filters}` with filters set is refused as not built yet (NotImplementedError, 501: their
 *    date range is PostgreSQL's SQL); without filters it is `true`.
 * 12. An interval selected as such (`INTERVAL 2 HOUR`) leaves as its count of units (2), not as
 *    seconds; a difference of timestamps is seconds on both.
 * 13. Lambdas are refused naming ClickHouse (`... cannot be printed for ClickHouse.`).
 * 14. `person_distinct_ids` lists every current mapping, also of a person deleted since
 *    (PostgreSQL's view joins the person).
 * Comparisons answer `UInt8` inside the query; output columns typed `Bool` leave as booleans, as on
 * PostgreSQL. A date beside an interval is midnight in the project's timezone, then shifted.
 */

import { DateTime } from "luxon";
import { NotImplementedError } from "../../../core/errors.js";
import { Prisma } from "../../../generated/prisma/client.js";
import { type RelativeDate, resolveRelativeDate } from "../../relative-dates.js";
import { arithmeticType, numericOf } from "../coercion.js";
import { out } from "../functions/shared.js";
import type { CallInfo, FunctionDef } from "../functions.js";
import { hogqlText } from "../hogql-text.js";
import { INT_WINDOW_ARGUMENTS, lookup, TEXT_OPERATORS } from "../operators.js";
import type { HogQLNode } from "../parser.js";
import { fail, nodes } from "../print-shared.js";
import { PrinterBase, type PrintLimits, type PrintOptions, windowType } from "../printer-base.js";
import type { PropertyTypes } from "../property-types.js";
import { Resolver, type Scope } from "../resolver.js";
import { NUMERIC_TYPES, type Printed, type PrintedColumn } from "../types.js";
import { type ClickHouseContext, chDateTime, chText, printClickHouseCall } from "./functions.js";
import { clickHouseBytes, param, quoteClickHouse, renderClickHouse } from "./params.js";
import { clickHouseResolver, JOIN_SETTINGS } from "./tables.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

/**
 * HogQL's comparison operators as ClickHouse's functions (PostHog's printer writes the same); the
 * regular-expression operators are printed apart (`match`), where ../hogql-text.ts names HogQL's own
 * functions for them.
 */
const COMPARE_FUNCTIONS: Record<string, string> = {
  "==": "equals",
  "!=": "notEquals",
  "<": "less",
  "<=": "lessOrEquals",
  ">": "greater",
  ">=": "greaterOrEquals",
  like: "like",
  ilike: "ilike",
  "not like": "notLike",
  "not ilike": "notILike",
};

/** HogQL's set operators as ClickHouse's (a bare `UNION` needs a setting: DISTINCT is spelled). */
const SET_OPERATORS: Record<string, string> = {
  "UNION ALL": "UNION ALL",
  "UNION DISTINCT": "UNION DISTINCT",
  INTERSECT: "INTERSECT",
  "INTERSECT DISTINCT": "INTERSECT DISTINCT",
  EXCEPT: "EXCEPT",
  "EXCEPT DISTINCT": "EXCEPT DISTINCT",
};

const ARITHMETIC_FUNCTIONS: Record<string, string> = {
  "+": "plus",
  "-": "minus",
  "*": "multiply",
  "/": "divide",
  "%": "modulo",
};

/** What printing for ClickHouse needs besides the AST. */
export interface ClickHousePrintOptions {
  projectId: number;
  /** The project's timezone (IANA name): timestamps are read, truncated and split in it. */
  timezone: string;
  propertyTypes: PropertyTypes;
  /** Whether the HogQLQuery has `filters` (then `{filters}` is refused: see the module comment). */
  filters?: boolean;
  limits: PrintLimits;
  /** The instant relative dates are resolved from (default: now). */
  now?: Date;
}

/** A printed ClickHouse query, as the query worker's `PrintedHogQL` carries a PostgreSQL one. */
export interface PrintedClickHouse {
  /** The statement with `{pN:Type}` placeholders. */
  sql: string;
  /** The values of the placeholders, by name (for `@clickhouse/client`'s `query_params`). */
  params: Record<string, unknown>;
  /** Its output columns, named `_0`, `_1`, ... in the SQL. */
  columns: PrintedColumn[];
  /** Its size as the printing limit measures it (./params.ts `clickHouseBytes`). */
  bytes: number;
  /** The query as HogQL text (the response's `hogql`). */
  hogql: string;
}

/** The ClickHouse printer of one query: the leaves of ../printer-base.ts as ClickHouse spells them. */
class ClickHousePrinter extends PrinterBase {
  protected readonly dialectName = "ClickHouse";
  private readonly ctx: ClickHouseContext;
  /** The printer's names of the query's named windows, by HogQL name. */
  private readonly windows = new Map<string, string>();

  constructor(
    options: PrintOptions,
    private readonly hasFilters: boolean,
    private readonly now: Date,
  ) {
    super(options);
    this.ctx = { tz: param(options.timezone, "String") };
  }

  protected makeResolver(options: PrintOptions): Resolver {
    return new Resolver(options, this, clickHouseResolver(options.timezone));
  }

  protected measure(statement: Prisma.Sql): number {
    return clickHouseBytes(statement);
  }

  /** A named window (`WINDOW w AS (...)`, `OVER w`) as the printer's own name, `w1`, `w2`, ... */
  protected quote(name: string): Prisma.Sql {
    let alias = this.windows.get(name);
    if (alias === undefined) {
      alias = `w${this.windows.size + 1}`;
      this.windows.set(name, alias);
    }
    return raw(alias);
  }

  protected outputColumn(printed: Printed, name: string, positional: boolean): Prisma.Sql {
    // Result timestamps leave as UTC ISO text and booleans as booleans, as the PostgreSQL printer's
    // do, so that one reader formats both (src/lib/hogql/types.ts `jsonValue`).
    const value = !positional
      ? printed.sql
      : printed.type === "DateTime"
        ? sql`formatDateTime(toTimeZone(toDateTime64(${printed.sql}, 6, ${this.ctx.tz}), 'UTC'), '%Y-%m-%dT%H:%i:%S.%fZ')`
        : printed.type === "Bool"
          ? sql`toBool(${printed.sql})`
          : printed.sql;
    return sql`${value} AS ${quoteClickHouse(name)}`;
  }

  protected setOperator(operator: string): string | undefined {
    return lookup(SET_OPERATORS, operator);
  }

  protected limitCount(printed: Printed): Prisma.Sql {
    return printed.sql;
  }

  protected override selectTail(scope: Scope): Prisma.Sql {
    const joined = scope.order.length > 1 || scope.order.some((ref) => ref.personJoin);
    return joined ? JOIN_SETTINGS : Prisma.empty;
  }

  protected constant(node: HogQLNode): Printed {
    const value = node["value"];
    if (value === null || value === undefined) return out(sql`NULL`, "Null", true);
    if (typeof value === "boolean") return out(param(value, "Bool"), "Bool", false);
    if (typeof value === "number") {
      if (!Number.isFinite(value)) fail("Numbers must be finite.");
      return Number.isSafeInteger(value)
        ? out(param(value, "Int64"), "Int64", false)
        : out(param(value, "Float64"), "Float64", false);
    }
    if (typeof value === "string") {
      if (node["value_type"] === "number") return out(param(value, "Float64"), "Float64", false);
      return out(param(value, "String"), "String", false);
    }
    return fail("Unsupported constant.");
  }

  protected isNullTest(value: Printed, negated: boolean): Printed {
    return out(sql`${negated ? raw("isNotNull") : raw("isNull")}(${value.sql})`, "Bool", false);
  }

  protected comparison(op: string, _operator: string, left: Printed, right: Printed): Printed {
    const nullable = left.nullable || right.nullable;
    if (!TEXT_OPERATORS.has(op)) {
      return out(sql`${raw(COMPARE_FUNCTIONS[op]!)}(${left.sql}, ${right.sql})`, "Bool", nullable);
    }
    const [l, r] = [chText(left), chText(right)];
    const fn = lookup(COMPARE_FUNCTIONS, op);
    if (fn) return out(sql`${raw(fn)}(${l}, ${r})`, "Bool", nullable);
    // =~ (match), =~* (case-insensitive), !~, !~*: re2 patterns, as PostHog prints them.
    const pattern = op.endsWith("*") ? sql`concat('(?i)', ${r})` : r;
    const match = sql`match(${l}, ${pattern})`;
    return out(op.startsWith("!") ? sql`not(${match})` : match, "Bool", nullable);
  }

  protected nullDefault(body: Prisma.Sql, value: boolean): Printed {
    return out(sql`ifNull(${body}, ${value ? raw("1") : raw("0")})`, "Bool", false);
  }

  protected inList(left: Printed, right: HogQLNode, operator: string, scope: Scope): Printed {
    const negated = operator !== "IN";
    if (right.node === "SelectQuery" || right.node === "SelectSetQuery") {
      const printed = this.query(right, scope.ctes);
      if (printed.columns.length !== 1) fail("A subquery after IN must select one column.");
      return out(sql`(${left.sql} ${raw(operator)} (${printed.sql}))`, "Bool", true);
    }
    const items = right.node === "Tuple" || right.node === "Array" ? nodes(right["exprs"]) : [right];
    if (items.length === 0) return out(negated ? sql`true` : sql`false`, "Bool", false);
    const printed = items.map((item) => this.expr(item, scope));
    if (right.node !== "Tuple" && right.node !== "Array" && printed[0]!.type === "Array") {
      const has = sql`has(${printed[0]!.sql}, ${left.sql})`;
      return out(negated ? sql`not(${has})` : has, "Bool", left.nullable);
    }
    return out(
      sql`(${left.sql} ${raw(operator)} (${join(
        printed.map((item) => item.sql),
        ", ",
      )}))`,
      "Bool",
      left.nullable || printed.some((item) => item.nullable),
    );
  }

  protected between(value: Printed, low: Printed, high: Printed, negated: boolean): Printed {
    const between = sql`(${value.sql} ${negated ? raw("NOT BETWEEN") : raw("BETWEEN")} ${low.sql} AND ${high.sql})`;
    return out(sql`ifNull(${between}, ${negated ? raw("1") : raw("0")})`, "Bool", false);
  }

  protected arithmetic(op: string, left: Printed, right: Printed): Printed {
    const fn = lookup(ARITHMETIC_FUNCTIONS, op);
    if (!fn) return fail(`Unsupported arithmetic operator: ${op}.`);
    const nullable = left.nullable || right.nullable;
    if (op === "/") return out(sql`divide(${left.sql}, ${right.sql})`, "Float64", true);
    if (op === "%") return out(sql`modulo(${left.sql}, ${right.sql})`, numericOf(left, right), true);
    // Text beside an interval or a timestamp is a timestamp, and so is the result; so is a date
    // beside an interval (midnight in the project's timezone: ClickHouse would keep a date).
    const l =
      (left.type === "String" && (right.type === "Interval" || right.type === "DateTime")) ||
      (left.type === "Date" && right.type === "Interval")
        ? out(chDateTime(left, this.ctx), "DateTime", left.nullable || left.type === "String")
        : left;
    return out(sql`${raw(fn)}(${l.sql}, ${right.sql})`, arithmeticType(l, right, op), nullable);
  }

  protected array(items: Printed[]): Printed {
    return out(
      sql`[${join(
        items.map((item) => item.sql),
        ", ",
      )}]`,
      "Array",
      false,
    );
  }

  protected arrayIndex(target: Printed, index: Printed): Printed {
    if (target.type === "Array" && NUMERIC_TYPES.has(index.type)) {
      // ClickHouse's own: 1-based, negative counts from the end.
      return out(sql`arrayElement(${target.sql}, ${index.sql})`, "Unknown", true);
    }
    return fail("Array access needs an array and an integer index, or properties and a constant key.");
  }

  protected callFunction(def: FunctionDef, args: Printed[], call: CallInfo): Printed {
    return printClickHouseCall(def, args, call, this.ctx);
  }

  protected windowCall(name: string, fn: string, args: Printed[], over: Prisma.Sql): Printed {
    // ntile's buckets, nth_value's n, lag's and lead's offset: ClickHouse takes them unsigned.
    const unsigned = INT_WINDOW_ARGUMENTS.get(fn);
    const argList = args.map((arg, i) => (i === unsigned ? sql`toUInt64(${arg.sql})` : arg.sql));
    const call = argList.length > 0 ? sql`${raw(name)}(${join(argList, ", ")})` : sql`${raw(name)}()`;
    return out(sql`${call} OVER ${over}`, windowType(fn, args), true);
  }

  /**
   * A join's ON condition, its top-level equalities bare (`equals(a, b)`, not `ifNull(..., 0)`):
   * ClickHouse finds a join's keys only in those, and NULL = false there (PostHog's printer too).
   */
  override joinConstraint(node: HogQLNode, scope: Scope): Prisma.Sql {
    if (node.node === "And" && nodes(node["exprs"]).length > 0) {
      return sql`(${join(
        nodes(node["exprs"]).map((part) => this.joinConstraint(part, scope)),
        " AND ",
      )})`;
    }
    const right = node["right"] as HogQLNode | undefined;
    if (
      node.node === "CompareOperation" &&
      node["op"] === "==" &&
      !(right?.node === "Constant" && right["value"] === null)
    ) {
      const left = this.expr(node["left"] as HogQLNode, scope);
      return this.comparison("==", "=", left, this.expr(right!, scope)).sql;
    }
    return this.expr(node, scope).sql;
  }

  /** A relative date resolved now in the project's timezone (PostHog's `relative_date_parse`), bound. */
  protected relativeDate(date: RelativeDate): Printed {
    const instant = resolveRelativeDate(date, DateTime.fromJSDate(this.now, { zone: this.options.timezone }));
    if (!instant.isValid) fail("Unsupported relative date: out of range.");
    const utc = instant.toUTC().toFormat("yyyy-MM-dd HH:mm:ss.SSS000");
    return out(sql`toTimeZone(${param(utc, "DateTime64(6, 'UTC')")}, ${this.ctx.tz})`, "DateTime", false);
  }

  protected filtersExpr(_scope: Scope): Printed {
    if (this.hasFilters) {
      throw new NotImplementedError(
        "The {filters} placeholder is not supported on ClickHouse yet: its property filters print to PostgreSQL only.",
      );
    }
    return out(sql`true`, "Bool", false);
  }
}

/**
 * Prints a HogQL query (placeholders already replaced, LIMIT rules applied) as one parameterised
 * ClickHouse SELECT whose output columns are named `_0`, `_1`, ... (HogQL's names, which may
 * repeat, are in `columns`). PostHog: `posthog/hogql/printer.py` `print_ast(..., dialect="clickhouse")`.
 * @returns `{sql, params, columns, bytes, hogql}`: run `sql` with `params` as query parameters.
 * @throws ValidationError as `printHogQL` (../printer.ts) does, with the same messages; `max_size`
 *   naming ClickHouse; `{filters}` when `options.filters` is set.
 */
export function printClickHouse(ast: HogQLNode, options: ClickHousePrintOptions): PrintedClickHouse {
  const printer = new ClickHousePrinter(
    {
      projectId: options.projectId,
      timezone: options.timezone,
      propertyTypes: options.propertyTypes,
      limits: options.limits,
    },
    options.filters === true,
    options.now ?? new Date(),
  );
  const printed = printer.query(ast, new Map(), true);
  printer.refuseSize(printed.sql);
  const statement = renderClickHouse(printed.sql);
  return {
    sql: statement.sql,
    params: statement.params,
    columns: printed.columns,
    bytes: clickHouseBytes(printed.sql),
    hogql: hogqlText(ast),
  };
}
