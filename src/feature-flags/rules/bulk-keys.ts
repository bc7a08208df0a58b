/**
 * The id rules of `POST feature_flags/bulk_keys/` (spec row 14, posthog-behavior.md §2.10), as
 * PostHog's action reads `request.data["ids"]` with Python's semantics: a falsy value asks for
 * nothing; a list (or a string, or an object: Python iterates their items, characters, keys) is read
 * item by item, each valid when `str(item)` is all digits. Pure: the lookup is the service's.
 * Source: `posthog/api/feature_flag.py` `FeatureFlagViewSet.bulk_keys`.
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { isPythonFalsy, pythonStr } from "./python-format.js";

/** The request body (PostHog's names). */
export const bulkKeysBodySchema = z.object({
  ids: z
    .unknown()
    .optional()
    .describe("Flag ids: integers or digit strings; other items are ignored with a warning."),
});

/** The ids a request asks for, and what it sent that is not one. */
export interface FlagIdRequest {
  /** Ids to look up (digit strings read as integers, as Python's `int()`), in the order sent. */
  ids: number[];
  /** PostHog's warning when some items were not ids: `Invalid flag IDs ignored: [<Python repr>]`. */
  warning?: string;
}

/** The `code` of the refusal when no item is an id; the REST door answers it as PostHog's `{"error": ...}`. */
export const INVALID_FLAG_IDS = "invalid_flag_ids";

/** What Python's `for flag_id in flag_ids` yields for a truthy JSON value; null when it is not iterable. */
function pythonItems(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (typeof value === "object" && value !== null) return Object.keys(value);
  return null;
}

/**
 * Whether `str(item).isdigit()`, for the ASCII digits (Python also counts other scripts' digits;
 * those are reported as invalid here). A JSON number is read as its JavaScript text: `1.0` has lost
 * its fraction on parsing, so it counts as `1` where Python sees the float `1.0`.
 */
function digitsOf(item: unknown): string | null {
  const text = typeof item === "string" ? item : typeof item === "number" ? String(item) : null;
  return text !== null && /^[0-9]+$/.test(text) ? text : null;
}

/**
 * Reads `ids` (the body's `ids`, any JSON value) into the ids to look up.
 * Returns no ids for a falsy value (`null`, `[]`, `""`, ...): PostHog then answers `{"keys": {}}`.
 * @throws ValidationError (code `INVALID_FLAG_IDS`, `Invalid flag IDs provided`) when items were
 *   sent and none is an id, or when `ids` is a number or `true` (PostHog fails on iterating them).
 */
export function readFlagIds(raw: unknown): FlagIdRequest {
  if (isPythonFalsy(raw)) return { ids: [] };
  const items = pythonItems(raw);
  if (items === null) throw invalidIds();
  const ids: number[] = [];
  const invalid: unknown[] = [];
  for (const item of items) {
    const digits = digitsOf(item);
    if (digits === null) invalid.push(item);
    else ids.push(Number(digits));
  }
  if (ids.length === 0) throw invalidIds();
  return invalid.length > 0 ? { ids, warning: `Invalid flag IDs ignored: ${pythonStr(invalid)}` } : { ids };
}

function invalidIds(): ValidationError {
  return new ValidationError("Invalid flag IDs provided", { code: INVALID_FLAG_IDS });
}
