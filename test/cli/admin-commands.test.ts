/**
 * The CLI's administrative commands as the README uses them to set up a second project and a key
 * limited to it, and a second user (`users create`, `users list`): run against a real database,
 * then used over REST.
 */
import { expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin-commands.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("projects create and keys create", (server) => {
  it("creates a second project in the user's organization and a key limited to it", async () => {
    const s = server();
    const project = await runAdminCommand(s.db, {
      name: "projects-create",
      options: { email: "admin@example.com", name: "Staging" },
    });
    expect(project).toEqual({
      project_id: expect.any(Number),
      project_api_token: expect.stringMatching(/^phc_/),
    });
    const projectId = (project as { project_id: number }).project_id;
    const created = await runAdminCommand(s.db, {
      name: "keys-create",
      options: {
        email: "admin@example.com",
        label: "staging only",
        scopes: ["feature_flag:write"],
        projects: [projectId],
        organizations: [],
      },
    });
    const key = (created as { personal_api_key: string }).personal_api_key;
    const ok = await s.request("POST", `/api/projects/${projectId}/feature_flags/`, {
      key,
      body: { key: "staged" },
    });
    expect(ok.status).toBe(201);
    const elsewhere = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`, { key });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.detail).toBe(
      `API key does not have access to the requested project: ID ${s.projectId}.`,
    );
  });

  it("refuses a project for an unknown user and a key with no or unknown scopes", async () => {
    const s = server();
    await expect(
      runAdminCommand(s.db, { name: "projects-create", options: { email: "nobody@example.com", name: "X" } }),
    ).rejects.toThrow("No user with e-mail nobody@example.com");
    const key = (scopes: string[]) =>
      runAdminCommand(s.db, {
        name: "keys-create",
        options: { email: "admin@example.com", label: "bad", scopes, projects: [], organizations: [] },
      });
    await expect(key([])).rejects.toThrow("This field is required.");
    await expect(key(["flags:everything"])).rejects.toThrow("Invalid scope: flags:everything");
  });
});

describeEachBackend("users create and users list", (server) => {
  it("creates a member of the bootstrap organization, prints it, and its key reads the members", async () => {
    const s = server();
    const created = await runAdminCommand(s.db, {
      name: "users-create",
      options: { email: "reviewer@example.com", firstName: "Rae" },
    });
    expect(created).toEqual({
      user_id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      distinct_id: expect.any(String),
      email: "reviewer@example.com",
      first_name: "Rae",
      organization_id: s.organizationId,
      membership_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      level: 1,
      joined_at: expect.any(String),
    });
    const user = created as { user_id: number; uuid: string; membership_id: string };
    const stored = await s.db.user.findUniqueOrThrow({
      where: { id: user.user_id },
      include: { memberships: true },
    });
    expect(stored).toMatchObject({ uuid: user.uuid, email: "reviewer@example.com", firstName: "Rae" });
    expect(stored.memberships).toEqual([
      expect.objectContaining({ id: user.membership_id, organizationId: s.organizationId, level: 1 }),
    ]);
    const made = await runAdminCommand(s.db, {
      name: "keys-create",
      options: {
        email: "reviewer@example.com",
        label: "reviewer",
        scopes: ["organization_member:read"],
        projects: [],
        organizations: [],
      },
    });
    const key = (made as { personal_api_key: string }).personal_api_key;
    const members = await s.request("GET", `/api/organizations/${s.organizationId}/members/`, { key });
    expect(members.status).toBe(200);
    expect(members.body.results.map((m: { user: { email: string } }) => m.user.email)).toEqual([
      "reviewer@example.com",
      "admin@example.com",
    ]);
  });

  it("stores an admin's level, names it after the e-mail by default, and joins a chosen organization", async () => {
    const s = server();
    const admin = await runAdminCommand(s.db, {
      name: "users-create",
      options: { email: "boss@example.com", level: "admin" },
    });
    expect(admin).toMatchObject({ level: 8, first_name: "boss", organization_id: s.organizationId });
    const membership = await s.db.organizationMembership.findFirstOrThrow({
      where: { user: { email: "boss@example.com" } },
    });
    expect(membership.level).toBe(8);
    const other = await s.db.organization.create({ data: { name: "Other" } });
    const elsewhere = await runAdminCommand(s.db, {
      name: "users-create",
      options: { email: "far@example.com", organizationId: other.id },
    });
    expect(elsewhere).toMatchObject({ organization_id: other.id, level: 1 });
  });

  it("refuses an e-mail that has a user, a bad level and an unknown organization, writing nothing", async () => {
    const s = server();
    const create = (options: Record<string, unknown>) =>
      runAdminCommand(s.db, { name: "users-create", options } as Parameters<typeof runAdminCommand>[1]);
    for (const email of ["admin@example.com", "reviewer@example.com"]) {
      await expectNothingWritten(s.db, `duplicate ${email}`, () =>
        expect(create({ email, level: "admin" })).rejects.toThrow(
          "There is already an account with this email address.",
        ),
      );
    }
    await expectNothingWritten(s.db, "bad level", () =>
      expect(create({ email: "x@example.com", level: "owner" })).rejects.toThrow(),
    );
    await expectNothingWritten(s.db, "bad e-mail", () =>
      expect(create({ email: "not-an-email" })).rejects.toThrow(),
    );
    const unknown = "00000000-0000-0000-0000-000000000000";
    await expectNothingWritten(s.db, "unknown organization", () =>
      expect(create({ email: "y@example.com", organizationId: unknown })).rejects.toThrow(
        `No organization with id ${unknown}.`,
      ),
    );
  });

  it("lists the bootstrap organization's members, newest first, or another organization's", async () => {
    const s = server();
    const listed = await runAdminCommand(s.db, { name: "users-list", options: {} });
    expect(listed).toMatchObject({ organization_id: s.organizationId });
    const members = (listed as { members: { email: string; level: number; user_id: number }[] }).members;
    expect(members.map((m) => [m.email, m.level])).toEqual([
      ["boss@example.com", 8],
      ["reviewer@example.com", 1],
      ["admin@example.com", 15],
    ]);
    expect(members[2]).toEqual({
      user_id: s.userId,
      uuid: expect.any(String),
      email: "admin@example.com",
      first_name: "admin",
      membership_id: expect.any(String),
      level: 15,
      joined_at: expect.any(String),
    });
    const far = await s.db.organizationMembership.findFirstOrThrow({
      where: { user: { email: "far@example.com" } },
    });
    const other = await runAdminCommand(s.db, {
      name: "users-list",
      options: { organizationId: far.organizationId },
    });
    expect(other).toMatchObject({
      organization_id: far.organizationId,
      members: [{ email: "far@example.com" }],
    });
    await expect(
      runAdminCommand(s.db, { name: "users-list", options: { organizationId: "nope" } }),
    ).rejects.toThrow("No organization with id nope.");
  });
});
