/**
 * The PostgreSQL error inside whatever reported it: its SQLSTATE and PostgreSQL's own message
 * (`bigint out of range`), never Prisma's text around it. Found on the driver adapter's error
 * (`meta.driverAdapterError` of Prisma's error, and its `cause`), whose `originalCode` and
 * `originalMessage` are the server's whatever `kind` Prisma mapped it to (`ValueOutOfRange` has no
 * `message`), or on a driver's own error (node-postgres: `severity`, a SQLSTATE `code`, `message`);
 * other wrappers put it in `cause`. Readers of a failure (a query run's 400, the doors' answer to a
 * value the database refused) read it here, one way.
 */

import { Prisma } from "../generated/prisma/client.js";

/** A database error as PostgreSQL reported it: its SQLSTATE (null when unknown) and message. */
export interface DatabaseError {
  code: string | null;
  message: string;
}

/** How many `cause` links are followed before giving up (wrappers are shallow). */
const MAX_DEPTH = 5;

/** A SQLSTATE: five digits or upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The PostgreSQL error `error` carries (see the module comment), or null when it carries none (Prisma's own failures). */
export function databaseErrorOf(error: unknown): DatabaseError | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current && typeof current === "object"; depth++) {
    const record = current as Record<string, unknown>;
    const { originalCode, originalMessage, severity, code, message } = record;
    if (typeof originalCode === "string" && typeof originalMessage === "string") {
      return { code: originalCode, message: originalMessage };
    }
    const fromDriver = typeof severity === "string" && typeof code === "string" && SQLSTATE.test(code);
    if (fromDriver && typeof message === "string") return { code, message };
    const meta = record["meta"] as Record<string, unknown> | undefined;
    current = meta?.["driverAdapterError"] ?? record["cause"];
  }
  return null;
}

/** Whether `error` is Prisma's refusal of a write that a unique constraint or index forbids (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
