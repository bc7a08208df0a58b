import { expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("operability", (server) => {
  it("answers /healthz while the process is up, naming its version and commit", async () => {
    const response = await server().request("GET", "/healthz", { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ok", version: expect.any(String) });
  });

  it("answers /readyz when the database answers and every migration is applied", async () => {
    const response = await server().request("GET", "/readyz", { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ready", pending: [] });
  });

  it("reports not ready when a migration is missing from the database", async () => {
    const s = server();
    const [row] = await s.db.$queryRaw<
      { migration_name: string }[]
    >`SELECT migration_name FROM _prisma_migrations LIMIT 1`;
    await s.db
      .$executeRaw`UPDATE _prisma_migrations SET migration_name = 'renamed' WHERE migration_name = ${row!.migration_name}`;
    try {
      const response = await s.request("GET", "/readyz", { key: null });
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: "not_ready", pending: [row!.migration_name] });
    } finally {
      await s.db
        .$executeRaw`UPDATE _prisma_migrations SET migration_name = ${row!.migration_name} WHERE migration_name = 'renamed'`;
    }
  });

  it("sends Server-Timing with database time and statement count, and a request id", async () => {
    const s = server();
    const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`);
    const timing = response.headers.get("server-timing");
    expect(timing).toMatch(/^db;dur=\d+\.\d;desc="\d+ statements?"$/);
    const statements = Number(timing!.match(/desc="(\d+)/)![1]);
    expect(statements).toBeGreaterThanOrEqual(1);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await s.request("GET", "/healthz", { key: null, headers: { "x-request-id": "abc-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
  });

  it("answers unknown paths with PostHog's 404 body", async () => {
    const response = await server().request("GET", "/api/nothing-here/");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      type: "invalid_request",
      code: "not_found",
      detail: "Not found.",
      attr: null,
    });
  });
});

describeEachBackend("statement counts and unexpected errors", (server) => {
  it("lists a REST page of 100 flags with creators and tags in as many statements as a page of 10", async () => {
    const s = server();
    const projectId = await s.createProject("Counted");
    await s.db.featureFlag.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({
        projectId,
        key: `counted-${i}`,
        createdById: s.userId,
      })),
    });
    const page = async (limit: number) => {
      const response = await s.request("GET", `/api/projects/${projectId}/feature_flags/?limit=${limit}`);
      expect(response.body.results).toHaveLength(limit);
      return Number(response.headers.get("server-timing")!.match(/desc="(\d+)/)![1]);
    };
    await page(1); // the key's hourly last_used_at write happens once
    const ten = await page(10);
    expect(await page(100)).toBe(ten);
    // The page with its creators, modifiers, tags and total count: one statement, whatever the page
    // size. The key (with its user, memberships and their projects) is known to the process once
    // seen (core/auth/actor-cache.ts); test/db/change-feed.test.ts shows a change still reaches it.
    expect(ten).toBe(1);
    const one = await s.request(
      "GET",
      `/api/projects/${projectId}/feature_flags/${(await s.db.featureFlag.findFirst({ where: { projectId } }))!.id}/`,
    );
    expect(one.headers.get("server-timing")).toMatch(/desc="1 statement"/);
  });

  it("masks an unexpected failure as PostHog's 500 body and logs it", async () => {
    const s = server();
    await s.db.$executeRawUnsafe("ALTER TABLE feature_flags RENAME TO feature_flags_away");
    try {
      const response = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`);
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        type: "server_error",
        code: "error",
        detail: "A server error occurred.",
        attr: null,
      });
      expect(response.text).not.toContain("feature_flags");
      const logged = s.errorLogs.find((entry) => entry["msg"] === "unexpected error");
      expect(logged).toBeDefined();
      expect(JSON.stringify(logged)).toContain("feature_flags");
    } finally {
      await s.db.$executeRawUnsafe("ALTER TABLE feature_flags_away RENAME TO feature_flags");
    }
  });
});
