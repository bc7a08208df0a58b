/**
 * The exposure cohort over GraphQL on both backends: `createExposureCohortForExperiment` (the same
 * service method as REST's `create_exposure_cohort_for_experiment`) answers the cohort of persons
 * exposed since the start, `Experiment.exposureCohort` shows it, and a second call or a key without
 * `experiment:write` gets a typed error.
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { capture } from "../queries/trends/fixture.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const Create = graphql(`
  mutation CreateExposureCohort($input: CreateExposureCohortForExperimentInput!) {
    createExposureCohortForExperiment(input: $input) {
      __typename
      ... on CreateExposureCohortForExperimentSuccess { cohort { databaseId name count } }
      ... on Error { message code }
    }
  }
`);

const Read = graphql(`
  query ExperimentExposureCohort($project: ID!, $id: ID!) {
    project(id: $project) {
      experiment(id: $id) { exposureCohortId exposureCohort { databaseId name } }
    }
  }
`);

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describeEachBackend("the exposure cohort over GraphQL", (server) => {
  it("creates and links the cohort once, and shows it on the experiment", async () => {
    const s = server();
    const created = await s.request("POST", `/api/projects/${s.projectId}/experiments/`, {
      body: { name: "Exposed", feature_flag_key: "gql-exposed", start_date: hoursAgo(48) },
    });
    expect(created.status, created.text).toBe(201);
    await capture(s, s.projectId, [
      {
        event: "$feature_flag_called",
        distinct_id: "gql-exposed-person",
        timestamp: hoursAgo(24),
        properties: { $feature_flag: "gql-exposed", $feature_flag_response: "test" },
      },
    ]);
    const input = { projectId: String(s.projectId), id: String(created.body.id) };

    const reader = await s.createKey(["experiment:read", "cohort:read"]);
    const refused = await execute(s, Create, { input }, reader);
    expect(refused.data.createExposureCohortForExperiment).toMatchObject({
      __typename: "PermissionDeniedError",
    });

    const answer = await execute(s, Create, { input });
    const cohort = answer.data.createExposureCohortForExperiment;
    expect(cohort).toMatchObject({
      __typename: "CreateExposureCohortForExperimentSuccess",
      cohort: { name: 'Users exposed to experiment "Exposed"', count: 1 },
    });
    const cohortId =
      cohort?.__typename === "CreateExposureCohortForExperimentSuccess" ? cohort.cohort.databaseId : 0;

    const read = await execute(s, Read, { project: String(s.projectId), id: String(created.body.id) });
    expect(read.errors).toBeUndefined();
    expect(read.data.project?.experiment).toEqual({
      exposureCohortId: cohortId,
      exposureCohort: { databaseId: cohortId, name: 'Users exposed to experiment "Exposed"' },
    });

    const again = await execute(s, Create, { input });
    expect(again.data.createExposureCohortForExperiment).toMatchObject({ __typename: "ValidationError" });
  });
});
