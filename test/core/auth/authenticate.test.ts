/**
 * The key lookup on a real database (PGlite from the migrated template): who a key's actor is,
 * the refusals (posthog/auth.py `PersonalAPIKeyAuthentication`), the hourly `last_used_at`, and
 * the project token lookup SDKs use.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authenticate } from "../../../src/core/auth/authenticate.js";
import { ProjectTokenCache } from "../../../src/core/auth/project-token.js";
import { type DataAccess, dataAccessOf } from "../../../src/core/context.js";
import type { Database } from "../../../src/db/database.js";
import type { Prisma, PrismaClient } from "../../../src/generated/prisma/client.js";
import { bootstrap } from "../../../src/users/bootstrap.js";
import { createPersonalApiKey } from "../../../src/users/users.service.js";
import { openTestDatabase } from "../../support/server.js";

let database: Database;
let drop: () => Promise<void>;
let data: DataAccess;
let boot: Awaited<ReturnType<typeof bootstrap>>;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase("pglite"));
  data = dataAccessOf(database);
  boot = await bootstrap(database.prisma, {
    email: "ada@example.com",
    organizationName: "Acme",
    projectName: "Web",
  });
});

afterAll(async () => {
  await database.close();
  await drop();
});

/** A second project in the bootstrap organization, whose token is `token`. */
async function anotherProject(token: string) {
  const first = await database.prisma.project.findUniqueOrThrow({ where: { id: boot.project_id } });
  return database.prisma.project.create({
    data: { name: "Other", organizationId: first.organizationId, apiToken: token },
  });
}

const header = (key: string) => ({ key, source: "Authorization header" as const });

async function newKey(scopes: string[] = ["*"]): Promise<string> {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email: "ada@example.com" } });
  const { key } = await createPersonalApiKey(database.prisma, {
    userId: user.id,
    label: "test",
    scopes,
    scopedTeams: [],
    scopedOrganizations: [],
  });
  return key;
}

/** A new user `email`, member of `organizationIds`, and a key of theirs with every scope. */
async function userWithKey(email: string, organizationIds: string[]): Promise<string> {
  const user = await database.prisma.user.create({ data: { email, distinctId: email } });
  for (const organizationId of organizationIds) {
    await database.prisma.organizationMembership.create({ data: { organizationId, userId: user.id } });
  }
  const { key } = await createPersonalApiKey(database.prisma, {
    userId: user.id,
    label: "test",
    scopes: ["*"],
    scopedTeams: [],
    scopedOrganizations: [],
  });
  return key;
}

