/**
 * Bound values of a ClickHouse statement. The ClickHouse printer (./printer.ts) builds its SQL
 * with the same `Prisma.Sql` templates as the PostgreSQL one, each value a `ClickHouseParam`
 * carrying its ClickHouse type; `renderClickHouse` then writes each value as ClickHouse's
 * query-parameter placeholder `{p0:String}` (equal values of one type share one name) and returns
 * the values by name, for `@clickhouse/client`'s `query_params`. So no value is ever spliced into
 * the text, and the printing limits measure both dialects with one template type.
 */
import { Prisma } from "../../../generated/prisma/client.js";

/**
 * An instant as ClickHouse's DateTime64 text, UTC (`2026-11-29 10:11:12.345`): what its parameters
 * and JSONEachRow inserts read for a `DateTime64(…, 'UTC')`, whatever `date_time_input_format`.
 */
export function clickHouseDateTime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

/** One bound value and its ClickHouse type (`String`, `Int64`, `DateTime64(6, 'UTC')`, ...). */
export class ClickHouseParam {
  constructor(
    readonly value: unknown,
    readonly type: string,
  ) {}
}

/** `value` as a bound parameter of ClickHouse type `type` (a type name of this code, never input). */
export function param(value: unknown, type: string): Prisma.Sql {
  return Prisma.sql`${new ClickHouseParam(value, type)}`;
}

/** The ClickHouse type of a value bound without one (strings, integers, floats, booleans). */
function typeOf(value: unknown): ClickHouseParam {
  if (value instanceof ClickHouseParam) return value;
  if (typeof value === "string") return new ClickHouseParam(value, "String");
  if (typeof value === "boolean") return new ClickHouseParam(value, "Bool");
  if (typeof value === "number")
    return new ClickHouseParam(value, Number.isSafeInteger(value) ? "Int64" : "Float64");
  throw new Error(`A ClickHouse statement cannot bind ${typeof value} values.`);
}

/**
 * The size of a ClickHouse statement as the printing limit counts it (as ../printer.ts
 * `printedBytes` does for PostgreSQL): its text, plus each bound value (a string by its length,
 * anything else as 8).
 */
export function clickHouseBytes(statement: Prisma.Sql): number {
  let bytes = 0;
  for (const part of statement.strings) bytes += part.length;
  for (const value of statement.values) {
    const bound = value instanceof ClickHouseParam ? value.value : value;
    bytes += typeof bound === "string" ? bound.length : 8;
  }
  return bytes;
}

/** A ClickHouse statement as sent: its text with `{name:Type}` placeholders, and the values by name. */
export interface ClickHouseStatement {
  sql: string;
  params: Record<string, unknown>;
}

/**
 * `statement` as ClickHouse text: each value a `{pN:Type}` placeholder, numbered in order of
 * first use; equal values of one type share one name (so a SELECT expression and its GROUP BY
 * twin read alike).
 * @throws Error for a value that is neither a `ClickHouseParam` nor a string, number or boolean
 *   (a bug of the printer, never the query's fault).
 */
export function renderClickHouse(statement: Prisma.Sql): ClickHouseStatement {
  const params: Record<string, unknown> = {};
  const names = new Map<string, string>();
  let sql = statement.strings[0] ?? "";
  statement.values.forEach((value, i) => {
    const bound = typeOf(value);
    const key = `${bound.type}:${JSON.stringify(bound.value)}`;
    let name = names.get(key);
    if (name === undefined) {
      name = `p${names.size}`;
      names.set(key, name);
      params[name] = bound.value;
    }
    sql += `{${name}:${bound.type}}${statement.strings[i + 1] ?? ""}`;
  });
  return { sql, params };
}

/** A ClickHouse identifier in backticks (backslashes and backticks escaped), e.g. a`b as `a\`b`. */
export function quoteClickHouse(name: string): Prisma.Sql {
  return Prisma.raw(`\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``);
}
