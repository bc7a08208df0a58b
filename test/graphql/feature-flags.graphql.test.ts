/**
 * Feature flags through the GraphQL door, over HTTP on the real server (test/support/server.ts):
 * reads, each mutation, typed errors, the REST/GraphQL parity of stored shapes, and the N+1 bound
 * (SQL statements per request from the `Server-Timing` header). Documents are typed by codegen
 * (`npm run codegen` writes test/generated/).
 */
import type { GraphQLObjectType } from "graphql";
import { expect, it } from "vitest";
import { schema } from "../../src/composition.js";
import { graphql } from "../generated/gql.js";
import type { CreateFeatureFlagInput, FlagListQueryVariables } from "../generated/graphql.js";
import { execute } from "../support/graphql.js";
import { graphqlOfApp } from "../support/graphql-operations.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      user { email }
      apiKey { label scopes scopedTeams }
      organizations { name }
      team { databaseId name }
    }
  }
`);

const CreateFlag = graphql(`
  mutation CreateFlag($input: CreateFeatureFlagInput!) {
    createFeatureFlag(input: $input) {
      __typename
      ... on CreateFeatureFlagSuccess {
        featureFlag {
          id databaseId key name active deleted version status tags evaluationTags evaluationRuntime
          rollbackConditions createdBy { email } lastModifiedBy { email }
          filters {
            groups { rolloutPercentage variant properties { key type value operator } }
            multivariate { variants { key rolloutPercentage } }
            payloads
            raw
          }
        }
      }
      ... on Error { message code }
      ... on ValidationError { attr field }
    }
  }
`);

const UpdateFlag = graphql(`
  mutation UpdateFlag($input: UpdateFeatureFlagInput!) {
    updateFeatureFlag(input: $input) {
      __typename
      ... on UpdateFeatureFlagSuccess {
        featureFlag { id key name active version rollbackConditions tags lastModifiedBy { email } }
      }
      ... on Error { message code }
      ... on ValidationError { attr field }
    }
  }
`);

const DeleteFlag = graphql(`
  mutation DeleteFlag($input: DeleteFeatureFlagInput!) {
    deleteFeatureFlag(input: $input) {
      __typename
      ... on DeleteFeatureFlagSuccess { featureFlag { id deleted status version } }
      ... on Error { message code }
    }
  }
`);

const RestoreFlag = graphql(`
  mutation RestoreFlag($input: RestoreFeatureFlagInput!) {
    restoreFeatureFlag(input: $input) {
      __typename
      ... on RestoreFeatureFlagSuccess { featureFlag { id deleted status version } }
      ... on Error { message code }
    }
  }
`);

const FlagByKey = graphql(`
  query FlagByKey($projectId: ID!, $key: String!) {
    project(id: $projectId) {
      featureFlag(key: $key) {
        id key version
        activity(limit: 10) {
          totalCount hasNextPage hasPreviousPage
          results { activity scope itemId isSystem user { email } detail { name changes { action field before after } } }
        }
      }
    }
  }
`);

const FlagList = graphql(`
  query FlagList($projectId: ID!, $filter: FeatureFlagFilterInput, $orderBy: FeatureFlagOrder, $first: Int, $after: String) {
    project(id: $projectId) {
      id
      featureFlags(filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { node { key createdBy { email } lastModifiedBy { email } tags evaluationTags } }
      }
    }
  }
`);

const KeysThroughFragments = graphql(`
  query KeysThroughFragments($projectId: ID!) {
    project(id: $projectId) {
      featureFlags(first: 10, filter: { search: "lean-page" }) {
        totalCount edges { node { ... on Node { id } ... on FeatureFlag { key } } }
      }
    }
  }
`);

const ProjectQuery = graphql(`
  query ProjectById($id: ID!) {
    project(id: $id) { databaseId name apiToken organization { name } }
  }
`);

const ProjectsQuery = graphql(`
  query Projects($first: Int, $last: Int) {
    projects(first: $first, last: $last) { totalCount edges { node { databaseId name } } pageInfo { hasNextPage hasPreviousPage } }
  }
