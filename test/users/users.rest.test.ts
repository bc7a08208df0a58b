import { expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("identity over REST", (server) => {
  it("returns the key's user with team, organization and organizations", async () => {
    const s = server();
    const response = await s.request("GET", "/api/users/@me/");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: s.userId,
      email: "admin@example.com",
      distinct_id: expect.any(String),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      team: { id: s.projectId, organization: s.organizationId },
      organization: { id: s.organizationId },
      organizations: [{ id: s.organizationId, name: "Acme" }],
    });
  });

  it("requires user:read for @me", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read"]);
    const response = await s.request("GET", "/api/users/@me/", { key });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("API key missing required scope 'user:read'");
  });

  it("describes the current key without its value", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read", "activity_log:read"], [s.projectId]);
    const response = await s.request("GET", "/api/personal_api_keys/@current", { key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      scopes: ["feature_flag:read", "activity_log:read"],
      scoped_teams: [s.projectId],
      scoped_organizations: [],
      value: null,
      mask_value: `${key.slice(0, 4)}...${key.slice(-4)}`,
      user_id: s.userId,
    });
    expect(response.text).not.toContain(key);
    expect((await s.request("GET", "/api/personal_api_keys/@current/", { key })).status).toBe(200);
  });

  it("answers 401 for @current without a key", async () => {
    const s = server();
    const response = await s.request("GET", "/api/personal_api_keys/@current", { key: null });
    expect(response.status).toBe(401);
  });
});
