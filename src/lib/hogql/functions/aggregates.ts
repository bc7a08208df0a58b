/**
 * HogQL functions, aggregates: `count`, `uniq`, `sum`, `avg`, `min`/`max`, `argMax`/`argMin`, `groupArray`, `quantile` and their `-If` forms (PostHog `functions/mapping.py`, aggregations).
 */
import { ValidationError } from "../../../core/errors.js";
import { Prisma } from "../../../generated/prisma/client.js";
import type { Printed } from "../types.js";
import { constantNumber, type FunctionDef, join, out, raw, sql } from "./shared.js";

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

/** Aggregates, by HogQL name. */
export const AGGREGATES: ReadonlyArray<[string, FunctionDef]> = [
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
];
