/**
 * HogQL functions, family conversions (PostHog `posthog/hogql/functions/mapping.py`). Conversions: `toInt`, `toFloat`, `toString`, `toDateTime`, `toDate` and kin; of text they cannot
 * read they answer NULL, never an error (migration `hogql_functions`).
 */
import { NUMERIC_TYPES } from "../types.js";
import { asDate, asText, asTimestamp, type FunctionDef, out, sql } from "./shared.js";

function toIntDef(): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    print: ([x]) => {
      if (x!.type === "Float64") return out(sql`hogql_to_int(trunc(${x!.sql})::text)`, "Int64", true);
      if (x!.type === "Int64" || x!.type === "UInt64")
        return out(sql`(${x!.sql})::bigint`, "Int64", x!.nullable);
      if (x!.type === "Bool") return out(sql`(${x!.sql})::int::bigint`, "Int64", x!.nullable);
      if (x!.type === "DateTime")
        return out(sql`floor(EXTRACT(EPOCH FROM ${x!.sql}))::bigint`, "Int64", x!.nullable);
      return out(sql`hogql_to_int(${asText(x!)})`, "Int64", true);
    },
  };
}

function toFloatDef(): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    print: ([x]) => {
      if (NUMERIC_TYPES.has(x!.type)) return out(sql`(${x!.sql})::float8`, "Float64", x!.nullable);
      if (x!.type === "Bool") return out(sql`(${x!.sql})::int::float8`, "Float64", x!.nullable);
      return out(sql`hogql_to_float(${asText(x!)})`, "Float64", true);
    },
  };
}

function toDateTimeDef(): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    print: ([x]) =>
      out(asTimestamp(x!), "DateTime", x!.nullable || x!.type === "String" || x!.type === "JSON"),
  };
}

/** Conversions, by HogQL name. */
export const CONVERSIONS: ReadonlyArray<[string, FunctionDef]> = [
  ["toString", { minArgs: 1, maxArgs: 1, print: ([x]) => out(asText(x!), "String", x!.nullable) }],
  ["toInt", toIntDef()],
  ["toFloat", toFloatDef()],
  ["toDateTime", toDateTimeDef()],
  [
    "toDate",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) => out(asDate(x!), "Date", x!.nullable || x!.type === "String" || x!.type === "JSON"),
    },
  ],
  [
    "toBool",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Bool"
          ? x!
          : NUMERIC_TYPES.has(x!.type)
            ? out(sql`((${x!.sql}) <> 0)`, "Bool", x!.nullable)
            : out(
                sql`(CASE lower(${asText(x!)}) WHEN 'true' THEN true WHEN 'false' THEN false END)`,
                "Bool",
                true,
              ),
    },
  ],
];
