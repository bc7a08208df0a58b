/**
 * Version history and restore (issue 27) of flags and experiments, through the real server on both
 * backends: every create and update keeps a numbered version with who, when and its diff; a restore
 * writes a new version equal to an earlier one through the update path (its rules, its activity with
 * the `version_restore` trigger); REST and GraphQL give the same answers; bad input and missing
 * scopes change nothing.
 */
import { expect, it } from "vitest";
import { expectNothingWritten } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { createExperiment } from "../support/tenancy.js";

const flagsPath = (s: TestServer) => `/api/projects/${s.projectId}/feature_flags/`;
const experimentsPath = (s: TestServer) => `/api/projects/${s.projectId}/experiments/`;

async function patch(s: TestServer, path: string, body: Record<string, unknown>) {
  const response = await s.request("PATCH", path, { body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function gql(s: TestServer, query: string, variables: Record<string, unknown> = {}, key?: string) {
  const response = await s.request("POST", "/graphql", { body: { query, variables }, key });
  expect(response.status, response.text).toBe(200);
  expect(response.body.errors, response.text).toBeUndefined();
  return response.body.data;
}

describeEachBackend("version history and restore", (server) => {
  it("keeps a flag's versions with who, when and the diff to the one before, and restores one", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "versioned", name: "First", tags: ["a"] });
    const path = `${flagsPath(s)}${flag.id}/`;
    await patch(s, path, {
      name: "Second",
      filters: { groups: [{ properties: [], rollout_percentage: 40 }] },
    });
    await patch(s, path, { active: false });

    const list = await s.request("GET", `${path}versions/`);
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ count: 3, next: null, previous: null });
    expect(list.body.results.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const [third, second, first] = list.body.results;
    expect(first).toMatchObject({
      version: 1,
      activity: "created",
      restored_from: null,
      created_by: { id: s.userId, email: "admin@example.com" },
      snapshot: { key: "versioned", name: "First", active: true, tags: ["a"], deleted: false },
    });
    expect(first.snapshot).not.toHaveProperty("version");
    expect(first.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    expect(second.changes).toEqual(
      expect.arrayContaining([
        { type: "FeatureFlag", action: "changed", field: "name", before: "First", after: "Second" },
        expect.objectContaining({ field: "filters", action: "changed" }),
      ]),
    );
    expect(second.changes).toHaveLength(2);
    expect(third.changes).toEqual([
      { type: "FeatureFlag", action: "changed", field: "active", before: true, after: false },
    ]);

    const one = await s.request("GET", `${path}versions/1/`);
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual(first);
    const paged = await s.request("GET", `${path}versions/?limit=1&offset=1`);
    expect(paged.body.results).toEqual([second]);
    expect(paged.body.next).toContain("offset=2");

    const restored = await s.request("POST", `${path}versions/1/restore/`);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ id: flag.id, name: "First", active: true, version: 4 });
    expect(restored.body.filters).toEqual(second.snapshot.filters);
    const latest = (await s.request("GET", `${path}versions/4/`)).body;
    expect(latest).toMatchObject({ version: 4, activity: "updated", restored_from: 1 });
    // Turning a flag back on clears a performed rollback (null → false), as any PATCH of `active: true` does.
    expect(latest.changes.map((c: { field: string }) => c.field).sort()).toEqual([
      "active",
      "name",
      "performed_rollback",
    ]);
    const activity = await s.request("GET", `${path}activity/`);
    expect(activity.body.results[0].detail.trigger).toEqual({
      job_type: "version_restore",
      job_id: "1",
      payload: { version: 1 },
    });

    // Restoring the version the flag already equals writes nothing.
    const again = await s.request("POST", `${path}versions/4/restore/`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.version).toBe(4);
    expect((await s.request("GET", `${path}versions/`)).body.count).toBe(4);
  });

  it("answers 404 for a version or a flag that is not there, and changes nothing", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "lonely" });
    const other = await s.createProject("other");
    const foreign = await createFlag(s, { key: "foreign" }, other);
    await expectNothingWritten(s.db, "versions", async () => {
      for (const [method, path] of [
        ["GET", `${flagsPath(s)}${flag.id}/versions/2/`],
        ["POST", `${flagsPath(s)}${flag.id}/versions/2/restore/`],
        ["GET", `${flagsPath(s)}${flag.id}/versions/x/`],
        ["GET", `${flagsPath(s)}999999/versions/`],
        ["POST", `${flagsPath(s)}${foreign.id}/versions/1/restore/`],
      ] as const) {
        const response = await s.request(method, path);
        expect(response.status, `${method} ${path}: ${response.text}`).toBe(404);
        expect(response.body).toEqual({
          type: "invalid_request",
          code: "not_found",
          detail: "Not found.",
          attr: null,
        });
      }
    });
  });

  it("refuses a restore the update path refuses (a key taken since), writing nothing", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "original" });
    await patch(s, `${flagsPath(s)}${flag.id}/`, { key: "renamed" });
    await createFlag(s, { key: "original" });
    await expectNothingWritten(s.db, "versions", async () => {
      const response = await s.request("POST", `${flagsPath(s)}${flag.id}/versions/1/restore/`);
      expect(response.status, response.text).toBe(400);
      expect(response.body).toMatchObject({
        attr: "key",
        detail: "There is already a feature flag with this key.",
      });
    });
  });

  it("asks for the read scope to read versions and the write scope to restore", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "scoped" });
    await patch(s, `${flagsPath(s)}${flag.id}/`, { name: "Changed" });
    const reader = await s.createKey(["feature_flag:read"]);
    const none = await s.createKey(["experiment:read"]);
    expect((await s.request("GET", `${flagsPath(s)}${flag.id}/versions/`, { key: reader })).status).toBe(200);
    const unread = await s.request("GET", `${flagsPath(s)}${flag.id}/versions/`, { key: none });
    expect(unread.status).toBe(403);
    expect(unread.body.detail).toContain("feature_flag:read");
    await expectNothingWritten(s.db, "versions", async () => {
      const refused = await s.request("POST", `${flagsPath(s)}${flag.id}/versions/1/restore/`, {
        key: reader,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain("feature_flag:write");
    });
  });

  it("numbers concurrent updates' versions without a gap or a repeat", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "raced" });
    const path = `${flagsPath(s)}${flag.id}/`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.request("PATCH", path, { body: { name: `name ${i}` } })),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const list = await s.request("GET", `${path}versions/`);
    expect(list.body.results.map((v: { version: number }) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const names = list.body.results.map((v: { snapshot: { name: string } }) => v.snapshot.name);
    expect(new Set(names.slice(0, 6)).size).toBe(6);
  });

  it("keeps an experiment's versions on its own counter and restores one through its update", async () => {
    const s = server();
    const id = await createExperiment(s, s.projectId, "Versioned experiment");
    const path = `${experimentsPath(s)}${id}/`;
    await patch(s, path, { description: "Changed", conclusion: "won" });
    await patch(s, path, { archived: true });
    const list = await s.request("GET", `${path}versions/`);
    expect(list.status, list.text).toBe(200);
    expect(
      list.body.results.map((v: { version: number; activity: string }) => [v.version, v.activity]),
    ).toEqual([
      [3, "updated"],
      [2, "updated"],
      [1, "created"],
    ]);
    expect(list.body.results[1].changes.map((c: { field: string }) => c.field).sort()).toEqual([
      "conclusion",
      "description",
    ]);
    const restored = await s.request("POST", `${path}versions/1/restore/`);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ id, description: "", conclusion: null, archived: false });
    expect((await s.request("GET", `${path}versions/4/`)).body).toMatchObject({ restored_from: 1 });
    // A flag write an experiment makes keeps the flag's own version too.
    const flagId = restored.body.feature_flag.id;
    expect((await s.request("GET", `${flagsPath(s)}${flagId}/versions/`)).body.count).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("answers the same over GraphQL: versions with diffs, and restores as REST does", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "graphed", name: "One" });
    await patch(s, `${flagsPath(s)}${flag.id}/`, { name: "Two" });
    const rest = (await s.request("GET", `${flagsPath(s)}${flag.id}/versions/`)).body;
    const data = await gql(
      s,
      `query($p: ID!, $id: ID!) { project(id: $p) { featureFlag(id: $id) { versions(first: 10) {
        totalCount edges { node { version activity restoredFrom createdBy { email } snapshot
          changes { field action before after } } } } } } }`,
      { p: String(s.projectId), id: String(flag.id) },
    );
    const versions = data.project.featureFlag.versions;
    expect(versions.totalCount).toBe(2);
    expect(
      versions.edges.map((e: { node: Record<string, unknown> }) => ({
        version: e.node["version"],
        snapshot: e.node["snapshot"],
      })),
    ).toEqual(
      rest.results.map((v: Record<string, unknown>) => ({ version: v["version"], snapshot: v["snapshot"] })),
    );
    expect(versions.edges[0].node.changes).toEqual([
      { field: "name", action: "changed", before: "One", after: "Two" },
    ]);

    const restore = await gql(
      s,
      `mutation($input: RestoreFeatureFlagVersionInput!) { restoreFeatureFlagVersion(input: $input) {
        __typename ... on RestoreFeatureFlagVersionSuccess { featureFlag { name version } }
        ... on Error { message code } } }`,
      { input: { projectId: String(s.projectId), id: String(flag.id), version: 1 } },
    );
    expect(restore.restoreFeatureFlagVersion).toEqual({
      __typename: "RestoreFeatureFlagVersionSuccess",
      featureFlag: { name: "One", version: 3 },
    });
    const missing = await gql(
      s,
      `mutation($input: RestoreFeatureFlagVersionInput!) { restoreFeatureFlagVersion(input: $input) {
        __typename ... on Error { message code } } }`,
      { input: { projectId: String(s.projectId), id: String(flag.id), version: 9 } },
    );
    expect(missing.restoreFeatureFlagVersion).toMatchObject({
      __typename: "NotFoundError",
      code: "not_found",
    });

    const id = await createExperiment(s, s.projectId, "Graphed experiment");
    await patch(s, `${experimentsPath(s)}${id}/`, { description: "Later" });
    const experiment = await gql(
      s,
      `mutation($input: RestoreExperimentVersionInput!) { restoreExperimentVersion(input: $input) {
        __typename ... on RestoreExperimentVersionSuccess { experiment { description versions(first: 1) {
          totalCount edges { node { version restoredFrom } } } } } } }`,
      { input: { projectId: String(s.projectId), id: String(id), version: 1 } },
    );
    expect(experiment.restoreExperimentVersion.experiment).toEqual({
      description: "",
      versions: { totalCount: 3, edges: [{ node: { version: 3, restoredFrom: 1 } }] },
    });
  });
});
