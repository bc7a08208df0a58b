/**
 * Funnel and ratio metrics and group-aggregated experiments (query-and-experiments.md 2b Step 3;
 * PostHog's `_build_funnel_query`, `_build_ratio_query`), events sent through capture, on PGlite
 * and PostgreSQL; one statement per computation, whatever the number of variants, steps or entities.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachBackend } from "../../support/server.js";
import { type CaptureEvent, capture, compute, event, exposure, inputOf } from "./fixture.js";

const funnel = (events: string[], extra: Record<string, unknown> = {}) => ({
  kind: "ExperimentMetric",
  metric_type: "funnel",
  series: events.map((name) => ({ kind: "EventsNode", event: name })),
  ...extra,
});

const AT = (time: string) => `2020-01-02T${time}Z`;

describeEachBackend("experiment results: funnels, ratios, groups", (server) => {
  let other = 0;
  beforeAll(async () => {
    const s = server();
    const events: CaptureEvent[] = [
      // Control: cart → purchase; cart only; purchase before cart; cart before the exposure.
      exposure("f_c0", "fun", "control", AT("12:00:00")),
      event("cart", "f_c0", AT("12:10:00")),
      event("purchase", "f_c0", AT("12:20:00")),
      exposure("f_c1", "fun", "control", AT("12:00:00")),
      event("cart", "f_c1", AT("12:10:00")),
      exposure("f_c2", "fun", "control", AT("12:00:00")),
      event("purchase", "f_c2", AT("12:05:00")),
      event("cart", "f_c2", AT("12:10:00")),
      event("cart", "f_c3", AT("11:00:00")),
      exposure("f_c3", "fun", "control", AT("12:00:00")),
      event("purchase", "f_c3", AT("12:20:00")),
      // Test: two complete; nothing; a cart at the exposure's very time then a purchase.
      exposure("f_t0", "fun", "test", AT("12:00:00")),
      event("cart", "f_t0", AT("12:01:00")),
      event("purchase", "f_t0", AT("12:02:00")),
      exposure("f_t1", "fun", "test", AT("12:00:00")),
      event("cart", "f_t1", AT("13:00:00")),
      event("purchase", "f_t1", "2020-01-09T13:00:00Z"),
      exposure("f_t2", "fun", "test", AT("12:00:00")),
      exposure("f_t3", "fun", "test", AT("12:00:00")),
      event("cart", "f_t3", AT("12:00:00")),
      event("purchase", "f_t3", AT("12:30:00")),
      // Window of one hour from an exposure: the second exposure restarts it.
      exposure("f_w1", "funw", "control", AT("12:00:00")),
      event("cart", "f_w1", AT("12:30:00")),
      event("purchase", "f_w1", AT("13:30:00")),
      exposure("f_w2", "funw", "control", AT("12:00:00")),
      exposure("f_w2", "funw", "control", AT("13:00:00")),
      event("cart", "f_w2", AT("13:10:00")),
      event("purchase", "f_w2", AT("14:00:00")),
      // Ratio: revenue per pageview.
      exposure("r_c0", "ratio", "control", AT("12:00:00")),
      event("$pageview", "r_c0", AT("12:01:00")),
      event("$pageview", "r_c0", AT("12:02:00")),
      event("purchase", "r_c0", AT("12:03:00"), { amount: 10 }),
      exposure("r_c1", "ratio", "control", AT("12:00:00")),
      event("$pageview", "r_c1", AT("12:01:00")),
      exposure("r_t0", "ratio", "test", AT("12:00:00")),
      event("$pageview", "r_t0", AT("12:01:00")),
      event("$pageview", "r_t0", AT("12:02:00")),
      event("$pageview", "r_t0", AT("12:03:00")),
      event("purchase", "r_t0", AT("12:04:00"), { amount: 5 }),
      event("purchase", "r_t0", AT("12:05:00"), { amount: 7 }),
    ];
    await capture(s, s.projectId, events);
    other = await s.createProject("Other");
    await capture(s, other, events);
  });

  it("counts funnel steps from the exposure, in order (step_counts), in one statement", async () => {
    const s = server();
    const { results, statements } = await compute(s, inputOf(s, "fun", funnel(["cart", "purchase"])));
    expect(results).toEqual([
      { key: "control", number_of_samples: 4, sum: 1, sum_squares: 1, step_counts: [3, 1] },
      { key: "test", number_of_samples: 4, sum: 3, sum_squares: 3, step_counts: [3, 3] },
    ]);
    expect(statements).toBe(1);
  });

  it("lets a later step repeat an earlier step's event name", async () => {
    const s = server();
    const { results } = await compute(s, inputOf(s, "fun", funnel(["cart", "cart"])));
    expect(results.map((r) => r.step_counts)).toEqual([
      [3, 0],
      [3, 0],
    ]);
  });

  it("ends the funnel's window one conversion window after the exposure that starts it", async () => {
    const s = server();
    const window = { conversion_window: 1, conversion_window_unit: "hour" };
    const { results } = await compute(s, inputOf(s, "funw", funnel(["cart", "purchase"], window)));
    expect(results[0]).toEqual({
      key: "control",
      number_of_samples: 2,
      sum: 1,
      sum_squares: 1,
      step_counts: [2, 1],
    });
    // The default window (3 years) completes both.
    const open = await compute(s, inputOf(s, "funw", funnel(["cart", "purchase"])));
    expect(open.results[0]!.step_counts).toEqual([2, 2]);
    // A one-day window leaves out f_t1's purchase a week later.
    const day = await compute(
      s,
      inputOf(
        s,
        "fun",
        funnel(["cart", "purchase"], { conversion_window: 1, conversion_window_unit: "day" }),
      ),
    );
    expect(day.results[1]!.step_counts).toEqual([3, 2]);
  });

  it("answers zeros and zero step counts for a variant without exposures", async () => {
    const s = server();
    const { results } = await compute(
      s,
      inputOf(s, "fun", funnel(["cart", "purchase", "refund"]), { variants: ["control", "holdout-1"] }),
    );
    expect(results[1]).toEqual({
      key: "holdout-1",
      number_of_samples: 0,
      sum: 0,
      sum_squares: 0,
      step_counts: [0, 0, 0],
    });
    expect(results[0]!.step_counts).toEqual([3, 1, 0]);
  });

  it("sums a ratio's numerator, denominator, squares and products per variant", async () => {
    const s = server();
    const metric = {
      kind: "ExperimentMetric",
      metric_type: "ratio",
      numerator: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" },
      denominator: { kind: "EventsNode", event: "$pageview" },
    };
    const { results, statements } = await compute(s, inputOf(s, "ratio", metric));
    expect(statements).toBe(1);
    expect(results).toEqual([
      {
        key: "control",
        number_of_samples: 2,
        sum: 10,
        sum_squares: 100,
        denominator_sum: 3,
        denominator_sum_squares: 5,
        numerator_denominator_sum_product: 20,
      },
      {
        key: "test",
        number_of_samples: 1,
        sum: 12,
        sum_squares: 144,
        denominator_sum: 3,
        denominator_sum_squares: 9,
        numerator_denominator_sum_product: 36,
      },
    ]);
    const elsewhere = await compute(s, inputOf(s, "ratio", metric, { projectId: other }));
    expect(elsewhere.results.map((r) => r.sum)).toEqual([10, 12]);
  });

  it("takes groups as the entities of a group-aggregated flag ($groups by the type's name)", async () => {
    const s = server();
    const company = (key: string) => ({ $groups: { company: key } });
    await capture(s, s.projectId, [
      exposure("g_1", "groupflag", "control", AT("12:00:00"), company("acme")),
      exposure("g_2", "groupflag", "control", AT("12:00:00"), company("acme")),
      exposure("g_3", "groupflag", "test", AT("12:00:00"), company("beta")),
      exposure("g_4", "groupflag", "test", AT("12:00:00")),
      event("purchase", "g_1", AT("12:10:00"), company("acme")),
      event("purchase", "g_2", AT("12:10:00"), company("acme")),
      event("purchase", "g_3", AT("12:10:00"), company("beta")),
      event("purchase", "g_4", AT("12:10:00")),
    ]);
    const index = (
      await s.db.groupTypeMapping.findUniqueOrThrow({
        where: { projectId_groupType: { projectId: s.projectId, groupType: "company" } },
      })
    ).groupTypeIndex;
    const metric = {
      kind: "ExperimentMetric",
      metric_type: "mean",
      source: { kind: "EventsNode", event: "purchase" },
    };
    const { results } = await compute(
      s,
      inputOf(s, "groupflag", metric, { aggregationGroupTypeIndex: index }),
    );
    expect(results.map((r) => [r.key, r.number_of_samples, r.sum])).toEqual([
      ["control", 1, 2],
      ["test", 1, 1],
    ]);
    const dau = await compute(
      s,
      inputOf(
        s,
        "groupflag",
        { ...metric, source: { ...metric.source, math: "dau" } },
        { aggregationGroupTypeIndex: index },
      ),
    );
    expect(dau.results.map((r) => r.sum)).toEqual([2, 1]);
  });
});
