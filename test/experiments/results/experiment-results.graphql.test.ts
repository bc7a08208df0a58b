/**
 * `Experiment.results(metricUuid:)` on both backends: the same numbers as REST's `POST /query/` with an
 * ExperimentQuery (the field goes through the query service), typed variant fields, every primary
 * metric without `metricUuid`, and typed errors: an unknown uuid, a draft, a key without `query:read`.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../../generated/gql.js";
import { execute } from "../../support/graphql.js";
import { describeEachBackend } from "../../support/server.js";
import { type CaptureEvent, capture, event, exposure, meanMetric } from "./fixture.js";

const Results = graphql(`
  query ExperimentResults($project: ID!, $id: ID!, $metricUuid: String) {
    project(id: $project) {
      experiment(id: $id) {
        results(metricUuid: $metricUuid) {
          __typename
          ... on ExperimentResultsSuccess {
            results {
              metricUuid
              metricName
              metricType
              fingerprint
              baseline { key numberOfSamples sum sumSquares validationFailures method significant }
              variantResults {
                key
                numberOfSamples
                sum
                sumSquares
                stepCounts
                validationFailures
                method
                significant
                chanceToWin
                credibleInterval
                pValue
                confidenceInterval
              }
              response
            }
          }
          ... on Error { message code }
        }
      }
    }
  }
`);

describeEachBackend("experiment results over GraphQL", (server) => {
  const window = { start_date: "2020-01-01T12:00:00Z", end_date: "2020-01-15T12:00:00Z" };
  const revenue = { ...meanMetric("sum"), uuid: "revenue-uuid", name: "Revenue" };
  const purchases = { ...meanMetric("total"), uuid: "purchases-uuid", name: "Purchases" };
  const conversion = {
    kind: "ExperimentMetric",
    metric_type: "funnel",
    uuid: "conversion-uuid",
    name: "Conversion",
    series: [{ kind: "EventsNode", event: "purchase" }],
  };
  let id = 0;
  let draft = 0;
  beforeAll(async () => {
    const s = server();
    const created = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
      body: {
        name: "GraphQL results",
        feature_flag_key: "gql-results",
        metrics: [revenue, purchases],
        metrics_secondary: [conversion],
        ...window,
      },
    });
    expect(created.status, created.text).toBe(201);
    id = created.body.id;
    const drafted = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
      body: { name: "GraphQL draft", feature_flag_key: "gql-results-draft", metrics: [revenue] },
    });
    draft = drafted.body.id;
    // 60 persons per variant; 15 control and 30 test buyers spending 10 each.
    const events: CaptureEvent[] = [];
    for (const [variant, buyers] of [
      ["control", 15],
      ["test", 30],
    ] as const) {
      for (let i = 0; i < 60; i++) {
        const person = `gqlr_${variant}_${i}`;
        events.push(exposure(person, "gql-results", variant, "2020-01-04T09:00:00Z"));
        if (i < buyers) events.push(event("purchase", person, "2020-01-04T10:00:00Z", { amount: 10 }));
      }
    }
    await capture(s, s.projectId, events);
  });

  it("answers every primary metric, typed, with the numbers of REST's ExperimentQuery", async () => {
    const s = server();
    const answer = await execute(s, Results, { project: String(s.projectId), id: String(id) });
    expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
    const outcome = answer.data?.project?.experiment?.results;
    expect(outcome?.__typename).toBe("ExperimentResultsSuccess");
    if (outcome?.__typename !== "ExperimentResultsSuccess") return;
    expect(outcome.results.map((r) => [r.metricUuid, r.metricName, r.metricType])).toEqual([
      ["revenue-uuid", "Revenue", "mean"],
      ["purchases-uuid", "Purchases", "mean"],
    ]);
    const [first] = outcome.results;
    expect(first?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(first?.baseline).toEqual({
      key: "control",
      numberOfSamples: 60,
      sum: 150,
      sumSquares: 1500,
      validationFailures: [],
      method: null,
      significant: null,
    });
    expect(first?.variantResults).toHaveLength(1);
    const test = first!.variantResults[0]!;
    expect(test).toMatchObject({
      key: "test",
      numberOfSamples: 60,
      sum: 300,
      sumSquares: 3000,
      stepCounts: null,
      validationFailures: [],
      method: "bayesian",
      pValue: null,
      confidenceInterval: null,
    });
    expect(test.chanceToWin).toBeGreaterThan(0.95);
    expect(test.credibleInterval).toHaveLength(2);

    // The same query over REST answers the same response.
    const rest = await s.request("POST", `/api/projects/${s.projectId}/query/`, {
      body: { query: { kind: "ExperimentQuery", experiment_id: id, metric: revenue } },
    });
    expect(rest.status, rest.text).toBe(200);
    const restTest = rest.body.variant_results[0];
    expect(test.chanceToWin).toBe(restTest.chance_to_win);
    expect(test.credibleInterval).toEqual(restTest.credible_interval);
    expect((first!.response as { variant_results: unknown[] }).variant_results).toEqual(
      rest.body.variant_results,
    );
  });

  it("answers one metric by uuid, secondary ones too, and a typed NotFoundError for an unknown uuid", async () => {
    const s = server();
    const project = String(s.projectId);
    const funnel = await execute(s, Results, { project, id: String(id), metricUuid: "conversion-uuid" });
    const outcome = funnel.data?.project?.experiment?.results;
    expect(outcome?.__typename, JSON.stringify(funnel)).toBe("ExperimentResultsSuccess");
    if (outcome?.__typename !== "ExperimentResultsSuccess") return;
    expect(outcome.results).toHaveLength(1);
    expect(outcome.results[0]?.variantResults[0]).toMatchObject({ key: "test", stepCounts: [30], sum: 30 });

    const unknown = await execute(s, Results, { project, id: String(id), metricUuid: "nope" });
    expect(unknown.data?.project?.experiment?.results).toMatchObject({
      __typename: "NotFoundError",
      message: "The experiment has no metric with uuid nope.",
    });
  });

  it("answers REST's 400 for a draft and a PermissionDeniedError without query:read, as typed errors", async () => {
    const s = server();
    const project = String(s.projectId);
    const drafted = await execute(s, Results, { project, id: String(draft) });
    expect(drafted.data?.project?.experiment?.results).toMatchObject({
      __typename: "ValidationError",
      message: "Experiment has not been started yet",
    });
    const key = await s.createKey(["project:read", "experiment:read"]);
    const denied = await execute(s, Results, { project, id: String(id) }, key);
    expect(denied.data?.project?.experiment?.results).toMatchObject({ __typename: "PermissionDeniedError" });
  });
});
