/**
 * Dashboard filters over an insight's query, as PostHog applies them when it computes a tile
 * (`posthog/hogql_queries/query_runner.py` `apply_dashboard_filters`: a dashboard `date_from` or
 * `date_to` replaces the query's whole `dateRange`). Pure.
 */

/** The dashboard filters this service applies (PostHog's `DashboardFilter` date fields). */
export interface DashboardDateFilters {
  date_from?: string | null;
  date_to?: string | null;
  explicitDate?: boolean | null;
}

/** Reads the date fields of a stored `filters` object; other keys are ignored. */
export function dashboardDateFilters(filters: unknown): DashboardDateFilters {
  if (filters === null || typeof filters !== "object" || Array.isArray(filters)) return {};
  const { date_from, date_to, explicitDate } = filters as Record<string, unknown>;
  return {
    ...(typeof date_from === "string" ? { date_from } : {}),
    ...(typeof date_to === "string" ? { date_to } : {}),
    ...(typeof explicitDate === "boolean" ? { explicitDate } : {}),
  };
}

/**
 * The `TrendsQuery` an insight's tile runs: its query's source (an `InsightVizNode`'s `source`, or
 * the query itself when it is already a `TrendsQuery`) with the dashboard's dates over its `dateRange`.
 * Returns null when the query is neither.
 */
export function tileTrendsQuery(
  query: unknown,
  filters: DashboardDateFilters,
): Record<string, unknown> | null {
  if (query === null || typeof query !== "object" || Array.isArray(query)) return null;
  const node = query as Record<string, unknown>;
  const source = node["kind"] === "InsightVizNode" ? node["source"] : node;
  if (source === null || typeof source !== "object" || Array.isArray(source)) return null;
  const trends = source as Record<string, unknown>;
  if (trends["kind"] !== "TrendsQuery") return null;
  if (!filters.date_from && !filters.date_to) return trends;
  return {
    ...trends,
    dateRange: {
      date_from: filters.date_from ?? null,
      date_to: filters.date_to ?? null,
      explicitDate: filters.explicitDate ?? false,
    },
  };
}
