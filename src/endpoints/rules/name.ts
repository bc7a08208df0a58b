/**
 * The endpoint name rule (`ENDPOINT_NAME_REGEX` in `products/endpoints/backend/api.py`;
 * posthog-behavior.md §4.3): a name is the URL path key, so it starts with a letter and holds only
 * letters, digits, `_` and `-`, 1–128 characters.
 */

/** PostHog's `ENDPOINT_NAME_REGEX`. */
export const ENDPOINT_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,127}$/;

/** PostHog's message for a name that does not match `ENDPOINT_NAME_PATTERN` (400, no `attr`). */
export const INVALID_NAME_MESSAGE =
  "Endpoint name must start with a letter, contain only alphanumeric characters, hyphens, or underscores, " +
  "and be between 1 and 128 characters long.";

/** Whether `name` is a valid endpoint name (see `ENDPOINT_NAME_PATTERN`). */
export function isEndpointName(name: string): boolean {
  return ENDPOINT_NAME_PATTERN.test(name);
}
