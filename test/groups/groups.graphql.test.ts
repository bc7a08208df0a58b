/**
 * Group types and groups through the GraphQL door, over HTTP on the real server, on PGlite and
 * PostgreSQL: `groupTypes`, the groups connection (search, forward pages), `group(...)`,
 * `node(id:)` for both types, and the `updateGroupType` mutation with its typed errors.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { insertGroups, insertGroupType } from "../support/groups.js";
import { describeEachBackend } from "../support/server.js";

const Groups = graphql(`
  query Groups($projectId: ID!, $index: Int!, $search: String, $first: Int, $after: String) {
    project(id: $projectId) {
      groupTypes { id groupType groupTypeIndex nameSingular namePlural }
      groups(groupTypeIndex: $index, search: $search, first: $first, after: $after) {
        edges { node { id groupKey groupTypeIndex groupProperties } }
        pageInfo { hasNextPage hasPreviousPage endCursor }
      }
      group(groupTypeIndex: $index, groupKey: "acme") { groupKey groupProperties }
    }
  }
`);

const GroupNode = graphql(`
  query GroupNode($ids: [ID!]!) {
    nodes(ids: $ids) { __typename ... on Group { groupKey } ... on GroupType { groupType } }
  }
`);

const UpdateGroupType = graphql(`
  mutation UpdateGroupType($input: UpdateGroupTypeInput!) {
    updateGroupType(input: $input) {
      __typename
      ... on UpdateGroupTypeSuccess { groupType { groupTypeIndex nameSingular namePlural } }
      ... on Error { message code }
      ... on ValidationError { attr }
    }
  }
`);

describeEachBackend("groups over GraphQL", (server) => {
  const projectId = () => String(server().projectId);

  beforeAll(async () => {
    const s = server();
    await insertGroupType(s.db, s.projectId, 0, "company");
    const start = Date.now() - 60_000;
    await insertGroups(s.db, s.projectId, [
      { groupTypeIndex: 0, groupKey: "acme", properties: { name: "Acme" }, createdAt: new Date(start) },
      {
        groupTypeIndex: 0,
        groupKey: "globex",
        properties: { name: "Globex" },
        createdAt: new Date(start + 1),
      },
      { groupTypeIndex: 0, groupKey: "hooli", properties: { name: "Hooli" }, createdAt: new Date(start + 2) },
    ]);
  });

  it("reads group types, a page of groups and one group", async () => {
    const s = server();
    const answer = await execute(s, Groups, { projectId: projectId(), index: 0, first: 2 });
    expect(answer.errors).toBeUndefined();
    const project = answer.data.project;
    expect(project?.groupTypes?.map((type) => type.groupType)).toEqual(["company"]);
    expect(project?.groups?.edges.map((edge) => edge.node.groupKey)).toEqual(["hooli", "globex"]);
    expect(project?.groups?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(project?.group).toEqual({ groupKey: "acme", groupProperties: { name: "Acme" } });
    const rest = await execute(s, Groups, {
      projectId: projectId(),
      index: 0,
      first: 2,
      after: project?.groups?.pageInfo.endCursor ?? null,
    });
    expect(rest.data.project?.groups?.edges.map((edge) => edge.node.groupKey)).toEqual(["acme"]);
    expect(rest.data.project?.groups?.pageInfo.hasNextPage).toBe(false);
    const searched = await execute(s, Groups, { projectId: projectId(), index: 0, search: "GLOB" });
    expect(searched.data.project?.groups?.edges.map((edge) => edge.node.groupKey)).toEqual(["globex"]);
    const nodes = await execute(s, GroupNode, {
      ids: [project?.groups?.edges[0]?.node.id ?? "", project?.groupTypes?.[0]?.id ?? ""],
    });
    expect(nodes.data.nodes).toEqual([
      { __typename: "Group", groupKey: "hooli" },
      { __typename: "GroupType", groupType: "company" },
    ]);
  });

  it("renames a group type, and answers typed errors", async () => {
    const s = server();
    const renamed = await execute(s, UpdateGroupType, {
      input: { projectId: projectId(), groupTypeIndex: 0, nameSingular: "Company", namePlural: "Companies" },
    });
    expect(renamed.data.updateGroupType).toEqual({
      __typename: "UpdateGroupTypeSuccess",
      groupType: { groupTypeIndex: 0, nameSingular: "Company", namePlural: "Companies" },
    });
    const rest = await s.request("GET", `/api/projects/${projectId()}/groups_types/`);
    expect(rest.body[0]).toMatchObject({ name_singular: "Company", name_plural: "Companies" });
    const missing = await execute(s, UpdateGroupType, {
      input: { projectId: projectId(), groupTypeIndex: 3 },
    });
    expect(missing.data.updateGroupType).toMatchObject({ __typename: "NotFoundError", code: "not_found" });
    const tooLong = await execute(s, UpdateGroupType, {
      input: { projectId: projectId(), groupTypeIndex: 0, namePlural: "x".repeat(401) },
    });
    expect(tooLong.data.updateGroupType).toMatchObject({
      __typename: "ValidationError",
      code: "max_length",
      attr: "0__name_plural",
    });
    const reader = await s.createKey(["group:read"]);
    const denied = await execute(
      s,
      UpdateGroupType,
      { input: { projectId: projectId(), groupTypeIndex: 0 } },
      reader,
    );
    expect(denied.data.updateGroupType).toMatchObject({
      __typename: "PermissionDeniedError",
      message: "API key missing required scope 'group:write'",
    });
  });
});
