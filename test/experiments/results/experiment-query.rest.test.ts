/**
 * The `ExperimentQuery` kind through the query door (`POST /api/projects/:id/query/`), on PGlite and
 * PostgreSQL: experiments created over REST, events sent through capture. Known counts per variant
 * give the aggregates and PostHog's response fields (the statistics themselves are tested on their
 * vectors in test/experiments/stats/); stats_config selects the method; a draft, an unknown or
 * foreign experiment, a missing or bad metric are 400s; a key without `query:read` gets 403.
 */
import { beforeAll, expect, it } from "vitest";
import { experimentResult } from "../../../src/experiments/stats/response.js";
import { describeEachBackend } from "../../support/server.js";
import { type CaptureEvent, capture, event, exposure, meanMetric, standardEvents } from "./fixture.js";

describeEachBackend("ExperimentQuery over the query door", (server) => {
  const query = (body: Record<string, unknown>, key?: string, project = server().projectId) =>
    server().request("POST", `/api/projects/${project}/query/`, {
      body: { query: { kind: "ExperimentQuery", ...body } },
      ...(key ? { key } : {}),
    });
  const createExperiment = async (body: Record<string, unknown>, project = server().projectId) => {
    const answer = await server().request("POST", `/api/projects/${project}/experiments/`, { body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body as { id: number };
  };
  const window = { start_date: "2020-01-01T12:00:00Z", end_date: "2020-01-15T12:00:00Z" };

  let standard = 0;
  let effect = 0;
  beforeAll(async () => {
    const s = server();
    standard = (await createExperiment({ name: "Standard", feature_flag_key: "std-q", ...window })).id;
    await capture(s, s.projectId, standardEvents("std-q", "stdq"));
    // 100 persons per variant: 20 control and 40 test purchasers, one purchase each.
    effect = (
      await createExperiment({
        name: "Effect",
        feature_flag_key: "effect-q",
        stats_config: { method: "frequentist" },
        ...window,
      })
    ).id;
    const events: CaptureEvent[] = [];
    for (const [variant, buyers] of [
      ["control", 20],
      ["test", 40],
    ] as const) {
      for (let i = 0; i < 100; i++) {
        const id = `effect_${variant}_${i}`;
        events.push(exposure(id, "effect-q", variant, "2020-01-03T10:00:00Z"));
        if (i < buyers) events.push(event("purchase", id, "2020-01-03T11:00:00Z", { amount: 5 }));
      }
    }
    await capture(s, s.projectId, events);
  });

  it("answers PostHog's response for the standard fixture: 20 / 20 over 10 each, not enough exposures", async () => {
    const answer = await query({ experiment_id: standard, metric: meanMetric("sum") });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.baseline).toEqual({
      key: "control",
      number_of_samples: 10,
      sum: 20,
      sum_squares: 200,
      step_counts: null,
      step_sessions: null,
      denominator_sum: null,
      denominator_sum_squares: null,
      numerator_denominator_sum_product: null,
      validation_failures: ["not-enough-exposures"],
    });
    expect(answer.body.variant_results).toEqual([
      expect.objectContaining({
        key: "test",
        method: "bayesian",
        number_of_samples: 10,
        sum: 20,
        sum_squares: 200,
        chance_to_win: null,
        credible_interval: null,
        significant: null,
        validation_failures: ["not-enough-exposures"],
      }),
    ]);
    expect(answer.body).toMatchObject({ is_cached: false, timezone: "UTC" });
    expect(typeof answer.body.last_refresh).toBe("string");
  });

  it("computes the frequentist statistics the experiment's stats_config asks for, from the counted aggregates", async () => {
    const metric = meanMetric("total");
    const answer = await query({ experiment_id: effect, metric });
    expect(answer.status, answer.text).toBe(200);
    const expected = experimentResult(
      [
        { key: "control", number_of_samples: 100, sum: 20, sum_squares: 20 },
        { key: "test", number_of_samples: 100, sum: 40, sum_squares: 40 },
      ],
      "mean",
      { method: "frequentist" },
    );
    expect(answer.body.baseline).toEqual(JSON.parse(JSON.stringify(expected.baseline)));
    expect(answer.body.variant_results).toEqual(JSON.parse(JSON.stringify(expected.variant_results)));
    const [test] = answer.body.variant_results;
    expect(test).toMatchObject({ method: "frequentist", significant: true, validation_failures: [] });
    expect(test.p_value).toBeLessThan(0.05);
    // Relative lift: (0.4 − 0.2) / 0.2 = 1, inside the interval.
    expect(test.confidence_interval[0]).toBeLessThan(1);
    expect(test.confidence_interval[1]).toBeGreaterThan(1);
  });

  it("computes a funnel metric's step counts and a Bayesian chance to win once stats_config says so", async () => {
    const s = server();
    const patched = await s.request("PATCH", `/api/projects/${s.projectId}/experiments/${effect}/`, {
      body: { stats_config: { method: "bayesian" } },
    });
    expect(patched.status, patched.text).toBe(200);
    const answer = await query({
      experiment_id: effect,
      metric: {
        kind: "ExperimentMetric",
        metric_type: "funnel",
        series: [{ kind: "EventsNode", event: "purchase" }],
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.baseline).toMatchObject({
      key: "control",
      number_of_samples: 100,
      sum: 20,
      step_counts: [20],
    });
    const [test] = answer.body.variant_results;
    expect(test).toMatchObject({
      key: "test",
      method: "bayesian",
      sum: 40,
      step_counts: [40],
      significant: true,
    });
    // Relative lift 1 (0.2 → 0.4): decisive at the default 95 % level.
    expect(test.chance_to_win).toBeGreaterThan(0.95);
  });

  it("refuses a draft, an unknown or foreign experiment, and a missing experiment_id with 400s", async () => {
    const s = server();
    const draft = await createExperiment({ name: "Draft", feature_flag_key: "draft-q" });
    const notStarted = await query({ experiment_id: draft.id, metric: meanMetric("total") });
    expect(notStarted.status).toBe(400);
    expect(notStarted.body).toMatchObject({
      type: "validation_error",
      detail: "Experiment has not been started yet",
    });

    const unknown = await query({ experiment_id: 987654, metric: meanMetric("total") });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toBe("Experiment with id 987654 not found");

    const other = await s.createProject("Other experiments");
    const foreign = await createExperiment(
      { name: "Foreign", feature_flag_key: "foreign-q", ...window },
      other,
    );
    const crossed = await query({ experiment_id: foreign.id, metric: meanMetric("total") });
    expect(crossed.status).toBe(400);
    expect(crossed.body.detail).toBe(`Experiment with id ${foreign.id} not found`);
    // In its own project it runs.
    expect(
      (await query({ experiment_id: foreign.id, metric: meanMetric("total") }, undefined, other)).status,
    ).toBe(200);

    const missing = await query({ metric: meanMetric("total") });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ detail: "experiment_id is required", attr: "experiment_id" });
  });

  it("refuses a missing or invalid metric with a 400 naming the field", async () => {
    const missing = await query({ experiment_id: standard });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: "validation_error", attr: "metric", code: "required" });

    const bad = await query({
      experiment_id: standard,
      metric: { kind: "ExperimentMetric", metric_type: "median", source: { kind: "EventsNode", event: "x" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe("validation_error");
    expect(bad.body.attr).toMatch(/^metric/);

    const badMath = await query({
      experiment_id: standard,
      metric: meanMetric("sum", {}, { math_property: null }),
    });
    expect(badMath.status, badMath.text).toBe(400);
  });

  it("answers 403 to a key without query:read, before reading the body", async () => {
    const s = server();
    const key = await s.createKey(["experiment:read"]);
    const answer = await query({ experiment_id: standard, metric: meanMetric("total") }, key);
    expect(answer.status).toBe(403);
    const reader = await s.createKey(["query:read"]);
    expect((await query({ experiment_id: standard, metric: meanMetric("total") }, reader)).status).toBe(200);
  });
});
