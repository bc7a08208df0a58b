import { expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

async function create(s: TestServer, body: Record<string, unknown>) {
  const response = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, { body });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: number; key: string };
}

describeEachBackend("feature flag activity over REST", (server) => {
  it("logs creation, field changes, deletion and restoration of one flag, newest first", async () => {
    const s = server();
    const flag = await create(s, { key: "tracked" });
    const path = `/api/projects/${s.projectId}/feature_flags/${flag.id}/`;
    await s.request("PATCH", path, {
      body: { filters: { groups: [{ properties: [], rollout_percentage: 50 }] } },
    });
    await s.request("PATCH", path, { body: { deleted: true } });
    await s.request("PATCH", path, { body: { deleted: false } });

    const response = await s.request("GET", `${path}activity/`);
    expect(response.status).toBe(200);
    expect(response.body.total_count).toBe(4);
    expect(response.body.results.map((e: { activity: string }) => e.activity)).toEqual([
      "restored",
      "deleted",
      "updated",
      "created",
    ]);
    const [restored, deleted, updated, created] = response.body.results;
    expect(created).toMatchObject({
      user: { first_name: "admin", email: "admin@example.com" },
      scope: "FeatureFlag",
      item_id: String(flag.id),
      detail: { changes: [], name: "tracked", trigger: null, type: null, short_id: null },
    });
    expect(Object.keys(created).sort()).toEqual([
      "activity",
      "created_at",
      "detail",
      "id",
      "item_id",
      "scope",
      "user",
    ]);
    expect(updated.detail.changes).toEqual(
      expect.arrayContaining([
        {
          type: "FeatureFlag",
          action: "changed",
          field: "filters",
          before: {},
          after: { groups: [{ properties: [], rollout_percentage: 50 }] },
        },
        { type: "FeatureFlag", action: "changed", field: "version", before: 1, after: 2 },
      ]),
    );
    expect(updated.detail.changes).toHaveLength(2);
    expect(deleted.detail.changes).toContainEqual({
      type: "FeatureFlag",
      action: "changed",
      field: "deleted",
      before: false,
      after: true,
    });
    expect(restored.detail.changes).toContainEqual(
      expect.objectContaining({ field: "deleted", before: true, after: false }),
    );
  });

  it("pages with page and limit and gives absolute next/previous links", async () => {
    const s = server();
    const flag = await create(s, { key: "busy" });
    const path = `/api/projects/${s.projectId}/feature_flags/${flag.id}/`;
    for (const name of ["a", "b", "c", "d"]) await s.request("PATCH", path, { body: { name } });
    const first = await s.request("GET", `${path}activity/?limit=2`);
    expect(first.body.results).toHaveLength(2);
    expect(first.body.total_count).toBe(5);
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: "2", page: "2" });
    const third = await s.request("GET", `${path}activity/?limit=2&page=3`);
    expect(third.body.results).toHaveLength(1);
    expect(third.body.next).toBeNull();
    expect(third.body.results[0].activity).toBe("created");
  });

  it("rejects a bad page or limit", async () => {
    const s = server();
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/activity/?page=0`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: "validation_error", attr: "page" });
    const limit = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/activity/?limit=x`);
    expect(limit.body).toMatchObject({ attr: "limit" });
  });

  it("lists activity across the project's flags", async () => {
    const s = server();
    await create(s, { key: "project-wide-1" });
    await create(s, { key: "project-wide-2" });
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/activity/?limit=100`);
    expect(response.status).toBe(200);
    const names = response.body.results.map((e: { detail: { name: string } }) => e.detail.name);
    expect(names.slice(0, 2)).toEqual(["project-wide-2", "project-wide-1"]);
    expect(response.body.total_count).toBe(response.body.results.length);
  });

  it("answers 404 with an empty body for a flag not in the project", async () => {
    const s = server();
    const flag = await create(s, { key: "elsewhere" });
    const second = await s.createProject("Activity second");
    const response = await s.request("GET", `/api/projects/${second}/feature_flags/${flag.id}/activity/`);
    expect(response.status).toBe(404);
    expect(response.text).toBe("");
  });

  it("requires activity_log:read", async () => {
    const s = server();
    const flagsOnly = await s.createKey(["feature_flag:write"]);
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/activity/`, {
      key: flagsOnly,
    });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("API key missing required scope 'activity_log:read'");
    const single = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/1/activity/`, {
      key: flagsOnly,
    });
    expect(single.status).toBe(403);
  });
});
