/**
 * HogQL functions, family numbers (PostHog `posthog/hogql/functions/mapping.py`). Numbers: rounding, arithmetic functions, `greatest`/`least`.
 */
import { anyNullable, type FunctionDef, firstType, numericType, out, raw, simple, sql } from "./shared.js";

function roundingDef(fn: "round" | "floor" | "ceil"): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 2,
    print: ([x, n]) => {
      if (!n) return out(sql`${raw(fn)}((${x!.sql})::float8)`, "Float64", x!.nullable);
      // Scaled by 10^n in float8: round() of float8 rounds half to even, as ClickHouse's does for floats.
      const scale = sql`power(10::float8, (${n.sql})::float8)`;
      return out(sql`(${raw(fn)}((${x!.sql})::float8 * ${scale}) / ${scale})`, "Float64", x!.nullable);
    },
  };
}

/** Every allowed function by HogQL name (case-sensitive, as in ClickHouse). */

/** Numbers, by HogQL name. */
export const NUMBERS: ReadonlyArray<[string, FunctionDef]> = [
  ["round", roundingDef("round")],
  ["floor", roundingDef("floor")],
  ["ceil", roundingDef("ceil")],
  ["abs", simple("abs", 1, 1, numericType)],
  [
    "sqrt",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        out(sql`(CASE WHEN (${x!.sql}) >= 0 THEN sqrt((${x!.sql})::float8) END)`, "Float64", true),
    },
  ],
  [
    "exp",
    { minArgs: 1, maxArgs: 1, print: ([x]) => out(sql`exp((${x!.sql})::float8)`, "Float64", x!.nullable) },
  ],
  [
    "log",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) => out(sql`(CASE WHEN (${x!.sql}) > 0 THEN ln((${x!.sql})::float8) END)`, "Float64", true),
    },
  ],
  [
    "log10",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        out(sql`(CASE WHEN (${x!.sql}) > 0 THEN log((${x!.sql})::float8) END)`, "Float64", true),
    },
  ],
  [
    "pow",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([x, y]) =>
        out(sql`power((${x!.sql})::float8, (${y!.sql})::float8)`, "Float64", anyNullable([x!, y!])),
    },
  ],
  ["sign", { minArgs: 1, maxArgs: 1, print: ([x]) => out(sql`sign(${x!.sql})::int`, "Int64", x!.nullable) }],
  [
    "intDiv",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([a, b]) =>
        out(sql`trunc((${a!.sql})::numeric / NULLIF((${b!.sql})::numeric, 0))::bigint`, "Int64", true),
    },
  ],
  ["greatest", simple("GREATEST", 1, 99, firstType)],
  ["least", simple("LEAST", 1, 99, firstType)],
];
