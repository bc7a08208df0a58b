/**
 * Cohorts through the GraphQL door, on both backends: the mutations and their typed errors, the
 * `Cohort` node with its persons, the project's connection, and parity with REST (one service).
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { type InsertedPerson, insertPersons } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

const CreateCohort = graphql(`
  mutation CreateCohort($input: CreateCohortInput!) {
    createCohort(input: $input) {
      __typename
      ... on CreateCohortSuccess {
        cohort { id databaseId name isStatic cohortType count filters createdBy { email } }
      }
      ... on Error { message code }
      ... on ValidationError { attr field }
    }
  }
`);

const UpdateCohort = graphql(`
  mutation UpdateCohort($input: UpdateCohortInput!) {
    updateCohort(input: $input) {
      __typename
      ... on UpdateCohortSuccess { cohort { id name count deleted } }
      ... on Error { message code }
    }
  }
`);

const DeleteCohort = graphql(`
  mutation DeleteCohort($input: DeleteCohortInput!) {
    deleteCohort(input: $input) {
      __typename
      ... on DeleteCohortSuccess { cohort { deleted } }
      ... on Error { message code }
    }
  }
`);

const AddPersons = graphql(`
  mutation AddPersons($input: AddPersonsToStaticCohortInput!) {
    addPersonsToStaticCohort(input: $input) {
      __typename
      ... on AddPersonsToStaticCohortSuccess { cohort { count } }
      ... on Error { message code }
    }
  }
`);

const CohortPersons = graphql(`
  query CohortPersons($project: ID!, $id: ID!, $first: Int, $after: String) {
    project(id: $project) {
      cohort(id: $id) {
        name
        persons(first: $first, after: $after) {
          edges { node { uuid name distinctIds isIdentified } }
          pageInfo { hasNextPage endCursor }
        }
      }
      cohorts(filter: { search: "gql" }) { totalCount edges { node { databaseId name } } }
    }
  }
`);

const criteria = (values: unknown[]) => ({ properties: { type: "AND", values } });

describeEachBackend("cohorts over GraphQL", (server) => {
  let people: InsertedPerson[];

  beforeAll(async () => {
    const s = server();
    people = await insertPersons(s.db, s.projectId, [
      { distinctIds: ["g1"], properties: { email: "one@gql.dev", tier: "gold" } },
      { distinctIds: ["g2"], properties: { email: "two@gql.dev", tier: "gold" } },
      { distinctIds: ["g3"], properties: { email: "three@gql.dev", tier: "tin" } },
    ]);
  });

  it("creates a dynamic cohort and pages through its persons", async () => {
    const s = server();
    const created = await execute(s, CreateCohort, {
      input: {
        projectId: String(s.projectId),
        name: "gql gold",
        filters: criteria([{ type: "person", key: "tier", value: "gold", operator: "exact" }]),
      },
    });
    expect(created.data.createCohort).toMatchObject({
      __typename: "CreateCohortSuccess",
      cohort: {
        name: "gql gold",
        isStatic: false,
        cohortType: "PERSON_PROPERTY",
        count: 2,
        createdBy: { email: "admin@example.com" },
      },
    });
    const cohort = (created.data.createCohort as { cohort: { id: string; databaseId: number } }).cohort;

    const first = await execute(s, CohortPersons, { project: String(s.projectId), id: cohort.id, first: 1 });
    expect(first.errors).toBeUndefined();
    const page = first.data.project?.cohort?.persons;
    expect(page?.edges.map((e) => e.node.uuid)).toEqual([people[0]!.uuid]);
    expect(page?.edges[0]?.node).toMatchObject({ name: "one@gql.dev", distinctIds: ["g1"] });
    expect(page?.pageInfo.hasNextPage).toBe(true);
    const second = await execute(s, CohortPersons, {
      project: String(s.projectId),
      id: String(cohort.databaseId),
      first: 5,
      after: page?.pageInfo.endCursor ?? null,
    });
    expect(second.data.project?.cohort?.persons?.edges.map((e) => e.node.uuid)).toEqual([people[1]!.uuid]);
    expect(first.data.project?.cohorts?.totalCount).toBeGreaterThanOrEqual(1);

    // The same cohort through REST: one service, one record.
    const rest = await s.request("GET", `/api/projects/${s.projectId}/cohorts/${cohort.databaseId}/`);
    expect(rest.body).toMatchObject({ name: "gql gold", count: 2 });
  });

  it("answers REST's validation as typed errors, with the GraphQL field", async () => {
    const s = server();
    const bad = await execute(s, CreateCohort, {
      input: {
        projectId: String(s.projectId),
        filters: criteria([{ type: "person", key: "tier", value: "gold", operator: "bogus" }]),
      },
    });
    expect(bad.data.createCohort).toMatchObject({
      __typename: "ValidationError",
      code: "invalid_choice",
      attr: "filters__properties__values__0__operator",
      field: "filters.properties.values.0.operator",
    });
    const csv = await execute(s, CreateCohort, {
      input: { projectId: String(s.projectId), isStatic: true, csv: "name,plan\nx,y\n" },
    });
    expect(csv.data.createCohort).toMatchObject({ __typename: "ValidationError", attr: "csv" });
  });

  it("builds a static cohort from CSV text, adds persons, updates and soft-deletes it", async () => {
    const s = server();
    const created = await execute(s, CreateCohort, {
      input: { projectId: String(s.projectId), name: "gql static", isStatic: true, csv: "g3\n" },
    });
    const cohort = (created.data.createCohort as { cohort: { id: string; count: number } }).cohort;
    expect(cohort.count).toBe(1);
    const added = await execute(s, AddPersons, {
      input: { projectId: String(s.projectId), id: cohort.id, personIds: [people[0]!.uuid] },
    });
    expect(added.data.addPersonsToStaticCohort).toEqual({
      __typename: "AddPersonsToStaticCohortSuccess",
      cohort: { count: 2 },
    });
    const renamed = await execute(s, UpdateCohort, {
      input: { projectId: String(s.projectId), id: cohort.id, name: "gql renamed" },
    });
    expect(renamed.data.updateCohort).toMatchObject({
      cohort: { name: "gql renamed", count: 2, deleted: false },
    });
    const deleted = await execute(s, DeleteCohort, {
      input: { projectId: String(s.projectId), id: cohort.id },
    });
    expect(deleted.data.deleteCohort).toEqual({
      __typename: "DeleteCohortSuccess",
      cohort: { deleted: true },
    });
    const dynamic = await execute(s, CreateCohort, {
      input: { projectId: String(s.projectId), name: "gql dyn" },
    });
    const dynamicId = (dynamic.data.createCohort as { cohort: { id: string } }).cohort.id;
    const refused = await execute(s, AddPersons, {
      input: { projectId: String(s.projectId), id: dynamicId, personIds: [people[0]!.uuid] },
    });
    expect(refused.data.addPersonsToStaticCohort).toMatchObject({
      __typename: "ValidationError",
      message: "Can only add users to static cohorts",
    });
  });
});
