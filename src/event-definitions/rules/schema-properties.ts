/**
 * How GraphQL's `EventDefinition.schemaProperties` merges an event's schema properties when several
 * of its property groups declare the same name: one property per name, as PostHog's TypeScript
 * generator merges them
 * (`posthog/api/event_definition_generators/typescript.py` `generate`: "mark optional if any
 * occurrence is optional"): required only when every group declaring it requires it; the type of
 * the first declaration (groups in name order) is kept. PostHog's base generator
 * (`base.py` `fetch_event_definitions_and_schemas`) hands every declaration on unmerged, and so does
 * `schemaPropertiesByEvent` (event-schemas.queries.ts): the code generators merge for themselves,
 * uniting the types where groups disagree, which one `propertyType` cannot show.
 */
import type { SchemaProperty } from "../event-schemas.queries.js";

/**
 * One property per name from `declared` (in declaration order: groups by name, then each group's
 * properties by name), sorted by name; see the module comment for the rule.
 */
export function mergeSchemaProperties(declared: readonly SchemaProperty[]): SchemaProperty[] {
  const byName = new Map<string, SchemaProperty>();
  for (const property of declared) {
    const seen = byName.get(property.name);
    if (seen === undefined) byName.set(property.name, { ...property });
    else if (!property.isRequired) seen.isRequired = false;
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
