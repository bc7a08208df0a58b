/**
 * Issue 11 end to end ("How it is shown", 2nd bullet), on PGlite and PostgreSQL: two multivariate
 * flags (control/test 50/50) made by creating experiments over REST, each with two experiments (one
 * Bayesian, one frequentist) launched on it; 5,000 persons whose variants PostHog's own Node SDK
 * (posthog-node, unchanged, local evaluation on `/flags/definitions`) decides with `evaluateFlags`,
 * whose `getFlag` sends `$feature_flag_called`; then conversions sent by the same client through capture, drawn
 * from a seeded generator with a known effect on the first flag (purchase: control 10 %, test 15 %,
 * one to three purchases each) and none on the second (banner click: 10 % both).
 * The results over REST (`query/` with an `ExperimentQuery`, a funnel and a mean metric) and GraphQL
 * (`Experiment.results`: the experiments' primary metrics, the same two) must show:
 * - exposures per variant exactly as the SDK assigned them, each near 2,500 (the flag's hashing);
 * - the conversions and purchases per variant exactly as the test sent them;
 * - the effect called: frequentist p < 0.05, Bayesian chance to win > 0.95, both `significant`;
 * - the null effect not called: p ≥ 0.05, chance to win within [0.05, 0.95], not `significant`.
 * The seed is fixed: with these rates the effect's expected z is about 4.3 (power > 99 %); this seed
 * draws a lift of +40 % (funnel, z ≈ 3.7) and +39 % (mean, z ≈ 3.3), and for the null +3 % (z ≈ 0.4)
 * and +10 % (z ≈ 0.9): one of the 95 % of draws not called significant (asserted, not assumed).
 */
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { posthogNodeClient } from "../support/capture.js";
import { execute } from "../support/graphql.js";
import { seeded } from "../support/seeded-random.js";
import { describeEachBackend } from "../support/server.js";

/** Persons evaluated, and how many go through the client between two awaited flushes. */
const PERSONS = 5_000;
const FLUSH_EVERY = 500;
/** The whole scenario's time limit (sending and reading back); the budget is under 60 s per backend. */
const SCENARIO_TIMEOUT_MS = 180_000;
const SEED = 11_5000;

/** One experiment flag of the scenario: its key, conversion event and per-variant rates. */
interface Arm {
  flagKey: string;
  event: string;
  rates: Record<"control" | "test", number>;
}
const EFFECT: Arm = { flagKey: "e2e-checkout", event: "purchase", rates: { control: 0.1, test: 0.15 } };
const NULL_EFFECT: Arm = { flagKey: "e2e-banner", event: "banner click", rates: { control: 0.1, test: 0.1 } };

const ExperimentResults = graphql(`
  query E2eExperimentResults($project: ID!, $id: ID!) {
    project(id: $project) {
      experiment(id: $id) {
        results {
          __typename
          ... on ExperimentResultsSuccess {
            results {
              metricUuid
              metricType
              baseline { key numberOfSamples sum validationFailures }
              variantResults {
                key
                numberOfSamples
                sum
                validationFailures
                method
                significant
                chanceToWin
                credibleInterval
                pValue
                confidenceInterval
              }
            }
          }
          ... on Error { message }
        }
      }
    }
  }
`);

/** What the test sent for one flag, per variant. */
interface Sent {
  exposed: Record<string, number>;
  converted: Record<string, number>;
  events: Record<string, number>;
}

const funnelMetric = (event: string) => ({
  kind: "ExperimentMetric",
  metric_type: "funnel",
  uuid: `funnel-${event}`,
  series: [{ kind: "EventsNode", event }],
});
const meanMetric = (event: string) => ({
  kind: "ExperimentMetric",
  metric_type: "mean",
  uuid: `mean-${event}`,
  source: { kind: "EventsNode", event, math: "total" },
});

