/**
 * The metric display-order rules (src/experiments/rules/metric-ordering.ts), from PostHog's
 * ExperimentSerializer: append the added, drop the removed, refuse an order missing a metric.
 */
import { describe, expect, it } from "vitest";
import {
  checkOrdering,
  metricUuids,
  orderingOnCreate,
  orderingOnUpdate,
  savedMetricUuids,
  syncOrdering,
} from "../../../src/experiments/rules/metric-ordering.js";

const m = (uuid?: string) => ({ kind: "ExperimentMetric", metric_type: "mean", ...(uuid ? { uuid } : {}) });

describe("metric order rules", () => {
  it("reads uuids in order, skipping metrics without one, and saved metrics by their link's type", () => {
    expect(metricUuids([m("a"), m(), m("b"), "x"])).toEqual(["a", "b"]);
    expect(metricUuids(null)).toEqual([]);
    const links = [
      { query: m("p1"), metadata: null },
      { query: m("s1"), metadata: { type: "secondary" } },
      { query: m("p2"), metadata: { type: "primary" } },
      { query: m(), metadata: null },
    ];
    expect(savedMetricUuids(links, "primary")).toEqual(["p1", "p2"]);
    expect(savedMetricUuids(links, "secondary")).toEqual(["s1"]);
  });

  it("drops removed uuids and appends added ones once, and keeps an order nothing changed", () => {
    expect(syncOrdering(["c", "a", "b"], ["a", "b", "c"], ["a", "c", "d"])).toEqual(["c", "a", "d"]);
    expect(syncOrdering(null, [], ["a"])).toEqual(["a"]);
    expect(syncOrdering(["a", "x"], ["a"], ["a"])).toEqual(["a", "x"]);
    expect(syncOrdering(null, ["a"], ["a"])).toBeNull();
    expect(syncOrdering(["d"], [], ["d", "e"])).toEqual(["d", "e"]);
  });

  it("refuses a null order or one missing uuids, with PostHog's messages", () => {
    expect(() => checkOrdering("primary", null, [])).not.toThrow();
    expect(() => checkOrdering("primary", null, ["a"])).toThrow(
      "primary_metrics_ordered_uuids is null but primary metrics exist. This is likely a frontend bug - please refresh and try again.",
    );
    expect(() => checkOrdering("secondary", ["a"], ["c", "a", "b"])).toThrow(
      "secondary_metrics_ordered_uuids is missing UUIDs: ['b', 'c']. This is likely a frontend bug - please refresh and try again.",
    );
  });

  it("on create, starts from the requested order when a list is given, and appends saved metrics to both", () => {
    expect(
      orderingOnCreate({
        requested: { primary: ["b"], secondary: null },
        primaryMetrics: [m("a"), m("b")],
        secondaryMetrics: undefined,
        savedLinks: [{ query: m("s"), metadata: { type: "primary" } }],
      }),
    ).toEqual({ primary: ["b", "a", "s"], secondary: [] });
    expect(
      orderingOnCreate({
        requested: { primary: null, secondary: null },
        primaryMetrics: [],
        secondaryMetrics: undefined,
        savedLinks: [],
      }),
    ).toEqual({ primary: [], secondary: null });
  });

  it("on update, syncs inline then saved changes from the requested or stored order, then checks it", () => {
    const base = {
      stored: { primary: ["b", "a"], secondary: null },
      requested: { primary: undefined, secondary: undefined },
      metricsBefore: { primary: [m("a"), m("b")], secondary: null },
      metricsAfter: { primary: undefined, secondary: undefined },
      savedBefore: [],
      savedAfter: null,
    };
    expect(orderingOnUpdate(base)).toEqual({ primary: ["b", "a"], secondary: null });
    expect(
      orderingOnUpdate({ ...base, metricsAfter: { primary: [m("b"), m("c")], secondary: undefined } }),
    ).toEqual({
      primary: ["b", "c"],
      secondary: null,
    });
    expect(
      orderingOnUpdate({ ...base, savedAfter: [{ query: m("s"), metadata: { type: "secondary" } }] }),
    ).toEqual({ primary: ["b", "a"], secondary: ["s"] });
    expect(() => orderingOnUpdate({ ...base, requested: { primary: ["a"], secondary: undefined } })).toThrow(
      "primary_metrics_ordered_uuids is missing UUIDs: ['b']",
    );
  });
});
