/**
 * The value types the HogQL printer tracks for every expression it prints, how they are named in a
 * HogQLQueryResponse's `types` (ClickHouse's names, as PostHog reports them: `String`, `UInt64`,
 * `Float64`, `DateTime64(6, 'Europe/Paris')`, ...; query-and-experiments.md 1c), the shapes of a
 * printed expression and of a printed query with its typed columns, and how result values are turned
 * into JSON.
 *
 * Types are static: the printer knows them from the schema of tables (./tables.ts) and the
 * functions table (./functions.ts), so `types` is the same on every backend and for empty results.
 * `Unknown` (a subquery column the printer could not type) is reported from the values instead.
 */
import { Prisma } from "../../generated/prisma/client.js";

/** A HogQL value type as the printer tracks it. */
export type HogQLType =
  | "String"
  | "Int64"
  | "UInt64"
  | "Float64"
  | "Bool"
  | "DateTime"
  | "Date"
  | "UUID"
  | "JSON"
  | "Array"
  | "Interval"
  | "Null"
  | "Unknown";

/** A printed expression: its SQL, its type and whether it can be NULL. */
export interface Printed {
  sql: Prisma.Sql;
  type: HogQLType;
  nullable: boolean;
}

/** An output column of a printed query: its HogQL name (names may repeat), type and nullability. */
export interface PrintedColumn {
  name: string;
  type: HogQLType;
  nullable: boolean;
}

/** A printed query: its SQL and its output columns, in order. */
export interface PrintedQuery {
  sql: Prisma.Sql;
  columns: PrintedColumn[];
}

/** Types that compare and compute as numbers. */
export const NUMERIC_TYPES: ReadonlySet<HogQLType> = new Set(["Int64", "UInt64", "Float64"]);

/** The ClickHouse-style type name of a column for the response's `types` (`Nullable(...)` when it can be NULL). */
export function clickHouseTypeName(type: HogQLType, nullable: boolean, timezone: string): string {
  const base =
    type === "DateTime"
      ? `DateTime64(6, '${timezone}')`
      : type === "JSON"
        ? "String"
        : type === "Array"
          ? "Array(String)"
          : type === "Interval"
            ? "IntervalSecond"
            : type === "Unknown"
              ? "String"
              : type === "Null"
                ? "Nothing"
                : type;
  return nullable && type !== "Null" && type !== "Array" ? `Nullable(${base})` : base;
}

/** `2024-01-01T10:00:00.000+01:00`: an instant as ISO 8601 with `timezone`'s offset at that instant. */
export function isoInTimezone(instant: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: timezone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(instant);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "00";
  const local = Date.UTC(
    Number(get("year")),
    Number(get("month")) - 1,
    Number(get("day")),
    Number(get("hour")),
    Number(get("minute")),
    Number(get("second")),
  );
  const offsetMinutes = Math.round((local - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  const millis = String(instant.getUTCMilliseconds()).padStart(3, "0");
  const wall = new Date(local).toISOString().slice(0, 19);
  return `${wall}.${millis}${offset}`;
}

/**
 * One result value as JSON: integers (PostgreSQL `bigint`, `numeric`) as numbers where they are
 * exact and as text beyond 2^53, timestamps as ISO 8601 in the project's timezone, dates as
 * `YYYY-MM-DD`, JSON columns as their JSON text (ClickHouse's `properties` is a string column).
 */
export function jsonValue(value: unknown, type: HogQLType, timezone: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Prisma.Decimal) return value.toNumber();
  if (value instanceof Date) {
    return type === "Date" ? value.toISOString().slice(0, 10) : isoInTimezone(value, timezone);
  }
  if (type === "DateTime" && typeof value === "string") {
    const instant = new Date(value);
    return Number.isNaN(instant.getTime()) ? value : isoInTimezone(instant, timezone);
  }
  if (Array.isArray(value)) return value.map((item) => jsonValue(item, "Unknown", timezone));
  if (type === "JSON") return typeof value === "string" ? value : JSON.stringify(value);
  if (typeof value === "string" && (type === "Int64" || type === "UInt64" || type === "Float64")) {
    const number = Number(value);
    return Number.isSafeInteger(number) || type === "Float64" ? number : value;
  }
  return value;
}
