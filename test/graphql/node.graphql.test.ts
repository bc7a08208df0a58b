/**
 * Relay's Global Object Identification over HTTP on the real server: `node(id:)` refetches what a
 * client saw (a flag in a list, a project, its organization, a flag's creator, an activity entry),
 * `nodes(ids:)` answers mixed batches in order with per-id errors, both refuse exactly as the typed
 * fields do (scopes, project limits, foreign organizations), bad ids are `not_found` and never a
 * 500, a batch of flags costs a constant number of SQL statements, and object-id inputs take
 * PostHog's integers and global ids alike.
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const NodeById = graphql(`
  query NodeById($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on FeatureFlag { databaseId key version createdBy { id email } }
      ... on Project { databaseId name }
      ... on Organization { uuid name }
      ... on User { databaseId email }
      ... on ActivityLogEntry { uuid activity scope itemId }
    }
  }
`);

const NodesByIds = graphql(`
  query NodesByIds($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      id
      ... on FeatureFlag { databaseId key }
      ... on Project { databaseId }
      ... on User { email }
    }
  }
`);

const RelayFlagList = graphql(`
  query RelayFlagList($projectId: ID!, $first: Int, $createdById: ID) {
    project(id: $projectId) {
      id
      featureFlags(first: $first, orderBy: KEY_ASC, filter: { createdById: $createdById }) {
        edges { node { id databaseId key version createdBy { id email } } }
      }
    }
  }
`);

const ProjectIds = graphql(`
  query ProjectIds($id: ID!) {
    project(id: $id) { id databaseId name organization { id uuid name } }
  }
`);

const ViewerIds = graphql(`
  query ViewerIds {
    viewer { user { id databaseId email } }
  }
`);

const FlagActivityIds = graphql(`
  query FlagActivityIds($projectId: ID!, $id: ID!) {
    project(id: $projectId) {
      featureFlag(id: $id) { id activity { results { id uuid activity scope itemId } } }
    }
  }
`);

const RenameFlag = graphql(`
  mutation RenameFlag($input: UpdateFeatureFlagInput!) {
    updateFeatureFlag(input: $input) {
      __typename
      ... on UpdateFeatureFlagSuccess { featureFlag { id databaseId name } }
      ... on Error { code message }
    }
  }
`);

/** A global id as plugin-relay encodes it: base64 of `<Type>:<local id>`. */
function globalId(typename: string, ...localId: Array<string | number>): string {
  return Buffer.from(`${typename}:${localId.join(":")}`).toString("base64");
}

/** Creates a flag through REST and returns its integer id. */
async function createFlag(s: TestServer, key: string, projectId = s.projectId): Promise<number> {
  const response = await s.request("POST", `/api/projects/${projectId}/feature_flags/`, { body: { key } });
  expect(response.status).toBe(201);
  return response.body.id;
}

