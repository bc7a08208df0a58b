/**
 * The CLI's administrative commands as docs/cli.md uses them to set up a second project and a key
 * limited to it, a second user (`users create`, `users list`), and to list and revoke keys (`keys
 * list`, `keys revoke`): run against a real database, then used over REST.
 */
import { expect, it } from "vitest";
import { type AdminCommand, runAdminCommand } from "../../src/cli/admin-commands.js";
import { openDatabase } from "../../src/db/database.js";
import type { ListedKey } from "../../src/users/users.service.js";
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

describeEachBackend("keys list and keys revoke", (server, backend) => {
  /** Runs `command` (its options unchecked, as the admin socket receives them). */
  const run = (name: AdminCommand["name"], options: Record<string, unknown>) =>
    runAdminCommand(server().db, { name, options } as AdminCommand);
  const createKey = async (email: string, label: string, scopes = ["user:read"]) =>
    (
      (await run("keys-create", { email, label, scopes, projects: [], organizations: [] })) as {
        personal_api_key: string;
      }
    ).personal_api_key;
  const me = (key: string) => server().request("GET", "/api/users/@me/", { key });

  it("lists a user's keys newest first, in PostHog's field names, never the key or its hash", async () => {
    const s = server();
    await s.db.user.create({
      data: { uuid: crypto.randomUUID(), distinctId: "keyless", email: "keyless@example.com" },
    });
    expect(await run("keys-list", { email: "keyless@example.com" })).toEqual([]);
    const key = await createKey("admin@example.com", "listed", ["feature_flag:read", "user:read"]);
    expect((await me(key)).status).toBe(200);
    const listed = (await run("keys-list", { email: "admin@example.com" })) as ListedKey[];
    const stored = await s.db.personalApiKey.findMany({
      where: { userId: s.userId },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    });
    expect(listed.map((k) => k.id)).toEqual(stored.map((k) => k.id));
    const row = stored.find((k) => k.label === "listed")!;
    expect(listed.find((k) => k.id === row.id)).toEqual({
      id: row.id,
      label: "listed",
      mask_value: `phx_...${key.slice(-4)}`,
      scopes: ["feature_flag:read", "user:read"],
      scoped_teams: [],
      scoped_organizations: [],
      created_at: row.createdAt.toISOString(),
      // The request above marked it used.
      last_used_at: row.lastUsedAt!.toISOString(),
    });
    expect(listed.find((k) => k.label !== "listed")?.last_used_at).toBeNull();
    const text = JSON.stringify(listed);
    expect(text).not.toContain(key);
    expect(text).not.toContain(row.secureValue);
    expect(text).not.toContain("secure_value");
  });

  it("refuses to list the keys of an unknown e-mail or without one", async () => {
    await expect(run("keys-list", { email: "nobody@example.com" })).rejects.toThrow(
      "No user with e-mail nobody@example.com. Run 'signalbox bootstrap' first.",
    );
    await expect(run("keys-list", {})).rejects.toThrow("This field is required.");
  });

  it("revokes a key by id: the server that authenticated it refuses it at once", async () => {
    const s = server();
    const key = await createKey("admin@example.com", "to revoke");
    // Twice: the second answer comes from the server's cache of authenticated keys.
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);
    const { id } = await s.db.personalApiKey.findFirstOrThrow({ where: { label: "to revoke" } });
    expect(await run("keys-revoke", { id })).toEqual({ revoked: id });
    expect(await s.db.personalApiKey.count({ where: { id } })).toBe(0);
    const refused = await me(key);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe("Personal API key found in request Authorization header is invalid.");
    expect((await me(s.key)).status).toBe(200);
  });

  it("revokes only the named user's key with --email, and refuses an unknown id, e-mail or none", async () => {
    const s = server();
    await run("users-create", { email: "owner@example.com" });
    const key = await createKey("owner@example.com", "owned");
    const { id } = await s.db.personalApiKey.findFirstOrThrow({ where: { label: "owned" } });
    await expectNothingWritten(s.db, "another user's key", () =>
      expect(run("keys-revoke", { id, email: "admin@example.com" })).rejects.toThrow(
        `No personal API key with id ${id} of admin@example.com.`,
      ),
    );
    await expectNothingWritten(s.db, "unknown e-mail", () =>
      expect(run("keys-revoke", { id, email: "nobody@example.com" })).rejects.toThrow(
        "No user with e-mail nobody@example.com.",
      ),
    );
    await expectNothingWritten(s.db, "unknown id", () =>
      expect(run("keys-revoke", { id: "no-such-key" })).rejects.toThrow(
        "No personal API key with id no-such-key.",
      ),
    );
    await expect(run("keys-revoke", {})).rejects.toThrow("This field is required.");
    expect((await me(key)).status).toBe(200);
    expect(await run("keys-revoke", { id, email: "owner@example.com" })).toEqual({ revoked: id });
    expect((await me(key)).status).toBe(401);
    await expect(run("keys-revoke", { id })).rejects.toThrow(`No personal API key with id ${id}.`);
  });

  it.runIf(backend === "postgres")(
    "revokes a key from another connection (as the CLI does): the server hears of it on the change feed",
    async () => {
      const s = server();
      const key = await createKey("admin@example.com", "elsewhere");
      expect((await me(key)).status).toBe(200);
      expect((await me(key)).status).toBe(200);
      const { id } = await s.db.personalApiKey.findFirstOrThrow({ where: { label: "elsewhere" } });
      const other = await openDatabase({ kind: "postgres", url: s.databaseUrl! });
      try {
        expect(await runAdminCommand(other.prisma, { name: "keys-revoke", options: { id } })).toEqual({
          revoked: id,
        });
      } finally {
        await other.close();
      }
      // The notification crosses a connection: it arrives within the network's latency.
      await expect.poll(async () => (await me(key)).status, { timeout: 5_000 }).toBe(401);
    },
  );
});
