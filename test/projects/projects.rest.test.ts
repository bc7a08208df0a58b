import { expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("projects and organizations over REST", (server) => {
  it("lists the projects the key can see, paginated, with integer ids", async () => {
    const s = server();
    const second = await s.createProject("Listed second");
    await s.createForeignProject("Invisible");
    const response = await s.request("GET", "/api/projects/");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ count: 2, next: null, previous: null });
    expect(response.body.results.map((p: { id: number }) => p.id)).toEqual([s.projectId, second]);
    expect(response.body.results[0]).toMatchObject({
      id: s.projectId,
      organization: s.organizationId,
      name: "Web",
      api_token: expect.stringMatching(/^phc_/),
    });
    const paged = await s.request("GET", "/api/projects/?limit=1");
    expect(new URL(paged.body.next).searchParams.get("offset")).toBe("1");
  });

  it("shows a project-limited key only its projects", async () => {
    const s = server();
    const limited = await s.createKey(["project:read"], [s.projectId]);
    const response = await s.request("GET", "/api/projects/", { key: limited });
    expect(response.body.results.map((p: { id: number }) => p.id)).toEqual([s.projectId]);
  });

  it("retrieves one project; 404 for unknown, 403 for another organization's", async () => {
    const s = server();
    const ok = await s.request("GET", `/api/projects/${s.projectId}/`);
    expect(ok.body).toMatchObject({ id: s.projectId, name: "Web" });
    expect((await s.request("GET", "/api/projects/987654/")).status).toBe(404);
    const foreign = await s.createForeignProject("Theirs");
    expect((await s.request("GET", `/api/projects/${foreign}/`)).status).toBe(403);
  });

  it("requires project:read to list projects", async () => {
    const s = server();
    const flagsOnly = await s.createKey(["feature_flag:read"]);
    const response = await s.request("GET", "/api/projects/", { key: flagsOnly });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("API key missing required scope 'project:read'");
  });

  it("retrieves the organization with its projects, and lists them", async () => {
    const s = server();
    const org = await s.request("GET", `/api/organizations/${s.organizationId}/`);
    expect(org.status).toBe(200);
    expect(org.body).toMatchObject({ id: s.organizationId, name: "Acme", membership_level: 15 });
    expect(org.body.projects.map((p: { id: number }) => p.id)).toContain(s.projectId);
    const projects = await s.request("GET", `/api/organizations/${s.organizationId}/projects/`);
    expect(projects.body.results.map((p: { id: number }) => p.id)).toContain(s.projectId);
  });

  it("answers 404 for an organization the user is not in or that does not exist", async () => {
    const s = server();
    const missing = await s.request("GET", "/api/organizations/00000000-0000-0000-0000-000000000000/");
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe("Organization not found.");
    expect((await s.request("GET", "/api/organizations/not-a-uuid/")).status).toBe(404);
  });
});
