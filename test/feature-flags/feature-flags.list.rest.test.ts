import { beforeAll, expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

const DAY = 24 * 60 * 60 * 1000;

async function create(s: TestServer, body: Record<string, unknown>) {
  const response = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, { body });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: number; key: string };
}

const keys = (body: { results: Array<{ key: string }> }) => body.results.map((f) => f.key).sort();

describeEachBackend("feature flag list over REST", (server) => {
  const list = (query = "") =>
    server().request("GET", `/api/projects/${server().projectId}/feature_flags/${query}`);

  beforeAll(async () => {
    const s = server();
    const other = await s.db.user.create({ data: { email: "other@example.com", distinctId: "other" } });
    await create(s, { key: "alpha-bool", name: "First boolean", tags: ["web"] });
    await create(s, {
      key: "beta-multi",
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: "control", rollout_percentage: 50 },
            { key: "test", rollout_percentage: 50 },
          ],
        },
      },
      evaluation_runtime: "server",
      tags: ["web", "checkout"],
      evaluation_tags: ["web"],
    });
    const gamma = await create(s, { key: "gamma-off", active: false, evaluation_runtime: "client" });
    await create(s, { key: "delta-remote", is_remote_configuration: true });
    const old = await create(s, {
      key: "epsilon-old-full",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    const called = await create(s, { key: "zeta-uncalled" });
    // Age two flags and attribute one to another user, directly in storage (no API sets these).
    await s.db.featureFlag.update({
      where: { id: old.id },
      data: { createdAt: new Date(Date.now() - 40 * DAY) },
    });
    await s.db.featureFlag.update({
      where: { id: called.id },
      data: { lastCalledAt: new Date(Date.now() - 45 * DAY) },
    });
    await s.db.featureFlag.update({ where: { id: gamma.id }, data: { createdById: other.id } });
    const deleted = await create(s, { key: "eta-deleted" });
    await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${deleted.id}/`, {
      body: { deleted: true },
    });
  });

  it("lists non-deleted flags newest first with count, next and previous", async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ count: 6, next: null, previous: null });
    expect(response.body.results.map((f: { key: string }) => f.key)).toEqual([
      "zeta-uncalled",
      "delta-remote",
      "gamma-off",
      "beta-multi",
      "alpha-bool",
      "epsilon-old-full", // created 40 days ago
    ]);
  });

  it("pages with limit and offset, links absolute and keeping other parameters", async () => {
    const s = server();
    const first = await list("?limit=2&search=a");
    expect(first.body.results).toHaveLength(2);
    const next = new URL(first.body.next);
    expect(next.origin).toBe(s.baseUrl);
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: "2", offset: "2", search: "a" });
    expect(first.body.previous).toBeNull();
    const second = await s.request("GET", next.pathname + next.search);
    const previous = new URL(second.body.previous);
    expect(Object.fromEntries(previous.searchParams)).toEqual({ limit: "2", search: "a" });
    const last = await list("?limit=2&offset=4");
    expect(last.body.next).toBeNull();
    expect(new URL(last.body.previous).searchParams.get("offset")).toBe("2");
  });

  it("falls back to the default page size for a bad limit, as DRF does", async () => {
    const response = await list("?limit=abc&offset=-3");
    expect(response.status).toBe(200);
    expect(response.body.results).toHaveLength(6);
  });

  it("filters by active true, false and STALE", async () => {
    expect(keys((await list("?active=false")).body)).toEqual(["gamma-off"]);
    expect(keys((await list("?active=true")).body)).not.toContain("gamma-off");
    expect(keys((await list("?active=STALE")).body)).toEqual(["epsilon-old-full", "zeta-uncalled"]);
  });

  it("filters by type", async () => {
    expect(keys((await list("?type=multivariant")).body)).toEqual(["beta-multi"]);
    expect(keys((await list("?type=boolean")).body)).not.toContain("beta-multi");
    expect(keys((await list("?type=remote_config")).body)).toEqual(["delta-remote"]);
    expect((await list("?type=experiment")).body.count).toBe(0);
  });

  it("filters by search on key or name, case insensitive", async () => {
    expect(keys((await list("?search=FIRST")).body)).toEqual(["alpha-bool"]);
    expect(keys((await list("?search=MULTI")).body)).toEqual(["beta-multi"]);
  });

  it("filters by evaluation runtime, reading both as all", async () => {
    expect(keys((await list("?evaluation_runtime=server")).body)).toEqual(["beta-multi"]);
    expect(keys((await list("?evaluation_runtime=client")).body)).toEqual(["gamma-off"]);
    expect((await list("?evaluation_runtime=both")).body.count).toBe(4);
  });

  it("filters by tags, evaluation tags, excluded keys and creator", async () => {
    const s = server();
    expect(keys((await list(`?tags=${encodeURIComponent('["checkout"]')}`)).body)).toEqual(["beta-multi"]);
    expect(keys((await list(`?tags=${encodeURIComponent('["web"]')}`)).body)).toEqual([
      "alpha-bool",
      "beta-multi",
    ]);
    expect(keys((await list("?has_evaluation_tags=true")).body)).toEqual(["beta-multi"]);
    expect((await list("?has_evaluation_tags=false")).body.count).toBe(5);
    const excluded = await list(`?excluded_properties=${encodeURIComponent('["alpha-bool","beta-multi"]')}`);
    expect(keys(excluded.body)).not.toContain("alpha-bool");
    expect(excluded.body.count).toBe(4);
    expect((await list("?tags=not-json")).body.count).toBe(6);
    expect(keys((await list(`?created_by_id=${s.userId}`)).body)).not.toContain("gamma-off");
  });

  it("orders by a requested field", async () => {
    const response = await list("?order=key");
    expect(response.body.results[0].key).toBe("alpha-bool");
  });

  it("reports STALE in the status field of old, fully rolled out flags", async () => {
    const response = await list("?search=epsilon");
    expect(response.body.results[0].status).toBe("STALE");
  });
});
