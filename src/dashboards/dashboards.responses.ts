/**
 * Dashboards in PostHog's REST shapes (`posthog/api/dashboards/dashboard.py` `DashboardBasicSerializer`,
 * `DashboardSerializer`; `dashboard_tile.py` `DashboardTileSerializer`; `posthog/api/insight.py`
 * `InsightSerializer`), limited to the fields this service stores or computes, and their serialisers.
 * A tile's insight carries the Trends engine's answer for its query with the dashboard's filters.
 */
import { z } from "zod";
import { drfDateTime } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { DashboardRecord, DashboardWithTiles, InsightRecord, TileRecord } from "./dashboards.service.js";

const json = (what: string) => z.unknown().describe(what);

/** A dashboard in a list (PostHog's `DashboardBasicSerializer` fields this service has). */
export const dashboardBasicSchema = z
  .object({
    id: z.int(),
    name: z.string().nullable(),
    description: z.string(),
    pinned: z.boolean(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    is_shared: z.boolean().describe("Always false: sharing is not part of this service."),
    deleted: z.boolean(),
    creation_mode: z.enum(["default", "template", "duplicate"]),
    tags: z.array(z.string()),
    team_id: z.int(),
  })
  .meta({ id: "DashboardBasic" });

/** One insight with its computed Trends result (PostHog's `InsightSerializer` fields this service has). */
export const insightSchema = z
  .object({
    id: z.int(),
    short_id: z.string(),
    name: z.string().nullable(),
    derived_name: z.string().nullable(),
    description: z.string(),
    query: json("The saved query: PostHog's `InsightVizNode` whose `source` is a `TrendsQuery`."),
    filters: z
      .record(z.string(), z.unknown())
      .describe("Legacy filters: `{}` for query-based insights, as PostHog."),
    result: json(
      "The `TrendsQuery` results (PostHog's `TrendResult` list: data, labels, days, count, label, breakdown_value...), or null.",
    ),
    hasMore: z.boolean().nullable(),
    last_refresh: z.iso.datetime().nullable(),
    is_cached: z.boolean(),
    timezone: z.string().nullable(),
    resolved_date_range: z.object({ date_from: z.string(), date_to: z.string() }).nullable(),
    is_sample: z.boolean(),
    deleted: z.boolean(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
  })
  .meta({ id: "DashboardInsight" });

/** A tile of a dashboard (PostHog's `DashboardTileSerializer` fields this service has). */
export const dashboardTileSchema = z
  .object({
    id: z.int(),
    layouts: json("Grid positions per breakpoint."),
    color: z.string().nullable(),
    insight: insightSchema,
    text: z.null().describe("Text tiles are not part of this service: always null."),
    deleted: z.boolean(),
    last_refresh: z.iso.datetime().nullable(),
    is_cached: z.boolean(),
  })
  .meta({ id: "DashboardTile" });

/** A dashboard with its tiles (PostHog's `DashboardSerializer` fields this service has). */
export const dashboardSchema = dashboardBasicSchema
  .extend({
    filters: z.record(z.string(), z.unknown()).describe('Filters over every tile (`{"date_from": "-30d"}`).'),
    tiles: z.array(dashboardTileSchema),
    last_refresh: z.iso.datetime().nullable(),
  })
  .meta({ id: "Dashboard" });

/** A page of dashboards. */
export const dashboardPageSchema = paginatedListSchema(dashboardBasicSchema, "PaginatedDashboardBasicList");

type DashboardBasicJson = z.output<typeof dashboardBasicSchema>;

/** A dashboard in `DashboardBasic`'s shape. */
export function serializeDashboardBasic(dashboard: DashboardRecord): DashboardBasicJson {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    pinned: dashboard.pinned,
    created_at: drfDateTime(dashboard.createdAt),
    created_by: dashboard.createdBy ? serializeUserBasic(dashboard.createdBy) : null,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: dashboard.creationMode as DashboardBasicJson["creation_mode"],
    tags: dashboard.tags,
    team_id: dashboard.projectId,
  };
}

function serializeInsight(insight: InsightRecord): z.output<typeof insightSchema> {
  const result = insight.result;
  return {
    id: insight.id,
    short_id: insight.shortId,
    name: insight.name,
    derived_name: null,
    description: insight.description,
    query: insight.query,
    filters: {},
    result: result?.results ?? null,
    hasMore: result?.hasMore ?? null,
    last_refresh: result?.last_refresh ?? null,
    is_cached: false,
    timezone: result?.timezone ?? null,
    resolved_date_range: result?.resolved_date_range ?? null,
    is_sample: insight.isSample,
    deleted: false,
    created_at: drfDateTime(insight.createdAt),
    created_by: insight.createdBy ? serializeUserBasic(insight.createdBy) : null,
  };
}

function serializeTile(tile: TileRecord): z.output<typeof dashboardTileSchema> {
  return {
    id: tile.id,
    layouts: tile.layouts,
    color: tile.color,
    insight: serializeInsight(tile.insight),
    text: null,
    deleted: false,
    last_refresh: tile.insight.result?.last_refresh ?? null,
    is_cached: false,
  };
}

/** A dashboard with its tiles in `Dashboard`'s shape; `last_refresh` is the latest of its tiles'. */
export function serializeDashboard(dashboard: DashboardWithTiles): z.output<typeof dashboardSchema> {
  const refreshes = dashboard.tiles.map((t) => t.insight.result?.last_refresh).filter((r) => r != null);
  const filters = dashboard.filters;
  return {
    ...serializeDashboardBasic(dashboard),
    filters:
      filters !== null && typeof filters === "object" && !Array.isArray(filters)
        ? (filters as Record<string, unknown>)
        : {},
    tiles: dashboard.tiles.map(serializeTile),
    last_refresh: refreshes.length ? refreshes.sort().at(-1)! : null,
  };
}
