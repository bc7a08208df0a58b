/**
 * The pure usage-dashboard rules: PostHog's rename rule (`_update_tile_with_new_key`: edited insights
 * are left alone) and dashboard date filters over a tile's query (`apply_dashboard_filters`).
 */
import { describe, expect, it } from "vitest";
import { dashboardDateFilters, tileTrendsQuery } from "../../src/dashboards/rules/dashboard-filters.js";
import {
  hasEnrichedInsights,
  renamedUsageInsight,
  totalVolumeDescription,
  usageInsightTemplates,
} from "../../src/dashboards/rules/usage-dashboard.js";

describe("renamedUsageInsight", () => {
  const [volume] = usageInsightTemplates("old");
  const insight = { description: volume!.description, query: volume!.query };

  it("moves the $feature_flag filter and the description to the new key", () => {
    const renamed = renamedUsageInsight(insight, totalVolumeDescription, "old", "new");
    expect(renamed?.description).toBe(totalVolumeDescription("new"));
    expect(JSON.stringify(renamed?.query)).toContain('"value":"new"');
    // The stored query is not changed in place.
    expect(JSON.stringify(insight.query)).toContain('"value":"old"');
  });

  it("leaves an insight whose description was edited", () => {
    expect(
      renamedUsageInsight({ ...insight, description: "mine" }, totalVolumeDescription, "old", "new"),
    ).toBeNull();
  });

  it("leaves an insight whose filters were changed", () => {
    const query = structuredClone(volume!.query) as unknown as {
      source: { properties: { values: unknown[] } };
    };
    query.source.properties.values.push({ type: "AND", values: [] });
    expect(renamedUsageInsight({ ...insight, query }, totalVolumeDescription, "old", "new")).toBeNull();
  });
});

describe("dashboard filters over a tile", () => {
  const source = { kind: "TrendsQuery", series: [], dateRange: { date_from: "-7d", date_to: "-1d" } };

  it("replaces the query's dateRange with the dashboard's dates", () => {
    expect(tileTrendsQuery({ kind: "InsightVizNode", source }, { date_from: "-30d" })).toEqual({
      ...source,
      dateRange: { date_from: "-30d", date_to: null, explicitDate: false },
    });
  });

  it("keeps the query's dates when the dashboard has none, and refuses other kinds", () => {
    expect(tileTrendsQuery(source, dashboardDateFilters({ properties: [] }))).toBe(source);
    expect(tileTrendsQuery({ kind: "HogQLQuery", query: "select 1" }, {})).toBeNull();
  });

  it("knows an enriched dashboard by its insight names", () => {
    expect(hasEnrichedInsights(["Feature Flag Called Total Volume", null])).toBe(false);
    expect(hasEnrichedInsights(["Feature Viewed Total Volume"])).toBe(true);
  });
});
