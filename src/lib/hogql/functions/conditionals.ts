/**
 * HogQL functions, conditionals and NULLs: `if`, `multiIf`, `ifNull`, `coalesce`, `isNull`, ... (PostHog `functions/mapping.py`).
 */
import { ValidationError } from "../../../core/errors.js";
import type { Prisma } from "../../../generated/prisma/client.js";
import { anyNullable, type FunctionDef, firstType, join, out, sql } from "./shared.js";

/** Conditionals and NULLs, by HogQL name. */
export const CONDITIONALS: ReadonlyArray<[string, FunctionDef]> = [
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
];
