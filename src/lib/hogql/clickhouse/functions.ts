/**
 * HogQL functions as ClickHouse SQL. The allow-list, the arities, the argument checks (constant
 * units, formats, levels) and each call's HogQL type are the shared table's (../functions.ts):
 * `printClickHouseCall` runs the row's printer for them and keeps only its type and nullability.
 * The SQL is ClickHouse's own: most functions print as themselves (PostHog's
 * `posthog/hogql/functions/mapping.py` maps them one to one); the rows of `CLICKHOUSE` below are
 * the exceptions, in PostHog's spellings where it has them:
 * - `toInt`/`toFloat` are `accurateCastOrNull(x, 'Int64' | 'Float64')` (NULL when inexact or
 *   unreadable), `toDateTime` of text `parseDateTime64BestEffortOrNull(x, 6, tz)`, `toDate` of text
 *   the date of that; `now()` is `now64(6, tz)`, `today()` the date of it;
 * - date functions read text and numbers as timestamps in the project's timezone, as the
 *   PostgreSQL printer does (a timestamp column already is in it: ./tables.ts);
 * - `dateAdd`/`dateSub` are `plus`/`minus` of a `toInterval*`; `trim` is `trimBoth`.
 */
import { ownValue } from "../../../core/own-keys.js";
import { Prisma } from "../../../generated/prisma/client.js";
import { unitOf } from "../functions/dates.js";
import { constantNumber, constantString, out } from "../functions/shared.js";
import { type CallInfo, canonicalFunctionName, type FunctionDef } from "../functions.js";
import { NUMERIC_TYPES, type Printed } from "../types.js";
import { param } from "./params.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const join = Prisma.join;

/** What a ClickHouse function printer is handed besides its arguments: the project's timezone, bound. */
export interface ClickHouseContext {
  tz: Prisma.Sql;
}

type ClickHousePrint = (args: readonly Printed[], call: CallInfo, ctx: ClickHouseContext) => Prisma.Sql;

/** The argument as ClickHouse text: `toString` unless it is text already. */
export function chText(arg: Printed): Prisma.Sql {
  return arg.type === "String" || arg.type === "JSON" ? arg.sql : sql`toString(${arg.sql})`;
}

/**
 * The argument as a `DateTime64(6)` in the project's timezone: timestamps as they are, dates at
 * midnight, numbers as Unix seconds, text read leniently (NULL when unreadable).
 */
export function chDateTime(arg: Printed, ctx: ClickHouseContext): Prisma.Sql {
  if (arg.type === "DateTime" || arg.type === "Null") return arg.sql;
  if (arg.type === "Date" || NUMERIC_TYPES.has(arg.type)) return sql`toDateTime64(${arg.sql}, 6, ${ctx.tz})`;
  return sql`parseDateTime64BestEffortOrNull(${chText(arg)}, 6, ${ctx.tz})`;
}

/** The argument as a date in the project's timezone. */
function chDate(arg: Printed, ctx: ClickHouseContext): Prisma.Sql {
  return arg.type === "Date" ? arg.sql : sql`toDate(${chDateTime(arg, ctx)})`;
}

/** `name(args)`, `name(DISTINCT args)` for a DISTINCT call. */
function native(name: string): ClickHousePrint {
  return (args, call) =>
    sql`${raw(name)}(${call.distinct ? raw("DISTINCT ") : Prisma.empty}${join(
      args.map((arg) => arg.sql),
      ", ",
    )})`;
}

/** `fn(t)` over a timestamp argument. */
function overTimestamp(fn: string): ClickHousePrint {
  return ([t], _call, ctx) => sql`${raw(fn)}(${chDateTime(t!, ctx)})`;
}

/** `t ± n units` (`dateAdd`, `dateSub`): dates stay dates for day and longer units. */
function dateShift(fn: "plus" | "minus"): ClickHousePrint {
  return ([, n, t], call, ctx) => {
    const unit = unitOf(call.argNodes[0], call.name);
    const base =
      t!.type === "Date" && !["second", "minute", "hour"].includes(unit) ? t!.sql : chDateTime(t!, ctx);
    return sql`${raw(fn)}(${base}, ${raw(intervalFunction(unit))}(${n!.sql}))`;
  };
}

/** ClickHouse's interval function of a canonical unit (`day` → `toIntervalDay`). */
function intervalFunction(unit: string): string {
  return `toInterval${unit[0]!.toUpperCase()}${unit.slice(1)}`;
}

const now: ClickHousePrint = (_args, _call, ctx) => sql`now64(6, ${ctx.tz})`;

