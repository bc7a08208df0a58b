/**
 * The HogQL limits through the GraphQL door, on both backends: the endpoint mutations refuse hostile
 * HogQL and `Endpoint.run` refuses what only printing finds, as typed `ValidationError`s with REST's
 * messages, codes and attrs (the same service makes both answers: test/lib/hogql/limits.test.ts).
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const CreateEndpoint = graphql(`
  mutation CreateLimitedEndpoint($input: CreateEndpointInput!) {
    createEndpoint(input: $input) {
      __typename
      ... on CreateEndpointSuccess { endpoint { id name } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateEndpoint = graphql(`
  mutation UpdateLimitedEndpoint($input: UpdateEndpointInput!) {
    updateEndpoint(input: $input) {
      __typename
      ... on UpdateEndpointSuccess { endpoint { currentVersion } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const RunEndpoint = graphql(`
  query RunLimitedEndpoint($project: ID!, $name: String!) {
    project(id: $project) {
      endpoint(name: $name) {
        run {
          __typename
          ... on EndpointRunSuccess { result { rows } }
          ... on Error { message code }
          ... on ValidationError { attr }
        }
      }
    }
  }
`);

const CHAIN = `SELECT ${Array.from({ length: 400 }, () => "1").join(" + ")}`;
const DOUBLING = `SELECT 1 AS a0, ${Array.from({ length: 18 }, (_, i) => `a${i} + a${i} AS a${i + 1}`).join(", ")}`;

describeEachBackend("HogQL limits over GraphQL", (server) => {
  it("refuses hostile HogQL on createEndpoint and updateEndpoint as a typed error naming the limit", async () => {
    const s = server();
    const project = String(s.projectId);
    const refused = await execute(s, CreateEndpoint, {
      input: { projectId: project, name: "chain", hogql: CHAIN },
    });
    expect(refused.data.createEndpoint).toEqual({
      __typename: "ValidationError",
      message: expect.stringMatching(
        /^HogQL expressions may nest at most 200 levels deep .*; this query reaches 399\.$/,
      ),
      code: "max_depth",
      attr: "query",
    });
    const created = await execute(s, CreateEndpoint, {
      input: { projectId: project, name: "fine", hogql: "SELECT 1" },
    });
    const result = created.data.createEndpoint;
    if (result?.__typename !== "CreateEndpointSuccess") throw new Error(JSON.stringify(created));
    const nested = `SELECT ${"(".repeat(150)}1${")".repeat(150)}`;
    const update = await execute(s, UpdateEndpoint, {
      input: { projectId: project, id: result.endpoint.id, hogql: nested },
    });
    expect(update.data.updateEndpoint).toEqual({
      __typename: "ValidationError",
      message: "HogQL queries may nest brackets at most 32 levels deep.",
      code: "max_depth",
      attr: "query",
    });
  });

  it("refuses at run time a query that prints past the size limit, as a typed error", async () => {
    const s = server();
    const created = await execute(s, CreateEndpoint, {
      input: { projectId: String(s.projectId), name: "doubling", hogql: DOUBLING, isMaterialized: false },
    });
    expect(created.data.createEndpoint?.__typename).toBe("CreateEndpointSuccess");
    const run = await execute(s, RunEndpoint, { project: String(s.projectId), name: "doubling" });
    expect(run.data.project?.endpoint?.run).toEqual({
      __typename: "ValidationError",
      message:
        "Query execution failed: The query prints to more than the limit of 1048576 bytes of PostgreSQL (bound values included).",
      code: "max_size",
      attr: null,
    });
  });
});
