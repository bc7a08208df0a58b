/**
 * HogQL's operators and keywords as PostgreSQL spells them, for the printer (./printer.ts):
 * comparison and text operators (with ClickHouse's NULL rules), join and set operators, window
 * functions, cast names, the function spellings of operators (`equals(a, b)`, `plus(a, b)`) and
 * window frame bounds. PostHog: `posthog/hogql/printer.py`, `posthog/hogql/constants.py`.
 */
import { ValidationError } from "../../core/errors.js";
import type { HogQLNode } from "./parser.js";

/** HogQL's comparison operators (`CompareOperation.op`) as PostgreSQL's. */
export const COMPARE_SQL: Record<string, string> = {
  "==": "=",
  "!=": "<>",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
  like: "LIKE",
  ilike: "ILIKE",
  "not like": "NOT LIKE",
  "not ilike": "NOT ILIKE",
  "=~": "~",
  "=~*": "~*",
  "!~": "!~",
  "!~*": "!~*",
  in: "IN",
  "not in": "NOT IN",
};
/** Operators that are true when a side is NULL (ClickHouse prints them as `ifNull(op, 1)`). */
export const NULL_TRUE = new Set(["!=", "not like", "not ilike", "not in", "!~", "!~*"]);
/** Comparison operators over text: both sides are compared as text. */
export const TEXT_OPERATORS = new Set(["like", "ilike", "not like", "not ilike", "=~", "=~*", "!~", "!~*"]);

/** HogQL's join kinds as PostgreSQL's (ClickHouse's `JOIN` is an inner join). */
export const JOIN_TYPES: Record<string, string> = {
  JOIN: "INNER JOIN",
  "INNER JOIN": "INNER JOIN",
  "LEFT JOIN": "LEFT JOIN",
  "LEFT OUTER JOIN": "LEFT JOIN",
  "RIGHT JOIN": "RIGHT JOIN",
  "RIGHT OUTER JOIN": "RIGHT JOIN",
  "FULL JOIN": "FULL JOIN",
  "FULL OUTER JOIN": "FULL JOIN",
  "CROSS JOIN": "CROSS JOIN",
};

/** HogQL's set operators between SELECTs as PostgreSQL's (`UNION DISTINCT` is `UNION`). */
export const SET_OPERATORS: Record<string, string> = {
  "UNION ALL": "UNION ALL",
  "UNION DISTINCT": "UNION",
  INTERSECT: "INTERSECT",
  "INTERSECT DISTINCT": "INTERSECT",
  EXCEPT: "EXCEPT",
  "EXCEPT DISTINCT": "EXCEPT",
};

/** Window functions HogQL allows, as PostgreSQL names them (`lagInFrame` is `lag`). */
export const WINDOW_FUNCTIONS: Record<string, string> = {
  row_number: "row_number",
  rank: "rank",
  dense_rank: "dense_rank",
  percent_rank: "percent_rank",
  cume_dist: "cume_dist",
  ntile: "ntile",
  lag: "lag",
  lead: "lead",
  lagInFrame: "lag",
  leadInFrame: "lead",
  first_value: "first_value",
  last_value: "last_value",
  nth_value: "nth_value",
  sum: "sum",
  avg: "avg",
  count: "count",
  min: "min",
  max: "max",
};

/** The argument (by index) of a window function that PostgreSQL takes as an integer. */
export const INT_WINDOW_ARGUMENTS: ReadonlyMap<string, number> = new Map([
  ["ntile", 0],
  ["nth_value", 1],
  ["lag", 1],
  ["lead", 1],
]);

/** `CAST(x AS type)`'s type names, as the HogQL function the cast prints as. */
export const CAST_FUNCTIONS: Record<string, string> = {
  int: "toInt",
  integer: "toInt",
  int64: "toInt",
  bigint: "toInt",
  float: "toFloat",
  float64: "toFloat",
  double: "toFloat",
  string: "toString",
  text: "toString",
  varchar: "toString",
  date: "toDate",
  datetime: "toDateTime",
  timestamp: "toDateTime",
  bool: "toBool",
  boolean: "toBool",
};

/**
 * `table[key]` for the table's own keys only: a name such as `toString` or `constructor` must not
 * reach `Object.prototype` (which made `toString(1, 2)` an "Unsupported comparison operator").
 */
export function lookup(table: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

const COMPARE_CALLS: Record<string, string> = {
  equals: "==",
  notEquals: "!=",
  less: "<",
  lessOrEquals: "<=",
  greater: ">",
  greaterOrEquals: ">=",
  notLike: "not like",
  notILike: "not ilike",
  in: "in",
  notIn: "not in",
};
const ARITHMETIC_CALLS: Record<string, string> = {
  plus: "+",
  minus: "-",
  multiply: "*",
  divide: "/",
  modulo: "%",
};

/**
 * HogQL's function spellings of operators (`and(a, b)`, `NOT(x)`, `equals(a, b)`, `plus(a, b)`,
 * as PostHog's printer writes them) as the operator nodes, so they get the operators' semantics.
 */
export function operatorCall(name: string, args: HogQLNode[]): HogQLNode | null {
  const lower = name.toLowerCase();
  if ((lower === "and" || lower === "or") && args.length >= 1)
    return { node: lower === "and" ? "And" : "Or", exprs: args };
  if (lower === "not" && args.length === 1) return { node: "Not", expr: args[0] };
  const compare = lookup(COMPARE_CALLS, name);
  if (compare && args.length === 2)
    return { node: "CompareOperation", op: compare, left: args[0], right: args[1] };
  const arithmetic = lookup(ARITHMETIC_CALLS, name);
  if (arithmetic && args.length === 2)
    return { node: "ArithmeticOperation", op: arithmetic, left: args[0], right: args[1] };
  return null;
}

/**
 * A window frame bound as PostgreSQL writes it (`3 PRECEDING`, `CURRENT ROW`); absent: `UNBOUNDED PRECEDING`.
 * @throws ValidationError for another frame kind or an offset that is not a non-negative integer.
 */
export function frameBound(bound: HogQLNode | null): string {
  if (!bound) return "UNBOUNDED PRECEDING";
  const type = String(bound["frame_type"]);
  if (type === "CURRENT ROW") return "CURRENT ROW";
  if (type !== "PRECEDING" && type !== "FOLLOWING")
    throw new ValidationError(`Unsupported window frame: ${type}.`);
  const value = bound["frame_value"];
  if (value === null || value === undefined) return `UNBOUNDED ${type}`;
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw new ValidationError("Window frame offsets must be non-negative integers.");
  return `${value as number} ${type}`;
}
