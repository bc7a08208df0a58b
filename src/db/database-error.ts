/**
 * The PostgreSQL error inside whatever reported it: node-postgres and PGlite throw it with its
 * SQLSTATE `code`, Prisma wraps it (`meta.driverAdapterError.cause`, with `originalCode`) or keeps
 * only `meta.code`/`meta.message`; other wrappers put it in `cause`. Readers of a failure (a query
 * run's 400, the doors' answer to a value the database refused) read it here, one way.
 */

/** A database error as PostgreSQL reported it: its SQLSTATE (null when unknown) and message. */
export interface DatabaseError {
  code: string | null;
  message: string;
}

/** How many `cause` links are followed before giving up (wrappers are shallow). */
const MAX_DEPTH = 5;

/** The PostgreSQL error `error` carries (see the module comment), or null when it carries none. */
export function databaseErrorOf(error: unknown): DatabaseError | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current && typeof current === "object"; depth++) {
    const record = current as Record<string, unknown>;
    const meta = record["meta"] as Record<string, unknown> | undefined;
    const cause = (meta?.["driverAdapterError"] as Record<string, unknown> | undefined)?.["cause"] as
      | Record<string, unknown>
      | undefined;
    if (cause && typeof cause["message"] === "string") {
      const code = cause["originalCode"] ?? cause["code"];
      return {
        code: typeof code === "string" ? code : null,
        message: (cause["originalMessage"] as string) ?? cause["message"],
      };
    }
    if (typeof meta?.["message"] === "string") {
      return { code: typeof meta["code"] === "string" ? meta["code"] : null, message: meta["message"] };
    }
    if (
      typeof record["code"] === "string" &&
      /^[0-9A-Z]{5}$/.test(record["code"]) &&
      typeof record["message"] === "string"
    ) {
      return { code: record["code"], message: record["message"] };
    }
    current = record["cause"];
  }
  return null;
}
