/**
 * Event schemas through the GraphQL door, on both backends: create, update and delete a schema
 * property group, add and remove event schemas, `Project.schemaPropertyGroups`,
 * `EventDefinition.schemaPropertyGroups` and `schemaProperties` (batched: a page of definitions costs
 * a bounded number of statements), typed errors with REST's messages.
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";
import { createEventDefinition } from "../support/tenancy.js";

const CreateGroup = graphql(`
  mutation CreateSchemaPropertyGroup($input: CreateSchemaPropertyGroupInput!) {
    createSchemaPropertyGroup(input: $input) {
      __typename
      ... on CreateSchemaPropertyGroupSuccess {
        schemaPropertyGroup { id uuid name description properties { uuid name propertyType isRequired } createdBy { email } }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const UpdateGroup = graphql(`
  mutation UpdateSchemaPropertyGroup($input: UpdateSchemaPropertyGroupInput!) {
    updateSchemaPropertyGroup(input: $input) {
      __typename
      ... on UpdateSchemaPropertyGroupSuccess { schemaPropertyGroup { name properties { name propertyType isRequired } } }
      ... on Error { message code }
    }
  }
`);

const DeleteGroup = graphql(`
  mutation DeleteSchemaPropertyGroup($input: DeleteSchemaPropertyGroupInput!) {
    deleteSchemaPropertyGroup(input: $input) {
      __typename
      ... on DeleteSchemaPropertyGroupSuccess { schemaPropertyGroup { name } }
      ... on Error { message code }
    }
  }
`);

const AddEventSchema = graphql(`
  mutation AddEventSchema($input: AddEventSchemaInput!) {
    addEventSchema(input: $input) {
      __typename
      ... on AddEventSchemaSuccess { eventSchema { id uuid eventName eventDefinitionUuid propertyGroup { name events { name } } } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const RemoveEventSchema = graphql(`
  mutation RemoveEventSchema($input: RemoveEventSchemaInput!) {
    removeEventSchema(input: $input) {
      __typename
      ... on RemoveEventSchemaSuccess { eventSchema { eventName } }
      ... on Error { message code }
    }
  }
`);

const Groups = graphql(`
  query SchemaPropertyGroups($project: ID!, $id: ID!) {
    project(id: $project) {
      schemaPropertyGroups(first: 10) { totalCount edges { node { name events { name } } } }
      schemaPropertyGroup(id: $id) { uuid name }
      eventSchemas { totalCount edges { node { eventName propertyGroup { name } } } }
    }
  }
`);

const DefinitionSchemas = graphql(`
  query EventDefinitionSchemas($project: ID!, $names: [String!]) {
    project(id: $project) {
      eventDefinitions(filter: { names: $names }, orderBy: [{ field: NAME }], first: 50) {
        edges {
          node {
            name
            schemaPropertyGroups { name }
            schemaProperties { name propertyType isRequired }
          }
        }
      }
    }
  }
`);

const SchemaNode = graphql(`
  query SchemaPropertyGroupNode($id: ID!) {
    node(id: $id) { __typename ... on SchemaPropertyGroup { name } ... on EventSchema { eventName } }
  }
`);

describeEachBackend("event schemas over GraphQL", (server) => {
  it("creates, attaches, reads, updates, detaches and deletes through one service with REST", async () => {
    const s = server();
    const project = String(s.projectId);
    const created = await execute(s, CreateGroup, {
      input: {
        projectId: project,
        name: "gql group",
        description: "d",
        properties: [
          { name: "plan", propertyType: "STRING", isRequired: true },
          { name: "at", propertyType: "DATE_TIME" },
        ],
      },
    });
    const result = created.data.createSchemaPropertyGroup;
    if (result?.__typename !== "CreateSchemaPropertyGroupSuccess") throw new Error(JSON.stringify(created));
    const group = result.schemaPropertyGroup;
    expect(group).toMatchObject({
      name: "gql group",
      properties: [
        { name: "at", propertyType: "DATE_TIME", isRequired: false },
        { name: "plan", propertyType: "STRING", isRequired: true },
      ],
      createdBy: { email: expect.any(String) },
    });
    const rest = await s.request("GET", `/api/projects/${project}/schema_property_groups/${group.uuid}/`);
    expect(rest.body.properties.map((p: { property_type: string }) => p.property_type)).toEqual([
      "DateTime",
      "String",
    ]);

    const event = await createEventDefinition(s, s.projectId, "gql signed up");
    const added = await execute(s, AddEventSchema, {
      input: { projectId: project, eventDefinitionId: event, schemaPropertyGroupId: group.id },
    });
    const addResult = added.data.addEventSchema;
    if (addResult?.__typename !== "AddEventSchemaSuccess") throw new Error(JSON.stringify(added));
    expect(addResult.eventSchema).toMatchObject({
      eventName: "gql signed up",
      eventDefinitionUuid: event,
      propertyGroup: { name: "gql group", events: [{ name: "gql signed up" }] },
    });
    const again = await execute(s, AddEventSchema, {
      input: { projectId: project, eventDefinitionId: event, schemaPropertyGroupId: group.uuid },
    });
    expect(again.data.addEventSchema).toMatchObject({
      __typename: "ValidationError",
      code: "unique",
      message: "The fields event_definition, property_group_id must make a unique set.",
    });

    const read = await execute(s, Groups, { project, id: group.id });
    expect(read.errors).toBeUndefined();
    expect(read.data.project?.schemaPropertyGroups?.edges.map((e) => e.node)).toContainEqual({
      name: "gql group",
      events: [{ name: "gql signed up" }],
    });
    expect(read.data.project?.schemaPropertyGroup).toEqual({ uuid: group.uuid, name: "gql group" });
    expect(read.data.project?.eventSchemas?.totalCount).toBe(1);
    const node = await execute(s, SchemaNode, { id: group.id });
    expect(node.data.node).toEqual({ __typename: "SchemaPropertyGroup", name: "gql group" });
    const schemaNode = await execute(s, SchemaNode, { id: addResult.eventSchema.id });
    expect(schemaNode.data.node).toEqual({ __typename: "EventSchema", eventName: "gql signed up" });

    const updated = await execute(s, UpdateGroup, {
      input: {
        projectId: project,
        id: group.uuid,
        name: "gql renamed",
        properties: [{ name: "seats", propertyType: "NUMERIC", isRequired: true }],
      },
    });
    expect(updated.data.updateSchemaPropertyGroup).toEqual({
      __typename: "UpdateSchemaPropertyGroupSuccess",
      schemaPropertyGroup: {
        name: "gql renamed",
        properties: [{ name: "seats", propertyType: "NUMERIC", isRequired: true }],
      },
    });
    const bad = await execute(s, UpdateGroup, {
      input: { projectId: project, id: group.uuid, properties: [{ name: "1x", propertyType: "STRING" }] },
    });
    expect(bad.data.updateSchemaPropertyGroup).toMatchObject({
      __typename: "ValidationError",
      message:
        "Property name must start with a letter or underscore and contain only letters, numbers, and underscores",
    });

    const removed = await execute(s, RemoveEventSchema, {
      input: { projectId: project, id: addResult.eventSchema.uuid },
    });
    expect(removed.data.removeEventSchema).toEqual({
      __typename: "RemoveEventSchemaSuccess",
      eventSchema: { eventName: "gql signed up" },
    });
    const deleted = await execute(s, DeleteGroup, { input: { projectId: project, id: group.id } });
    expect(deleted.data.deleteSchemaPropertyGroup).toEqual({
      __typename: "DeleteSchemaPropertyGroupSuccess",
      schemaPropertyGroup: { name: "gql renamed" },
    });
    const gone = await execute(s, DeleteGroup, { input: { projectId: project, id: group.id } });
    expect(gone.data.deleteSchemaPropertyGroup).toMatchObject({
      __typename: "NotFoundError",
      code: "not_found",
    });
    const reader = await s.createKey(["event_definition:read"]);
    const refused = await execute(s, CreateGroup, { input: { projectId: project, name: "no" } }, reader);
    expect(refused.data.createSchemaPropertyGroup).toMatchObject({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'event_definition:write'",
    });
  });

  it("reads a page of definitions' schemas in a bounded number of statements, whatever the page size", async () => {
    const s = server();
    const project = String(s.projectId);
    const names: string[] = [];
    const groups: string[] = [];
    for (const name of ["Base", "Extra"]) {
      const properties =
        name === "Base"
          ? [
              { name: "plan", propertyType: "STRING" as const, isRequired: true },
              { name: "seats", propertyType: "NUMERIC" as const, isRequired: true },
            ]
          : [
              { name: "plan", propertyType: "STRING" as const, isRequired: false },
              { name: "coupon", propertyType: "STRING" as const },
            ];
      const created = await execute(s, CreateGroup, {
        input: { projectId: project, name: `page ${name}`, properties },
      });
      const result = created.data.createSchemaPropertyGroup;
      if (result?.__typename !== "CreateSchemaPropertyGroupSuccess") throw new Error(JSON.stringify(created));
      groups.push(result.schemaPropertyGroup.uuid);
    }
    const measure = async (count: number) => {
      while (names.length < count) {
        const name = `page event ${String(names.length).padStart(2, "0")}`;
        const event = await createEventDefinition(s, s.projectId, name);
        for (const group of names.length % 2 === 0 ? groups : groups.slice(0, 1)) {
          const added = await s.request("POST", `/api/projects/${project}/event_schemas/`, {
            body: { event_definition: event, property_group_id: group },
          });
          expect(added.status, added.text).toBe(201);
        }
        names.push(name);
      }
      const answer = await execute(s, DefinitionSchemas, { project, names });
      expect(answer.errors).toBeUndefined();
      return answer;
    };
    const small = await measure(2);
    const large = await measure(20);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(4);
    const edges = large.data.project?.eventDefinitions?.edges ?? [];
    expect(edges).toHaveLength(20);
    expect(edges[0]?.node).toEqual({
      name: "page event 00",
      schemaPropertyGroups: [{ name: "page Base" }, { name: "page Extra" }],
      schemaProperties: [
        { name: "coupon", propertyType: "STRING", isRequired: false },
        { name: "plan", propertyType: "STRING", isRequired: false },
        { name: "seats", propertyType: "NUMERIC", isRequired: true },
      ],
    });
    expect(edges[1]?.node.schemaProperties).toEqual([
      { name: "plan", propertyType: "STRING", isRequired: true },
      { name: "seats", propertyType: "NUMERIC", isRequired: true },
    ]);
  });
});
