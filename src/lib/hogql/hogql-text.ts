/**
 * PostHog's AST back to HogQL text, as PostHog's printer writes it in the `hogql` dialect
 * (`posthog/hogql/printer`): operators as functions (`equals(event, 'x')`, `plus(a, 1)`), strings
 * in single quotes with backslash escapes, identifiers in backticks when they are not plain.
 * Column names of expressions without an alias are this text (`count()`), as PostHog names them,
 * and the response's `hogql` is the whole query printed this way.
 */
import type { HogQLNode } from "./parser.js";

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
  in: "in",
  "not in": "notIn",
  "=~": "match",
  "=~*": "imatch",
  "!~": "notMatch",
  "!~*": "notIMatch",
};

const ARITHMETIC_FUNCTIONS: Record<string, string> = {
  "+": "plus",
  "-": "minus",
  "*": "multiply",
  "/": "divide",
  "%": "modulo",
};

/** An identifier as HogQL writes it: plain when it can be, else in backticks. */
export function hogqlIdentifier(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? name
    : `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;
}

/** A string constant as HogQL writes it. */
export function hogqlString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function list(nodes: unknown): string {
  return ((nodes as HogQLNode[] | null) ?? []).map(hogqlText).join(", ");
}

function constant(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return hogqlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

function joinText(join: HogQLNode | null): string {
  if (!join) return "";
  const table = join["table"] as HogQLNode;
  const tableText =
    table.node === "SelectQuery" || table.node === "SelectSetQuery"
      ? `(${hogqlText(table)})`
      : hogqlText(table);
  const alias = join["alias"] ? ` AS ${hogqlIdentifier(String(join["alias"]))}` : "";
  const constraint = join["constraint"] as HogQLNode | null;
  const on = constraint
    ? ` ${constraint["constraint_type"]} ${hogqlText(constraint["expr"] as HogQLNode)}`
    : "";
  const type = join["join_type"] ? `${join["join_type"]} ` : "";
  const next = join["next_join"] as HogQLNode | null;
  return `${type}${tableText}${alias}${on}${next ? ` ${joinText(next)}` : ""}`;
}

function selectText(node: HogQLNode): string {
  const parts: string[] = [];
  const ctes = node["ctes"] as HogQLNode[] | null;
  if (ctes?.length) {
    parts.push(
      `WITH ${ctes
        .map((cte) =>
          cte["cte_type"] === "column"
            ? `${hogqlText(cte["expr"] as HogQLNode)} AS ${hogqlIdentifier(String(cte["name"]))}`
            : `${hogqlIdentifier(String(cte["name"]))} AS (${hogqlText(cte["expr"] as HogQLNode)})`,
        )
        .join(", ")}`,
    );
  }
  parts.push(`SELECT${node["distinct"] ? " DISTINCT" : ""} ${list(node["select"])}`);
  if (node["select_from"]) parts.push(`FROM ${joinText(node["select_from"] as HogQLNode)}`);
  if (node["where"]) parts.push(`WHERE ${hogqlText(node["where"] as HogQLNode)}`);
  if ((node["group_by"] as unknown[] | null)?.length) parts.push(`GROUP BY ${list(node["group_by"])}`);
  if (node["having"]) parts.push(`HAVING ${hogqlText(node["having"] as HogQLNode)}`);
  if ((node["order_by"] as unknown[] | null)?.length) parts.push(`ORDER BY ${list(node["order_by"])}`);
  if (node["limit"]) parts.push(`LIMIT ${hogqlText(node["limit"] as HogQLNode)}`);
  if (node["offset"]) parts.push(`OFFSET ${hogqlText(node["offset"] as HogQLNode)}`);
  return parts.join(" ");
}

/** The HogQL text of a node (any expression or query). */
export function hogqlText(node: HogQLNode): string {
  switch (node.node) {
    case "SelectQuery":
      return selectText(node);
    case "SelectSetQuery": {
      const rest = (node["subsequent_select_queries"] as HogQLNode[]) ?? [];
      return [
        hogqlText(node["initial_select_query"] as HogQLNode),
        ...rest.map((part) => `${part["set_operator"]} ${hogqlText(part["select_query"] as HogQLNode)}`),
      ].join(" ");
    }
    case "Constant":
      return constant(node["value"]);
    case "Field":
      return (node["chain"] as Array<string | number>)
        .map((part) => (part === "*" ? "*" : hogqlIdentifier(String(part))))
        .join(".");
    case "Alias":
      return `${hogqlText(node["expr"] as HogQLNode)} AS ${hogqlIdentifier(String(node["alias"]))}`;
    case "Call": {
      const params = node["params"] ? `(${list(node["params"])})` : "";
      const distinct = node["distinct"] ? "DISTINCT " : "";
      return `${node["name"]}${params}(${distinct}${list(node["args"])})`;
    }
    case "CompareOperation": {
      const op = String(node["op"]);
      return `${COMPARE_FUNCTIONS[op] ?? op}(${hogqlText(node["left"] as HogQLNode)}, ${hogqlText(node["right"] as HogQLNode)})`;
    }
    case "ArithmeticOperation": {
      const op = String(node["op"]);
      return `${ARITHMETIC_FUNCTIONS[op] ?? op}(${hogqlText(node["left"] as HogQLNode)}, ${hogqlText(node["right"] as HogQLNode)})`;
    }
    case "And":
      return `and(${list(node["exprs"])})`;
    case "Or":
      return `or(${list(node["exprs"])})`;
    case "Not":
      return `not(${hogqlText(node["expr"] as HogQLNode)})`;
    case "Tuple":
      return `tuple(${list(node["exprs"])})`;
    case "Array":
      return `[${list(node["exprs"])}]`;
    case "ArrayAccess":
      return `${hogqlText(node["array"] as HogQLNode)}[${hogqlText(node["property"] as HogQLNode)}]`;
    case "BetweenExpr":
      return `${hogqlText(node["expr"] as HogQLNode)}${node["negated"] ? " NOT" : ""} BETWEEN ${hogqlText(node["low"] as HogQLNode)} AND ${hogqlText(node["high"] as HogQLNode)}`;
    case "OrderExpr":
      return `${hogqlText(node["expr"] as HogQLNode)} ${node["order"]}`;
    case "TypeCast":
      return `${hogqlText(node["expr"] as HogQLNode)}::${node["type_name"]}`;
    case "WindowFunction":
      return `${node["name"]}(${list(node["exprs"])}) OVER ${node["over_identifier"] ? hogqlIdentifier(String(node["over_identifier"])) : "(...)"}`;
    case "Placeholder":
      return `{${hogqlText(node["expr"] as HogQLNode)}}`;
    case "RelativeDate":
      return `toDateTime(${hogqlString(String(node["text"]))})`;
    case "FiltersExpr":
      return "true";
    default:
      return node.node;
  }
}
