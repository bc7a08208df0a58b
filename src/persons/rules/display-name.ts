/**
 * How PostHog names a person and orders its distinct ids, from the person's properties and
 * distinct ids alone (pure). Source: `posthog/api/person.py` `get_person_name_helper` and
 * `PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES`; `posthog/utils.py` `is_anonymous_id` / `ANONYMOUS_REGEX`.
 */

/**
 * The person properties tried in order for a display name (PostHog's default; a project's own
 * `person_display_name_properties` setting is not part of this service, so the default always applies).
 */
export const DISPLAY_NAME_PROPERTIES = [
  "email",
  "Email",
  "$email",
  "name",
  "Name",
  "username",
  "Username",
  "UserName",
] as const;

/** PostHog's anonymous-id shape: five groups of lower-case letters and digits joined by `-` (a UUID-like id). */
const ANONYMOUS_ID = /^([a-z0-9]+-){4}([a-z0-9]+)$/;

/** Whether `distinctId` looks like an anonymous (generated) id rather than one a product identified. */
export function isAnonymousId(distinctId: string): boolean {
  return ANONYMOUS_ID.test(distinctId);
}

/** `distinctIds` with identified ones first, keeping the order within each kind (Python's stable `sorted`). */
export function identifiedFirst(distinctIds: readonly string[]): string[] {
  return [
    ...distinctIds.filter((id) => !isAnonymousId(id)),
    ...distinctIds.filter((id) => isAnonymousId(id)),
  ];
}

/** Python's truthiness of a JSON value: empty strings, lists and objects, 0, false and null are false. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * A person's display name: the first truthy value among `DISPLAY_NAME_PROPERTIES` (as stored, so
 * not always a string), else its first identified distinct id, else its first distinct id, else its
 * integer id as text.
 */
export function personDisplayName(id: bigint, properties: unknown, distinctIds: readonly string[]): unknown {
  if (properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
    const record = properties as Record<string, unknown>;
    for (const key of DISPLAY_NAME_PROPERTIES) {
      if (truthy(record[key])) return record[key];
    }
  }
  const [first] = identifiedFirst(distinctIds);
  return first ?? String(id);
}
