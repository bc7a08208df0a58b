/**
 * The small helpers both halves of HogQL printing use, the resolver (./resolver.ts: scopes, tables,
 * fields) and the printer (./printer.ts: SQL output): refusing a construct, reading a node's list of
 * child nodes, and quoting an identifier.
 */
import { ValidationError } from "../../core/errors.js";
import { Prisma } from "../../generated/prisma/client.js";
import type { HogQLNode } from "./parser.js";

/** A quoted SQL identifier (`"` doubled), e.g. `a"b` as `"a""b"`. */
export function quoteIdent(name: string): Prisma.Sql {
  return Prisma.raw(`"${name.replace(/"/g, '""')}"`);
}

/**
 * Refuses the query.
 * @throws ValidationError (400) with `message`, and `code` when given (`max_depth`, `max_size`).
 */
export function fail(message: string, code?: string): never {
  throw new ValidationError(message, code ? { code } : {});
}

/** A node's list field (`exprs`, `args`, `select`, ...) as nodes; `[]` when it is null or absent. */
export function nodes(value: unknown): HogQLNode[] {
  return (value as HogQLNode[] | null | undefined) ?? [];
}
