/**
 * Mean metrics and exposures on PostHog's query-runner vectors (`test_mean_metric.py`, `base.py`;
 * query-and-experiments.md 2b), events sent through capture, on PGlite and PostgreSQL. A second
 * project holds the same events twice over: nothing of it may count. Every computation is one
 * statement.
 */
import { beforeAll, expect, it } from "vitest";
import { NotImplementedError, ValidationError } from "../../../src/core/errors.js";
import { describeEachBackend } from "../../support/server.js";
import {
  type CaptureEvent,
  capture,
  compute,
  event,
  exposure,
  inputOf,
  meanMetric,
  standardEvents,
} from "./fixture.js";

describeEachBackend("experiment results: mean metrics", (server) => {
  let other = 0;
  beforeAll(async () => {
    const s = server();
    other = await s.createProject("Other");
    await capture(s, s.projectId, standardEvents("std", "std"));
    // The same persons and flag in another project, twice: never counted.
    await capture(s, other, standardEvents("std", "std"));
    await capture(s, other, standardEvents("std", "std"));
  });

  it("sums the standard fixture to 20 / 20 over 10 exposures each, in one statement", async () => {
    const s = server();
    const { results, statements } = await compute(s, inputOf(s, "std", meanMetric("sum")));
    expect(results).toEqual([
      { key: "control", number_of_samples: 10, sum: 20, sum_squares: 200 },
      { key: "test", number_of_samples: 10, sum: 20, sum_squares: 200 },
    ]);
    expect(statements).toBe(1);
  });

  it("counts events per exposed person (total): 6 / 8, absent persons 0", async () => {
    const s = server();
    const { results } = await compute(s, inputOf(s, "std", meanMetric("total")));
    expect(results).toEqual([
      { key: "control", number_of_samples: 10, sum: 6, sum_squares: 6 },
      { key: "test", number_of_samples: 10, sum: 8, sum_squares: 8 },
    ]);
  });

  it("reads the other project's copy only when asked for that project", async () => {
    const s = server();
    const { results } = await compute(s, inputOf(s, "std", meanMetric("sum"), { projectId: other }));
    // Two copies of each event: the same persons, twice the purchases.
    expect(results.map((r) => [r.number_of_samples, r.sum])).toEqual([
      [10, 40],
      [10, 40],
    ]);
  });

  it("sums amounts 10 × 6 and 15 × 8 to 60 / 120 (test_property_sum_metric)", async () => {
    const s = server();
    const events: CaptureEvent[] = [];
    for (const [variant, purchases, amount] of [
      ["control", 6, 10],
      ["test", 8, 15],
    ] as const) {
      for (let i = 0; i < 10; i++) {
        const id = `sum_${variant}_${i}`;
        events.push(exposure(id, "sum-flag", variant, "2020-01-02T12:00:00Z"));
        if (i < purchases) events.push(event("purchase", id, "2020-01-02T12:01:00Z", { amount }));
      }
    }
    await capture(s, s.projectId, events);
    const { results } = await compute(s, inputOf(s, "sum-flag", meanMetric("sum")));
    expect(results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 10, 60],
      ["test", 10, 120],
    ]);
  });

  it("measures the conversion window to the last exposure: 25, n 1", async () => {
    const s = server();
    await capture(s, s.projectId, [
      exposure("window_user", "window-flag", "control", "2020-01-02T00:00:00Z"),
      exposure("window_user", "window-flag", "control", "2020-01-05T00:00:00Z"),
      event("purchase", "window_user", "2020-01-05T12:00:00Z", { amount: 25 }),
      // Before the first exposure: never counted.
      event("purchase", "window_user", "2020-01-01T12:00:00Z", { amount: 1000 }),
      // After the last exposure + 1 day: outside the window.
      event("purchase", "window_user", "2020-01-06T00:00:01Z", { amount: 500 }),
    ]);
    const input = inputOf(
      s,
      "window-flag",
      meanMetric("sum", { conversion_window: 1, conversion_window_unit: "day" }),
      {
        startDate: new Date("2020-01-01T00:00:00Z"),
        endDate: new Date("2020-01-10T00:00:00Z"),
      },
    );
    const { results } = await compute(s, input);
    expect(results[0]).toEqual({ key: "control", number_of_samples: 1, sum: 25, sum_squares: 625 });
    expect(results[1]).toEqual({ key: "test", number_of_samples: 0, sum: 0, sum_squares: 0 });
    // Without a window every purchase after the first exposure and before the end counts.
    const open = await compute(s, { ...input, metric: meanMetric("sum") });
    expect(open.results[0]!.sum).toBe(525);
  });

  it("winsorizes a sum metric at the pooled 10th/90th percentiles: 1055 / 1055", async () => {
    const s = server();
    const control = [1, 102, 103, 104, 105, 106, 107, 108, 109, 1110];
    const test = [101, 102, 103, 104, 105, 106, 107, 108, 109, 110];
    const events: CaptureEvent[] = [];
    for (const [variant, amounts] of [
      ["control", control],
      ["test", test],
    ] as const) {
      amounts.forEach((amount, i) => {
        const id = `wsum_${variant}_${i}`;
        events.push(exposure(id, "wsum", variant, "2020-01-02T12:00:00Z"));
        events.push(event("purchase", id, "2020-01-02T12:01:00Z", { amount }));
      });
    }
    await capture(s, s.projectId, events);
    const metric = meanMetric("sum", { lower_bound_percentile: 0.1, upper_bound_percentile: 0.9 });
    const { results, statements } = await compute(s, inputOf(s, "wsum", metric));
    expect(statements).toBe(1);
    expect(results.map((r) => r.number_of_samples)).toEqual([10, 10]);
    expect(results[0]!.sum).toBeCloseTo(1055, 9);
    expect(results[1]!.sum).toBeCloseTo(1055, 9);
  });

  it("winsorizes a count metric: 30.9 / 38.9", async () => {
    const s = server();
    const control = [1, 3, 3, 3, 3, 3, 3, 3, 3, 100];
    const test = [2, 4, 4, 4, 4, 4, 4, 4, 4, 4];
    const events: CaptureEvent[] = [];
    for (const [variant, counts] of [
      ["control", control],
      ["test", test],
    ] as const) {
      counts.forEach((count, i) => {
        const id = `wcount_${variant}_${i}`;
        events.push(exposure(id, "wcount", variant, "2020-01-02T12:00:00Z"));
        for (let k = 0; k < count; k++) {
          events.push(event("purchase", id, `2020-01-02T12:01:${String(k % 60).padStart(2, "0")}Z`));
        }
      });
    }
    await capture(s, s.projectId, events);
    const metric = meanMetric("total", { lower_bound_percentile: 0.1, upper_bound_percentile: 0.9 });
    const { results } = await compute(s, inputOf(s, "wcount", metric));
    expect(results[0]!.sum).toBeCloseTo(30.9, 9);
    expect(results[1]!.sum).toBeCloseTo(38.9, 9);
    // ignore_zeros changes nothing here (no zero values); only an upper bound: lower = min.
    const upperOnly = meanMetric("total", { upper_bound_percentile: 0.9, ignore_zeros: true });
    const clipped = await compute(s, inputOf(s, "wcount", upperOnly));
    expect(clipped.results[0]!.sum).toBeCloseTo(1 + 24 + 4, 9);
  });

  it("reads avg, min, max, unique_session and dau per entity, 0 for entities without events", async () => {
    const s = server();
    await capture(s, s.projectId, [
      exposure("m_a", "maths", "control", "2020-01-02T12:00:00Z"),
      event("purchase", "m_a", "2020-01-02T12:01:00Z", { amount: 10, $session_id: "s1" }),
      event("purchase", "m_a", "2020-01-02T12:02:00Z", { amount: "30", $session_id: "s1" }),
      event("purchase", "m_a", "2020-01-02T12:03:00Z", { amount: 20, $session_id: "s2" }),
      exposure("m_b", "maths", "control", "2020-01-02T12:00:00Z"),
      exposure("m_c", "maths", "test", "2020-01-02T12:00:00Z"),
      event("purchase", "m_c", "2020-01-02T12:01:00Z", { amount: 7 }),
    ]);
    const sums = async (math: string) =>
      (await compute(s, inputOf(s, "maths", meanMetric(math)))).results.map((r) => [
        r.number_of_samples,
        r.sum,
      ]);
    expect(await sums("avg")).toEqual([
      [2, 20],
      [1, 7],
    ]);
    expect(await sums("min")).toEqual([
      [2, 10],
      [1, 7],
    ]);
    expect(await sums("max")).toEqual([
      [2, 30],
      [1, 7],
    ]);
    expect(await sums("unique_session")).toEqual([
      [2, 2],
      [1, 0],
    ]);
    expect(await sums("dau")).toEqual([
      [2, 1],
      [1, 1],
    ]);
  });

  it("filters metric events by the source's properties", async () => {
    const s = server();
    const metric = meanMetric("total", {}, { properties: [{ key: "amount", value: "10", type: "event" }] });
    const { results } = await compute(s, inputOf(s, "std", metric));
    expect(results.map((r) => r.sum)).toEqual([2, 2]);
  });

  it("answers variants in the flag's order, one without exposures (a holdout) with zeros", async () => {
    const s = server();
    const { results } = await compute(
      s,
      inputOf(s, "std", meanMetric("sum"), { variants: ["test", "holdout-7", "control"] }),
    );
    expect(results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["test", 10, 20],
      ["holdout-7", 0, 0],
      ["control", 10, 20],
    ]);
  });

  it("excludes persons seen in several variants by default, and keeps their first variant with first_seen", async () => {
    const s = server();
    await capture(s, s.projectId, [
      exposure("mv_both", "multi", "control", "2020-01-02T12:00:00Z"),
      exposure("mv_both", "multi", "test", "2020-01-03T12:00:00Z"),
      event("purchase", "mv_both", "2020-01-03T13:00:00Z", { amount: 5 }),
      exposure("mv_test", "multi", "test", "2020-01-02T12:00:00Z"),
      event("purchase", "mv_test", "2020-01-03T13:00:00Z", { amount: 3 }),
    ]);
    const metric = meanMetric("sum");
    const excluded = await compute(s, inputOf(s, "multi", metric));
    expect(excluded.results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 0, 0],
      ["test", 1, 3],
    ]);
    const firstSeen = await compute(
      s,
      inputOf(s, "multi", metric, { exposureCriteria: { multiple_variant_handling: "first_seen" } }),
    );
    expect(firstSeen.results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 1, 5],
      ["test", 1, 3],
    ]);
  });

  it("reads a custom exposure event's variant from $feature/<key>, with its property filters", async () => {
    const s = server();
    await capture(s, s.projectId, [
      event("viewed checkout", "cx_1", "2020-01-02T12:00:00Z", {
        "$feature/checkout": "control",
        plan: "pro",
      }),
      event("viewed checkout", "cx_2", "2020-01-02T12:00:00Z", { "$feature/checkout": "test", plan: "pro" }),
      event("viewed checkout", "cx_3", "2020-01-02T12:00:00Z", { "$feature/checkout": "test", plan: "free" }),
      // A $feature_flag_called of the flag does not count once a custom event is configured.
      exposure("cx_4", "checkout", "test", "2020-01-02T12:00:00Z"),
      event("purchase", "cx_2", "2020-01-02T12:05:00Z", { amount: 9 }),
      event("purchase", "cx_3", "2020-01-02T12:05:00Z", { amount: 100 }),
    ]);
    const criteria = {
      exposure_config: {
        kind: "ExperimentEventExposureConfig",
        event: "viewed checkout",
        properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }],
      },
    };
    const { results } = await compute(
      s,
      inputOf(s, "checkout", meanMetric("sum"), { exposureCriteria: criteria }),
    );
    expect(results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 1, 0],
      ["test", 1, 9],
    ]);
    const unfiltered = await compute(
      s,
      inputOf(s, "checkout", meanMetric("sum"), {
        exposureCriteria: { exposure_config: { ...criteria.exposure_config, properties: [] } },
      }),
    );
    expect(unfiltered.results.map((r) => [r.number_of_samples, r.sum])).toEqual([
      [1, 0],
      [2, 109],
    ]);
  });

  it("filters exposures by the exposure config's person properties and binds every value", async () => {
    const s = server();
    const flag = "o'brien\"; DROP TABLE events; --";
    await capture(s, s.projectId, [
      exposure("pp_1", flag, "it's", "2020-01-02T12:00:00Z", { $set: { plan: "pro" } }),
      exposure("pp_2", flag, "it's", "2020-01-02T12:00:00Z", { $set: { plan: "free" } }),
      exposure("pp_3", flag, "control", "2020-01-02T12:00:00Z", { $set: { plan: "pro" } }),
      event("purchase", "pp_1", "2020-01-02T12:05:00Z", { amount: 4 }),
      event("purchase", "pp_2", "2020-01-02T12:05:00Z", { amount: 6 }),
    ]);
    const criteria = {
      filterTestAccounts: true,
      exposure_config: {
        kind: "ExperimentEventExposureConfig",
        event: "$feature_flag_called",
        properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }],
      },
    };
    const { results, statements } = await compute(
      s,
      inputOf(s, flag, meanMetric("sum"), { variants: ["control", "it's"], exposureCriteria: criteria }),
    );
    expect(statements).toBe(1);
    expect(results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 1, 0],
      ["it's", 1, 4],
    ]);
  });

  it("answers zeros for an experiment that has not started", async () => {
    const s = server();
    const { results } = await compute(
      s,
      inputOf(s, "std", meanMetric("sum"), { startDate: new Date("2030-01-01T00:00:00Z"), endDate: null }),
    );
    expect(results.map((r) => [r.number_of_samples, r.sum])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it("counts exposures only inside the experiment's dates", async () => {
    const s = server();
    const { results } = await compute(
      s,
      inputOf(s, "std", meanMetric("sum"), { startDate: new Date("2020-01-03T00:00:00Z"), endDate: null }),
    );
    expect(results.map((r) => r.number_of_samples)).toEqual([0, 0]);
  });

  it("refuses what it does not compute, naming it", async () => {
    const s = server();
    const run = (metric: Record<string, unknown>, extra = {}) => compute(s, inputOf(s, "std", metric, extra));
    await expect(run(meanMetric("hogql", {}, { math_hogql: "sum(properties.amount)" }))).rejects.toThrow(
      ValidationError,
    );
    await expect(run(meanMetric("hogql"))).rejects.toThrow("Math 'hogql' is not supported");
    await expect(run({ ...meanMetric("total"), source: { kind: "ActionsNode", id: 1 } })).rejects.toThrow(
      NotImplementedError,
    );
    await expect(
      run({ ...meanMetric("total"), source: { kind: "ExperimentDataWarehouseNode", table_name: "t" } }),
    ).rejects.toThrow(/data warehouse/);
    const retention = await run({
      kind: "ExperimentMetric",
      metric_type: "retention",
      start_event: {},
      completion_event: {},
    }).catch((e) => e);
    expect(retention).toBeInstanceOf(ValidationError);
    expect(retention.attr).toBe("metric__start_event__kind");
    await expect(
      run({
        kind: "ExperimentMetric",
        metric_type: "funnel",
        funnel_order_type: "strict",
        series: [{ kind: "EventsNode", event: "purchase" }],
      }),
    ).rejects.toThrow(/Funnel order 'strict'/);
    await expect(
      run(meanMetric("total"), { exposureCriteria: { exposure_config: { kind: "ActionsNode", id: 3 } } }),
    ).rejects.toThrow(NotImplementedError);
    await expect(run({ kind: "ExperimentTrendsQuery", count_query: {} })).rejects.toThrow(
      /Legacy experiment metrics/,
    );
    const bad = await run(meanMetric("sum", { conversion_window_unit: "fortnight" })).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.attr).toBe("metric__conversion_window_unit");
    const noProperty = await run(meanMetric("sum", {}, { math_property: null })).catch((e) => e);
    expect(noProperty.attr).toBe("metric__source__math_property");
    const badFilter = await run(
      meanMetric("total", {}, { properties: [{ key: "a", type: "event", operator: "regex", value: "(" }] }),
    ).catch((e) => e);
    expect(badFilter).toBeInstanceOf(ValidationError);
  });
});
