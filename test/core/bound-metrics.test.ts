/**
 * Bound counters and histograms (src/core/bound-metrics.ts) are exposed exactly as prom-client's
 * own Counter and Histogram with the same observations: the same text on a registry of each, in
 * Prometheus's format and in OpenMetrics', after a reset too; and they refuse what prom-client
 * refuses (a counter going down, an observation that is not a number).
 */
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { BoundCounter, BoundHistogram } from "../../src/core/bound-metrics.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];

/** Two registries of `type`, one holding prom-client's metrics and one ours, fed the same. */
function pair(type: typeof Registry.PROMETHEUS_CONTENT_TYPE | typeof Registry.OPENMETRICS_CONTENT_TYPE) {
  const [theirs, ours] = [new Registry(), new Registry()];
  for (const registry of [theirs, ours]) (registry as Registry<typeof type>).setContentType(type);
  const config = (registry: Registry) => ({
    name: "requests_total",
    help: "Requests by route and status.",
    labelNames: ["route", "status"] as const,
    registers: [registry],
  });
  const histogram = (registry: Registry) => ({
    name: "request_duration_seconds",
    help: 'Durations, "quoted" \\ help.',
    labelNames: ["route"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const counters = { theirs: new Counter(config(theirs)), ours: new BoundCounter(config(ours)) };
  const histograms = { theirs: new Histogram(histogram(theirs)), ours: new BoundHistogram(histogram(ours)) };
  return {
    theirs,
    ours,
    count(route: string, status: string, amount?: number) {
      counters.theirs.labels({ route, status }).inc(amount);
      counters.ours.series({ route, status }).inc(amount);
    },
    observe(route: string, value: number) {
      histograms.theirs.labels({ route }).observe(value);
      histograms.ours.series({ route }).observe(value);
    },
  };
}

describe.each([
  ["Prometheus", Registry.PROMETHEUS_CONTENT_TYPE],
  ["OpenMetrics", Registry.OPENMETRICS_CONTENT_TYPE],
] as const)("bound metrics in %s's format", (_, type) => {
  it("expose what prom-client's metrics expose for the same observations", async () => {
    const metrics = pair(type);
    metrics.count("/a", "200");
    metrics.count("/a", "200", 2.5);
    metrics.count('/b/"x"\n', "404");
    metrics.count("/c", "500", 0);
    for (const value of [0, 0.001, 0.0011, 0.5, 1, 3, 1e9]) metrics.observe("/a", value);
    metrics.observe("/b", 0.01);
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
    // The JSON a cluster's workers exchange, without prom-client's empty `exemplar` fields.
    const json = async (registry: Registry) =>
      JSON.parse(
        JSON.stringify(await registry.getMetricsAsJSON(), (k, v) => (k === "exemplar" ? undefined : v)),
      );
    expect(await json(metrics.ours)).toEqual(await json(metrics.theirs));
  });

  it("expose nothing before a series counts, and start again from zero after a reset", async () => {
    const metrics = pair(type);
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
    metrics.count("/a", "200", 4);
    metrics.observe("/a", 0.2);
    metrics.theirs.resetMetrics();
    metrics.ours.resetMetrics();
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
    metrics.count("/a", "200");
    metrics.observe("/a", 0.02);
    expect(await metrics.ours.metrics()).toBe(await metrics.theirs.metrics());
  });
});

describe("bound metrics refuse", () => {
  const registry = new Registry();
  const counter = new BoundCounter({ name: "c_total", help: "c", labelNames: ["k"], registers: [registry] });
  const histogram = new BoundHistogram({
    name: "h_seconds",
    help: "h",
    labelNames: ["k"],
    buckets: BUCKETS,
    registers: [registry],
  });

  it("a counter going down or by an amount that is not finite, and counts nothing then", async () => {
    const series = counter.series({ k: "v" });
    for (const amount of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => series.inc(amount)).toThrow(TypeError);
    }
    expect(await registry.getSingleMetricAsString("c_total")).not.toContain("c_total{");
  });

  it("an observation that is not a finite number", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => histogram.series({ k: "v" }).observe(value)).toThrow(TypeError);
    }
  });

  it("labels without a value, and a second metric of the same name", () => {
    expect(() => counter.series({} as { k: string })).toThrow(/label "k" has no value/);
    expect(
      () => new BoundCounter({ name: "c_total", help: "again", labelNames: [], registers: [registry] }),
    ).toThrow(/already been registered/);
  });

  it("binds one series per label values: the same object for the same values", () => {
    expect(counter.series({ k: "same" })).toBe(counter.series({ k: "same" }));
    expect(counter.series({ k: "same" })).not.toBe(counter.series({ k: "other" }));
  });
});
