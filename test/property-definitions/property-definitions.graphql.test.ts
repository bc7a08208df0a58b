/**
 * Property definitions through the GraphQL door, on both backends: the `Project.propertyDefinitions`
 * connection with REST's filters, the lookup by id, the `PropertyDefinition` node, and the
 * update/delete mutations with their typed errors (one service with REST), on a catalogue filled
 * through the real capture path.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { projectToken, sendToSdk } from "../support/capture.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const UpdatePropertyDefinition = graphql(`
  mutation UpdatePropertyDefinition($input: UpdatePropertyDefinitionInput!) {
    updatePropertyDefinition(input: $input) {
      __typename
      ... on UpdatePropertyDefinitionSuccess {
        propertyDefinition {
          name description tags propertyType isNumerical verified verifiedAt verifiedBy { email } hidden
          updatedBy { email }
        }
      }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

const DeletePropertyDefinition = graphql(`
  mutation DeletePropertyDefinition($input: DeletePropertyDefinitionInput!) {
    deletePropertyDefinition(input: $input) {
      __typename
      ... on DeletePropertyDefinitionSuccess { propertyDefinition { name kind } }
      ... on Error { message code }
    }
  }
`);

const PropertyDefinitions = graphql(`
  query PropertyDefinitions($project: ID!, $filter: PropertyDefinitionFilterInput, $first: Int, $after: String) {
    project(id: $project) {
      propertyDefinitions(filter: $filter, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges {
          node { id uuid name kind groupTypeIndex propertyType isNumerical isSeenOnFilteredEvents tags verified }
        }
      }
    }
  }
`);

const PropertyDefinitionPeople = graphql(`
  query PropertyDefinitionPeople($project: ID!) {
    project(id: $project) {
      propertyDefinitions(first: 100) {
        totalCount
        edges { node { name tags verifiedBy { email } updatedBy { email } } }
      }
    }
  }
`);

const PropertyDefinitionLookup = graphql(`
  query PropertyDefinitionLookup($project: ID!, $id: ID!) {
    project(id: $project) {
      propertyDefinition(id: $id) { id uuid name propertyType }
    }
  }
`);

const PropertyDefinitionNode = graphql(`
  query PropertyDefinitionNode($id: ID!) {
    node(id: $id) { __typename ... on PropertyDefinition { name kind } }
  }
`);

describeEachBackend("property definitions over GraphQL", (server) => {
  beforeAll(async () => {
    const s = server();
    const token = await projectToken(s);
    const sent = await sendToSdk(s, "/batch/", {
      json: {
        api_key: token,
        batch: [
          {
            event: "bought",
            distinct_id: "g1",
            properties: { price: 9.5, currency: "EUR", $set: { vip: true }, $groups: { team: "t1" } },
          },
          { event: "$pageview", distinct_id: "g1", properties: { $pathname: "/", currency: "EUR" } },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const group = await sendToSdk(s, "/batch/", {
      json: {
        api_key: token,
        batch: [
          {
            event: "$groupidentify",
            distinct_id: "g1",
            properties: { $group_type: "team", $group_key: "t1", $group_set: { size: 4 } },
          },
        ],
      },
    });
    expect(group.status, group.text).toBe(200);
  });

  it("lists, filters, finds, updates and deletes definitions through one service", async () => {
    const s = server();
    const project = String(s.projectId);
    const all = await execute(s, PropertyDefinitions, { project });
    expect(all.errors).toBeUndefined();
    const connection = all.data.project?.propertyDefinitions;
    expect(connection?.totalCount).toBe(3);
    expect(connection?.edges.map((edge) => [edge.node.name, edge.node.propertyType, edge.node.kind])).toEqual(
      [
        ["$pathname", "STRING", "EVENT"],
        ["currency", "STRING", "EVENT"],
        ["price", "NUMERIC", "EVENT"],
      ],
    );
    const persons = await execute(s, PropertyDefinitions, { project, filter: { kind: "PERSON" } });
    expect(
      persons.data.project?.propertyDefinitions?.edges.map((edge) => [
        edge.node.name,
        edge.node.propertyType,
      ]),
    ).toEqual([["vip", "BOOLEAN"]]);
    const groups = await execute(s, PropertyDefinitions, {
      project,
      filter: { kind: "GROUP", groupTypeIndex: 0 },
    });
    expect(groups.data.project?.propertyDefinitions?.edges.map((edge) => edge.node)).toMatchObject([
      { name: "size", kind: "GROUP", groupTypeIndex: 0, propertyType: "NUMERIC", isNumerical: true },
    ]);
    const seen = await execute(s, PropertyDefinitions, { project, filter: { eventNames: ["bought"] } });
    expect(
      seen.data.project?.propertyDefinitions?.edges.map((edge) => [
        edge.node.name,
        edge.node.isSeenOnFilteredEvents,
      ]),
    ).toEqual([
      ["currency", true],
      ["price", true],
      ["$pathname", false],
    ]);
    const onlySeen = await execute(s, PropertyDefinitions, {
      project,
      filter: { eventNames: ["$pageview"], filterByEventNames: true, search: "CUR" },
    });
    expect(onlySeen.data.project?.propertyDefinitions?.edges.map((edge) => edge.node.name)).toEqual([
      "currency",
    ]);
    const paged = await execute(s, PropertyDefinitions, { project, first: 2 });
    expect(paged.data.project?.propertyDefinitions?.pageInfo.hasNextPage).toBe(true);
    const next = await execute(s, PropertyDefinitions, {
      project,
      first: 2,
      after: paged.data.project?.propertyDefinitions?.pageInfo.endCursor ?? null,
    });
    expect(next.data.project?.propertyDefinitions?.edges.map((edge) => edge.node.name)).toEqual(["price"]);

    const price = connection!.edges[2]!.node;
    const byUuid = await execute(s, PropertyDefinitionLookup, { project, id: price.uuid });
    expect(byUuid.data.project?.propertyDefinition).toMatchObject({ name: "price", id: price.id });
    const byGlobal = await execute(s, PropertyDefinitionLookup, { project, id: price.id });
    expect(byGlobal.data.project?.propertyDefinition?.uuid).toBe(price.uuid);
    const none = await execute(s, PropertyDefinitionLookup, { project, id: "price" });
    expect(none.data.project?.propertyDefinition).toBeNull();
    const node = await execute(s, PropertyDefinitionNode, { id: price.id });
    expect(node.data.node).toEqual({ __typename: "PropertyDefinition", name: "price", kind: "EVENT" });

    const updated = await execute(s, UpdatePropertyDefinition, {
      input: {
        projectId: project,
        id: price.id,
        propertyType: "STRING",
        description: "Price",
        tags: ["Money"],
        verified: true,
      },
    });
    expect(updated.data.updatePropertyDefinition).toMatchObject({
      __typename: "UpdatePropertyDefinitionSuccess",
      propertyDefinition: {
        name: "price",
        description: "Price",
        tags: ["money"],
        propertyType: "STRING",
        isNumerical: false,
        verified: true,
        verifiedAt: expect.any(String),
        verifiedBy: { email: expect.any(String) },
        hidden: false,
        updatedBy: { email: expect.any(String) },
      },
    });
    // REST sees what GraphQL wrote.
    const rest = await s.request("GET", `/api/projects/${project}/property_definitions/${price.uuid}/`);
    expect(rest.body).toMatchObject({
      property_type: "String",
      is_numerical: false,
      tags: ["money"],
      verified: true,
    });
    const numeric = await execute(s, UpdatePropertyDefinition, {
      input: { projectId: project, id: price.uuid, propertyType: "NUMERIC" },
    });
    expect(numeric.data.updatePropertyDefinition).toMatchObject({
      propertyDefinition: { propertyType: "NUMERIC", isNumerical: true },
    });
    const cleared = await execute(s, UpdatePropertyDefinition, {
      input: { projectId: project, id: price.uuid, propertyType: null },
    });
    expect(cleared.data.updatePropertyDefinition).toMatchObject({
      propertyDefinition: { propertyType: null, isNumerical: false },
    });

    const deleted = await execute(s, DeletePropertyDefinition, {
      input: { projectId: project, id: price.uuid },
    });
    expect(deleted.data.deletePropertyDefinition).toEqual({
      __typename: "DeletePropertyDefinitionSuccess",
      propertyDefinition: { name: "price", kind: "EVENT" },
    });
    const gone = await execute(s, PropertyDefinitionLookup, { project, id: price.uuid });
    expect(gone.data.project?.propertyDefinition).toBeNull();
  });

  it("answers bad input, missing objects and missing scopes with typed errors and REST's messages", async () => {
    const s = server();
    const project = String(s.projectId);
    const currency = await s.db.propertyDefinition.findFirstOrThrow({
      where: { projectId: s.projectId, name: "currency" },
    });
    const both = await execute(s, UpdatePropertyDefinition, {
      input: { projectId: project, id: currency.id, hidden: true, verified: true },
    });
    expect(both.data.updatePropertyDefinition).toEqual({
      __typename: "ValidationError",
      message: "A property cannot be both hidden and verified",
      code: "invalid_input",
      attr: null,
    });
    const missing = await execute(s, UpdatePropertyDefinition, {
      input: { projectId: project, id: "00000000-0000-0000-0000-000000000000", description: "x" },
    });
    expect(missing.data.updatePropertyDefinition).toMatchObject({
      __typename: "NotFoundError",
      code: "not_found",
    });
    const other = await s.createProject("gql other props");
    const theirs = await s.db.propertyDefinition.create({ data: { projectId: other, name: "theirs" } });
    const foreignLookup = await execute(s, PropertyDefinitionLookup, { project, id: theirs.id });
    expect(foreignLookup.data.project?.propertyDefinition).toBeNull();
    const foreignUpdate = await execute(s, UpdatePropertyDefinition, {
      input: { projectId: project, id: theirs.id, description: "mine now" },
    });
    expect(foreignUpdate.data.updatePropertyDefinition).toMatchObject({ __typename: "NotFoundError" });
    expect((await s.db.propertyDefinition.findUniqueOrThrow({ where: { id: theirs.id } })).description).toBe(
      "",
    );
    const reader = await s.createKey(["property_definition:read"]);
    const refused = await execute(
      s,
      DeletePropertyDefinition,
      { input: { projectId: project, id: currency.id } },
      reader,
    );
    expect(refused.data.deletePropertyDefinition).toMatchObject({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'property_definition:write'",
    });
    const badFilter = await execute(s, PropertyDefinitions, { project, filter: { kind: "GROUP" } });
    expect(badFilter.data.project?.propertyDefinitions).toBeNull();
    expect(badFilter.errors?.[0]).toMatchObject({
      message: "`group_type_index` must be set for `group` type",
      extensions: { code: "invalid_input" },
    });
    expect(await s.db.propertyDefinition.findUniqueOrThrow({ where: { id: currency.id } })).toEqual(currency);
  });

  it("reads a page with its tags, verifiers and updaters in a fixed number of statements", async () => {
    const s = server();
    const project = await s.createProject("gql many properties");
    await s.db.propertyDefinition.create({ data: { projectId: project, name: "only" } });
    const small = await execute(s, PropertyDefinitionPeople, { project: String(project) });
    expect(small.errors).toBeUndefined();
    await s.db.propertyDefinition.createMany({
      data: Array.from({ length: 30 }, (_, i) => ({ projectId: project, name: `p${i}` })),
    });
    for (const definition of (
      await s.db.propertyDefinition.findMany({ where: { projectId: project } })
    ).slice(0, 8)) {
      const changed = await execute(s, UpdatePropertyDefinition, {
        input: { projectId: String(project), id: definition.id, verified: true, tags: ["x", "y"] },
      });
      expect(changed.data.updatePropertyDefinition?.__typename).toBe("UpdatePropertyDefinitionSuccess");
    }
    const big = await execute(s, PropertyDefinitionPeople, { project: String(project) });
    expect(big.errors).toBeUndefined();
    const edges = big.data.project?.propertyDefinitions?.edges ?? [];
    expect(edges).toHaveLength(31);
    expect(
      edges.filter((edge) => edge.node.verifiedBy !== null && edge.node.updatedBy !== null),
    ).toHaveLength(8);
    expect(edges[0]!.node.tags).toEqual(["x", "y"]);
    // One statement for the page, plus at most one for access the process had not cached yet
    // (the change feed may invalidate it between requests): never one per definition or user.
    expect(small.statements).toBeLessThanOrEqual(2);
    expect(big.statements).toBeLessThanOrEqual(2);
  });
});
