/**
 * The name PostHog shows for a person (`posthog/api/person.py` `get_person_name` with the default
 * `person_display_name_properties`): the first of its `email`, `name`, `username` properties that
 * is set, else its first distinct id, else its uuid.
 */
const DISPLAY_PROPERTIES = ["email", "name", "username"];

/** A person's display name. */
export function personName(person: {
  uuid: string;
  properties: Record<string, unknown>;
  distinctIds: readonly string[];
}): string {
  for (const key of DISPLAY_PROPERTIES) {
    const value = person.properties[key];
    if (value !== undefined && value !== null && value !== "") return String(value);
  }
  return person.distinctIds[0] ?? person.uuid;
}
