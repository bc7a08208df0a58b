/**
 * The `Dashboard` node (implementing the neutral ref of src/graphql/refs.ts), its `DashboardTile`s
 * and their `Insight`s, and the `TrendsResult` an insight shows: the Trends engine's answer
 * (query-and-experiments.md 1c) typed for frontends. Field names are camelCase versions of REST's
 * (`posthog/api/dashboards/dashboard.py`, `dashboard_tile.py`, `posthog/api/insight.py`).
 */
import { parseIntegerId } from "../../core/validation.js";
import { builder } from "../../graphql/builder.js";
import { parseIntegerObjectId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { TrendResult } from "../../queries/trends/response.js";
import type { TrendsQueryResponse } from "../../queries/trends/run-trends.js";
import type { InsightRecord, TileRecord } from "../dashboards.service.js";
import { DashboardRef } from "./refs.js";

/** The integer dashboard id of an argument: PostHog's integer or the `Dashboard`'s global id; null for neither. */
export function parseDashboardId(raw: string | number): number | null {
  return parseIntegerObjectId(raw, "Dashboard", "project");
}

/** The `TrendsSeries` object type: one `TrendResult` of the engine. */
const TrendsSeriesRef = builder.objectRef<TrendResult>("TrendsSeries").implement({
  description:
    "One series of a Trends result (PostHog's `TrendResult`): per series, breakdown value and period, its values " +
    "per interval bucket.",
  fields: (t) => ({
    label: t.exposeString("label", {
      description:
        "The series' label: the event name, or with a breakdown the breakdown value (`<event> - <value>` with several series).",
    }),
    days: t.exposeStringList("days", {
      description:
        "Each bucket's start in the project's timezone: `YYYY-MM-DD` (`YYYY-MM-DD HH:MM:SS` for hours).",
    }),
    labels: t.exposeStringList("labels", { description: "Each bucket's label, e.g. `9-Jan-2020`." }),
    data: t.field({
      type: ["Float"],
      nullable: true,
      description:
        "One value per bucket, in `days` order; empty for total-value displays (tables, numbers), null for their formulas.",
      resolve: (series) => series.data,
    }),
    count: t.exposeFloat("count", {
      description: "The sum of `data` (the last value for cumulative displays; 0 for total-value displays).",
    }),
    aggregatedValue: t.field({
      type: "Float",
      nullable: true,
      description:
        "The one number of a total-value display (e.g. unique users per variant in a table); null otherwise.",
      resolve: (series) => series.aggregated_value ?? null,
    }),
    breakdownValue: t.field({
      type: ["String"],
      nullable: true,
      description:
        "The breakdown value(s) of the series (one per breakdown, e.g. the variant); null without a breakdown.",
      resolve: (series) =>
        series.breakdown_value === undefined
          ? null
          : Array.isArray(series.breakdown_value)
            ? series.breakdown_value
            : [series.breakdown_value],
    }),
    compareLabel: t.string({
      nullable: true,
      description: "`current` or `previous` when the query compares periods; null otherwise.",
      resolve: (series) => series.compare_label ?? null,
    }),
  }),
});

/** The `TrendsDateRange` object type. */
const TrendsDateRangeRef = builder
  .objectRef<TrendsQueryResponse["resolved_date_range"]>("TrendsDateRange")
  .implement({
    description: "The range a Trends result counted, ISO 8601 in the project's timezone.",
    fields: (t) => ({
      dateFrom: t.exposeString("date_from", { description: "The first instant counted." }),
      dateTo: t.exposeString("date_to", { description: "The last instant counted." }),
    }),
  });

/** The `TrendsResult` object type: the engine's answer for an insight. */
const TrendsResultRef = builder.objectRef<TrendsQueryResponse>("TrendsResult").implement({
  description: "A Trends query's answer (PostHog's `TrendsQueryResponse`), computed when read.",
  fields: (t) => ({
    series: t.field({
      type: [TrendsSeriesRef],
      description: "The series, in PostHog's order (by total, breakdown values descending).",
      resolve: (result) => result.results,
    }),
    hasMore: t.exposeBoolean("hasMore", {
      description: "Whether a breakdown left values out (an `Other` bucket).",
    }),
    timezone: t.exposeString("timezone", { description: "The project's timezone the buckets are in." }),
    resolvedDateRange: t.field({
      type: TrendsDateRangeRef,
      description: "The range counted.",
      resolve: (result) => result.resolved_date_range,
    }),
    lastRefresh: t.field({
      type: "DateTime",
      description: "When the result was computed.",
      resolve: (result) => new Date(result.last_refresh),
    }),
  }),
});

/** The `Insight` object type. */
const InsightRef = builder.objectRef<InsightRecord>("Insight").implement({
  description:
    "A saved query shown on a dashboard (PostHog's Insight): a `TrendsQuery` inside PostHog's `InsightVizNode`.",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the insight." }),
    shortId: t.exposeString("shortId", { description: "PostHog's 8-character public id." }),
    name: t.exposeString("name", { nullable: true, description: "Its name." }),
    description: t.exposeString("description", { description: "Its description; may be empty." }),
    query: t.field({
      type: "JSON",
      nullable: true,
      description: "The saved query: PostHog's `InsightVizNode` whose `source` is a `TrendsQuery`.",
      resolve: (insight) => insight.query,
    }),
    isSample: t.exposeBoolean("isSample", { description: "Whether it was created from a template." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
    createdBy: t.expose("createdBy", {
      type: UserRef,
      nullable: true,
      description: "Who created it; null when that user is gone.",
    }),
    result: t.field({
      type: TrendsResultRef,
      nullable: true,
      description:
        "The query's result with the dashboard's date filters over its `dateRange`, computed when read; null when the " +
        "query is not a TrendsQuery.",
      resolve: (insight) => insight.result,
    }),
  }),
});

/** The `DashboardTile` object type. */
const DashboardTileRef = builder.objectRef<TileRecord>("DashboardTile").implement({
  description: "An insight placed on a dashboard (PostHog's DashboardTile).",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the tile." }),
    layouts: t.field({
      type: "JSON",
      description: "Grid positions per breakpoint (`sm`, `xs`: `x`, `y`, `w`, `h`, ...).",
      resolve: (tile) => tile.layouts,
    }),
    color: t.exposeString("color", {
      nullable: true,
      description: "Its colour, e.g. `blue`; null for none.",
    }),
    insight: t.field({
      type: InsightRef,
      description: "The insight shown.",
      resolve: (tile) => tile.insight,
    }),
  }),
});

