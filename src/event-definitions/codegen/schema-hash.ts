/**
 * The `schema_hash` of generated code (posthog-behavior.md §6.4; `calculate_schema_hash` in
 * `posthog/api/event_definition_generators/base.py`): clients compare it with the hash of the code
 * they have to know when to regenerate. It changes with the language, the generator version, an
 * event added or removed, and a property's name, type or required flag; not with the order of either.
 */
import { createHash } from "node:crypto";
import { type CodegenEvent, compareCodePoints, schemaOf } from "./model.js";

/** A property as the hash sees it: `[name, property_type, is_required]`. */
type PropertyTuple = [string, string, boolean];

/** Compares two property tuples as Python compares tuples: name, then type, then `False < True`. */
function compareTuples(a: PropertyTuple, b: PropertyTuple): number {
  return compareCodePoints(a[0], b[0]) || compareCodePoints(a[1], b[1]) || Number(a[2]) - Number(b[2]);
}

/**
 * The first 32 hex digits of the SHA-256 of the compact JSON, keys sorted, of
 * `{language, schemas: [[event_name, [[property, type, is_required], ...]], ...], version}`, the
 * events ordered by name and each event's properties by name, type, required (what orjson's
 * `OPT_SORT_KEYS` dump of base.py's tuples gives). `language` is the generator's language name
 * (`TypeScript`, `Go`, `Python`). An event without a schema has `[]`. Every property is counted as
 * declared, duplicates included, as base.py does.
 */
export function schemaHash(language: string, version: string, events: readonly CodegenEvent[]): string {
  const schemas = events
    .map((event): [string, PropertyTuple[]] => [
      event.name,
      schemaOf(event)
        .map((p): PropertyTuple => [p.name, p.propertyType, p.isRequired])
        .sort(compareTuples),
    ])
    .sort((a, b) => compareCodePoints(a[0], b[0]));
  // Keys written in sorted order: language < schemas < version.
  const json = JSON.stringify({ language, schemas, version });
  return createHash("sha256").update(json, "utf8").digest("hex").slice(0, 32);
}
