/**
 * Rules about an endpoint's stored query node (posthog-behavior.md §4.3–4.4): which kinds an
 * endpoint holds, and when a new query counts as a change (the only thing that makes a new version).
 * Source: `products/endpoints/backend/api.py` (`EndpointRequest.query` is `HogQLQuery | InsightQueryNode`,
 * stored as `data.query.model_dump()`), `products/endpoints/backend/models.py` `Endpoint.has_query_changed`
 * (JSON with sorted keys).
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
 * The fields of PostHog's `HogQLQuery` model (posthog/schema.py), in `model_dump()` order: what a
 * stored HogQL query node holds, each null when not given.
 */
export const HOGQL_QUERY_FIELDS = [
  "explain",
  "filters",
  "kind",
  "modifiers",
  "name",
  "query",
  "response",
  "tags",
  "values",
  "variables",
  "version",
] as const;

/**
 * A query node as PostHog stores and echoes it (`data.query.model_dump()`, issue 26 A4): a
 * `HogQLQuery` gets every field of the model, unset ones null; other keys are kept as given (PostHog's
 * model forbids them; nested models are kept as given too). Insight nodes are returned unchanged.
 * Idempotent: a normalized node normalizes to itself.
 */
export function normalizedQueryNode(node: Record<string, unknown>): Record<string, unknown> {
  if (node["kind"] !== "HogQLQuery") return node;
  const normalized: Record<string, unknown> = {};
  for (const field of HOGQL_QUERY_FIELDS) normalized[field] = node[field] ?? null;
  for (const [key, value] of Object.entries(node)) if (!(key in normalized)) normalized[key] = value;
  return normalized;
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

/**
 * Whether `next` differs from `current` (PostHog's `has_query_changed`: sorted-key JSON comparison),
 * both compared normalized (`normalizedQueryNode`), so that sending back an echoed query, or the
 * same query with its unset fields left out, makes no new version.
 */
export function queryChanged(current: Record<string, unknown>, next: Record<string, unknown>): boolean {
  return canonicalJson(normalizedQueryNode(current)) !== canonicalJson(normalizedQueryNode(next));
}
