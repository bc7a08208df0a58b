/**
 * Webhook subscriptions over REST, on both backends: create (the secret once), list (no secret,
 * DRF pages), read, PATCH/PUT, rotate the secret, delete; bad input (URL scheme, credentials, kinds);
 * a missing scope; another project's webhook; an activity entry for each write.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

const base = (project: number) => `/api/projects/${project}/webhooks/`;

describeEachBackend("webhooks over REST", (server) => {
  let s: TestServer;
  let other: number;
  beforeAll(async () => {
    s = server();
    other = await s.createProject("webhooks other");
  });

  const create = (body: Record<string, unknown>, project = s.projectId) =>
    s.request("POST", base(project), { body });

  it("creates a webhook and shows its secret in that answer only", async () => {
    const created = await create({
      url: "https://hooks.example.com/signalbox",
      kinds: ["feature_flag.updated", "experiment.*"],
      description: "ops",
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      url: "https://hooks.example.com/signalbox",
      kinds: ["feature_flag.updated", "experiment.*"],
      enabled: true,
      description: "ops",
      created_by: { email: "admin@example.com" },
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const read = await s.request("GET", `${base(s.projectId)}${created.body.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("secret");
    const list = await s.request("GET", `${base(s.projectId)}?limit=1`);
    expect(list.status).toBe(200);
    expect(list.body.count).toBeGreaterThanOrEqual(1);
    expect(list.body.results).toHaveLength(1);
    expect(list.body.results[0]).not.toHaveProperty("secret");
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    // The path without its trailing slash is served too.
    expect((await s.request("GET", base(s.projectId).slice(0, -1))).status).toBe(200);
  });

  it("changes, replaces, rotates and deletes, each with an activity entry", async () => {
    const created = await create({ url: "https://a.example.com/", kinds: ["cohort.*"] });
    const id = created.body.id;
    const path = `${base(s.projectId)}${id}/`;
    const patched = await s.request("PATCH", path, { body: { enabled: false } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      enabled: false,
      kinds: ["cohort.*"],
      url: "https://a.example.com/",
    });
    const put = await s.request("PUT", path, {
      body: { url: "https://b.example.com/x", kinds: ["endpoint.*"] },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ url: "https://b.example.com/x", kinds: ["endpoint.*"] });
    const putMissing = await s.request("PUT", path, { body: { url: "https://b.example.com/x" } });
    expect(putMissing.status).toBe(400);
    expect(putMissing.body.attr).toBe("kinds");

    const rotated = await s.request("POST", `${path}rotate_secret/`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const stored = await s.db.webhook.findUniqueOrThrow({ where: { id } });
    expect(stored.secret).toBe(rotated.body.secret);

    const deleted = await s.request("DELETE", path);
    expect(deleted.status).toBe(204);
    expect((await s.request("GET", path)).status).toBe(404);

    const entries = await s.db.activityLog.findMany({
      where: { projectId: s.projectId, scope: "Webhook", itemId: String(id) },
      orderBy: { createdAt: "asc" },
    });
    expect(entries.map((e) => e.activity)).toEqual(["created", "updated", "updated", "updated", "deleted"]);
    expect(JSON.stringify(entries)).not.toContain(rotated.body.secret);
  });

  it("refuses URLs that are not http(s) or carry credentials, and unknown kinds, with 400", async () => {
    for (const url of [
      "ftp://files.example.com/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "gopher://example.com/",
      "not a url",
      "http://user:secret@example.com/",
      "https://token@example.com/",
    ]) {
      const response = await create({ url, kinds: ["feature_flag.*"] });
      expect({ url, status: response.status, attr: response.body.attr }).toEqual({
        url,
        status: 400,
        attr: "url",
      });
    }
    const badKind = await create({ url: "https://example.com/", kinds: ["feature_flag.renamed"] });
    expect(badKind.status).toBe(400);
    expect(badKind.body).toMatchObject({
      type: "validation_error",
      code: "invalid_choice",
      attr: "kinds__0",
    });
    const noKinds = await create({ url: "https://example.com/", kinds: [] });
    expect(noKinds.status).toBe(400);
    expect(noKinds.body.attr).toBe("kinds");
    const notObject = await s.request("POST", base(s.projectId), { body: [1] });
    expect(notObject.status).toBe(400);
  });

  it("refuses a key without webhook scopes, and answers another project's webhook with 404", async () => {
    const readOnly = await s.createKey(["webhook:read"]);
    const refused = await s.request("POST", base(s.projectId), {
      key: readOnly,
      body: { url: "https://example.com/", kinds: ["feature_flag.*"] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("API key missing required scope 'webhook:write'");
    const flagsOnly = await s.createKey(["feature_flag:write"]);
    const list = await s.request("GET", base(s.projectId), { key: flagsOnly });
    expect(list.status).toBe(403);
    expect(list.body.detail).toBe("API key missing required scope 'webhook:read'");

    const theirs = await create({ url: "https://example.com/theirs", kinds: ["cohort.*"] }, other);
    expect(theirs.status).toBe(201);
    for (const [method, suffix] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "rotate_secret/"],
      ["GET", "deliveries/"],
    ] as const) {
      const response = await s.request(method, `${base(s.projectId)}${theirs.body.id}/${suffix}`, {
        body: method === "PATCH" ? { enabled: false } : undefined,
      });
      expect({ method, suffix, status: response.status }).toEqual({ method, suffix, status: 404 });
    }
  });
});
