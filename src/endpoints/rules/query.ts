/**
 * Rules about an endpoint's stored query node (posthog-behavior.md §4.3–4.4): which kinds an
 * endpoint holds, and when a new query counts as a change (the only thing that makes a new version).
 * Source: `products/endpoints/backend/api.py` (`EndpointRequest.query` is `HogQLQuery | InsightQueryNode`),
 * `products/endpoints/backend/models.py` `Endpoint.has_query_changed` (JSON with sorted keys).
 */

/** PostHog's insight query nodes an endpoint may hold (`posthog/types.py` `InsightQueryNode`). */
export const INSIGHT_QUERY_KINDS = [
  "TrendsQuery",
  "FunnelsQuery",
  "RetentionQuery",
  "LifecycleQuery",
  "StickinessQuery",
  "PathsQuery",
] as const;

/** Every query kind an endpoint may hold: `HogQLQuery` and the insight nodes. */
export const ENDPOINT_QUERY_KINDS = ["HogQLQuery", ...INSIGHT_QUERY_KINDS] as const;

/** One of `ENDPOINT_QUERY_KINDS`. */
export type EndpointQueryKind = (typeof ENDPOINT_QUERY_KINDS)[number];

/** Whether `kind` is one of `ENDPOINT_QUERY_KINDS`. */
export function isEndpointQueryKind(kind: unknown): kind is EndpointQueryKind {
  return typeof kind === "string" && (ENDPOINT_QUERY_KINDS as readonly string[]).includes(kind);
}

/**
 * `value` as JSON text with every object's keys sorted (Python's `json.dumps(sort_keys=True)` order
 * for ASCII keys): equal texts mean equal queries whatever the key order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortKeys(object[key])]),
  );
}

/** Whether `next` differs from `current` (PostHog's `has_query_changed`: sorted-key JSON comparison). */
export function queryChanged(current: unknown, next: unknown): boolean {
  return canonicalJson(current) !== canonicalJson(next);
}
