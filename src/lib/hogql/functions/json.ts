/**
 * HogQL functions, family json (PostHog `posthog/hogql/functions/mapping.py`). JSON: `JSONExtract*` and `JSONHas`; `JSONExtractString` is `''` and `JSONExtractInt/Float/Bool`
 * 0/false when the key is missing or holds another type, as in ClickHouse.
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { HogQLType, Printed } from "../types.js";
import { NUMERIC_TYPES } from "../types.js";
import { asJson, asText, type FunctionDef, out, sql } from "./shared.js";

/** `j -> k1 -> k2`: string keys as keys, integer keys as ClickHouse's 1-based indexes (negative from the end). */
function jsonPath(json: Prisma.Sql, keys: readonly Printed[]): Prisma.Sql {
  let path = json;
  for (const key of keys) {
    path = NUMERIC_TYPES.has(key.type)
      ? sql`(${path} -> (CASE WHEN (${key.sql}) > 0 THEN (${key.sql})::int - 1 ELSE (${key.sql})::int END))`
      : sql`(${path} -> ${asText(key)})`;
  }
  return path;
}

function jsonExtract(
  type: HogQLType,
  body: (value: Prisma.Sql) => Prisma.Sql,
  nullable = false,
): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 10,
    print: ([json, ...keys]) => out(body(jsonPath(asJson(json!), keys)), type, nullable),
  };
}

/** JSON, by HogQL name. */
export const JSON_FUNCTIONS: ReadonlyArray<[string, FunctionDef]> = [
  [
    "JSONExtractString",
    jsonExtract(
      "String",
      (v) => sql`COALESCE(CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END, '')`,
    ),
  ],
  [
    "JSONExtractInt",
    jsonExtract(
      "Int64",
      (v) =>
        sql`COALESCE(CASE jsonb_typeof(${v}) WHEN 'number' THEN hogql_to_int(trunc((${v})::text::numeric)::text) WHEN 'boolean' THEN (${v})::text::boolean::int END, 0)`,
    ),
  ],
  [
    "JSONExtractFloat",
    jsonExtract(
      "Float64",
      (v) =>
        sql`COALESCE(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::text::float8 WHEN 'boolean' THEN (${v})::text::boolean::int::float8 END, 0)`,
    ),
  ],
  [
    "JSONExtractBool",
    jsonExtract(
      "Bool",
      (v) => sql`COALESCE(CASE jsonb_typeof(${v}) WHEN 'boolean' THEN (${v})::text::boolean END, false)`,
    ),
  ],
  ["JSONExtractRaw", jsonExtract("String", (v) => sql`COALESCE((${v})::text, '')`)],
  ["JSONHas", jsonExtract("Bool", (v) => sql`(${v} IS NOT NULL)`)],
  [
    "JSONExtractKeys",
    jsonExtract(
      "Array",
      (v) =>
        sql`(CASE WHEN jsonb_typeof(${v}) = 'object' THEN ARRAY(SELECT jsonb_object_keys(${v})) ELSE '{}'::text[] END)`,
    ),
  ],
  [
    "JSONExtractArrayRaw",
    jsonExtract(
      "Array",
      (v) =>
        sql`(CASE WHEN jsonb_typeof(${v}) = 'array' THEN ARRAY(SELECT e::text FROM jsonb_array_elements(${v}) AS e) ELSE '{}'::text[] END)`,
    ),
  ],
];