/** The functions that do not print as themselves, by the shared table's name. */
const CLICKHOUSE: Record<string, ClickHousePrint> = {
  count: (args, call) =>
    args.length === 0
      ? sql`count()`
      : sql`count(${call.distinct ? raw("DISTINCT ") : Prisma.empty}${args[0]!.sql})`,
  uniq: (args, call, ctx) => native(call.name === "uniqExact" ? "uniqExact" : "uniq")(args, call, ctx),
  quantile: ([x], call) => sql`quantile(${call.params[0]!.sql})(${x!.sql})`,
  toInt: ([x]) =>
    x!.type === "DateTime" ? sql`toUnixTimestamp(${x!.sql})` : sql`accurateCastOrNull(${x!.sql}, 'Int64')`,
  toFloat: ([x]) => sql`accurateCastOrNull(${x!.sql}, 'Float64')`,
  toDateTime: ([x], _call, ctx) => chDateTime(x!, ctx),
  toDate: ([x], _call, ctx) => chDate(x!, ctx),
  toBool: ([x]) =>
    x!.type === "Bool"
      ? x!.sql
      : NUMERIC_TYPES.has(x!.type)
        ? sql`notEquals(${x!.sql}, 0)`
        : sql`multiIf(lower(${chText(x!)}) = 'true', true, lower(${chText(x!)}) = 'false', false, NULL)`,
  now,
  today: (args, call, ctx) => sql`toDate(${now(args, call, ctx)})`,
  yesterday: (args, call, ctx) => sql`minus(toDate(${now(args, call, ctx)}), 1)`,
  toStartOfMinute: overTimestamp("toStartOfMinute"),
  toStartOfHour: overTimestamp("toStartOfHour"),
  toStartOfDay: overTimestamp("toStartOfDay"),
  toStartOfMonth: overTimestamp("toStartOfMonth"),
  toStartOfQuarter: overTimestamp("toStartOfQuarter"),
  toStartOfYear: overTimestamp("toStartOfYear"),
  toMonday: overTimestamp("toMonday"),
  toStartOfWeek: ([t], call, ctx) => {
    const mode = call.argNodes[1] === undefined ? 0 : constantNumber(call.argNodes[1], call.name, "the mode");
    return sql`toStartOfWeek(${chDateTime(t!, ctx)}, ${param(mode, "UInt8")})`;
  },
  // Fixed-length buckets come back as DateTime64 in the project's timezone, whatever ClickHouse's own type.
  toStartOfInterval: ([t, step], call, ctx) => {
    const unit = String((call.argNodes[1] as { name?: unknown } | undefined)?.name ?? "");
    const bucket = sql`toStartOfInterval(${chDateTime(t!, ctx)}, ${step!.sql})`;
    return /Month|Quarter|Year/.test(unit) ? bucket : sql`toDateTime64(${bucket}, 6, ${ctx.tz})`;
  },
  dateDiff: ([, a, b], call, ctx) =>
    sql`dateDiff('${raw(unitOf(call.argNodes[0], call.name))}', ${chDateTime(a!, ctx)}, ${chDateTime(b!, ctx)})`,
  dateAdd: dateShift("plus"),
  dateSub: dateShift("minus"),
  toYear: overTimestamp("toYear"),
  toQuarter: overTimestamp("toQuarter"),
  toMonth: overTimestamp("toMonth"),
  toDayOfMonth: overTimestamp("toDayOfMonth"),
  toDayOfWeek: overTimestamp("toDayOfWeek"),
  toDayOfYear: overTimestamp("toDayOfYear"),
  toHour: overTimestamp("toHour"),
  toMinute: overTimestamp("toMinute"),
  toSecond: overTimestamp("toSecond"),
  toUnixTimestamp: overTimestamp("toUnixTimestamp"),
  formatDateTime: ([t], call, ctx) =>
    sql`formatDateTime(${chDateTime(t!, ctx)}, ${param(constantString(call.argNodes[1], call.name, "the format"), "String")})`,
  trim: native("trimBoth"),
};

/**
 * A call of an allowed function (arity already checked by the printer) as ClickHouse SQL, typed
 * as the shared table types it.
 * @throws ValidationError as the shared row does for its argument checks (units, formats, levels).
 */
export function printClickHouseCall(
  def: FunctionDef,
  args: readonly Printed[],
  call: CallInfo,
  ctx: ClickHouseContext,
): Printed {
  // The shared row checks the arguments and types the result; its PostgreSQL text is dropped.
  const { type, nullable } = def.print(args, call);
  const name = canonicalFunctionName(call.name) ?? call.name;
  const print = ownValue(CLICKHOUSE, name) ?? native(name);
  return out(print(args, call, ctx), type, nullable);
}
