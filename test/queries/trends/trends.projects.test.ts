/**
 * Trends beyond PostHog's fixture, on every analytics store (./stores.ts: PGlite, PostgreSQL,
 * ClickHouse on chdb), the same cases and assertions: the breakdown limit and "Other" over 30
 * values, a project in another timezone (its days, its DST change), the project guard, and the
 * refusals of what the engine does not evaluate. No case shows an intended difference between
 * the stores (src/queries/trends/clickhouse-store.ts lists those outside these fixtures).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { capture, pageviews, sendFixture } from "./fixture.js";
import { describeEachStore } from "./stores.js";

describeEachStore("Trends: limits, timezones, refusals", (ctx) => {
  const { server } = ctx;
  let manyValues: number;
  let newYork: number;
  let groups: number;
  let saoPaulo: number;
  let merged: number;
  beforeAll(async () => {
    const s = server();
    groups = await s.createProject("Groups");
    const event = (distinct_id: string, properties: Record<string, unknown>, day: string) => ({
      event: "order",
      distinct_id,
      timestamp: `2020-01-${day}T12:00:00Z`,
      properties,
    });
    await capture(s, groups, [
      event("a", { $group_0: "org:1", $set: { score: 5 } }, "10"),
      event("a", { $group_0: "org:2" }, "10"),
      event("b", { $group_0: "org:1", $set: { score: "7" } }, "10"),
      event("b", { $group_0: "" }, "11"),
      event("c", { $set: { score: "high" } }, "11"),
      event("anonymous", { $process_person_profile: false }, "11"),
    ]);
    // A property PostHog's definitions call Boolean, sent as 1/0.
    await capture(s, groups, [
      event("a", { paid: 1 }, "12"),
      event("b", { paid: 1 }, "12"),
      event("c", { paid: 0 }, "12"),
    ]);
    await s.db.propertyDefinition.updateMany({
      where: { projectId: groups, name: "paid", type: 1 },
      data: { propertyType: "Boolean" },
    });
    await sendFixture(s, s.projectId);
    manyValues = await s.createProject("Thirty browsers");
    await capture(
      s,
      manyValues,
      Array.from({ length: 30 }, (_, i) => ({
        event: "$pageview",
        distinct_id: `u${i}`,
        timestamp: "2020-01-10T12:00:00Z",
        properties: { $browser: `b${String(i).padStart(2, "0")}` },
      })),
    );
    newYork = await s.createProject("New York");
    await s.db.project.update({ where: { id: newYork }, data: { timezone: "America/New_York" } });
    const at = (timestamp: string) => ({ event: "$pageview", distinct_id: "ny", timestamp, properties: {} });
    await capture(s, newYork, [
      at("2020-01-09T04:59:00Z"), // Jan 8, 23:59 in New York
      at("2020-01-10T03:00:00Z"), // Jan 9, 22:00
      at("2020-01-10T05:00:00Z"), // Jan 10, 00:00
      at("2020-03-09T03:30:00Z"), // Mar 8, 23:30 EDT (clocks went forward that morning)
      at("2020-03-09T04:30:00Z"), // Mar 9, 00:30 EDT
      at("2020-11-01T05:30:00Z"), // Nov 1, 01:30 EDT (clocks went back at 02:00 EDT: 25 hours that day)
      at("2020-11-01T06:30:00Z"), // Nov 1, 01:30 EST
      at("2020-11-02T04:30:00Z"), // Nov 1, 23:30 EST
    ]);
    // São Paulo skipped midnight on 4 Nov 2018 (00:00 -03 became 01:00 -02): that day starts at 01:00.
    saoPaulo = await s.createProject("São Paulo");
    await s.db.project.update({ where: { id: saoPaulo }, data: { timezone: "America/Sao_Paulo" } });
    await capture(s, saoPaulo, [
      { event: "$pageview", distinct_id: "sp", timestamp: "2018-11-04T02:30:00Z", properties: {} }, // Nov 3, 23:30 -03
      { event: "$pageview", distinct_id: "sp", timestamp: "2018-11-04T03:30:00Z", properties: {} }, // Nov 4, 01:30 -02
      { event: "$pageview", distinct_id: "sp", timestamp: "2018-11-05T02:30:00Z", properties: {} }, // Nov 5, 00:30 -02
    ]);
    // Two persons merged by $identify: every event counts for the one person left, with its properties.
    merged = await s.createProject("Merged");
    const view = (distinct_id: string, properties: Record<string, unknown>, hour: string) => ({
      event: "$pageview",
      distinct_id,
      timestamp: `2020-01-10T${hour}:00:00Z`,
      properties,
    });
    await capture(s, merged, [
      view("anon", { $set: { plan: "free" } }, "10"),
      view("user", { $set: { plan: "pro" } }, "11"),
    ]);
    await capture(s, merged, [
      { ...view("user", { $anon_distinct_id: "anon" }, "12"), event: "$identify" },
      view("anon", {}, "13"),
    ]);
  });

  describe("breakdown limit and Other", () => {
    const run = (breakdownFilter: Record<string, unknown>) =>
      ctx.run(
        {
          series: [pageviews()],
          dateRange: { date_from: "2020-01-09", date_to: "2020-01-11" },
          breakdownFilter: { breakdown: "$browser", ...breakdownFilter },
        },
        { projectId: manyValues },
      );

    it("keeps 25 values by default and puts the rest in Other, last", async () => {
      const response = await run({});
      expect(response.results).toHaveLength(26);
      expect(response.hasMore).toBe(true);
      const other = response.results.at(-1)!;
      expect(other.breakdown_value).toBe("$$_posthog_breakdown_other_$$");
      expect(other.count).toBe(5);
      // Ties keep the greatest values (value descending), shown in value order.
      expect(response.results[0]!.breakdown_value).toBe("b05");
      expect(response.results[24]!.breakdown_value).toBe("b29");
    });

    it("keeps up to 300 values on a WorldMap", async () => {
      const response = await ctx.run(
        {
          series: [pageviews()],
          dateRange: { date_from: "2020-01-09", date_to: "2020-01-11" },
          breakdownFilter: { breakdown: "$browser" },
          trendsFilter: { display: "WorldMap" },
        },
        { projectId: manyValues },
      );
      expect(response.results).toHaveLength(30);
      expect(response.hasMore).toBe(false);
    });

    it("takes breakdown_limit, and hides Other on request", async () => {
      expect((await run({ breakdown_limit: 10 })).results).toHaveLength(11);
      const hidden = await run({ breakdown_limit: 10, breakdown_hide_other_aggregation: true });
      expect(hidden.results).toHaveLength(10);
      expect(hidden.results.map((r) => r.breakdown_value)).not.toContain("$$_posthog_breakdown_other_$$");
    });
  });

  describe("project timezone", () => {
    const run = (query: Record<string, unknown>) =>
      ctx.run({ series: [pageviews()], ...query }, { projectId: newYork, timezone: "America/New_York" });

    it("reads absolute dates and buckets days in the project's zone", async () => {
      const response = await run({ dateRange: { date_from: "2020-01-09", date_to: "2020-01-10" } });
      expect(response.results[0]!.data).toEqual([1, 1]);
      expect(response.timezone).toBe("America/New_York");
      expect(response.resolved_date_range).toEqual({
        date_from: "2020-01-09T00:00:00.000-05:00",
        date_to: "2020-01-10T23:59:59.999-05:00",
      });
    });

    it("keeps local days across a DST change", async () => {
      const response = await run({ dateRange: { date_from: "2020-03-07", date_to: "2020-03-09" } });
      expect(response.results[0]!.days).toEqual(["2020-03-07", "2020-03-08", "2020-03-09"]);
      expect(response.results[0]!.data).toEqual([0, 1, 1]);
    });

    it("labels hours in the project's zone", async () => {
      const response = await run({
        interval: "hour",
        dateRange: { date_from: "2020-01-09 21:00", date_to: "2020-01-09 23:00" },
      });
      expect(response.results[0]!.labels).toEqual(["9-Jan 21:00", "9-Jan 22:00", "9-Jan 23:00"]);
      expect(response.results[0]!.data).toEqual([0, 1, 0]);
    });

    it("keeps a 25-hour local day whole, by day and by hour", async () => {
      const response = await run({ dateRange: { date_from: "2020-10-31", date_to: "2020-11-02" } });
      expect(response.results[0]!.data).toEqual([0, 3, 0]);
      const hours = await run({
        interval: "hour",
        dateRange: { date_from: "2020-11-01 00:00", date_to: "2020-11-01 02:00" },
      });
      // 01:00 happens twice, each hour its own bucket (the buckets are hours of elapsed time).
      expect(hours.results[0]!.labels).toEqual(["1-Nov 00:00", "1-Nov 01:00", "1-Nov 01:00", "1-Nov 02:00"]);
      expect(hours.results[0]!.data).toEqual([0, 1, 1, 0]);
    });

    it("starts a day at 01:00 where midnight was skipped (São Paulo, 4 Nov 2018)", async () => {
      const response = await ctx.run(
        { series: [pageviews()], dateRange: { date_from: "2018-11-03", date_to: "2018-11-05" } },
        { projectId: saoPaulo, timezone: "America/Sao_Paulo" },
      );
      expect(response.results[0]!.days).toEqual(["2018-11-03", "2018-11-04", "2018-11-05"]);
      expect(response.results[0]!.data).toEqual([1, 1, 1]);
      const weekly = await ctx.run(
        {
          series: [pageviews({ math: "weekly_active" })],
          dateRange: { date_from: "2018-11-03", date_to: "2018-11-05" },
        },
        { projectId: saoPaulo, timezone: "America/Sao_Paulo" },
      );
      expect(weekly.results[0]!.data).toEqual([1, 1, 1]);
    });

    it("starts `date_from: all` at the project's earliest event", async () => {
      const response = await run({ dateRange: { date_from: "all", date_to: "2020-01-10" } });
      // The earliest event is 8 Jan, 23:59 in New York (the clock says 20 Jan).
      expect(response.resolved_date_range.date_from).toBe("2020-01-08T00:00:00.000-05:00");
      expect(response.results[0]!.data).toEqual([1, 1, 1]);
    });

    it("counts months, and nothing of other projects", async () => {
      const response = await run({
        interval: "month",
        dateRange: { date_from: "2020-01-01", date_to: "2020-03-31" },
      });
      expect(response.results[0]!.labels).toEqual(["Jan 2020", "Feb 2020", "Mar 2020"]);
      expect(response.results[0]!.data).toEqual([3, 0, 2]);
    });
  });

  describe("merged persons", () => {
    const run = (query: Record<string, unknown>) =>
      ctx.run(
        { series: [pageviews()], dateRange: { date_from: "2020-01-10", date_to: "2020-01-10" }, ...query },
        { projectId: merged },
      );

    it("counts the events of both distinct ids as one user, with the person's current properties", async () => {
      expect((await run({ series: [pageviews({ math: "dau" })] })).results[0]!.data).toEqual([1]);
      const byPlan = await run({ breakdownFilter: { breakdown: "plan", breakdown_type: "person" } });
      expect(byPlan.results).toHaveLength(1);
      expect(byPlan.results[0]!.count).toBe(3);
    });
  });

  describe("groups and person properties", () => {
    const run = (node: Record<string, unknown>) =>
      ctx.run(
        {
          series: [{ kind: "EventsNode", event: "order", ...node }],
          dateRange: { date_from: "2020-01-10", date_to: "2020-01-11" },
        },
        { projectId: groups },
      );

    it("counts distinct non-empty group keys (unique_group)", async () => {
      const response = await run({ math: "unique_group", math_group_type_index: 0 });
      expect(response.results[0]!.data).toEqual([2, 0]);
    });

    it("reads 1/0 as true/false in a breakdown by a Boolean property", async () => {
      const response = await ctx.run(
        {
          series: [{ kind: "EventsNode", event: "order" }],
          dateRange: { date_from: "2020-01-12", date_to: "2020-01-12" },
          breakdownFilter: { breakdown: "paid" },
        },
        { projectId: groups },
      );
      expect(response.results.map((r) => [r.breakdown_value, r.count])).toEqual([
        ["true", 2],
        ["false", 1],
      ]);
    });

    it("counts a personless event's sender as a user (dau)", async () => {
      expect((await run({ math: "dau" })).results[0]!.data).toEqual([2, 3]);
    });

    it("sums a person property, numbers and numeric text, ignoring the rest", async () => {
      const response = await run({
        math: "sum",
        math_property: "score",
        math_property_type: "person_properties",
      });
      expect(response.results[0]!.data).toEqual([17, 7]);
    });
  });

  describe("refusals", () => {
    const run = (query: Record<string, unknown>) => ctx.run(query);
    const series = [pageviews()];

    it("names unknown fields", async () => {
      await expect(run({ series, colour: "red" })).rejects.toMatchObject({
        httpStatus: 400,
        message: expect.stringContaining("colour"),
      });
      await expect(run({ series: [pageviews({ shade: 1 })] })).rejects.toMatchObject({
        httpStatus: 400,
        attr: "series__0",
        message: expect.stringContaining("shade"),
      });
    });

    it("accepts PostHog's display-only fields and echoes the breakdown in `filter`", async () => {
      const response = await run({
        series: [pageviews({ custom_name: "Views", name: "$pageview" })],
        dateRange: { date_from: "2020-01-09", date_to: "2020-01-10", explicitDate: false },
        interval: "day",
        trendsFilter: { showLegend: true, aggregationAxisFormat: "numeric", smoothingIntervals: 1 },
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 5 },
        samplingFactor: null,
        modifiers: {},
      });
      expect(response.results[0]!.action).toMatchObject({ custom_name: "Views", name: "$pageview" });
      expect(response.results[0]!.filter).toMatchObject({
        breakdown: "$browser",
        breakdown_type: "event",
        breakdown_limit: 5,
        entity_type: "events",
        interval: "day",
      });
      await expect(run({ series, trendsFilter: { smoothingIntervals: 7 } })).rejects.toMatchObject({
        httpStatus: 400,
        attr: "trendsFilter__smoothingIntervals",
      });
    });

    it("answers 501 for actions and 400 for other series kinds", async () => {
      await expect(run({ series: [{ kind: "ActionsNode", id: 1 }] })).rejects.toMatchObject({
        httpStatus: 501,
        message: expect.stringContaining("Actions are not supported"),
      });
      await expect(run({ series: [{ kind: "DataWarehouseNode" }] })).rejects.toMatchObject({
        httpStatus: 400,
        attr: "series__0__kind",
      });
    });

    it("refuses breakdowns it does not evaluate, bad dates and ranges of too many buckets", async () => {
      await expect(
        run({ series, breakdownFilter: { breakdown_type: "hogql", breakdown: "properties.x" } }),
      ).rejects.toMatchObject({ httpStatus: 400, attr: "breakdownFilter__breakdown_type" });
      await expect(run({ series, dateRange: { date_from: "yesterday-ish" } })).rejects.toMatchObject({
        httpStatus: 400,
        attr: "dateRange__date_from",
      });
      await expect(
        run({ series, interval: "minute", dateRange: { date_from: "2019-01-01", date_to: "2020-01-01" } }),
      ).rejects.toMatchObject({ httpStatus: 400, attr: "interval" });
    });

    it("refuses group property filters (no group rows are joined)", async () => {
      await expect(
        run({
          series,
          properties: [{ key: "industry", value: "finance", type: "group", group_type_index: 0 }],
        }),
      ).rejects.toMatchObject({ httpStatus: 400, code: "invalid_property_type" });
    });
  });
});
