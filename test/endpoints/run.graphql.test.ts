/**
 * `Endpoint.run` through the GraphQL door, on both backends, over events captured into two
 * projects: typed HogQL rows and Trends series, variables bound (an injection attempt changes
 * nothing), the cache and FORCE_BLOCKING, versions and typed errors with REST's messages, the
 * execution log, and a key without `endpoint:read`.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { capture, sendFixture } from "../queries/trends/fixture.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const RunEndpoint = graphql(`
  query RunEndpoint($project: ID!, $name: String!, $input: EndpointRunInput) {
    project(id: $project) {
      endpoint(name: $name) {
        run(input: $input) {
          __typename
          ... on EndpointRunSuccess {
            result {
              columns types { name type } rows
              trends { label days data count breakdownValue }
              hasMore isCached lastRefresh endpointVersion executionId
            }
          }
          ... on Error { message code }
          ... on ValidationError { attr }
        }
      }
    }
  }
`);

describeEachBackend("endpoint run over GraphQL", (server) => {
  let other: number;
  beforeAll(async () => {
    const s = server();
    other = await s.createProject("Other");
    await sendFixture(s, s.projectId);
    await capture(s, other, [
      { event: "' OR 1=1 --", distinct_id: "o", timestamp: "2020-01-12T12:00:00Z", properties: {} },
    ]);
    const create = async (body: Record<string, unknown>) => {
      const answer = await s.request("POST", `/api/projects/${s.projectId}/endpoints/`, { body });
      expect(answer.status, answer.text).toBe(201);
    };
    await create({
      name: "by_event",
      query: {
        kind: "HogQLQuery",
        query: "SELECT event, count() AS c FROM events WHERE event = {variables.e} GROUP BY event",
        variables: { v1: { variableId: "v1", code_name: "e", value: "$pageview" } },
      },
    });
    await create({
      name: "browsers",
      query: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
        dateRange: { date_from: "2020-01-09", date_to: "2020-01-19" },
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
      },
    });
  });

  const run = (name: string, input?: Record<string, unknown>, key?: string) =>
    execute(server(), RunEndpoint, { project: String(server().projectId), name, input: input ?? null }, key);

  it("answers typed HogQL rows, binds variables, caches and forces", async () => {
    const first = await run("by_event");
    const outcome = first.data.project?.endpoint?.run;
    if (outcome?.__typename !== "EndpointRunSuccess") throw new Error(JSON.stringify(first));
    expect(outcome.result).toMatchObject({
      columns: ["event", "c"],
      types: [
        { name: "event", type: "String" },
        { name: "c", type: "UInt64" },
      ],
      rows: [["$pageview", 10]],
      trends: null,
      hasMore: false,
      isCached: false,
      endpointVersion: 1,
    });
    const cached = await run("by_event", {});
    const hit = cached.data.project?.endpoint?.run;
    if (hit?.__typename !== "EndpointRunSuccess") throw new Error(JSON.stringify(cached));
    expect(hit.result).toMatchObject({ isCached: true, lastRefresh: outcome.result.lastRefresh });
    const forced = await run("by_event", { refresh: "FORCE_BLOCKING" });
    expect(forced.data.project?.endpoint?.run).toMatchObject({ result: { isCached: false } });
    const attempt = await run("by_event", { variables: { e: "' OR 1=1 --" } });
    expect(attempt.data.project?.endpoint?.run).toMatchObject({ result: { rows: [] } });
  });

  it("answers typed Trends series with breakdown and date variables", async () => {
    const answer = await run("browsers", { variables: { $browser: "Chrome", date_from: "2020-01-15" } });
    const outcome = answer.data.project?.endpoint?.run;
    if (outcome?.__typename !== "EndpointRunSuccess") throw new Error(JSON.stringify(answer));
    expect(outcome.result.columns).toBeNull();
    expect(outcome.result.trends).toEqual([
      expect.objectContaining({
        breakdownValue: "Chrome",
        count: 3,
        days: expect.arrayContaining(["2020-01-15"]),
      }),
    ]);
  });

  it("answers REST's messages as typed errors, and logs no refused request", async () => {
    const s = server();
    const unknown = await run("by_event", { variables: { nope: 1 } });
    expect(unknown.data.project?.endpoint?.run).toEqual({
      __typename: "ValidationError",
      message: "Unknown variable(s): nope",
      code: "invalid_input",
      attr: "variables",
    });
    const version = await run("by_event", { version: 7 });
    expect(version.data.project?.endpoint?.run).toMatchObject({
      __typename: "NotFoundError",
      message: "Version 7 not found for endpoint 'by_event'",
    });
    const offset = await run("browsers", { offset: 2 });
    expect(offset.data.project?.endpoint?.run).toMatchObject({
      __typename: "ValidationError",
      message: "offset is only supported for HogQL endpoints",
    });
    // Refused requests are not runs: nothing is logged for them.
    expect(
      await s.db.endpointExecution.count({ where: { endpointName: "by_event", error: { not: null } } }),
    ).toBe(0);
  });

  it("needs endpoint:read", async () => {
    const key = await server().createKey(["project:read", "query:read"]);
    const answer = await run("by_event", undefined, key);
    expect(answer.data.project?.endpoint).toBeNull();
    expect(answer.errors?.[0]?.message).toBe("API key missing required scope 'endpoint:read'");
  });
});
