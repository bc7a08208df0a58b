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
 * Differences kept and documented (README, "HogQL"): `length`/`substring` count characters, not
 * bytes; `quantile` is exact (`percentile_cont`); `uniq` is exact; regular expressions are
 * PostgreSQL's (ARE), not re2.
 */

import { ValidationError } from "../../core/errors.js";
import { ownValue } from "../../core/own-keys.js";
import { Prisma } from "../../generated/prisma/client.js";
import type { HogQLNode } from "./parser.js";
import type { HogQLType, Printed } from "./types.js";
import { NUMERIC_TYPES } from "./types.js";

/** What a function's printer is handed besides its printed arguments. */
export interface CallInfo {
  name: string;
  /** The argument nodes as parsed (for arguments that must be constants: units, formats). */
  argNodes: readonly HogQLNode[];
  /** Printed parametric arguments: `quantile(0.9)(x)` has params `[0.9]`. */
  params: readonly Printed[];
  paramNodes: readonly HogQLNode[];
  distinct: boolean;
  /** The project's timezone (IANA name). */
  timezone: string;
}

/** One allowed function. */
export interface FunctionDef {
  minArgs: number;
  maxArgs: number;
  /** Parametric arguments accepted (`quantile(p)(x)`); none when absent. */
  params?: [number, number];
  aggregate?: boolean;
  print(args: readonly Printed[], call: CallInfo): Printed;
}

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

function out(s: Prisma.Sql, type: HogQLType, nullable: boolean): Printed {
  return { sql: s, type, nullable };
}

function anyNullable(args: readonly Printed[]): boolean {
  return args.some((arg) => arg.nullable);
}

/** A constant string argument (units, formats, timezones), or a ValidationError naming the call. */
export function constantString(node: HogQLNode | undefined, call: string, what: string): string {
  if (node?.node === "Constant" && typeof node["value"] === "string") return node["value"] as string;
  throw new ValidationError(`${call}() takes ${what} as a constant string.`);
}

function constantNumber(node: HogQLNode | undefined, call: string, what: string): number {
  if (node?.node === "Constant" && typeof node["value"] === "number") return node["value"] as number;
  throw new ValidationError(`${call}() takes ${what} as a constant number.`);
}

/** The argument as text (`x::text`), timestamps formatted as ClickHouse's `toString` does. */
function asText(arg: Printed): Prisma.Sql {
  if (arg.type === "String") return arg.sql;
  if (arg.type === "DateTime") return sql`to_char(${arg.sql}, 'YYYY-MM-DD HH24:MI:SS')`;
  if (arg.type === "JSON") return sql`(${arg.sql})::text`;
  return sql`(${arg.sql})::text`;
}

/** The argument as a timestamp: text is read leniently (NULL when unreadable), dates at midnight. */
export function asTimestamp(arg: Printed): Prisma.Sql {
  if (arg.type === "DateTime") return arg.sql;
  if (arg.type === "Date") return sql`(${arg.sql})::timestamptz`;
  if (arg.type === "Int64" || arg.type === "UInt64" || arg.type === "Float64") {
    return sql`to_timestamp((${arg.sql})::float8)`;
  }
  return sql`hogql_to_timestamptz(${asText(arg)})`;
}

/** The argument as a date in the project's timezone. */
function asDate(arg: Printed): Prisma.Sql {
  if (arg.type === "Date") return arg.sql;
  return sql`(${asTimestamp(arg)})::date`;
}

/** The argument as jsonb: JSON columns as they are, text parsed (NULL when it is not JSON). */
function asJson(arg: Printed): Prisma.Sql {
  return arg.type === "JSON" ? arg.sql : sql`hogql_to_jsonb(${asText(arg)})`;
}

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

