/**
 * HogQL functions, dates and times: truncations, parts, intervals, `dateDiff` (unit boundaries crossed), `dateAdd`/`dateSub`, `formatDateTime`, in the project's timezone (the runner sets the transaction's `TimeZone`).
 */
import { ValidationError } from "../../../core/errors.js";
import { ownValue } from "../../../core/own-keys.js";
import type { Prisma } from "../../../generated/prisma/client.js";
import type { HogQLNode } from "../parser.js";
import type { Printed } from "../types.js";
import {
  asDate,
  asTimestamp,
  constantNumber,
  constantString,
  type FunctionDef,
  out,
  raw,
  sql,
} from "./shared.js";

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

/**
 * A constant unit argument (`'day'`, `'dd'`), checked against ClickHouse's unit names, as its
 * canonical name (`second` ... `year`).
 * @throws ValidationError naming the call for a unit that is not a constant string or not known.
 */
export function unitOf(node: HogQLNode | undefined, call: string): string {
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

/** Dates and times, by HogQL name. */
export const DATES: ReadonlyArray<[string, FunctionDef]> = [
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
];
