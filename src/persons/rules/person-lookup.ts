/**
 * What a person path id names (pure). PostHog's `persons/:id/` takes the person's uuid or its
 * integer primary key (`posthog/api/utils.py` `get_pk_or_uuid`: whatever Python's `UUID()` accepts
 * is a uuid, anything else is tried as the integer key); an id that is neither is a 400 naming the
 * distinct-id filter (`posthog/api/person.py` `PersonViewSet.safely_get_object`).
 */
import { ValidationError } from "../../core/errors.js";

/** A person reference: by public uuid (canonical lower-case form) or by integer id. */
export type PersonLookup = { uuid: string } | { id: bigint };

/** Largest PostgreSQL `bigint`: a larger integer names no person. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * The uuid `raw` spells as Python's `UUID()` reads it (braces, a `urn:uuid:` prefix and hyphens
 * anywhere are allowed around 32 hex digits), in canonical lower-case form; null when it is none.
 */
export function pythonUuid(raw: string): string | null {
  const hex = raw
    .replace(/^urn:/, "")
    .replace(/^uuid:/, "")
    .replace(/^\{|\}$/g, "")
    .replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Reads a person path id: a uuid, or an integer (Python's `int()`: surrounding spaces and a sign
 * allowed). Null for an integer no row can have (≤ 0 or beyond `bigint`): PostHog answers 404 there.
 * @throws ValidationError for anything else, with PostHog's message.
 */
export function parsePersonLookup(raw: string): PersonLookup | null {
  const uuid = pythonUuid(raw);
  if (uuid !== null) return { uuid };
  const integer = /^\s*([+-]?\d+)\s*$/.exec(raw);
  if (!integer) {
    throw new ValidationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${raw} instead.`,
    );
  }
  const id = BigInt(integer[1]!);
  return id > 0n && id <= MAX_BIGINT ? { id } : null;
}