describe("authenticate", () => {
  it("refuses a request without a credential, and a key no active user holds, naming where it was found", async () => {
    expect(() => authenticate(data, null)).toThrow(
      expect.objectContaining({
        code: "not_authenticated",
        message: "Authentication credentials were not provided.",
      }),
    );
    await expect(authenticate(data, { key: "phx_unknown", source: "query string" })).rejects.toThrow(
      expect.objectContaining({
        code: "authentication_failed",
        message: "Personal API key found in request query string is invalid.",
      }),
    );
  });

  it("reads the key's user, organizations, projects and limits", async () => {
    const key = await newKey(["feature_flag:read"]);
    const actor = await authenticate(data, header(key));
    expect(actor.user).toMatchObject({
      email: "ada@example.com",
      firstName: "ada",
      currentProjectId: boot.project_id,
    });
    expect(actor.apiKey).toMatchObject({
      label: "test",
      maskValue: `${key.slice(0, 4)}...${key.slice(-4)}`,
      scopes: ["feature_flag:read"],
      scopedTeams: [],
      scopedOrganizations: [],
    });
    expect(actor.organizationIds).toHaveLength(1);
    expect(actor.projects.map((p) => [p.id, p.apiToken, p.organizationId])).toEqual([
      [boot.project_id, boot.project_api_token, actor.organizationIds[0]],
    ]);
    expect(typeof actor.projects[0]?.revision).toBe("bigint");
    expect(actor.projects[0]?.name).toBe("Web");
    expect(actor.projects[0]?.timezone).toBe("UTC");
    expect(actor.projects[0]?.createdAt).toBeInstanceOf(Date);
    expect(actor.projects[0]?.updatedAt).toBeInstanceOf(Date);
  });

  it("reads only the project the request names, when it names one", async () => {
    const key = await newKey();
    const other = await anotherProject("phc_named_project");
    expect((await authenticate(data, header(key), other.id)).projects.map((p) => p.id)).toEqual([other.id]);
    expect((await authenticate(data, header(key))).projects.map((p) => p.id)).toEqual([
      boot.project_id,
      other.id,
    ]);
    expect((await authenticate(data, header(key), 999_999)).projects).toEqual([]);
  });

  it("marks the key used once, then serves it from memory within the hour", async () => {
    const key = await newKey();
    const before = Date.now();
    const first = authenticate(data, header(key), null);
    // Not held: read (and marked used), so a promise.
    expect(first).toBeInstanceOf(Promise);
    const actor = await first;
    const stored = await database.prisma.personalApiKey.findUniqueOrThrow({ where: { id: actor.apiKey.id } });
    expect(stored.lastUsedAt?.getTime()).toBeGreaterThanOrEqual(before);
    // Held, for the same project: at once, no promise.
    expect(authenticate(data, header(key), null)).toEqual(actor);
    const forProject = authenticate(data, header(key), boot.project_id);
    expect(forProject).toBeInstanceOf(Promise);
    await forProject;
    expect(() => authenticate(data, null, null)).toThrow(
      expect.objectContaining({ code: "not_authenticated" }),
    );
  });

  it("marks again a key last used more than an hour ago, not one used within the hour", async () => {
    const usedAt = async (minutesAgo: number) => {
      const raw = await newKey();
      const at = new Date(Date.now() - minutesAgo * 60 * 1000);
      await database.prisma.personalApiKey.updateMany({
        where: { maskValue: `${raw.slice(0, 4)}...${raw.slice(-4)}` },
        data: { lastUsedAt: at },
      });
      const actor = await authenticate(data, header(raw), boot.project_id);
      const stored = await database.prisma.personalApiKey.findUniqueOrThrow({
        where: { id: actor.apiKey.id },
      });
      return { at, stored: stored.lastUsedAt };
    };
    const before = Date.now();
    const stale = await usedAt(61);
    expect(stale.stored?.getTime()).toBeGreaterThanOrEqual(before);
    const recent = await usedAt(30);
    expect(recent.stored).toEqual(recent.at);
  });

  it("refuses the key of a user who is no longer active", async () => {
    const key = await newKey();
    await database.prisma.user.update({ where: { email: "ada@example.com" }, data: { isActive: false } });
    await expect(authenticate(data, header(key))).rejects.toThrow(
      expect.objectContaining({ code: "authentication_failed" }),
    );
    await database.prisma.user.update({ where: { email: "ada@example.com" }, data: { isActive: true } });
  });
  it("authenticates the key of a user of no organization, with no organization and no project", async () => {
    const key = await userWithKey("loner@example.com", []);
    const actor = await authenticate(data, header(key));
    expect(actor.user.email).toBe("loner@example.com");
    expect(actor.organizationIds).toEqual([]);
    expect(actor.projects).toEqual([]);
  });

  it("reads along the first 50 projects of each organization by id, and no more", async () => {
    const organization = await database.prisma.organization.create({ data: { name: "Big" } });
    const small = await database.prisma.organization.create({ data: { name: "Small" } });
    await database.prisma.project.createMany({
      data: Array.from({ length: 52 }, (_, i) => ({
        name: `Big ${i}`,
        organizationId: organization.id,
        apiToken: `phc_big_${i}`,
      })),
    });
    const alone = await database.prisma.project.create({
      data: { name: "Alone", organizationId: small.id, apiToken: "phc_small_alone" },
    });
    const ids = (
      await database.prisma.project.findMany({
        where: { organizationId: organization.id },
        orderBy: { id: "asc" },
        select: { id: true },
      })
    ).map((p) => p.id);
    const key = await userWithKey("big@example.com", [organization.id, small.id]);
    const projects = (await authenticate(data, header(key))).projects;
    expect(projects.filter((p) => p.organizationId === organization.id).map((p) => p.id)).toEqual(
      ids.slice(0, 50),
    );
    expect(projects.filter((p) => p.organizationId === small.id).map((p) => p.id)).toEqual([alone.id]);
    expect((await authenticate(data, header(key), ids[51]!)).projects.map((p) => p.id)).toEqual([ids[51]]);
  });

  it("marks only the key that was used", async () => {
    const used = await newKey();
    const unused = await newKey();
    const actor = await authenticate(data, header(used), boot.project_id);
    const keys = await database.prisma.personalApiKey.findMany({
      where: { maskValue: { in: [used, unused].map((raw) => `${raw.slice(0, 4)}...${raw.slice(-4)}`) } },
    });
    expect(keys.find((k) => k.id === actor.apiKey.id)?.lastUsedAt).toBeInstanceOf(Date);
    expect(keys.find((k) => k.id !== actor.apiKey.id)?.lastUsedAt).toBeNull();
  });

  it("does not mark again a key last used exactly an hour ago (more than an hour, as PostHog)", async () => {
    const raw = await newKey();
    const now = new Date("2026-03-02T10:00:00.000Z");
    const hourAgo = new Date(now.getTime() - 60 * 60 * 1000);
    await database.prisma.personalApiKey.updateMany({
      where: { maskValue: `${raw.slice(0, 4)}...${raw.slice(-4)}` },
      data: { lastUsedAt: hourAgo },
    });
    vi.useFakeTimers({ toFake: ["Date"], now });
    try {
      const actor = await authenticate(data, header(raw), boot.project_id);
      expect(authenticate(data, header(raw), boot.project_id)).toEqual(actor);
      const stored = await database.prisma.personalApiKey.findUniqueOrThrow({
        where: { id: actor.apiKey.id },
      });
      expect(stored.lastUsedAt).toEqual(hourAgo);
      vi.setSystemTime(now.getTime() + 1);
      const due = authenticate(data, header(raw), boot.project_id);
      // The mark is due: written, so a promise.
      expect(due).toBeInstanceOf(Promise);
      await due;
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("ProjectTokenCache", () => {
  it("finds a token's project once, and nothing for an unknown token", async () => {
    const tokens = new ProjectTokenCache(database.prisma, database.changes);
    expect(tokens.peek(boot.project_api_token)).toBeUndefined();
    expect(await tokens.projectIdOf(boot.project_api_token)).toBe(boot.project_id);
    expect(tokens.peek(boot.project_api_token)).toBe(boot.project_id);
    expect(await tokens.projectIdOf("phc_unknown")).toBeNull();
    expect(tokens.peek("phc_unknown")).toBeUndefined();
    expect(await tokens.confirm(boot.project_api_token)).toBe(true);
    expect(await tokens.confirm("phc_unknown")).toBe(false);
  });

  it("holds every token it found while under its bound", async () => {
    const other = await anotherProject("phc_two_tokens");
    const tokens = new ProjectTokenCache(database.prisma, database.changes);
    await tokens.projectIdOf(boot.project_api_token);
    await tokens.projectIdOf(other.apiToken);
    expect(tokens.peek(boot.project_api_token)).toBe(boot.project_id);
    expect(tokens.peek(other.apiToken)).toBe(other.id);
  });

  it("forgets a token once its project's token rotates or the project is deleted", async () => {
    const rotated = await anotherProject("phc_rotated_later");
    const gone = await anotherProject("phc_deleted_later");
    const tokens = new ProjectTokenCache(database.prisma, database.changes);
    await tokens.projectIdOf(boot.project_api_token);
    expect(await tokens.projectIdOf(rotated.apiToken)).toBe(rotated.id);
    expect(await tokens.projectIdOf(gone.apiToken)).toBe(gone.id);
    // The write's announcement comes before its COMMIT returns (db/change-feed.ts).
    await database.prisma.project.update({
      where: { id: rotated.id },
      data: { apiToken: "phc_rotated_now" },
    });
    expect(tokens.peek(rotated.apiToken)).toBeUndefined();
    expect(await tokens.projectIdOf(rotated.apiToken)).toBeNull();
    expect(await tokens.projectIdOf("phc_rotated_now")).toBe(rotated.id);
    await database.prisma.project.delete({ where: { id: gone.id } });
    expect(tokens.peek(gone.apiToken)).toBeUndefined();
    expect(await tokens.projectIdOf(gone.apiToken)).toBeNull();
    // Other projects' tokens are kept.
    expect(tokens.peek(boot.project_api_token)).toBe(boot.project_id);
  });

  it("does not keep a lookup that raced a rotation of its project", async () => {
    const raced = await anotherProject("phc_raced");
    // The lookup reads the old token's project, then the rotation commits before the lookup returns.
    const racing = {
      project: {
        findUnique: async (args: Prisma.ProjectFindUniqueArgs) => {
          const found = await database.prisma.project.findUnique(args);
          await database.prisma.project.update({
            where: { id: raced.id },
            data: { apiToken: "phc_raced_2" },
          });
          return found;
        },
      },
    } as unknown as PrismaClient;
    const tokens = new ProjectTokenCache(racing, database.changes);
    expect(await tokens.projectIdOf(raced.apiToken)).toBe(raced.id);
    expect(tokens.peek(raced.apiToken)).toBeUndefined();
  });

  it("answers a project deleted during a request as unknown after confirm", async () => {
    const gone = await anotherProject("phc_deleted_meanwhile");
    const tokens = new ProjectTokenCache(database.prisma, database.changes);
    expect(await tokens.projectIdOf(gone.apiToken)).toBe(gone.id);
    expect(await tokens.confirm(gone.apiToken)).toBe(true);
    await database.prisma.project.delete({ where: { id: gone.id } });
    expect(await tokens.confirm(gone.apiToken)).toBe(false);
  });

  it("starts over past its bound", async () => {
    const other = await anotherProject("phc_bounded_cache");
    const tokens = new ProjectTokenCache(database.prisma, database.changes, 1);
    await tokens.projectIdOf(boot.project_api_token);
    expect(await tokens.projectIdOf(other.apiToken)).toBe(other.id);
    expect(tokens.peek(boot.project_api_token)).toBeUndefined();
    expect(tokens.peek(other.apiToken)).toBe(other.id);
  });
});
