/**
 * The one model every code generator reads (posthog-behavior.md §6.4): the events of a project, each
 * with the properties its event schemas declare, or none. Generators are pure functions of this
 * model (and the generation time): no I/O, no database.
 *
 * Source: `posthog/api/event_definition_generators/base.py` (`fetch_event_definitions_and_schemas`
 * builds the same list: definition names and, per definition, its schema property groups' properties).
 */

/**
 * A property's declared type, and one property an event's schemas declare (PostHog's
 * `SchemaPropertyGroupProperty`: `name`, `property_type`, `is_required`), as the event schemas'
 * reader gives them (event-schemas.queries.ts `schemaPropertiesByEvent`).
 */
import type { SchemaProperty, PropertyType as SchemaPropertyType } from "../event-schemas.queries.js";

export type { SchemaProperty, SchemaPropertyType };

/** One event to generate code for: its name and its schema's properties, null (or empty) for no schema. */
export interface CodegenEvent {
  name: string;
  properties: SchemaProperty[] | null;
}

/** The languages code is generated in, as REST names them (`event_definitions/<language>/`). */
export const CODE_LANGUAGES = ["typescript", "golang", "python"] as const;

/** A language code is generated in. */
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

/**
 * The system events a project's code includes besides its own (names not starting with `$`): the
 * ones SDK users capture by hand (PostHog's `included_system_events`, base.py).
 */
export const INCLUDED_SYSTEM_EVENTS: readonly string[] = ["$pageview", "$pageleave", "$screen"];

/**
 * Compares strings by Unicode code point, as Python's `sorted` does (JavaScript's default compares
 * UTF-16 code units, which orders characters beyond U+FFFF differently). Every order of the
 * generated code and of the schema hash uses it, so it does not depend on a database collation.
 */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** An event's properties, or none when it has no schema (null and an empty list alike, as PostHog's `if not properties`). */
export function schemaOf(event: CodegenEvent): SchemaProperty[] {
  return event.properties ?? [];
}

/** One property name of an event with every type its schemas give it. */
export interface MergedProperty {
  name: string;
  /** The declared types, each once, in the order first seen. */
  types: SchemaPropertyType[];
  /** True only when every declaration requires it (optional if any is optional: typescript.py's rule). */
  isRequired: boolean;
}

/**
 * An event's properties with each name once, in the order first seen: the types of a name declared
 * by several property groups united, required only if every group requires it. typescript.py
 * deduplicates this way; golang.py and python.py do not. The TypeScript and Go generators here read
 * this (two groups declaring the same required name would give Go a duplicate map key, which does not
 * compile); the Python one writes each declaration as python.py does (`x`, `x_2`), which type-checks.
 */
export function mergeProperties(properties: readonly SchemaProperty[]): MergedProperty[] {
  const byName = new Map<string, MergedProperty>();
  for (const property of properties) {
    const seen = byName.get(property.name);
    if (!seen) {
      byName.set(property.name, {
        name: property.name,
        types: [property.propertyType],
        isRequired: property.isRequired,
      });
      continue;
    }
    if (!seen.types.includes(property.propertyType)) seen.types.push(property.propertyType);
    seen.isRequired = seen.isRequired && property.isRequired;
  }
  return [...byName.values()];
}

/** `value` as a JSON string literal (orjson's `dumps` of a string: no escaping beyond JSON's own). */
export function jsonString(value: string): string {
  return JSON.stringify(value);
}
