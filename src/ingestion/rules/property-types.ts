/**
 * The type a property definition records for a property name, from the first value seen:
 * PostHog's `detect_property_type` (rust/property-defs-rs/src/types.rs, ported from plugin-server's
 * `property-definitions-auto-discovery`), on the lower-cased key:
 * - `utm_*`, `$feature/*`, `$feature_flag_response` and `$survey_response*` are always `String`;
 * - a key naming a time (`time`, `timestamp`, `date`, `_at`, `-at`, `createdat`, `updatedat`) with a
 *   date-like string or a Unix timestamp in seconds from the last six months on is `DateTime`;
 * - otherwise by value: `"true"`/`"false"` (also upper case) `Boolean`, a date-like string
 *   `DateTime`, other strings `String`, numbers `Numeric`, booleans `Boolean`, anything else none.
 */

/** PostHog's `PropertyValueType` names, as `property_definitions.property_type` stores them. */
export type PropertyType = "String" | "Numeric" | "Boolean" | "DateTime";

const DATETIME_KEYWORDS = ["time", "timestamp", "date", "_at", "-at", "createdat", "updatedat"];
/** `yyyy-mm-dd` / `dd-mm-yyyy` (or `/`), optionally followed by a time: `DATETIME_PREFIX_REGEX`. */
const DATETIME_PREFIX =
  /^(([0-9]{4}[/-][0-2][0-9][/-][0-3][0-9])|([0-2][0-9][/-][0-3][0-9][/-][0-9]{4}))([ T][0-2][0-9]:[0-6][0-9]:[0-6][0-9].*)?$/;
/** RFC 3339 date-time. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** RFC 2822 date-time (`Tue, 1 Jul 2003 10:52:37 +0200`). */
const RFC2822 = /^([A-Za-z]{3}, )?\d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(:\d{2})? ([+-]\d{4}|[A-Z]{2,3})$/;
const SIX_MONTHS_SECONDS = 15_768_000;

function isLikelyDateString(text: string): boolean {
  return RFC3339.test(text) || RFC2822.test(text) || DATETIME_PREFIX.test(text);
}

/** A non-negative integer number of seconds no older than six months before `now` (`is_likely_unix_timestamp`). */
function isLikelyUnixTimestamp(value: number, now: Date): boolean {
  return (
    Number.isInteger(value) && value >= 0 && value >= Math.floor(now.getTime() / 1000) - SIX_MONTHS_SECONDS
  );
}

/** The type to record for property `key` first seen with `value` (see the module comment); null for none. */
export function detectPropertyType(key: string, value: unknown, now: Date): PropertyType | null {
  const lowered = key.toLowerCase();
  if (
    lowered.startsWith("utm_") ||
    lowered.startsWith("$feature/") ||
    lowered === "$feature_flag_response" ||
    lowered.startsWith("$survey_response")
  ) {
    return "String";
  }
  if (DATETIME_KEYWORDS.some((keyword) => lowered.includes(keyword))) {
    if (typeof value === "string" && isLikelyDateString(value)) return "DateTime";
    if (typeof value === "number" && isLikelyUnixTimestamp(value, now)) return "DateTime";
  }
  switch (typeof value) {
    case "string": {
      const trimmed = value.trim();
      if (trimmed === "true" || trimmed === "false" || trimmed === "TRUE" || trimmed === "FALSE")
        return "Boolean";
      return isLikelyDateString(trimmed) ? "DateTime" : "String";
    }
    case "number":
      return "Numeric";
    case "boolean":
      return "Boolean";
    default:
      return null;
  }
}