describeEachBackend("experiment results from posthog-node traffic, REST and GraphQL", (server) => {
  const sent = new Map<string, Sent>();
  /** Experiment ids by `${flagKey}/${method}`. */
  const experiments = new Map<string, number>();
  const timings: Record<string, number> = {};
  let client: PostHog | undefined;

  beforeAll(async () => {
    const s = server();
    const started = performance.now();
    const launchedAt = new Date(Date.now() - 60_000).toISOString();
    for (const arm of [EFFECT, NULL_EFFECT]) {
      for (const method of ["bayesian", "frequentist"] as const) {
        // The first creates the flag (control/test 50/50, inactive while a draft); the second reuses it.
        const created = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
          body: {
            name: `${arm.flagKey} (${method})`,
            feature_flag_key: arm.flagKey,
            stats_config: { method },
            metrics: [funnelMetric(arm.event), meanMetric(arm.event)],
          },
        });
        expect(created.status, created.text).toBe(201);
        const launched = await s.request(
          "PATCH",
          `/api/projects/${s.projectId}/experiments/${created.body.id}/`,
          {
            body: { start_date: launchedAt },
          },
        );
        expect(launched.status, launched.text).toBe(200);
        expect(launched.body.feature_flag.active).toBe(true);
        experiments.set(`${arm.flagKey}/${method}`, created.body.id);
      }
    }

    client = await posthogNodeClient(s, {
      personalApiKey: s.key,
      featureFlagsPollingInterval: 600_000,
      flushAt: 250,
    });
    expect(await client.waitForLocalEvaluationReady(10_000)).toBe(true);
    const random = seeded(SEED);
    for (const arm of [EFFECT, NULL_EFFECT]) {
      sent.set(arm.flagKey, { exposed: {}, converted: {}, events: {} });
    }
    // First every person's exposures, then the conversions: capture corrects each batch's timestamps by
    // its own clock skew (sent_at), so an exposure and a conversion sent in the same millisecond but in
    // two batches could swap order; seconds apart they cannot.
    const variants: Array<Record<string, "control" | "test">> = [];
    for (let i = 0; i < PERSONS; i++) {
      const flags = await client.evaluateFlags(`e2e-person-${i}`, {
        onlyEvaluateLocally: true,
        flagKeys: [EFFECT.flagKey, NULL_EFFECT.flagKey],
      });
      const assigned: Record<string, "control" | "test"> = {};
      for (const arm of [EFFECT, NULL_EFFECT]) {
        // Reading a flag sends its `$feature_flag_called` (once per person, flag and value).
        const variant = flags.getFlag(arm.flagKey);
        if (variant !== "control" && variant !== "test") throw new Error(`unexpected variant ${variant}`);
        assigned[arm.flagKey] = variant;
        const tally = sent.get(arm.flagKey)!;
        tally.exposed[variant] = (tally.exposed[variant] ?? 0) + 1;
      }
      variants.push(assigned);
      if ((i + 1) % FLUSH_EVERY === 0) await client.flush();
    }
    await client.flush();
    for (let i = 0; i < PERSONS; i++) {
      for (const arm of [EFFECT, NULL_EFFECT]) {
        const variant = variants[i]![arm.flagKey]!;
        if (random() >= arm.rates[variant]) continue;
        const tally = sent.get(arm.flagKey)!;
        const times = 1 + Math.floor(random() * 3);
        tally.converted[variant] = (tally.converted[variant] ?? 0) + 1;
        tally.events[variant] = (tally.events[variant] ?? 0) + times;
        for (let k = 0; k < times; k++) {
          client.capture({
            distinctId: `e2e-person-${i}`,
            event: arm.event,
            properties: { amount: 10 * (k + 1) },
          });
        }
      }
      if ((i + 1) % FLUSH_EVERY === 0) await client.flush();
    }
    await client.flush();
    timings["send"] = performance.now() - started;
  }, SCENARIO_TIMEOUT_MS);

  afterAll(async () => {
    await client?.shutdown();
    const ms = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)]));
    console.info(
      `[experiment e2e ${server().backend}] ms ${JSON.stringify(ms)} sent ${JSON.stringify(Object.fromEntries(sent))}`,
    );
  });

  /** One metric's results over REST: `POST query/` with an `ExperimentQuery` (timed under `label`). */
  const restResults = async (arm: Arm, method: string, metric: Record<string, unknown>, label: string) => {
    const s = server();
    const started = performance.now();
    const answer = await s.request("POST", `/api/projects/${s.projectId}/query/`, {
      body: {
        query: {
          kind: "ExperimentQuery",
          experiment_id: experiments.get(`${arm.flagKey}/${method}`),
          metric,
        },
      },
    });
    timings[label] = performance.now() - started;
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  /** Checks a result's aggregates against what was sent: samples, and Σ per variant. */
  const expectSentAggregates = (
    result: { baseline: Record<string, unknown>; variant_results: Array<Record<string, unknown>> },
    tally: Sent,
    sums: Record<string, number>,
  ) => {
    expect(result.baseline).toMatchObject({
      key: "control",
      number_of_samples: tally.exposed["control"],
      sum: sums["control"],
    });
    expect(result.variant_results).toHaveLength(1);
    expect(result.variant_results[0]).toMatchObject({
      key: "test",
      number_of_samples: tally.exposed["test"],
      sum: sums["test"],
      validation_failures: [],
    });
  };

  it(
    "recovers the effect over REST: the funnel and the mean significant, Bayesian and frequentist",
    async () => {
      const tally = sent.get(EFFECT.flagKey)!;
      for (const [metric, sums] of [
        [funnelMetric(EFFECT.event), tally.converted],
        [meanMetric(EFFECT.event), tally.events],
      ] as const) {
        const bayesian = await restResults(EFFECT, "bayesian", metric, `rest ${metric.metric_type} bayesian`);
        expectSentAggregates(bayesian, tally, sums);
        const test = bayesian.variant_results[0];
        expect(test.method).toBe("bayesian");
        expect(test.chance_to_win).toBeGreaterThan(0.95);
        expect(test.significant).toBe(true);
        expect(test.credible_interval[0]).toBeGreaterThan(0);

        const frequentist = await restResults(
          EFFECT,
          "frequentist",
          metric,
          `rest ${metric.metric_type} frequentist`,
        );
        expectSentAggregates(frequentist, tally, sums);
        const ftest = frequentist.variant_results[0];
        expect(ftest.method).toBe("frequentist");
        expect(ftest.p_value).toBeLessThan(0.05);
        expect(ftest.significant).toBe(true);
        expect(ftest.confidence_interval[0]).toBeGreaterThan(0);
        // The lift is near the one built in: 15 % over 10 % is +50 %.
        expect(ftest.confidence_interval[0]).toBeLessThan(0.5);
        expect(ftest.confidence_interval[1]).toBeGreaterThan(0.5);
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    "does not call the null effect over REST, Bayesian or frequentist",
    async () => {
      const tally = sent.get(NULL_EFFECT.flagKey)!;
      for (const [metric, sums] of [
        [funnelMetric(NULL_EFFECT.event), tally.converted],
        [meanMetric(NULL_EFFECT.event), tally.events],
      ] as const) {
        const bayesian = await restResults(
          NULL_EFFECT,
          "bayesian",
          metric,
          `rest null ${metric.metric_type} bayesian`,
        );
        expectSentAggregates(bayesian, tally, sums);
        const test = bayesian.variant_results[0];
        expect(test.chance_to_win).toBeGreaterThan(0.05);
        expect(test.chance_to_win).toBeLessThan(0.95);
        expect(test.significant).toBe(false);

        const frequentist = await restResults(
          NULL_EFFECT,
          "frequentist",
          metric,
          `rest null ${metric.metric_type} frequentist`,
        );
        expectSentAggregates(frequentist, tally, sums);
        const ftest = frequentist.variant_results[0];
        expect(ftest.p_value).toBeGreaterThanOrEqual(0.05);
        expect(ftest.significant).toBe(false);
        expect(ftest.confidence_interval[0]).toBeLessThan(0);
        expect(ftest.confidence_interval[1]).toBeGreaterThan(0);
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    "shows the same over GraphQL: every primary metric of each experiment, the effect called and the null not",
    async () => {
      const s = server();
      for (const arm of [EFFECT, NULL_EFFECT]) {
        const tally = sent.get(arm.flagKey)!;
        const called = arm === EFFECT;
        for (const method of ["bayesian", "frequentist"] as const) {
          const started = performance.now();
          const answer = await execute(s, ExperimentResults, {
            project: String(s.projectId),
            id: String(experiments.get(`${arm.flagKey}/${method}`)),
          });
          timings[`graphql ${called ? "" : "null "}${method}`] = performance.now() - started;
          expect(answer.errors).toBeUndefined();
          const outcome = answer.data.project?.experiment?.results;
          if (outcome?.__typename !== "ExperimentResultsSuccess") throw new Error(JSON.stringify(outcome));
          expect(outcome.results.map((r) => r.metricUuid)).toEqual([
            `funnel-${arm.event}`,
            `mean-${arm.event}`,
          ]);
          for (const result of outcome.results) {
            const sums = result.metricType === "funnel" ? tally.converted : tally.events;
            expect(result.baseline).toMatchObject({
              key: "control",
              numberOfSamples: tally.exposed["control"],
              sum: sums["control"],
              validationFailures: [],
            });
            expect(result.variantResults).toHaveLength(1);
            const test = result.variantResults[0]!;
            expect(test).toMatchObject({
              key: "test",
              numberOfSamples: tally.exposed["test"],
              sum: sums["test"],
              validationFailures: [],
              method,
              significant: called,
            });
            if (method === "bayesian") {
              if (called) expect(test.chanceToWin).toBeGreaterThan(0.95);
              else expect(Math.abs((test.chanceToWin ?? 0) - 0.5)).toBeLessThan(0.45);
              expect(test.credibleInterval).toHaveLength(2);
            } else {
              if (called) expect(test.pValue).toBeLessThan(0.05);
              else expect(test.pValue).toBeGreaterThanOrEqual(0.05);
              expect(test.confidenceInterval).toHaveLength(2);
            }
          }
        }
      }
    },
    SCENARIO_TIMEOUT_MS,
  );

  it("stored every exposure and conversion the SDK sent", async () => {
    const s = server();
    for (const arm of [EFFECT, NULL_EFFECT]) {
      const tally = sent.get(arm.flagKey)!;
      const exposures = await s.db.event.count({
        where: {
          projectId: s.projectId,
          event: "$feature_flag_called",
          properties: { path: ["$feature_flag"], equals: arm.flagKey },
        },
      });
      expect(exposures).toBe(PERSONS);
      const conversions = await s.db.event.count({ where: { projectId: s.projectId, event: arm.event } });
      expect(conversions).toBe((tally.events["control"] ?? 0) + (tally.events["test"] ?? 0));
      for (const variant of ["control", "test"]) {
        // The flag's hashing splits 5,000 persons near 50/50 (3 σ ≈ 106).
        expect(Math.abs((tally.exposed[variant] ?? 0) - PERSONS / 2)).toBeLessThan(150);
      }
    }
  });
});
