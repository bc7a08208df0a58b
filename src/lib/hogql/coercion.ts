/**
 * HogQL's types meeting in one expression, as the printer (./printer.ts) makes PostgreSQL agree:
 * the type of `+`, `-` and `*` over dates, date-times, intervals and numbers, ClickHouse's
 * `date ± n`, and each side of a comparison made comparable with the other (ClickHouse compares
 * what PostgreSQL would refuse). PostHog: `posthog/hogql/printer.py`, ClickHouse's type rules.
 */
import { asTimestamp, out, raw, sql } from "./functions/shared.js";
import { type HogQLType, NUMERIC_TYPES, type Printed } from "./types.js";

/**
 * ClickHouse's `date ± n` (n days) and `datetime ± n` (n seconds), and `n + date`; null when
 * neither side is a date beside a number. PostgreSQL adds integers to dates only, and numbers to
 * timestamps only through an interval.
 */
export function shiftByNumber(left: Printed, right: Printed, op: "+" | "-"): Printed | null {
  let time: Printed;
  let number: Printed;
  if (NUMERIC_TYPES.has(right.type)) [time, number] = [left, right];
  else if (op === "+" && NUMERIC_TYPES.has(left.type)) [time, number] = [right, left];
  else return null;
  const nullable = left.nullable || right.nullable;
  if (time.type === "Date") return out(sql`(${time.sql} ${raw(op)} (${number.sql})::int)`, "Date", nullable);
  if (time.type !== "DateTime") return null;
  return out(
    sql`(${time.sql} ${raw(op)} (${number.sql})::float8 * interval '1 second')`,
    "DateTime",
    nullable,
  );
}

const DATE_TYPES: ReadonlySet<HogQLType> = new Set(["Date", "DateTime"]);

/**
 * The type of `left op right` for `+`, `-` and `*` as PostgreSQL computes it: a date minus a date
 * is a number of days, any other difference of dates or date-times an interval; a date-time beside
 * anything is a date-time, and so is a date beside an interval; intervals stay intervals.
 */
export function arithmeticType(left: Printed, right: Printed, op: string): HogQLType {
  const types = new Set([left.type, right.type]);
  if (op === "-" && DATE_TYPES.has(left.type) && DATE_TYPES.has(right.type)) {
    return left.type === "Date" && right.type === "Date" ? "Int64" : "Interval";
  }
  if (types.has("DateTime")) return "DateTime";
  if (types.has("Date")) return types.has("Interval") ? "DateTime" : "Date";
  if (types.has("Interval")) return "Interval";
  return numericOf(left, right);
}

/** The numeric type of an operation over `a` and `b`: Float64 when either is one, else Int64. */
export function numericOf(a: Printed, b: Printed): HogQLType {
  return a.type === "Float64" || b.type === "Float64" ? "Float64" : "Int64";
}

/** `value` as text (a cast unless it is a String already). */
export function textOf(value: Printed): Printed {
  return value.type === "String" ? value : out(sql`(${value.sql})::text`, "String", value.nullable);
}

/**
 * `value` made comparable with `other` (each side of a comparison is passed through this with the
 * other): text beside a date is read as a timestamp; numbers, UUIDs, booleans and JSON beside text
 * are text; JSON beside anything but JSON is its text; a number beside a boolean is `<> 0`.
 */
export function coerce(value: Printed, other: Printed): Printed {
  if ((other.type === "DateTime" || other.type === "Date") && value.type === "String") {
    return out(asTimestamp(value), "DateTime", true);
  }
  if (value.type === "JSON" && other.type !== "JSON") return textOf(value);
  if (
    other.type === "String" &&
    (NUMERIC_TYPES.has(value.type) || value.type === "UUID" || value.type === "Bool")
  ) {
    return textOf(value);
  }
  if (other.type === "Bool" && NUMERIC_TYPES.has(value.type))
    return out(sql`((${value.sql}) <> 0)`, "Bool", value.nullable);
  return value;
}
