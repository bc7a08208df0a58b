/**
 * Tolerant readers for `filters` objects that have already been stored. Stored filters are
 * free-form JSON (PostHog's `FeatureFlag.filters` is a JSONField, and older rows predate most
 * validation), so these helpers never throw: anything malformed simply contributes nothing.
 */

/** True for a JSON object: not `null`, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The objects in `filters.groups`, or `[]` when `groups` is missing or not a list. */
export function conditionGroups(filters: unknown): Record<string, unknown>[] {
  if (!isJsonObject(filters) || !Array.isArray(filters.groups)) return [];
  return filters.groups.filter(isJsonObject);
}

/** The objects in a condition group's `properties`, or `[]` when missing or not a list. */
export function groupProperties(group: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(group.properties) ? group.properties.filter(isJsonObject) : [];
}

/**
 * Reads a database id written in filters (a flag dependency's `key`, a cohort property's `value`)
 * the way PostHog does, with Python's `int()` (`safe_int`, Django's pk coercion): an integer, or a
 * string of decimal digits with an optional sign and surrounding whitespace. Returns `null` for
 * anything else, including integers beyond JavaScript's safe range (no id is that large).
 * Source: `posthog/api/feature_flag.py` `_validate_flag_reference`, `posthog/utils.py` `safe_int`.
 */
export function parseId(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : null;
  if (typeof value !== "string" || !/^\s*[+-]?\d+\s*$/.test(value)) return null;
  const id = Number(value.trim());
  return Number.isSafeInteger(id) ? id : null;
}

/** The ids of the cohorts named by `filters.groups[].properties[]` (`type: "cohort"`), each once. */
export function flagCohortIds(filters: unknown): number[] {
  const ids = new Set<number>();
  for (const group of conditionGroups(filters)) {
    for (const property of groupProperties(group)) {
      const id = property["type"] === "cohort" ? parseId(property["value"]) : null;
      if (id !== null) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * The filters PostHog shows: stored filters with `groups`, or the legacy form synthesised as one group
 * from `properties` and `rollout_percentage` (`FeatureFlag.get_filters`, §2.1).
 */
export function effectiveFilters(
  filters: unknown,
  rolloutPercentage: number | null,
): Record<string, unknown> {
  const stored =
    filters && typeof filters === "object" && !Array.isArray(filters)
      ? (filters as Record<string, unknown>)
      : {};
  if ("groups" in stored) return stored;
  return {
    ...stored,
    groups: [
      {
        properties: Array.isArray(stored["properties"]) ? stored["properties"] : [],
        rollout_percentage: rolloutPercentage,
      },
    ],
  };
}
