/**
 * What every family of HogQL functions prints with: the function definition (`FunctionDef`), what a
 * call hands its printer (`CallInfo`), and the coercions and shapes the families share (PostHog keeps
 * the same in `posthog/hogql/functions/core.py`).
 */
import { ValidationError } from "../../../core/errors.js";
import { Prisma } from "../../../generated/prisma/client.js";
import type { HogQLNode } from "../parser.js";
import type { HogQLType, Printed } from "../types.js";

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

/** Prisma's SQL builders, as every family writes them: `sql` (bound values), `raw`, `join`. */
export const sql = Prisma.sql;
/** Text put into SQL as it is (only names from this code, never caller input). */
export const raw = Prisma.raw;
/** SQL fragments joined by a separator. */
export const join = Prisma.join;

/** A printed expression: its SQL, its HogQL type and whether it can be NULL. */
export function out(s: Prisma.Sql, type: HogQLType, nullable: boolean): Printed {
  return { sql: s, type, nullable };
}

/** Whether any argument can be NULL (then most functions can answer NULL). */
export function anyNullable(args: readonly Printed[]): boolean {
  return args.some((arg) => arg.nullable);
}

/** A constant string argument (units, formats, timezones), or a ValidationError naming the call. */
export function constantString(node: HogQLNode | undefined, call: string, what: string): string {
  if (node?.node === "Constant" && typeof node["value"] === "string") return node["value"] as string;
  throw new ValidationError(`${call}() takes ${what} as a constant string.`);
}

/** A constant number argument (quantile levels, precisions), or a ValidationError naming the call. */
export function constantNumber(node: HogQLNode | undefined, call: string, what: string): number {
  if (node?.node === "Constant" && typeof node["value"] === "number") return node["value"] as number;
  throw new ValidationError(`${call}() takes ${what} as a constant number.`);
}

/** The argument as text (`x::text`), timestamps formatted as ClickHouse's `toString` does. */
export function asText(arg: Printed): Prisma.Sql {
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
export function asDate(arg: Printed): Prisma.Sql {
  if (arg.type === "Date") return arg.sql;
  return sql`(${asTimestamp(arg)})::date`;
}

/** The argument as jsonb: JSON columns as they are, text parsed (NULL when it is not JSON). */
export function asJson(arg: Printed): Prisma.Sql {
  return arg.type === "JSON" ? arg.sql : sql`hogql_to_jsonb(${asText(arg)})`;
}

/**
 * A function that prints as PostgreSQL's function `name` over the same arguments, of `type` (or the
 * type `type` derives from the arguments), NULL when an argument is (unless `nullable` says).
 */
export function simple(
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

/** The type of arithmetic over `args`: Float64 when any is, else the first argument's. */
export function numericType(args: readonly Printed[]): HogQLType {
  return args.some((a) => a.type === "Float64") ? "Float64" : (args[0]?.type ?? "Float64");
}

/** The type of the first argument that is not a NULL literal (`coalesce`, `greatest`). */
export function firstType(args: readonly Printed[]): HogQLType {
  return args.find((a) => a.type !== "Null")?.type ?? "Null";
}
