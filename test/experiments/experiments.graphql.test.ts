/**
 * Experiments through the GraphQL door, on both backends: create, the `Project.experiments`
 * connection and `Project.experiment`, the `Experiment` node, and the lifecycle mutations (launch
 * turns the flag on, end, archive, conclude, duplicate, delete, restore), with REST's messages as
 * typed errors (decision 6).
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const CreateExperiment = graphql(`
  mutation CreateExperiment($input: CreateExperimentInput!) {
    createExperiment(input: $input) {
      __typename
      ... on CreateExperimentSuccess {
        experiment { id databaseId name status featureFlagKey featureFlag { key active } metrics statsConfig }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const Lifecycle = graphql(`
  mutation ExperimentLifecycle($id: ID!, $project: ID!) {
    launchExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on LaunchExperimentSuccess { experiment { status featureFlag { active } } }
    }
    concludeExperiment(input: { projectId: $project, id: $id, conclusion: "won", comment: "clear" }) {
      __typename
      ... on ConcludeExperimentSuccess { experiment { conclusion conclusionComment } }
    }
    endExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on EndExperimentSuccess { experiment { status } }
    }
    archiveExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on ArchiveExperimentSuccess { experiment { archived } }
    }
    duplicateExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on DuplicateExperimentSuccess { experiment { name status } }
    }
    deleteExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on DeleteExperimentSuccess { experiment { deleted } }
    }
    restoreExperiment(input: { projectId: $project, id: $id }) {
      __typename
      ... on RestoreExperimentSuccess { experiment { deleted } }
    }
  }
`);

const Experiments = graphql(`
  query ProjectExperiments($project: ID!, $id: ID!) {
    project(id: $project) {
      experiments(filter: { archived: true }) { totalCount edges { node { name archived } } }
      experiment(id: $id) { name savedMetrics { name } holdout { name } createdBy { email } }
    }
  }
`);

const UpdateExperiment = graphql(`
  mutation UpdateExperiment($input: UpdateExperimentInput!) {
    updateExperiment(input: $input) {
      __typename
      ... on Error { message code }
    }
  }
`);

describeEachBackend("experiments over GraphQL", (server) => {
  it("creates an experiment on a new draft flag and runs its lifecycle", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateExperiment, {
      input: {
        projectId: project,
        name: "GraphQL test",
        featureFlagKey: "gql-exp",
        metrics: [
          { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "buy" } },
        ],
      },
    });
    const result = created.data?.createExperiment;
    expect(result?.__typename, JSON.stringify(created)).toBe("CreateExperimentSuccess");
    if (result?.__typename !== "CreateExperimentSuccess") return;
    expect(result.experiment).toMatchObject({
      name: "GraphQL test",
      status: "draft",
      featureFlagKey: "gql-exp",
      featureFlag: { key: "gql-exp", active: false },
      statsConfig: { method: "bayesian" },
    });
    expect((result.experiment.metrics as Array<{ fingerprint: string }>)[0]!.fingerprint).toMatch(
      /^[0-9a-f]{64}$/,
    );

    const lifecycle = await execute(s, Lifecycle, { id: result.experiment.id, project });
    expect(lifecycle.errors, JSON.stringify(lifecycle)).toBeUndefined();
    expect(lifecycle.data).toMatchObject({
      launchExperiment: { experiment: { status: "running", featureFlag: { active: true } } },
      concludeExperiment: { experiment: { conclusion: "won", conclusionComment: "clear" } },
      endExperiment: { experiment: { status: "stopped" } },
      archiveExperiment: { experiment: { archived: true } },
      duplicateExperiment: { experiment: { name: "GraphQL test (Copy)", status: "draft" } },
      deleteExperiment: { experiment: { deleted: true } },
      restoreExperiment: { experiment: { deleted: false } },
    });

    const read = await execute(s, Experiments, { project, id: String(result.experiment.databaseId) });
    expect(read.data?.project?.experiments?.totalCount).toBe(1);
    expect(read.data?.project?.experiment).toMatchObject({
      name: "GraphQL test",
      holdout: null,
      savedMetrics: [],
    });
  });

  it("answers REST's messages as typed errors", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateExperiment, {
      input: { projectId: project, name: "Typed", featureFlagKey: "gql-typed" },
    });
    const id =
      created.data?.createExperiment?.__typename === "CreateExperimentSuccess"
        ? created.data.createExperiment.experiment.id
        : "";
    const bad = await execute(s, UpdateExperiment, {
      input: { projectId: project, id, endDate: "2020-01-01T00:00:00Z", startDate: "2021-01-01T00:00:00Z" },
    });
    expect(bad.data?.updateExperiment).toMatchObject({
      __typename: "ValidationError",
      message: "End date must be after start date",
    });
    const missing = await execute(s, UpdateExperiment, {
      input: { projectId: project, id: "999999", name: "x" },
    });
    expect(missing.data?.updateExperiment).toMatchObject({ __typename: "NotFoundError" });
  });
});
