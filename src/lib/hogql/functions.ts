/**
 * The allow-list of HogQL functions and how each prints to PostgreSQL with ClickHouse's semantics
 * (query-and-experiments.md 1b, "Top ~40 HogQL functions"; PostHog `posthog/hogql/functions/mapping.py`).
 * A name not here is refused by the printer (`Unsupported function call 'x(...)'`).
 *
 * Semantics kept from ClickHouse, each where its row below prints it:
 * - timestamps are truncated, split and formatted in the project's timezone: the runner sets the
 *   transaction's `TimeZone` to it, so `date_trunc`, `::date` and `EXTRACT` work in it;
 * - `toStartOfWeek(t)` starts weeks on Sunday (mode 0), `toStartOfWeek(t, 1)` and `toMonday` on Monday;
 * - `dateDiff(unit, a, b)` counts unit boundaries crossed, not elapsed whole units;
 * - `toInt`/`toFloat`/`toDateTime`/`toDate` of text answer NULL on text they cannot read
 *   (migration `hogql_functions`), never an error;
 * - `sum` over no rows is 0 when its argument cannot be NULL (NULL otherwise), `groupArray` skips
 *   NULLs and is `[]` over no rows, `any`/`argMax`/`argMin` skip NULLs;
 * - `JSONExtractString` is `''` and `JSONExtractInt/Float/Bool` 0/false when the key is missing or
 *   holds another type; `concat` with a NULL argument is NULL; `extract` is `''` without a match.
 * Differences kept and documented (docs/hogql.md, "Functions"): `length`/`substring` count characters, not
 * bytes; `quantile` is exact (`percentile_cont`); `uniq` is exact; regular expressions are
 * PostgreSQL's (ARE), not re2.
 */

import { ownValue } from "../../core/own-keys.js";
import { closeMatches } from "./close-match.js";
import { AGGREGATES } from "./functions/aggregates.js";
import { ARRAYS } from "./functions/arrays.js";
import { CONDITIONALS } from "./functions/conditionals.js";
import { CONVERSIONS } from "./functions/conversions.js";
import { DATES } from "./functions/dates.js";
import { JSON_FUNCTIONS } from "./functions/json.js";
import { NUMBERS } from "./functions/numbers.js";
import type { FunctionDef } from "./functions/shared.js";
import { STRINGS } from "./functions/strings.js";

export { translateDateFormat } from "./functions/dates.js";
export { asTimestamp, type CallInfo, type FunctionDef } from "./functions/shared.js";

/** Every allowed function by HogQL name (case-sensitive, as in ClickHouse), family by family (./functions/). */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  ...AGGREGATES,
  ...CONDITIONALS,
  ...CONVERSIONS,
  ...DATES,
  ...JSON_FUNCTIONS,
  ...STRINGS,
  ...ARRAYS,
  ...NUMBERS,
]);

/** Aliases ClickHouse and HogQL accept for the functions above. */
const ALIASES: Record<string, string> = {
  uniqExact: "uniq",
  toInt64: "toInt",
  toInt32: "toInt",
  toIntOrNull: "toInt",
  toFloat64: "toFloat",
  toFloatOrNull: "toFloat",
  toDateTime64: "toDateTime",
  toDateTimeOrNull: "toDateTime",
  toDateOrNull: "toDate",
  substr: "substring",
  replace: "replaceAll",
  ceiling: "ceil",
  power: "pow",
  ln: "log",
  date_diff: "dateDiff",
  date_add: "dateAdd",
  date_sub: "dateSub",
  IFNULL: "ifNull",
  COALESCE: "coalesce",
};

/** The function a HogQL name calls, through aliases; undefined when it is not allowed. */
export function findFunction(name: string): FunctionDef | undefined {
  return FUNCTIONS.get(name) ?? FUNCTIONS.get(ownValue(ALIASES, name) ?? "");
}

/** The name of the `FUNCTIONS` row a HogQL name calls (`uniqExact` → `uniq`); undefined when not allowed. */
export function canonicalFunctionName(name: string): string | undefined {
  if (FUNCTIONS.has(name)) return name;
  const target = ownValue(ALIASES, name);
  return target !== undefined && FUNCTIONS.has(target) ? target : undefined;
}

/** Every callable name (for close-match suggestions). */
export function functionNames(): string[] {
  return [...FUNCTIONS.keys(), ...Object.keys(ALIASES)];
}

/** The closest allowed function name to `name` (PostHog: difflib, cutoff 0.6), for `Perhaps you meant`. */
export function closestFunction(name: string): string | null {
  return closeMatches(name, functionNames(), 1)[0] ?? null;
}
