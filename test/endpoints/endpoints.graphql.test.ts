/**
 * Saved-query endpoints through the GraphQL door, on both backends: create (from `hogql` or a query
 * node), the `Project.endpoints` connection and its filters, lookups by id and name, the `Endpoint`
 * node with its versions and materialization, update with versioning and the per-version
 * `isActive`, delete, last execution times, and the typed errors with REST's messages (decision 6).
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const CreateEndpoint = graphql(`
  mutation CreateEndpoint($input: CreateEndpointInput!) {
    createEndpoint(input: $input) {
      __typename
      ... on CreateEndpointSuccess {
        endpoint {
          id uuid name description query isActive cacheAgeSeconds endpointPath currentVersion versionsCount
          createdBy { email } materialization { canMaterialize reason }
        }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateEndpoint = graphql(`
  mutation UpdateEndpoint($input: UpdateEndpointInput!) {
    updateEndpoint(input: $input) {
      __typename
      ... on UpdateEndpointSuccess {
        endpoint {
          currentVersion versionsCount description query isActive
          versions { totalCount edges { node { version isActive description query } } }
        }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const DeleteEndpoint = graphql(`
  mutation DeleteEndpoint($input: DeleteEndpointInput!) {
    deleteEndpoint(input: $input) {
      __typename
      ... on DeleteEndpointSuccess { endpoint { name } }
      ... on Error { message code }
    }
  }
`);

const Endpoints = graphql(`
  query Endpoints($project: ID!, $filter: EndpointFilterInput, $first: Int, $after: String) {
    project(id: $project) {
      endpoints(filter: $filter, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { node { name isActive } }
      }
    }
  }
`);

const EndpointLookup = graphql(`
  query EndpointLookup($project: ID!, $id: ID, $name: String, $number: Int!) {
    project(id: $project) {
      endpoint(id: $id, name: $name) {
        name
        version(number: $number) { version isActive createdBy { email } materialization { canMaterialize } }
        currentVersionDetail { version }
      }
    }
  }
`);

const EndpointNode = graphql(`
  query EndpointNode($id: ID!) {
    node(id: $id) { __typename ... on Endpoint { name } }
  }
`);

const LastExecutionTimes = graphql(`
  query EndpointLastExecutionTimes($project: ID!, $names: [String!]!) {
    project(id: $project) { endpointLastExecutionTimes(names: $names) { name lastExecutedAt } }
  }
`);

describeEachBackend("saved-query endpoints over GraphQL", (server) => {
  it("creates, lists, finds, versions, updates and deletes endpoints through one service with REST", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateEndpoint, {
      input: { projectId: project, name: "gql_daily", hogql: "SELECT count() FROM events", description: "d" },
    });
    const result = created.data.createEndpoint;
    if (result?.__typename !== "CreateEndpointSuccess") throw new Error(JSON.stringify(created));
    const endpoint = result.endpoint;
    expect(endpoint).toMatchObject({
      name: "gql_daily",
      description: "d",
      query: { kind: "HogQLQuery", query: "SELECT count() FROM events" },
      isActive: true,
      cacheAgeSeconds: null,
      endpointPath: `/api/projects/${project}/endpoints/gql_daily/run`,
      currentVersion: 1,
      versionsCount: 1,
      createdBy: { email: expect.any(String) },
      materialization: { canMaterialize: true, reason: null },
    });
    // REST sees what GraphQL wrote.
    const rest = await s.request("GET", `/api/environments/${project}/endpoints/gql_daily/`);
    expect(rest.body).toMatchObject({ id: endpoint.uuid, description: "d" });

    const trends = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] };
    await execute(s, CreateEndpoint, {
      input: { projectId: project, name: "gql_trends", query: trends, isActive: false },
    });
    const page = await execute(s, Endpoints, { project, filter: { isActive: false } });
    expect(page.errors).toBeUndefined();
    expect(page.data.project?.endpoints?.totalCount).toBe(1);
    expect(page.data.project?.endpoints?.edges.map((edge) => edge.node.name)).toEqual(["gql_trends"]);
    const first = await execute(s, Endpoints, { project, first: 1, filter: { createdBy: String(s.userId) } });
    expect(first.data.project?.endpoints?.totalCount).toBe(2);
    expect(first.data.project?.endpoints?.pageInfo.hasNextPage).toBe(true);

    const same = await execute(s, UpdateEndpoint, {
      input: {
        projectId: project,
        id: endpoint.id,
        query: { query: "SELECT count() FROM events", kind: "HogQLQuery" },
      },
    });
    expect(same.data.updateEndpoint).toMatchObject({ endpoint: { currentVersion: 1 } });
    const changed = await execute(s, UpdateEndpoint, {
      input: { projectId: project, id: endpoint.uuid, hogql: "SELECT 1", description: "two" },
    });
    expect(changed.data.updateEndpoint).toMatchObject({
      __typename: "UpdateEndpointSuccess",
      endpoint: {
        currentVersion: 2,
        versionsCount: 2,
        description: "two",
        versions: {
          totalCount: 2,
          edges: [
            {
              node: {
                version: 2,
                isActive: true,
                description: "two",
                query: { kind: "HogQLQuery", query: "SELECT 1" },
              },
            },
            { node: { version: 1, isActive: true, description: "two" } },
          ],
        },
      },
    });
    const off = await execute(s, UpdateEndpoint, {
      input: { projectId: project, id: endpoint.uuid, version: 1, isActive: false },
    });
    expect(off.data.updateEndpoint).toMatchObject({
      endpoint: {
        isActive: true,
        versions: { edges: [{ node: { isActive: true } }, { node: { isActive: false } }] },
      },
    });
    const missingVersion = await execute(s, UpdateEndpoint, {
      input: { projectId: project, id: endpoint.uuid, version: 7, isActive: false },
    });
    expect(missingVersion.data.updateEndpoint).toMatchObject({
      __typename: "NotFoundError",
      message: "Version 7 not found",
    });

    const byName = await execute(s, EndpointLookup, { project, name: "gql_daily", number: 1 });
    expect(byName.data.project?.endpoint).toMatchObject({
      name: "gql_daily",
      version: {
        version: 1,
        isActive: false,
        createdBy: { email: expect.any(String) },
        materialization: { canMaterialize: true },
      },
      currentVersionDetail: { version: 2 },
    });
    const byId = await execute(s, EndpointLookup, { project, id: endpoint.uuid, number: 9 });
    expect(byId.data.project?.endpoint).toMatchObject({ name: "gql_daily", version: null });
    expect(
      (await execute(s, EndpointLookup, { project, name: "nope", number: 1 })).data.project?.endpoint,
    ).toBeNull();
    const node = await execute(s, EndpointNode, { id: endpoint.id });
    expect(node.data.node).toEqual({ __typename: "Endpoint", name: "gql_daily" });

    const deleted = await execute(s, DeleteEndpoint, { input: { projectId: project, id: endpoint.id } });
    expect(deleted.data.deleteEndpoint).toEqual({
      __typename: "DeleteEndpointSuccess",
      endpoint: { name: "gql_daily" },
    });
    const again = await execute(s, DeleteEndpoint, { input: { projectId: project, id: endpoint.id } });
    expect(again.data.deleteEndpoint).toMatchObject({ __typename: "NotFoundError", code: "not_found" });
    const activities = await s.db.activityLog.findMany({
      where: { scope: "Endpoint", itemId: endpoint.uuid },
      orderBy: { createdAt: "asc" },
    });
    expect(activities.map((entry) => entry.activity)).toEqual([
      "created",
      "version_created",
      "updated",
      "updated",
      "deleted",
    ]);
  });

  it("answers REST's validation messages as typed errors", async () => {
    const s = server();
    const project = String(s.projectId);
    const before = await s.db.endpoint.count();
    const cases: Array<[Record<string, unknown>, string, string | null]> = [
      [{ name: "no_query" }, "Must specify query", null],
      [{ name: "9bad", hogql: "SELECT 1" }, expect.stringContaining("must start with a letter"), null],
      [{ name: "bad_hogql", hogql: "SELEC 1" }, expect.stringMatching(/^Invalid HogQL query: /), "query"],
      [
        { name: "cache", hogql: "SELECT 1", cacheAgeSeconds: 10 },
        "Cache age must be between 300 and 86400 seconds.",
        "cache_age_seconds",
      ],
      [
        { name: "sync", hogql: "SELECT 1", syncFrequency: "1min" },
        '"1min" is not a valid choice.',
        "sync_frequency",
      ],
      [
        { name: "both", hogql: "SELECT 1", query: { kind: "HogQLQuery", query: "SELECT 1" } },
        expect.stringContaining("not both"),
        "query",
      ],
    ];
    for (const [fields, message, attr] of cases) {
      const answer = await execute(s, CreateEndpoint, { input: { projectId: project, ...fields } as never });
      expect(answer.data.createEndpoint, JSON.stringify(fields)).toMatchObject({
        __typename: "ValidationError",
        message,
        attr,
      });
    }
    const materialized = await execute(s, CreateEndpoint, {
      input: {
        projectId: project,
        name: "mat",
        hogql: "SELECT count() FROM events WHERE event = {variables.e}",
        isMaterialized: true,
      },
    });
    expect(materialized.data.createEndpoint).toMatchObject({
      __typename: "ValidationError",
      message: expect.stringMatching(/^Cannot materialize endpoint: Variables not supported: /),
      attr: "is_materialized",
    });
    const readOnly = await s.createKey(["endpoint:read"]);
    const refused = await execute(
      s,
      CreateEndpoint,
      { input: { projectId: project, name: "ro", hogql: "SELECT 1" } },
      readOnly,
    );
    expect(refused.data.createEndpoint).toMatchObject({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'endpoint:write'",
    });
    expect(await s.db.endpoint.count()).toBe(before);
  });

  it("answers last execution times from the execution log", async () => {
    const s = server();
    const at = new Date(Date.now() - 60_000);
    await s.db.endpointExecution.create({
      data: { projectId: s.projectId, endpointName: "ran", executedAt: at, durationMs: 3, rows: 1 },
    });
    const answer = await execute(s, LastExecutionTimes, {
      project: String(s.projectId),
      names: ["ran", "never"],
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.project?.endpointLastExecutionTimes).toEqual([
      { name: "ran", lastExecutedAt: at.toISOString() },
    ]);
  });
});