const UNITS: Record<string, string> = {
  second: "second",
  seconds: "second",
  ss: "second",
  s: "second",
  minute: "minute",
  minutes: "minute",
  mi: "minute",
  n: "minute",
  hour: "hour",
  hours: "hour",
  hh: "hour",
  h: "hour",
  day: "day",
  days: "day",
  dd: "day",
  d: "day",
  week: "week",
  weeks: "week",
  wk: "week",
  ww: "week",
  month: "month",
  months: "month",
  mm: "month",
  m: "month",
  quarter: "quarter",
  quarters: "quarter",
  qq: "quarter",
  q: "quarter",
  year: "year",
  years: "year",
  yyyy: "year",
  yy: "year",
};

/** A constant unit argument (`'day'`), checked against ClickHouse's unit names. */
function unitOf(node: HogQLNode | undefined, call: string): string {
  const text = constantString(node, call, "a unit");
  const unit = ownValue(UNITS, text.toLowerCase());
  if (!unit) throw new ValidationError(`${call}() does not know the unit '${text}'.`);
  return unit;
}

/** `n` units as a PostgreSQL interval (`unit` is from `UNITS`, never input). */
function interval(n: Prisma.Sql, unit: string): Prisma.Sql {
  // PostgreSQL has no quarter interval: three months.
  if (unit === "quarter") return sql`((${n}) * interval '3 months')`;
  return sql`((${n}) * interval '1 ${raw(unit)}')`;
}

/** ClickHouse's `dateDiff`: unit boundaries crossed from `a` to `b`, in the project's timezone. */
function dateDiff(unit: string, a: Printed, b: Printed): Prisma.Sql {
  const ta = asTimestamp(a);
  const tb = asTimestamp(b);
  switch (unit) {
    case "second":
    case "minute":
    case "hour": {
      const seconds = unit === "second" ? 1 : unit === "minute" ? 60 : 3600;
      return sql`((EXTRACT(EPOCH FROM date_trunc('${raw(unit)}', ${tb})) - EXTRACT(EPOCH FROM date_trunc('${raw(unit)}', ${ta}))) / ${raw(String(seconds))})::bigint`;
    }
    case "day":
      return sql`((${tb})::date - (${ta})::date)::bigint`;
    case "week":
      return sql`((date_trunc('week', ${tb})::date - date_trunc('week', ${ta})::date) / 7)::bigint`;
    case "month":
      return sql`((EXTRACT(YEAR FROM ${tb}) - EXTRACT(YEAR FROM ${ta})) * 12 + EXTRACT(MONTH FROM ${tb}) - EXTRACT(MONTH FROM ${ta}))::bigint`;
    case "quarter":
      return sql`((EXTRACT(YEAR FROM ${tb}) - EXTRACT(YEAR FROM ${ta})) * 4 + EXTRACT(QUARTER FROM ${tb}) - EXTRACT(QUARTER FROM ${ta}))::bigint`;
    default:
      return sql`(EXTRACT(YEAR FROM ${tb}) - EXTRACT(YEAR FROM ${ta}))::bigint`;
  }
}

/** ClickHouse `formatDateTime` codes → PostgreSQL `to_char` patterns (MySQL-style codes). */
const FORMAT_CODES: Record<string, string> = {
  Y: "YYYY",
  y: "YY",
  C: "CC",
  m: "MM",
  d: "DD",
  e: "FMDD",
  H: "HH24",
  I: "HH12",
  h: "HH12",
  i: "MI",
  M: "FMMonth",
  S: "SS",
  s: "SS",
  p: "AM",
  j: "DDD",
  F: "YYYY-MM-DD",
  T: "HH24:MI:SS",
  R: "HH24:MI",
  D: "MM/DD/YY",
  a: "Dy",
  b: "Mon",
  W: "FMDay",
  u: "ID",
  Q: "Q",
  V: "IW",
  f: "US",
};

