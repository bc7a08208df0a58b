/**
 * HogQL functions, family arrays (PostHog `posthog/hogql/functions/mapping.py`). Arrays: `arrayJoin`, `has` and kin.
 */
import { asText, type FunctionDef, out, sql } from "./shared.js";

/** Arrays, by HogQL name. */
export const ARRAYS: ReadonlyArray<[string, FunctionDef]> = [
  [
    "has",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([arr, x]) => out(sql`COALESCE((${x!.sql}) = ANY(${arr!.sql}), false)`, "Bool", false),
    },
  ],
  ["arrayJoin", { minArgs: 1, maxArgs: 1, print: ([arr]) => out(sql`unnest(${arr!.sql})`, "Unknown", true) }],
  [
    "arrayStringConcat",
    {
      minArgs: 1,
      maxArgs: 2,
      print: ([arr, sep]) =>
        out(sql`array_to_string(${arr!.sql}, ${sep ? asText(sep) : sql`''`})`, "String", arr!.nullable),
    },
  ],
];
