/**
 * Event definitions through the GraphQL door, on both backends: the `Project.eventDefinitions`
 * connection with REST's filters and ordering, lookups by id and name, the `EventDefinition` node,
 * and the create/update/delete mutations with their typed errors (one service with REST).
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const CreateEventDefinition = graphql(`
  mutation CreateEventDefinition($input: CreateEventDefinitionInput!) {
    createEventDefinition(input: $input) {
      __typename
      ... on CreateEventDefinitionSuccess {
        eventDefinition { id uuid name description tags verified hidden owner { email } lastSeenAt createdAt }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateEventDefinition = graphql(`
  mutation UpdateEventDefinition($input: UpdateEventDefinitionInput!) {
    updateEventDefinition(input: $input) {
      __typename
      ... on UpdateEventDefinitionSuccess {
        eventDefinition { name verified verifiedAt verifiedBy { email } hidden tags defaultColumns updatedBy { email } }
      }
      ... on Error { message code }
    }
  }
`);

const DeleteEventDefinition = graphql(`
  mutation DeleteEventDefinition($input: DeleteEventDefinitionInput!) {
    deleteEventDefinition(input: $input) {
      __typename
      ... on DeleteEventDefinitionSuccess { eventDefinition { name } }
      ... on Error { message code }
    }
  }
`);

const EventDefinitions = graphql(`
  query EventDefinitions(
    $project: ID!
    $filter: EventDefinitionFilterInput
    $orderBy: [EventDefinitionOrderInput!]
    $first: Int
    $after: String
  ) {
    project(id: $project) {
      eventDefinitions(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { node { name tags verified hidden } }
      }
    }
  }
`);

const EventDefinitionLookup = graphql(`
  query EventDefinitionLookup($project: ID!, $id: ID, $name: String) {
    project(id: $project) {
      eventDefinition(id: $id, name: $name) { id uuid name queryUsage30Day }
    }
  }
`);

const EventDefinitionNode = graphql(`
  query EventDefinitionNode($id: ID!) {
    node(id: $id) { __typename ... on EventDefinition { name } }
  }
`);

describeEachBackend("event definitions over GraphQL", (server) => {
  it("creates, lists, finds, updates and deletes definitions through one service", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateEventDefinition, {
      input: {
        projectId: project,
        name: "gql event",
        description: "d",
        tags: ["B", "a"],
        owner: String(s.userId),
      },
    });
    const result = created.data.createEventDefinition;
    if (result?.__typename !== "CreateEventDefinitionSuccess") throw new Error(JSON.stringify(created));
    const definition = result.eventDefinition;
    expect(definition).toMatchObject({
      name: "gql event",
      description: "d",
      tags: ["a", "b"],
      verified: false,
      owner: { email: expect.any(String) },
      lastSeenAt: null,
      createdAt: null,
    });
    // REST sees what GraphQL wrote.
    const rest = await s.request("GET", `/api/projects/${project}/event_definitions/${definition.uuid}/`);
    expect(rest.body).toMatchObject({ name: "gql event", tags: ["a", "b"] });

    await execute(s, CreateEventDefinition, { input: { projectId: project, name: "gql other" } });
    const page = await execute(s, EventDefinitions, {
      project,
      filter: { search: "gql", tags: ["a"] },
      orderBy: [{ field: "NAME", descending: true }],
    });
    expect(page.errors).toBeUndefined();
    expect(page.data.project?.eventDefinitions?.totalCount).toBe(1);
    expect(page.data.project?.eventDefinitions?.edges.map((edge) => edge.node.name)).toEqual(["gql event"]);
    const ordered = await execute(s, EventDefinitions, {
      project,
      filter: { search: "gql" },
      orderBy: [{ field: "NAME", descending: true }],
      first: 1,
    });
    const connection = ordered.data.project?.eventDefinitions;
    expect(connection?.totalCount).toBe(2);
    expect(connection?.edges.map((edge) => edge.node.name)).toEqual(["gql other"]);
    const next = await execute(s, EventDefinitions, {
      project,
      filter: { search: "gql" },
      orderBy: [{ field: "NAME", descending: true }],
      first: 1,
      after: connection?.pageInfo.endCursor ?? null,
    });
    expect(next.data.project?.eventDefinitions?.edges.map((edge) => edge.node.name)).toEqual(["gql event"]);

    const byId = await execute(s, EventDefinitionLookup, { project, id: definition.uuid });
    expect(byId.data.project?.eventDefinition).toMatchObject({ name: "gql event", queryUsage30Day: 0 });
    const byGlobalId = await execute(s, EventDefinitionLookup, { project, id: definition.id });
    expect(byGlobalId.data.project?.eventDefinition?.uuid).toBe(definition.uuid);
    const byName = await execute(s, EventDefinitionLookup, { project, name: "gql other" });
    expect(byName.data.project?.eventDefinition?.name).toBe("gql other");
    const none = await execute(s, EventDefinitionLookup, { project, id: "not-a-uuid" });
    expect(none.data.project?.eventDefinition).toBeNull();
    const node = await execute(s, EventDefinitionNode, { id: definition.id });
    expect(node.data.node).toEqual({ __typename: "EventDefinition", name: "gql event" });

    const verified = await execute(s, UpdateEventDefinition, {
      input: { projectId: project, id: definition.id, verified: true, defaultColumns: ["event"] },
    });
    expect(verified.data.updateEventDefinition).toMatchObject({
      __typename: "UpdateEventDefinitionSuccess",
      eventDefinition: {
        name: "gql event",
        verified: true,
        verifiedAt: expect.any(String),
        verifiedBy: { email: expect.any(String) },
        hidden: false,
        defaultColumns: ["event"],
        updatedBy: { email: expect.any(String) },
      },
    });

    const deleted = await execute(s, DeleteEventDefinition, {
      input: { projectId: project, id: definition.uuid },
    });
    expect(deleted.data.deleteEventDefinition).toEqual({
      __typename: "DeleteEventDefinitionSuccess",
      eventDefinition: { name: "gql event" },
    });
    const gone = await execute(s, EventDefinitionLookup, { project, id: definition.uuid });
    expect(gone.data.project?.eventDefinition).toBeNull();
  });

  it("answers bad input and missing objects with typed errors and REST's messages", async () => {
    const s = server();
    const project = String(s.projectId);
    await execute(s, CreateEventDefinition, { input: { projectId: project, name: "gql dup" } });
    const dup = await execute(s, CreateEventDefinition, { input: { projectId: project, name: "gql dup" } });
    expect(dup.data.createEventDefinition).toEqual({
      __typename: "ValidationError",
      message: "Event definition with name 'gql dup' already exists",
      code: "invalid_input",
      attr: "name",
    });
    const both = await execute(s, CreateEventDefinition, {
      input: { projectId: project, name: "gql both", hidden: true, verified: true },
    });
    expect(both.data.createEventDefinition).toMatchObject({
      __typename: "ValidationError",
      message: "An event cannot be both hidden and verified",
    });
    const missing = await execute(s, UpdateEventDefinition, {
      input: { projectId: project, id: "00000000-0000-0000-0000-000000000000", description: "x" },
    });
    expect(missing.data.updateEventDefinition).toMatchObject({
      __typename: "NotFoundError",
      code: "not_found",
    });
    const reader = await s.createKey(["event_definition:read"]);
    const refused = await execute(
      s,
      DeleteEventDefinition,
      { input: { projectId: project, id: "00000000-0000-0000-0000-000000000000" } },
      reader,
    );
    expect(refused.data.deleteEventDefinition).toMatchObject({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'event_definition:write'",
    });
  });
});