/** Translates a ClickHouse `formatDateTime` format to a `to_char` pattern; literal text is quoted. */
export function translateDateFormat(format: string): string {
  let pattern = "";
  let literal = "";
  const flush = () => {
    if (literal) pattern += `"${literal.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
    literal = "";
  };
  for (let i = 0; i < format.length; i++) {
    const char = format[i]!;
    if (char !== "%") {
      literal += char;
      continue;
    }
    const code = format[++i];
    if (code === "%") {
      literal += "%";
      continue;
    }
    const mapped = code === undefined ? undefined : ownValue(FORMAT_CODES, code);
    if (mapped === undefined) {
      throw new ValidationError(`formatDateTime() does not support the format code '%${code ?? ""}'.`);
    }
    flush();
    pattern += mapped;
  }
  flush();
  return pattern;
}

function simple(
  name: string,
  minArgs: number,
  maxArgs: number,
  type: HogQLType | ((args: readonly Printed[]) => HogQLType),
  nullable?: boolean,
): FunctionDef {
  return {
    minArgs,
    maxArgs,
    print: (args) =>
      out(
        sql`${raw(name)}(${join(
          args.map((a) => a.sql),
          ", ",
        )})`,
        typeof type === "function" ? type(args) : type,
        nullable ?? anyNullable(args),
      ),
  };
}

function numericType(args: readonly Printed[]): HogQLType {
  return args.some((a) => a.type === "Float64") ? "Float64" : (args[0]?.type ?? "Float64");
}

function firstType(args: readonly Printed[]): HogQLType {
  return args.find((a) => a.type !== "Null")?.type ?? "Null";
}

function aggregate(print: FunctionDef["print"], minArgs = 1, maxArgs = 1): FunctionDef {
  return { minArgs, maxArgs, aggregate: true, print };
}

/** `agg(x)` or, for the `-If` form, `agg(x) FILTER (WHERE cond)`. */
function filtered(body: Prisma.Sql, condition: Printed | undefined): Prisma.Sql {
  return condition ? sql`${body} FILTER (WHERE ${condition.sql})` : body;
}

function sumDef(withIf: boolean): FunctionDef {
  return aggregate(
    ([x, cond], call) => {
      const distinct = call.distinct ? raw("DISTINCT ") : Prisma.empty;
      const body = filtered(sql`sum(${distinct}${x!.sql})`, withIf ? cond : undefined);
      const type = x!.type === "Float64" ? "Float64" : "Int64";
      const cast = type === "Float64" ? raw("float8") : raw("numeric");
      // ClickHouse: 0 over no rows for a non-Nullable argument, NULL for a Nullable one.
      return x!.nullable
        ? out(sql`(${body})::${cast}`, type, true)
        : out(sql`COALESCE(${body}, 0)::${cast}`, type, false);
    },
    withIf ? 2 : 1,
    withIf ? 2 : 1,
  );
}

function minMaxDef(fn: "min" | "max", withIf: boolean): FunctionDef {
  return aggregate(
    ([x, cond]) => out(filtered(sql`${raw(fn)}(${x!.sql})`, withIf ? cond : undefined), x!.type, true),
    withIf ? 2 : 1,
    withIf ? 2 : 1,
  );
}

function avgDef(withIf: boolean): FunctionDef {
  return aggregate(
    ([x, cond]) => out(filtered(sql`avg((${x!.sql})::float8)`, withIf ? cond : undefined), "Float64", true),
    withIf ? 2 : 1,
    withIf ? 2 : 1,
  );
}

function argDef(order: "DESC" | "ASC"): FunctionDef {
  return aggregate(
    ([a, b]) =>
      out(
        sql`(array_agg(${a!.sql} ORDER BY ${b!.sql} ${raw(order)}) FILTER (WHERE ${b!.sql} IS NOT NULL))[1]`,
        a!.type,
        true,
      ),
    2,
    2,
  );
}

function groupArrayDef(distinct: boolean): FunctionDef {
  return aggregate(([x]) => {
    const d = distinct ? raw("DISTINCT ") : Prisma.empty;
    return out(
      sql`(CASE WHEN count(${x!.sql}) = 0 THEN '{}' ELSE array_agg(${d}${x!.sql}) FILTER (WHERE ${x!.sql} IS NOT NULL) END)`,
      "Array",
      false,
    );
  });
}

function extractPart(part: string): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    print: ([t]) => out(sql`EXTRACT(${raw(part)} FROM ${asTimestamp(t!)})::int`, "Int64", t!.nullable),
  };
}

function truncTo(unit: string, type: "DateTime" | "Date"): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 2,
    print: ([t]) => {
      const truncated = sql`date_trunc('${raw(unit)}', ${asTimestamp(t!)})`;
      return out(type === "Date" ? sql`(${truncated})::date` : truncated, type, t!.nullable);
    },
  };
}

function intervalDef(unit: string): FunctionDef {
  return { minArgs: 1, maxArgs: 1, print: ([n]) => out(interval(n!.sql, unit), "Interval", n!.nullable) };
}

function dateShift(sign: "+" | "-"): FunctionDef {
  return {
    minArgs: 3,
    maxArgs: 3,
    print: ([, n, t], call) => {
      const unit = unitOf(call.argNodes[0], call.name);
      const base =
        t!.type === "Date" && !["second", "minute", "hour"].includes(unit) ? t!.sql : asTimestamp(t!);
      const type = t!.type === "Date" && !["second", "minute", "hour"].includes(unit) ? "Date" : "DateTime";
      const shifted = sql`(${base} ${raw(sign)} ${interval(n!.sql, unit)})`;
      return out(type === "Date" ? sql`(${shifted})::date` : shifted, type, t!.nullable || n!.nullable);
    },
  };
}

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

function quantileDef(): FunctionDef {
  return {
    minArgs: 1,
    maxArgs: 1,
    params: [1, 1],
    aggregate: true,
    print: ([x], call) => {
      const p = constantNumber(call.paramNodes[0], call.name, "the level");
      if (!(p >= 0 && p <= 1)) throw new ValidationError(`${call.name}() takes a level between 0 and 1.`);
      return out(
        sql`percentile_cont(${p}::float8) WITHIN GROUP (ORDER BY (${x!.sql})::float8)`,
        "Float64",
        true,
      );
    },
  };
}

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
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  // Aggregates.
  [
    "count",
    aggregate(
      (args, call) => {
        if (args.length === 0 || args[0]!.sql.text === "*") return out(sql`count(*)`, "UInt64", false);
        const d = call.distinct ? raw("DISTINCT ") : Prisma.empty;
        return out(sql`count(${d}${args[0]!.sql})`, "UInt64", false);
      },
      0,
      1,
    ),
  ],
  ["countIf", aggregate(([c]) => out(sql`count(*) FILTER (WHERE ${c!.sql})`, "UInt64", false))],
  [
    "uniq",
    aggregate(
      (args) =>
        out(
          args.length === 1
            ? sql`count(DISTINCT ${args[0]!.sql})`
            : sql`count(DISTINCT (${join(
                args.map((a) => a.sql),
                ", ",
              )}))`,
          "UInt64",
          false,
        ),
      1,
      10,
    ),
  ],
  ["sum", sumDef(false)],
  ["sumIf", sumDef(true)],
  ["avg", avgDef(false)],
  ["avgIf", avgDef(true)],
  ["min", minMaxDef("min", false)],
  ["max", minMaxDef("max", false)],
  ["minIf", minMaxDef("min", true)],
  ["maxIf", minMaxDef("max", true)],
  [
    "any",
    aggregate(([x]) =>
      out(sql`(array_agg(${x!.sql}) FILTER (WHERE ${x!.sql} IS NOT NULL))[1]`, x!.type, true),
    ),
  ],
  ["argMax", argDef("DESC")],
  ["argMin", argDef("ASC")],
  ["quantile", quantileDef()],
  [
    "median",
    aggregate(([x]) =>
      out(sql`percentile_cont(0.5::float8) WITHIN GROUP (ORDER BY (${x!.sql})::float8)`, "Float64", true),
    ),
  ],
  ["groupArray", groupArrayDef(false)],
  ["groupUniqArray", groupArrayDef(true)],
  // Conditionals and NULLs.
  [
    "if",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([c, a, b]) =>
        out(
          sql`(CASE WHEN ${c!.sql} THEN ${a!.sql} ELSE ${b!.sql} END)`,
          firstType([a!, b!]),
          a!.nullable || b!.nullable,
        ),
    },
  ],
  [
    "multiIf",
    {
      minArgs: 3,
      maxArgs: 99,
      print: (args) => {
        if (args.length % 2 === 0) throw new ValidationError("multiIf() takes an odd number of arguments.");
        const branches: Prisma.Sql[] = [];
        for (let i = 0; i + 1 < args.length; i += 2)
          branches.push(sql`WHEN ${args[i]!.sql} THEN ${args[i + 1]!.sql}`);
        const values = args.filter((_, i) => i % 2 === 1 || i === args.length - 1);
        return out(
          sql`(CASE ${join(branches, " ")} ELSE ${args[args.length - 1]!.sql} END)`,
          firstType(values),
          anyNullable(values),
        );
      },
    },
  ],
  [
    "coalesce",
    {
      minArgs: 1,
      maxArgs: 99,
      print: (args) =>
        out(
          sql`COALESCE(${join(
            args.map((a) => a.sql),
            ", ",
          )})`,
          firstType(args),
          args.every((a) => a.nullable),
        ),
    },
  ],
  [
    "ifNull",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([a, b]) => out(sql`COALESCE(${a!.sql}, ${b!.sql})`, firstType([a!, b!]), b!.nullable),
    },
  ],
  [
    "nullIf",
    { minArgs: 2, maxArgs: 2, print: ([a, b]) => out(sql`NULLIF(${a!.sql}, ${b!.sql})`, a!.type, true) },
  ],
  ["isNull", { minArgs: 1, maxArgs: 1, print: ([x]) => out(sql`(${x!.sql} IS NULL)`, "Bool", false) }],
  ["isNotNull", { minArgs: 1, maxArgs: 1, print: ([x]) => out(sql`(${x!.sql} IS NOT NULL)`, "Bool", false) }],
  ["assumeNotNull", { minArgs: 1, maxArgs: 1, print: ([x]) => ({ ...x!, nullable: false }) }],
  // Conversions.
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
  // Dates and times.
  ["now", { minArgs: 0, maxArgs: 0, print: () => out(sql`now()`, "DateTime", false) }],
  ["today", { minArgs: 0, maxArgs: 0, print: () => out(sql`CURRENT_DATE`, "Date", false) }],
  ["yesterday", { minArgs: 0, maxArgs: 0, print: () => out(sql`(CURRENT_DATE - 1)`, "Date", false) }],
  ["toStartOfMinute", truncTo("minute", "DateTime")],
  ["toStartOfHour", truncTo("hour", "DateTime")],
  ["toStartOfDay", truncTo("day", "DateTime")],
  ["toStartOfMonth", truncTo("month", "Date")],
  ["toStartOfQuarter", truncTo("quarter", "Date")],
  ["toStartOfYear", truncTo("year", "Date")],
  ["toMonday", truncTo("week", "Date")],
  [
    "toStartOfWeek",
    {
      minArgs: 1,
      maxArgs: 2,
      print: ([t], call) => {
        const mode =
          call.argNodes[1] === undefined ? 0 : constantNumber(call.argNodes[1], call.name, "the mode");
        const day = asDate(t!);
        // Odd modes start weeks on Monday, even ones (0, the default) on Sunday (ClickHouse's week modes).
        const start =
          mode % 2 === 1
            ? sql`date_trunc('week', ${day})::date`
            : sql`((${day}) - EXTRACT(DOW FROM ${day})::int)`;
        return out(start, "Date", t!.nullable);
      },
    },
  ],
  [
    "toStartOfInterval",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([t, step], call) => {
        const node = call.argNodes[1];
        const fn = node?.node === "Call" ? String(node["name"]) : "";
        const unit = /^toInterval(Second|Minute|Hour|Day|Week|Month|Quarter|Year)$/
          .exec(fn)?.[1]
          ?.toLowerCase();
        if (!unit || step!.type !== "Interval") {
          throw new ValidationError(
            "toStartOfInterval() takes an interval as its second argument (INTERVAL 1 HOUR).",
          );
        }
        if (unit === "month" || unit === "quarter" || unit === "year") {
          const args = (node!["args"] as HogQLNode[]) ?? [];
          if (args[0]?.node !== "Constant" || args[0]["value"] !== 1) {
            throw new ValidationError(
              `toStartOfInterval() takes only INTERVAL 1 ${unit.toUpperCase()} for ${unit}s.`,
            );
          }
          return out(sql`date_trunc('${raw(unit)}', ${asTimestamp(t!)})::date`, "Date", t!.nullable);
        }
        // Fixed-length buckets aligned to the Unix epoch in the project's timezone, as ClickHouse aligns them.
        return out(
          sql`date_bin(${step!.sql}, ${asTimestamp(t!)}, '1970-01-01 00:00:00'::timestamp::timestamptz)`,
          "DateTime",
          t!.nullable,
        );
      },
    },
  ],
  [
    "dateDiff",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([, a, b], call) =>
        out(dateDiff(unitOf(call.argNodes[0], call.name), a!, b!), "Int64", a!.nullable || b!.nullable),
    },
  ],
  ["dateAdd", dateShift("+")],
  ["dateSub", dateShift("-")],
  ["toIntervalSecond", intervalDef("second")],
  ["toIntervalMinute", intervalDef("minute")],
  ["toIntervalHour", intervalDef("hour")],
  ["toIntervalDay", intervalDef("day")],
  ["toIntervalWeek", intervalDef("week")],
  ["toIntervalMonth", intervalDef("month")],
  ["toIntervalQuarter", intervalDef("quarter")],
  ["toIntervalYear", intervalDef("year")],
  ["toYear", extractPart("YEAR")],
  ["toQuarter", extractPart("QUARTER")],
  ["toMonth", extractPart("MONTH")],
  ["toDayOfMonth", extractPart("DAY")],
  ["toDayOfWeek", extractPart("ISODOW")],
  ["toDayOfYear", extractPart("DOY")],
  ["toHour", extractPart("HOUR")],
  ["toMinute", extractPart("MINUTE")],
  [
    "toSecond",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([t]) => out(sql`floor(EXTRACT(SECOND FROM ${asTimestamp(t!)}))::int`, "Int64", t!.nullable),
    },
  ],
  [
    "toUnixTimestamp",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([t]) => out(sql`floor(EXTRACT(EPOCH FROM ${asTimestamp(t!)}))::bigint`, "Int64", t!.nullable),
    },
  ],
  [
    "formatDateTime",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([t], call) => {
        const pattern = translateDateFormat(constantString(call.argNodes[1], call.name, "the format"));
        return out(sql`to_char(${asTimestamp(t!)}, ${pattern}::text)`, "String", t!.nullable);
      },
    },
  ],
  // JSON.
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
  // Strings.
  ["lower", simple("lower", 1, 1, "String")],
  ["upper", simple("upper", 1, 1, "String")],
  ["trim", simple("btrim", 1, 1, "String")],
  ["trimLeft", simple("ltrim", 1, 1, "String")],
  ["trimRight", simple("rtrim", 1, 1, "String")],
  ["reverse", simple("reverse", 1, 1, "String")],
  [
    "length",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`COALESCE(cardinality(${x!.sql}), 0)::bigint`, "UInt64", false)
          : out(sql`char_length(${asText(x!)})::bigint`, "UInt64", x!.nullable),
    },
  ],
  [
    "empty",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`(COALESCE(cardinality(${x!.sql}), 0) = 0)`, "Bool", false)
          : out(sql`(${asText(x!)} = '')`, "Bool", x!.nullable),
    },
  ],
  [
    "notEmpty",
    {
      minArgs: 1,
      maxArgs: 1,
      print: ([x]) =>
        x!.type === "Array"
          ? out(sql`(COALESCE(cardinality(${x!.sql}), 0) > 0)`, "Bool", false)
          : out(sql`(${asText(x!)} <> '')`, "Bool", x!.nullable),
    },
  ],
  [
    "concat",
    {
      minArgs: 1,
      maxArgs: 99,
      print: (args) =>
        out(
          sql`(${join(
            args.map((a) => sql`${asText(a)}`),
            " || ",
          )})`,
          "String",
          anyNullable(args),
        ),
    },
  ],
  [
    "substring",
    {
      minArgs: 2,
      maxArgs: 3,
      print: ([s, o, l]) =>
        out(
          l
            ? sql`substr(${asText(s!)}, (${o!.sql})::int, (${l.sql})::int)`
            : sql`substr(${asText(s!)}, (${o!.sql})::int)`,
          "String",
          anyNullable([s!, o!, ...(l ? [l] : [])]),
        ),
    },
  ],
  [
    "position",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([h, n]) =>
        out(sql`strpos(${asText(h!)}, ${asText(n!)})::bigint`, "UInt64", anyNullable([h!, n!])),
    },
  ],
  [
    "startsWith",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`starts_with(${asText(s!)}, ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
  [
    "endsWith",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) =>
        out(
          sql`(right(${asText(s!)}, char_length(${asText(p!)})) = ${asText(p!)})`,
          "Bool",
          anyNullable([s!, p!]),
        ),
    },
  ],
  [
    "replaceAll",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, a, b]) =>
        out(sql`replace(${asText(s!)}, ${asText(a!)}, ${asText(b!)})`, "String", anyNullable([s!, a!, b!])),
    },
  ],
  [
    "replaceRegexpAll",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, re, r]) =>
        out(
          sql`regexp_replace(${asText(s!)}, ${asText(re!)}, ${asText(r!)}, 'g')`,
          "String",
          anyNullable([s!, re!, r!]),
        ),
    },
  ],
  [
    "replaceRegexpOne",
    {
      minArgs: 3,
      maxArgs: 3,
      print: ([s, re, r]) =>
        out(
          sql`regexp_replace(${asText(s!)}, ${asText(re!)}, ${asText(r!)})`,
          "String",
          anyNullable([s!, re!, r!]),
        ),
    },
  ],
  [
    "splitByChar",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([sep, s]) => out(sql`string_to_array(${asText(s!)}, ${asText(sep!)})`, "Array", s!.nullable),
    },
  ],
  [
    "splitByString",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([sep, s]) => out(sql`string_to_array(${asText(s!)}, ${asText(sep!)})`, "Array", s!.nullable),
    },
  ],
  [
    "match",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, re]) => out(sql`(${asText(s!)} ~ ${asText(re!)})`, "Bool", anyNullable([s!, re!])),
    },
  ],
  [
    "extract",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, re]) =>
        out(sql`COALESCE((regexp_match(${asText(s!)}, ${asText(re!)}))[1], '')`, "String", s!.nullable),
    },
  ],
  [
    "like",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`(${asText(s!)} LIKE ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
  [
    "ilike",
    {
      minArgs: 2,
      maxArgs: 2,
      print: ([s, p]) => out(sql`(${asText(s!)} ILIKE ${asText(p!)})`, "Bool", anyNullable([s!, p!])),
    },
  ],
  // Arrays.
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
  // Numbers.
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

/** Every callable name (for close-match suggestions). */
export function functionNames(): string[] {
  return [...FUNCTIONS.keys(), ...Object.keys(ALIASES)];
}