DashboardRef.implement({
  description:
    "A dashboard of a project (PostHog's Dashboard): insight tiles with filters applied over every tile. Feature " +
    "flags' usage dashboards are created from PostHog's template (posthog-behavior.md §2.11).",
  extensions: requiresScopes("dashboard:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", { description: "PostHog's integer id of the dashboard (REST's `:id`)." }),
    name: t.exposeString("name", { nullable: true, description: "Its name." }),
    description: t.exposeString("description", { description: "Its description; may be empty." }),
    pinned: t.exposeBoolean("pinned", { description: "Whether it is pinned." }),
    creationMode: t.exposeString("creationMode", {
      description: "How it was created: `default`, `template` (usage dashboards) or `duplicate`.",
    }),
    filters: t.field({
      type: "JSON",
      description: 'Filters applied over every tile, e.g. `{"date_from": "-30d"}`.',
      resolve: (dashboard) => dashboard.filters,
    }),
    tags: t.exposeStringList("tags", { description: "Its tags, sorted." }),
    deleted: t.exposeBoolean("deleted", { description: "Whether it is soft-deleted." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was created." }),
    createdBy: t.expose("createdBy", {
      type: UserRef,
      nullable: true,
      description: "Who created it; null when that user is gone.",
    }),
    tiles: t.field({
      type: [DashboardTileRef],
      description:
        "Its tiles, oldest first, each insight's Trends result computed when read (one engine run per tile). Scope " +
        "`dashboard:read`.",
      resolve: async (dashboard, _args, ctx) =>
        ctx.services.dashboards.tiles(await ctx.serviceContext(), dashboard),
    }),
  }),
});

implementNode(DashboardRef, {
  localId: (dashboard) => projectOwnedLocalId(dashboard.projectId, dashboard.id),
  // Scope `dashboard:read` and the project check, as `Project.dashboard`.
  load: projectOwnedLoader(parseIntegerId, (ctx, serviceContext, projectId, ids) =>
    ctx.services.dashboards.getMany(serviceContext, projectId, ids),
  ),
});
