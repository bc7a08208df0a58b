/**
 * Opaque cursors for keyset ("seek") paging over data tables, where an offset would rescan every
 * skipped row: a cursor names the sort key of the last row a page showed, and the next page starts
 * strictly after it. Used by the REST door's `?cursor=` links (DRF's `CursorPagination`, which
 * PostHog's group list uses) and by GraphQL connections' `after`.
 *
 * A position is a list of strings (e.g. a timestamp as PostgreSQL prints it, then a tie-breaking
 * key); the cursor is the base64url of its JSON, with a direction flag for REST's `previous` links.
 * Timestamps travel as PostgreSQL text, never through a JS `Date`: `timestamptz` keeps microseconds.
 */

/** A decoded cursor: the sort key it points at, and whether it pages towards the start (`previous`). */
export interface KeysetCursor {
  position: string[];
  reverse: boolean;
}

/** `timestamptz` as PostgreSQL prints it (`2026-11-23 13:45:01.123456+00`): safe to cast back. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

/** Whether `text` is a `timestamptz` as PostgreSQL prints it (what cursors carry). */
export function isPgTimestamp(text: string): boolean {
  return PG_TIMESTAMP.test(text);
}

/** A string PostgreSQL can take: no NUL, no lone surrogate (a cursor is input like any other). */
function isStorable(part: unknown): part is string {
  return typeof part === "string" && !part.includes("\u0000") && !/\p{Cs}/u.test(part);
}

/** The cursor of `position` (and direction). */
export function encodeKeysetCursor(position: readonly string[], reverse = false): string {
  return Buffer.from(JSON.stringify({ p: position, r: reverse ? 1 : 0 })).toString("base64url");
}

/**
 * Reads a cursor made by `encodeKeysetCursor` with `arity` parts; null when `raw` is not one
 * (garbage, another shape, a part that is not a string PostgreSQL can take).
 */
export function decodeKeysetCursor(raw: string, arity: number): KeysetCursor | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const { p, r } = value as { p?: unknown; r?: unknown };
  if (!Array.isArray(p) || p.length !== arity || !p.every(isStorable)) return null;
  if (r !== 0 && r !== 1) return null;
  return { position: p as string[], reverse: r === 1 };
}