describeEachBackend("node(id:) and nodes(ids:)", (server) => {
  it("refetches a flag seen in a list by its global id, as a Relay client does", async () => {
    const s = server();
    const projectId = await s.createProject("Refetch");
    await createFlag(s, "refetch-a", projectId);
    await createFlag(s, "refetch-b", projectId);
    const list = await execute(s, RelayFlagList, { projectId: String(projectId), first: 10 });
    expect(list.errors).toBeUndefined();
    const seen = list.data.project?.featureFlags?.edges.map((edge) => edge.node) ?? [];
    expect(seen.map((flag) => flag.key)).toEqual(["refetch-a", "refetch-b"]);

    for (const flag of seen) {
      const refetched = await execute(s, NodeById, { id: flag.id });
      expect(refetched.errors).toBeUndefined();
      expect(refetched.data.node).toEqual({ __typename: "FeatureFlag", ...flag });
    }
    // The id is opaque to clients; ours names the type, the project and PostHog's id.
    const [first] = seen;
    expect(first?.id).toBe(globalId("FeatureFlag", projectId, first?.databaseId ?? 0));
    expect(first?.id).not.toBe(list.data.project?.id);
  });

  it("refetches a project, its organization and the user who created a flag", async () => {
    const s = server();
    const project = (await execute(s, ProjectIds, { id: String(s.projectId) })).data.project;
    expect(project?.databaseId).toBe(s.projectId);
    expect(project?.organization?.uuid).toBe(s.organizationId);

    const asProject = await execute(s, NodeById, { id: project?.id ?? "" });
    expect(asProject.data.node).toEqual({
      __typename: "Project",
      id: project?.id,
      databaseId: s.projectId,
      name: "Web",
    });
    const asOrganization = await execute(s, NodeById, { id: project?.organization?.id ?? "" });
    expect(asOrganization.data.node).toEqual({
      __typename: "Organization",
      id: project?.organization?.id,
      uuid: s.organizationId,
      name: "Acme",
    });

    await createFlag(s, "made-by-admin");
    const list = await execute(s, RelayFlagList, { projectId: String(s.projectId), first: 1 });
    const creator = list.data.project?.featureFlags?.edges[0]?.node.createdBy;
    const viewer = (await execute(s, ViewerIds, {})).data.viewer?.user;
    expect(creator?.id).toBe(viewer?.id);
    const asUser = await execute(s, NodeById, { id: creator?.id ?? "" });
    expect(asUser.errors).toBeUndefined();
    expect(asUser.data.node).toEqual({
      __typename: "User",
      id: creator?.id,
      databaseId: s.userId,
      email: "admin@example.com",
    });
  });

  it("refetches an activity entry", async () => {
    const s = server();
    const flagId = await createFlag(s, "with-history");
    await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${flagId}/`, {
      body: { name: "Renamed" },
    });
    const read = await execute(s, FlagActivityIds, { projectId: String(s.projectId), id: String(flagId) });
    const entries = read.data.project?.featureFlag?.activity?.results ?? [];
    expect(entries.map((entry) => entry.activity)).toEqual(["updated", "created"]);
    for (const entry of entries) {
      const refetched = await execute(s, NodeById, { id: entry.id });
      expect(refetched.errors).toBeUndefined();
      expect(refetched.data.node).toEqual({ __typename: "ActivityLogEntry", ...entry });
    }
    const rest = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/${flagId}/activity/`);
    expect(rest.body.results.map((entry: { id: string }) => entry.id)).toEqual(entries.map((e) => e.uuid));
  });

  it("answers a mixed batch in order, with null and the typed field's error where it cannot read", async () => {
    const s = server();
    const flagId = await createFlag(s, "mixed");
    const foreignProject = await s.createForeignProject("Theirs");
    const foreignFlag = await s.db.featureFlag.create({
      data: { projectId: foreignProject, key: "their-flag" },
    });
    const ids = [
      globalId("FeatureFlag", s.projectId, flagId),
      globalId("Project", s.projectId),
      globalId("FeatureFlag", foreignProject, foreignFlag.id),
      "not a global id",
      globalId("User", s.userId),
      globalId("Project", foreignProject),
      globalId("FeatureFlag", s.projectId, flagId),
    ];
    const answer = await execute(s, NodesByIds, { ids });
    expect(answer.status).toBe(200);
    expect(answer.data.nodes).toEqual([
      { __typename: "FeatureFlag", id: ids[0], databaseId: flagId, key: "mixed" },
      { __typename: "Project", id: ids[1], databaseId: s.projectId },
      null,
      null,
      { __typename: "User", id: ids[4], email: "admin@example.com" },
      null,
      { __typename: "FeatureFlag", id: ids[0], databaseId: flagId, key: "mixed" },
    ]);
    const errors = new Map(answer.errors?.map((error) => [error.path?.[1], error]));
    expect(errors.size).toBe(3);
    expect(errors.get(2)).toMatchObject({
      message: "You don't have access to the project.",
      path: ["nodes", 2],
      extensions: { code: "permission_denied", errorType: "PermissionDeniedError" },
    });
    expect(errors.get(3)?.extensions).toMatchObject({ code: "not_found", errorType: "NotFoundError" });
    // The same answer as the typed field for that project.
    const typed = await execute(s, ProjectIds, { id: String(foreignProject) });
    expect(errors.get(5)?.message).toBe(typed.errors?.[0]?.message);
    expect(errors.get(5)?.extensions).toEqual(typed.errors?.[0]?.extensions);
    expect(JSON.stringify(answer.data)).not.toContain("their-flag");
  });

  it("never shows a key limited to another project a flag of a project it cannot reach", async () => {
    const s = server();
    const flagId = await createFlag(s, "not-for-them");
    const other = await s.createProject("Their own");
    const ownFlagId = await createFlag(s, "their-own", other);
    const limited = await s.createKey(["*"], [other]);

    const denied = await execute(s, NodeById, { id: globalId("FeatureFlag", s.projectId, flagId) }, limited);
    expect(denied.data.node).toBeNull();
    expect(denied.errors).toEqual([
      expect.objectContaining({
        message: `API key does not have access to the requested project: ID ${s.projectId}.`,
        path: ["node"],
        extensions: { code: "permission_denied", errorType: "PermissionDeniedError" },
      }),
    ]);
    // A global id naming the key's project with the other project's flag id finds nothing there.
    const relabelled = await execute(s, NodeById, { id: globalId("FeatureFlag", other, flagId) }, limited);
    expect(relabelled.data.node).toBeNull();
    expect(relabelled.errors?.[0]?.extensions).toMatchObject({ code: "not_found" });

    const allowed = await execute(s, NodeById, { id: globalId("FeatureFlag", other, ownFlagId) }, limited);
    expect(allowed.data.node).toMatchObject({ __typename: "FeatureFlag", key: "their-own" });
    const project = await execute(s, NodeById, { id: globalId("Project", s.projectId) }, limited);
    expect(project.data.node).toBeNull();
    expect(project.errors?.[0]?.extensions).toMatchObject({ code: "permission_denied" });
  });

  it("asks for the scope each typed field asks for", async () => {
    const s = server();
    const flagId = await createFlag(s, "scoped");
    const entry = await s.db.activityLog.findFirstOrThrow({ where: { itemId: String(flagId) } });
    const ids = {
      flag: globalId("FeatureFlag", s.projectId, flagId),
      project: globalId("Project", s.projectId),
      organization: globalId("Organization", s.organizationId),
      user: globalId("User", s.userId),
      entry: globalId("ActivityLogEntry", s.projectId, entry.id),
    };
    const needs = {
      flag: "feature_flag:read",
      project: "project:read",
      organization: "organization:read",
      user: "user:read",
      entry: "activity_log:read",
    };
    const other = await s.createKey(["insight:read"]);
    for (const [kind, id] of Object.entries(ids)) {
      const scope = needs[kind as keyof typeof needs];
      const denied = await execute(s, NodeById, { id }, other);
      expect(denied.data.node, kind).toBeNull();
      expect(denied.errors?.[0], kind).toMatchObject({
        message: `API key missing required scope '${scope}'`,
        extensions: { code: "permission_denied" },
      });
      const granted = await execute(s, NodeById, { id }, await s.createKey([scope]));
      expect(granted.errors, kind).toBeUndefined();
      expect(granted.data.node?.id, kind).toBe(id);
    }
    const anonymous = await execute(s, NodeById, { id: ids.flag }, null);
    expect(anonymous.data.node).toBeNull();
    expect(anonymous.errors?.[0]?.extensions).toMatchObject({ code: "not_authenticated" });
  });

  it("shows users of the key's organizations only", async () => {
    const s = server();
    const stranger = await s.db.user.create({
      data: { email: "stranger@example.com", distinctId: "stranger" },
    });
    const colleague = await s.db.user.create({
      data: {
        email: "colleague@example.com",
        distinctId: "colleague",
        memberships: { create: { organizationId: s.organizationId } },
      },
    });
    const answer = await execute(s, NodesByIds, {
      ids: [globalId("User", colleague.id), globalId("User", stranger.id)],
    });
    expect(answer.data.nodes).toEqual([
      { __typename: "User", id: globalId("User", colleague.id), email: "colleague@example.com" },
      null,
    ]);
    expect(answer.errors?.[0]).toMatchObject({ path: ["nodes", 1], extensions: { code: "not_found" } });
  });

  it("answers malformed, unknown-type and unknown ids with not_found, never a server error", async () => {
    const s = server();
    const ids = [
      "",
      "nope",
      "42",
      "%%%",
      globalId("Dashboard", 1),
      globalId("__Schema", 1),
      globalId("FeatureFlag", 1),
      globalId("FeatureFlag", s.projectId, "x"),
      globalId("FeatureFlag", s.projectId, 999999),
      globalId("FeatureFlag", 999999, 1),
      globalId("Project", "abc"),
      globalId("Project", 99999999999),
      globalId("Organization", "not-a-uuid"),
      globalId("Organization", "00000000-0000-4000-8000-000000000000"),
      globalId("User", 999999),
      globalId("ActivityLogEntry", s.projectId, "not-a-uuid"),
      globalId("ActivityLogEntry", s.projectId, "00000000-0000-7000-8000-000000000000"),
    ];
    const batch = await execute(s, NodesByIds, { ids });
    expect(batch.status).toBe(200);
    expect(batch.data.nodes).toEqual(ids.map(() => null));
    expect(batch.errors).toHaveLength(ids.length);
    for (const error of batch.errors ?? []) expect(error.extensions).toMatchObject({ code: "not_found" });
    for (const id of ids) {
      const single = await execute(s, NodeById, { id });
      expect(single.data.node, id).toBeNull();
      expect(single.errors?.[0]?.extensions?.["code"], id).toBe("not_found");
    }
    expect(s.errorLogs).toEqual([]);
  });

  it("reads 20 flags of a project in as many SQL statements as one", async () => {
    const s = server();
    const projectId = await s.createProject("Batch");
    await s.db.featureFlag.createMany({
      data: Array.from({ length: 20 }, (_, i) => ({
        projectId,
        key: `batch-${String(i).padStart(2, "0")}`,
        createdById: s.userId,
        lastModifiedById: s.userId,
      })),
    });
    const list = await execute(s, RelayFlagList, { projectId: String(projectId), first: 20 });
    const ids = list.data.project?.featureFlags?.edges.map((edge) => edge.node.id) ?? [];
    expect(ids).toHaveLength(20);

    const one = await execute(s, NodesByIds, { ids: ids.slice(0, 1) });
    const twenty = await execute(s, NodesByIds, { ids });
    expect(twenty.errors).toBeUndefined();
    expect(twenty.data.nodes?.map((node) => node?.id)).toEqual(ids);
    expect(Number.isFinite(one.statements)).toBe(true);
    // At most the project check and one read of the flags with their creators and tags (the key is
    // known once seen; the project comes with it when among its first).
    expect(twenty.statements).toBe(one.statements);
    expect(twenty.statements).toBeLessThanOrEqual(3);
  });

  it("takes PostHog's integers and global ids alike where inputs name an object", async () => {
    const s = server();
    const project = await s.createProject("Two ids");
    const flagId = await createFlag(s, "two-ids", project);
    const projectGlobal = globalId("Project", project);
    const flagGlobal = globalId("FeatureFlag", project, flagId);
    const rename = (projectId: string, id: string, name: string) =>
      execute(s, RenameFlag, { input: { projectId, id, name } });

    expect((await rename(String(project), String(flagId), "by integers")).data.updateFeatureFlag).toEqual({
      __typename: "UpdateFeatureFlagSuccess",
      featureFlag: { id: flagGlobal, databaseId: flagId, name: "by integers" },
    });
    expect((await rename(projectGlobal, flagGlobal, "by global ids")).data.updateFeatureFlag).toMatchObject({
      __typename: "UpdateFeatureFlagSuccess",
      featureFlag: { name: "by global ids" },
    });
    const otherProject = await s.createProject("Elsewhere");
    for (const [projectId, id] of [
      [String(otherProject), flagGlobal],
      [projectGlobal, globalId("Project", flagId)],
      [projectGlobal, "not-an-id"],
    ] as const) {
      expect((await rename(projectId, id, "nope")).data.updateFeatureFlag).toEqual({
        __typename: "NotFoundError",
        code: "not_found",
        message: "Not found.",
      });
    }
    expect((await rename(flagGlobal, flagGlobal, "x")).data).toEqual({
      updateFeatureFlag: { __typename: "NotFoundError", code: "not_found", message: "Project not found." },
    });

    const byGlobalProject = await execute(s, ProjectIds, { id: projectGlobal });
    expect(byGlobalProject.data.project?.databaseId).toBe(project);
    const byGlobalFlag = await execute(s, FlagActivityIds, { projectId: projectGlobal, id: flagGlobal });
    expect(byGlobalFlag.data.project?.featureFlag?.id).toBe(flagGlobal);
    const byUser = await execute(s, RelayFlagList, {
      projectId: String(project),
      createdById: globalId("User", s.userId),
    });
    expect(byUser.data.project?.featureFlags?.edges.map((edge) => edge.node.key)).toEqual(["two-ids"]);
    const byNobody = await execute(s, RelayFlagList, {
      projectId: String(project),
      createdById: String(s.userId + 1000),
    });
    expect(byNobody.data.project?.featureFlags?.edges).toEqual([]);
  });
});
