/**
 * Endpoint materialization through the GraphQL door, on both backends: `createEndpoint` materializes
 * a HogQL query (with `syncFrequency`), `Endpoint.materialization` answers the refresh status,
 * `updateEndpoint` disables it, and REST's refusals come back as typed errors (decision 6).
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const CreateMaterialized = graphql(`
  mutation CreateMaterialized($input: CreateEndpointInput!) {
    createEndpoint(input: $input) {
      __typename
      ... on CreateEndpointSuccess {
        endpoint { uuid name isMaterialized materialization { isMaterialized canMaterialize syncFrequency } }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateMaterialized = graphql(`
  mutation UpdateMaterialized($input: UpdateEndpointInput!) {
    updateEndpoint(input: $input) {
      __typename
      ... on UpdateEndpointSuccess {
        endpoint { isMaterialized materialization { isMaterialized canMaterialize reason status syncFrequency } }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const MaterializationStatus = graphql(`
  query MaterializationStatus($project: ID!, $name: String!) {
    project(id: $project) {
      endpoint(name: $name) {
        materialization { isMaterialized canMaterialize reason status lastMaterializedAt error syncFrequency }
      }
    }
  }
`);

describeEachBackend("endpoint materialization over GraphQL", (server) => {
  it("materializes on create, reports the refresh, disables on update, and refuses with REST's messages", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateMaterialized, {
      input: { projectId: project, name: "gql_mat", hogql: "SELECT 1 AS one", syncFrequency: "30min" },
    });
    const result = created.data.createEndpoint;
    if (result?.__typename !== "CreateEndpointSuccess") throw new Error(JSON.stringify(created));
    expect(result.endpoint).toMatchObject({
      isMaterialized: true,
      materialization: { isMaterialized: true, canMaterialize: true, syncFrequency: "30min" },
    });

    const deadline = Date.now() + 30_000;
    let materialization: Record<string, unknown> | undefined;
    for (;;) {
      const read = await execute(s, MaterializationStatus, { project, name: "gql_mat" });
      materialization = read.data.project?.endpoint?.materialization;
      if (materialization?.["status"] === "Completed") break;
      if (Date.now() > deadline) throw new Error(JSON.stringify(read));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(materialization).toEqual({
      isMaterialized: true,
      canMaterialize: true,
      reason: null,
      status: "Completed",
      lastMaterializedAt: expect.any(String),
      error: "",
      syncFrequency: "30min",
    });

    const off = await execute(s, UpdateMaterialized, {
      input: { projectId: project, id: result.endpoint.uuid, isMaterialized: false },
    });
    expect(off.data.updateEndpoint).toEqual({
      __typename: "UpdateEndpointSuccess",
      endpoint: {
        isMaterialized: false,
        materialization: {
          isMaterialized: false,
          canMaterialize: true,
          reason: null,
          status: null,
          syncFrequency: null,
        },
      },
    });

    const refused = await execute(s, UpdateMaterialized, {
      input: { projectId: project, id: result.endpoint.uuid, isMaterialized: false, syncFrequency: "1hour" },
    });
    expect(refused.data.updateEndpoint).toMatchObject({
      __typename: "ValidationError",
      message: "Cannot set sync_frequency when disabling materialization.",
      attr: "sync_frequency",
    });
    const insight = await execute(s, CreateMaterialized, {
      input: {
        projectId: project,
        name: "gql_trends",
        query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] },
        isMaterialized: true,
      },
    });
    expect(insight.data.createEndpoint).toMatchObject({
      __typename: "ValidationError",
      attr: "is_materialized",
      message: expect.stringMatching(/^Cannot materialize endpoint: Query type 'TrendsQuery'/),
    });
  });
});