`);

/** Creates a flag through GraphQL and returns it, failing the test on a typed error. */
/**
 * The fields of `type` that take no required argument, each with a selection, read from the schema
 * so that a field added later is covered too: leaves by name, objects with their own leaves, other
 * types by `__typename`.
 */
function everyField(type: GraphQLObjectType, depth = 1): Array<{ name: string; selection: string }> {
  const { getNamedType, isLeafType, isNonNullType, isObjectType } = graphqlOfApp;
  return Object.values(type.getFields())
    .filter((field) => field.args.every((arg) => arg.defaultValue !== undefined || !isNonNullType(arg.type)))
    .map((field) => {
      const named = getNamedType(field.type);
      const inner = isLeafType(named)
        ? ""
        : isObjectType(named) && depth > 0
          ? ` { __typename ${everyField(named, depth - 1)
              .map((f) => f.selection)
              .join(" ")} }`
          : " { __typename }";
      return { name: field.name, selection: `${field.name}${inner}` };
    });
}

async function createFlag(s: TestServer, input: Omit<CreateFeatureFlagInput, "projectId">) {
  const answer = await execute(s, CreateFlag, { input: { projectId: String(s.projectId), ...input } });
  const result = answer.data.createFeatureFlag;
  if (result?.__typename !== "CreateFeatureFlagSuccess")
    throw new Error(`create failed: ${JSON.stringify(answer)}`);
  return result.featureFlag;
}

describeEachBackend("feature flags over GraphQL", (server) => {
  it("answers introspection without a key and data fields only with one", async () => {
    const s = server();
    const introspection = await s.request("POST", "/graphql", {
      body: { query: "{ __schema { queryType { name } } }" },
      key: null,
    });
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema.queryType.name).toBe("Query");

    const anonymous = await execute(s, ViewerQuery, {}, null);
    expect(anonymous.data.viewer).toBeNull();
    expect(anonymous.errors?.[0]?.extensions).toMatchObject({
      code: "not_authenticated",
      errorType: "AuthenticationError",
    });
    const wrongKey = await execute(s, ViewerQuery, {}, "phx_not_a_key");
    expect(wrongKey.errors?.[0]).toMatchObject({
      message: "Personal API key found in request Authorization header is invalid.",
      extensions: { code: "authentication_failed" },
    });
  });

  it("accepts the key as a personal_api_key query parameter", async () => {
    const s = server();
    const response = await s.request("POST", `/graphql?personal_api_key=${s.key}`, {
      body: { query: "{ viewer { user { email } } }" },
      key: null,
    });
    expect(response.body).toEqual({ data: { viewer: { user: { email: "admin@example.com" } } } });
  });

  it("serves GraphiQL from the bundled assets, with the header hint", async () => {
    const s = server();
    const page = await s.request("GET", "/graphql", { key: null, headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain("Bearer <personal API key>");
    expect(page.text).not.toMatch(/unpkg\.com|jsdelivr|cdnjs/);
  });

  it("shows the viewer: user, key, organizations and current project", async () => {
    const s = server();
    const { data, errors } = await execute(s, ViewerQuery, {});
    expect(errors).toBeUndefined();
    expect(data.viewer).toEqual({
      user: { email: "admin@example.com" },
      apiKey: { label: expect.stringMatching(/^bootstrap /), scopes: ["*"], scopedTeams: [] },
      organizations: [{ name: "Acme" }],
      team: { databaseId: s.projectId, name: "Web" },
    });
  });

  it("reads projects, answering null with PostHog's code for unknown ones", async () => {
    const s = server();
    const project = await execute(s, ProjectQuery, { id: String(s.projectId) });
    expect(project.data.project).toMatchObject({
      databaseId: s.projectId,
      name: "Web",
      organization: { name: "Acme" },
    });
    expect(project.data.project?.apiToken).toMatch(/^phc_/);

    const missing = await execute(s, ProjectQuery, { id: "999999" });
    expect(missing.data.project).toBeNull();
    expect(missing.errors?.[0]).toMatchObject({
      message: "Project not found.",
      path: ["project"],
      extensions: { code: "not_found", errorType: "NotFoundError" },
    });

    const foreign = await execute(s, ProjectQuery, { id: String(await s.createForeignProject("Elsewhere")) });
    expect(foreign.data.project).toBeNull();
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: "permission_denied" });

    const all = await execute(s, ProjectsQuery, { first: 1 });
    expect(all.data.projects?.totalCount).toBeGreaterThanOrEqual(1);
    expect(all.data.projects?.edges[0]?.node.databaseId).toBe(s.projectId);
    const fromEnd = await execute(s, ProjectsQuery, { last: 1 });
    expect(fromEnd.data.projects?.edges).toHaveLength(1);
    expect(fromEnd.data.projects?.pageInfo.hasNextPage).toBe(false);
  });

  it("creates a flag from camelCase input and stores PostHog's snake_case filters", async () => {
    const s = server();
    const flag = await createFlag(s, {
      key: "gql-created",
      name: "Created through GraphQL",
      tags: [" Beta ", "web"],
      evaluationTags: ["web"],
      evaluationRuntime: "CLIENT",
      rollbackConditions: [{ threshold: 5 }],
      filters: {
        groups: [
          {
            properties: [{ key: "email", type: "person", value: "@acme.com", operator: "icontains" }],
            rolloutPercentage: 50,
            variant: "test",
          },
        ],
        multivariate: {
          variants: [
            { key: "control", rolloutPercentage: 50 },
            { key: "test", rolloutPercentage: 50 },
          ],
        },
        payloads: { test: { color: "blue" } },
      },
    });
    expect(flag).toMatchObject({
      key: "gql-created",
      name: "Created through GraphQL",
      active: true,
      deleted: false,
      version: 1,
      status: "ACTIVE",
      tags: ["beta", "web"],
      evaluationTags: ["web"],
      evaluationRuntime: "CLIENT",
      rollbackConditions: [{ threshold: 5 }],
      createdBy: { email: "admin@example.com" },
      lastModifiedBy: { email: "admin@example.com" },
      filters: {
        groups: [
          {
            rolloutPercentage: 50,
            variant: "test",
            properties: [{ key: "email", type: "person", value: "@acme.com", operator: "icontains" }],
          },
        ],
        multivariate: {
          variants: [
            { key: "control", rolloutPercentage: 50 },
            { key: "test", rolloutPercentage: 50 },
          ],
        },
        payloads: { test: '{"color": "blue"}' },
      },
    });

    const rest = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/${flag.databaseId}/`);
    expect(rest.body.filters).toEqual(flag.filters.raw);
    expect(rest.body.filters.groups[0]).toEqual({
      properties: [{ key: "email", type: "person", value: "@acme.com", operator: "icontains" }],
      rollout_percentage: 50,
      variant: "test",
    });
    expect(rest.body.evaluation_runtime).toBe("client");
  });

  it("returns typed validation errors with PostHog's attr and the GraphQL field", async () => {
    const s = server();
    await createFlag(s, { key: "taken" });
    const duplicate = await execute(s, CreateFlag, {
      input: { projectId: String(s.projectId), key: "taken" },
    });
    expect(duplicate.errors).toBeUndefined();
    expect(duplicate.data.createFeatureFlag).toEqual({
      __typename: "ValidationError",
      message: "There is already a feature flag with this key.",
      code: "unique",
      attr: "key",
      field: "key",
    });

    const dashboards = await execute(s, CreateFlag, {
      input: { projectId: String(s.projectId), key: "with-dashboards", analyticsDashboards: [987654] },
    });
    expect(dashboards.data.createFeatureFlag).toMatchObject({
      __typename: "ValidationError",
      code: "does_not_exist",
      attr: "analytics_dashboards",
      field: "analyticsDashboards",
    });

    const variants = await execute(s, CreateFlag, {
      input: {
        projectId: String(s.projectId),
        key: "bad-variants",
        filters: {
          groups: [{ rolloutPercentage: 100 }],
          multivariate: {
            variants: [
              { key: "a", rolloutPercentage: 50 },
              { key: "b", rolloutPercentage: 25 },
            ],
          },
        },
      },
    });
    expect(variants.data.createFeatureFlag).toEqual({
      __typename: "ValidationError",
      message: "Invalid variant definitions: Variant rollout percentages must sum to 100.",
      code: "invalid_input",
      attr: "filters",
      field: "filters",
    });

    const subset = await execute(s, CreateFlag, {
      input: { projectId: String(s.projectId), key: "eval-tags", tags: ["a"], evaluationTags: ["b"] },
    });
    expect(subset.data.createFeatureFlag).toMatchObject({
      __typename: "ValidationError",
      message: "Evaluation tags must be a subset of tags. Invalid evaluation tags: b",
      attr: null,
      field: null,
    });
  });

  it("updates with PATCH semantics: absent keeps, null clears, a value sets", async () => {
    const s = server();
    const flag = await createFlag(s, {
      key: "patch-me",
      name: "Before",
      tags: ["keep"],
      rollbackConditions: [1],
    });
    const answer = await execute(s, UpdateFlag, {
      input: {
        projectId: String(s.projectId),
        id: flag.id,
        expectedVersion: 1,
        name: "After",
        rollbackConditions: null,
      },
    });
    expect(answer.data.updateFeatureFlag).toEqual({
      __typename: "UpdateFeatureFlagSuccess",
      featureFlag: {
        id: flag.id,
        key: "patch-me",
        name: "After",
        active: true,
        version: 2,
        rollbackConditions: null,
        tags: ["keep"],
        lastModifiedBy: { email: "admin@example.com" },
      },
    });
  });

  it("refuses a stale expectedVersion with a ConflictError", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "contended" });
    await execute(s, UpdateFlag, { input: { projectId: String(s.projectId), id: flag.id, name: "first" } });
    const stale = await execute(s, UpdateFlag, {
      input: { projectId: String(s.projectId), id: flag.id, expectedVersion: 1, name: "second" },
    });
    expect(stale.data.updateFeatureFlag).toEqual({
      __typename: "ConflictError",
      code: "conflict",
      message:
        "The feature flag was updated by admin@example.com since you started editing it. Please refresh and try again.",
    });
  });

  it("answers NotFoundError for a flag of no project of the key's", async () => {
    const s = server();
    const missing = await execute(s, UpdateFlag, {
      input: { projectId: String(s.projectId), id: "999999", name: "x" },
    });
    expect(missing.data.updateFeatureFlag).toEqual({
      __typename: "NotFoundError",
      code: "not_found",
      message: "Not found.",
    });
    const project = await execute(s, DeleteFlag, { input: { projectId: "999999", id: "1" } });
    expect(project.data.deleteFeatureFlag).toMatchObject({
      __typename: "NotFoundError",
      message: "Project not found.",
    });
  });

  it("answers PermissionDeniedError for a missing scope or a project outside the key's", async () => {
    const s = server();
    const readOnly = await s.createKey(["feature_flag:read"]);
    const denied = await execute(
      s,
      CreateFlag,
      { input: { projectId: String(s.projectId), key: "nope" } },
      readOnly,
    );
    expect(denied.data.createFeatureFlag).toEqual({
      __typename: "PermissionDeniedError",
      code: "permission_denied",
      message: "API key missing required scope 'feature_flag:write'",
    });
    const other = await s.createProject("Other");
    const scoped = await s.createKey(["*"], [other]);
    const outside = await execute(
      s,
      CreateFlag,
      { input: { projectId: String(s.projectId), key: "nope" } },
      scoped,
    );
    expect(outside.data.createFeatureFlag).toMatchObject({
      __typename: "PermissionDeniedError",
      message: `API key does not have access to the requested project: ID ${s.projectId}.`,
    });
    const anonymous = await execute(
      s,
      CreateFlag,
      { input: { projectId: String(s.projectId), key: "nope" } },
      null,
    );
    expect(anonymous.data.createFeatureFlag).toMatchObject({
      __typename: "AuthenticationError",
      code: "not_authenticated",
    });
  });

  it("soft-deletes and restores a flag, logging both", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "short-lived" });
    const deleted = await execute(s, DeleteFlag, {
      input: { projectId: String(s.projectId), id: flag.id, expectedVersion: 1 },
    });
    expect(deleted.data.deleteFeatureFlag).toEqual({
      __typename: "DeleteFeatureFlagSuccess",
      featureFlag: { id: flag.id, deleted: true, status: "DELETED", version: 2 },
    });
    const listed = await execute(s, FlagList, {
      projectId: String(s.projectId),
      filter: { search: "short-lived" },
    });
    expect(listed.data.project?.featureFlags?.totalCount).toBe(0);

    const restored = await execute(s, RestoreFlag, {
      input: { projectId: String(s.projectId), id: flag.id },
    });
    expect(restored.data.restoreFeatureFlag).toMatchObject({
      __typename: "RestoreFeatureFlagSuccess",
      featureFlag: { deleted: false, status: "ACTIVE", version: 3 },
    });

    const read = await execute(s, FlagByKey, { projectId: String(s.projectId), key: "short-lived" });
    const activity = read.data.project?.featureFlag?.activity;
    expect(activity?.totalCount).toBe(3);
    expect(activity?.results.map((entry) => entry.activity)).toEqual(["restored", "deleted", "created"]);
    expect(activity?.results[1]).toMatchObject({
      scope: "FeatureFlag",
      itemId: String(flag.databaseId),
      isSystem: false,
      user: { email: "admin@example.com" },
      detail: { name: "short-lived" },
    });
    expect(activity?.results[1]?.detail?.changes).toContainEqual({
      action: "changed",
      field: "deleted",
      before: false,
      after: true,
    });
  });

  it("lists flags with REST's filters, order and cursor pages", async () => {
    const s = server();
    const project = String(await s.createProject("Listing"));
    const create = (key: string, extra: Omit<CreateFeatureFlagInput, "projectId" | "key"> = {}) =>
      execute(s, CreateFlag, { input: { projectId: project, key, ...extra } });
    await create("list-a", { tags: ["red"] });
    await create("list-b", { active: false });
    await create("list-c", { tags: ["red", "blue"], evaluationTags: ["blue"] });

    const keys = async (variables: Omit<FlagListQueryVariables, "projectId">) => {
      const answer = await execute(s, FlagList, { projectId: project, ...variables });
      expect(answer.errors).toBeUndefined();
      return answer.data.project?.featureFlags?.edges.map((edge) => edge.node.key);
    };
    expect(await keys({})).toEqual(["list-c", "list-b", "list-a"]);
    expect(await keys({ orderBy: "KEY_ASC" })).toEqual(["list-a", "list-b", "list-c"]);
    expect(await keys({ filter: { active: "INACTIVE" } })).toEqual(["list-b"]);
    expect(await keys({ filter: { tags: ["RED"] } })).toEqual(["list-c", "list-a"]);
    expect(await keys({ filter: { hasEvaluationTags: true } })).toEqual(["list-c"]);
    expect(await keys({ filter: { excludedKeys: ["list-a"], search: "LIST" } })).toEqual([
      "list-c",
      "list-b",
    ]);

    const first = await execute(s, FlagList, { projectId: project, orderBy: "KEY_ASC", first: 2 });
    const page = first.data.project?.featureFlags;
    expect(page?.totalCount).toBe(3);
    expect(page?.pageInfo.hasNextPage).toBe(true);
    const second = await execute(s, FlagList, {
      projectId: project,
      orderBy: "KEY_ASC",
      first: 2,
      after: page?.pageInfo.endCursor ?? null,
    });
    expect(second.data.project?.featureFlags?.edges.map((edge) => edge.node.key)).toEqual(["list-c"]);
  });

  it("shows every field the schema has for a flag in a page, together or alone, as the single read does", async () => {
    const s = server();
    const flag = await createFlag(s, {
      key: "schema-fields",
      name: "Schema fields",
      tags: ["b", "a"],
      evaluationTags: ["a"],
      rollbackConditions: [{ threshold: 5 }],
      filters: { groups: [{ rolloutPercentage: 30, properties: [] }], payloads: { true: "1" } },
    });
    // The nullable columns with values, so that a column a page left out could not pass as null.
    await s.db.featureFlag.update({
      where: { id: Number(flag.databaseId) },
      data: { lastCalledAt: new Date("2025-01-02T03:04:05.678Z"), performedRollback: true },
    });
    const fields = everyField(schema.getType("FeatureFlag") as GraphQLObjectType);
    const all = fields.map((f) => f.selection).join(" ");
    const both = await s.request("POST", "/graphql", {
      body: {
        query: `query($p: ID!, $k: String!) { project(id: $p) {
          featureFlags(filter: { search: $k }) { edges { node { ${all} } } }
          featureFlag(key: $k) { ${all} } } }`,
        variables: { p: String(s.projectId), k: flag.key },
      },
    });
    expect(both.body.errors).toBeUndefined();
    const single = both.body.data.project.featureFlag;
    expect(both.body.data.project.featureFlags.edges).toEqual([{ node: single }]);
    expect(single).toMatchObject({
      tags: ["a", "b"],
      evaluationTags: ["a"],
      isSimpleFlag: true,
      lastCalledAt: "2025-01-02T03:04:05.678Z",
      performedRollback: true,
    });
    // Each field alone in a page of its own (an aliased connection each, 20 per request, within the
    // alias limit), so that a field reading a part it does not declare cannot borrow it from another.
    for (let at = 0; at < fields.length; at += 20) {
      const chunk = fields.slice(at, at + 20);
      const pages = await s.request("POST", "/graphql", {
        body: {
          query: `query($p: ID!, $k: String!) { project(id: $p) { ${chunk
            .map(
              (f) => `${f.name}: featureFlags(filter: { search: $k }) { edges { node { ${f.selection} } } }`,
            )
            .join(" ")} } }`,
          variables: { p: String(s.projectId), k: flag.key },
        },
      });
      expect(pages.body.errors).toBeUndefined();
      for (const { name } of chunk) {
        expect(pages.body.data.project[name].edges, name).toEqual([{ node: { [name]: single[name] } }]);
      }
    }
  });

  it("reads a page whose selection shows no filters, users or tags, through fragments", async () => {
    const s = server();
    await createFlag(s, { key: "lean-page", tags: ["x"] });
    const answer = await execute(s, KeysThroughFragments, { projectId: String(s.projectId) });
    const page = answer.data.project?.featureFlags;
    expect(page?.totalCount).toBe(1);
    expect(page?.edges.map((edge) => edge.node)).toEqual([{ id: expect.any(String), key: "lean-page" }]);
  });

  it("loads a page of flags with creators in a constant number of SQL statements", async () => {
    const s = server();
    const projectId = await s.createProject("Many flags");
    const editor = await s.db.user.create({ data: { email: "editor@example.com", distinctId: "editor" } });
    await s.db.featureFlag.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        projectId,
        key: `bulk-${String(i).padStart(3, "0")}`,
        createdById: s.userId,
        lastModifiedById: i % 2 === 0 ? s.userId : editor.id,
      })),
    });
    const page = (first: number) => execute(s, FlagList, { projectId: String(projectId), first });
    await page(1); // warm-up: the key's hourly `last_used_at` write and connection set-up

    const ten = await page(10);
    const hundred = await page(100);
    expect(ten.data.project?.featureFlags?.edges).toHaveLength(10);
    expect(hundred.data.project?.featureFlags?.edges).toHaveLength(100);
    const modifiers = new Set(
      hundred.data.project?.featureFlags?.edges.map((edge) => edge.node.lastModifiedBy?.email),
    );
    expect(modifiers).toEqual(new Set(["admin@example.com", "editor@example.com"]));
    expect(Number.isFinite(ten.statements)).toBe(true);
    // The page with its creators, last modifiers, tags and total count in one statement, whatever
    // the page size; the key is known to the process once seen (core/auth/actor-cache.ts).
    expect(hundred.statements).toBe(ten.statements);
    expect(ten.statements).toBe(1);
  });
});
