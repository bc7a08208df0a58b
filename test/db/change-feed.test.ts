/**
 * The change feed (migration `change_feed`, src/db/change-feed.ts) and the caches that trust it
 * (core/project-revisions.ts, core/auth/actor-cache.ts), on PGlite and PostgreSQL: committed
 * writes are heard, this process's own before the write returns; rolled-back writes are not; keys
 * seen before cost no statement, yet a changed or revoked key is refused at once; a second process
 * on the same PostgreSQL hears within a second; a lost listener turns the caches off until it is back.
 */
import { expect, it } from "vitest";
import { hashApiKey } from "../../src/core/auth/api-keys.js";
import { dataAccessOf } from "../../src/core/context.js";
import { type DatabaseChange, LISTENER_NAME } from "../../src/db/change-feed.js";
import { openDatabase } from "../../src/db/database.js";
import { projectToken } from "../support/capture.js";
import { eventually } from "../support/eventually.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { adminQuery } from "../support/postgres.js";
import { describeEachBackend, statementsOf, type TestServer } from "../support/server.js";

/** Records what the server's feed delivers from now on. */
function listen(s: TestServer): { heard: DatabaseChange[]; stop: () => void } {
  const heard: DatabaseChange[] = [];
  const stop = s.database.changes.subscribe((change) => heard.push(change));
  return { heard, stop };
}

async function revisionOf(s: TestServer, projectId = s.projectId): Promise<bigint> {
  return (await s.db.project.findUniqueOrThrow({ where: { id: projectId } })).revision;
}

const definitionsPath = async (s: TestServer) => `/flags/definitions?token=${await projectToken(s)}`;

describeEachBackend("change feed", (server, backend) => {
  it("announces a committed write's new revision before the write's answer, and a rolled-back one not at all", async () => {
    const s = server();
    const { heard, stop } = listen(s);
    try {
      const created = await s.request("POST", flagsPath(s), { body: { key: "feed-announced" } });
      expect(created.status, created.text).toBe(201);
      const revision = await revisionOf(s);
      expect(heard).toContainEqual({ kind: "revision", projectId: s.projectId, revision });

      heard.length = 0;
      await expect(
        s.db.$transaction(async (tx) => {
          await tx.featureFlag.update({ where: { id: created.body.id }, data: { name: "never" } });
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual([]);
      expect(await revisionOf(s)).toBe(revision);
    } finally {
      stop();
    }
  });

  it("announces access changes to keys, but not the hourly last_used_at", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read"]);
    const { heard, stop } = listen(s);
    try {
      await s.db.personalApiKey.update({
        where: { secureValue: hashApiKey(key) },
        data: { lastUsedAt: new Date() },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual([]);
      const updated = await s.db.personalApiKey.update({
        where: { secureValue: hashApiKey(key) },
        data: { scopes: ["feature_flag:write"] },
      });
      expect(heard).toEqual([{ kind: "access", keyId: updated.id }]);
    } finally {
      stop();
    }
  });

  it("names the key, user or project an access change is about", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read"]);
    const keyId = (await s.db.personalApiKey.findUniqueOrThrow({ where: { secureValue: hashApiKey(key) } }))
      .id;
    const projectId = await s.createProject("Named");
    const other = await s.db.user.create({ data: { email: "named@example.com", distinctId: "named" } });
    const { heard, stop } = listen(s);
    const next = async (write: () => Promise<unknown>) => {
      heard.length = 0;
      await write();
      return heard.filter((change) => change.kind === "access");
    };
    try {
      expect(await next(() => s.db.$executeRaw`DELETE FROM personal_api_keys WHERE id = ${keyId}`)).toEqual([
        { kind: "access", keyId },
      ]);
      expect(
        await next(() =>
          s.db.organizationMembership.create({
            data: { organizationId: s.organizationId, userId: other.id },
          }),
        ),
      ).toEqual([{ kind: "access", userId: other.id }]);
      expect(
        await next(() => s.db.$executeRaw`DELETE FROM organization_memberships WHERE user_id = ${other.id}`),
      ).toEqual([{ kind: "access", userId: other.id }]);
      expect(
        await next(() => s.db.user.update({ where: { id: other.id }, data: { isActive: false } })),
      ).toEqual([{ kind: "access", userId: other.id }]);
      expect(
        await next(() =>
          s.db.project.update({ where: { id: projectId }, data: { apiToken: "phc_rotated_named" } }),
        ),
      ).toEqual([{ kind: "access", projectId }]);
      // A revision alone is no access change.
      expect(
        await next(
          () => s.db.$executeRaw`UPDATE projects SET revision = revision + 1 WHERE id = ${projectId}`,
        ),
      ).toEqual([]);
      expect(await next(() => s.db.project.delete({ where: { id: projectId } }))).toEqual([
        { kind: "access", projectId },
      ]);
    } finally {
      stop();
    }
  });

  it("delivers each transaction's access change once, though every pooled connection hears it", async () => {
    const s = server();
    // Several pooled connections, each LISTENing (PostgreSQL; PGlite has one session).
    await Promise.all(Array.from({ length: 4 }, () => s.db.$executeRaw`SELECT pg_sleep(0.05)`));
    const { heard, stop } = listen(s);
    const accessHeard = () => heard.filter((change) => change.kind === "access").length;
    try {
      await s.createProject("Announced once");
      expect(accessHeard()).toBe(1);
      // The other connections' copies come later, and are dropped: a cache filled after the write
      // is not emptied again.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(accessHeard()).toBe(1);
      // Another transaction is another change.
      await s.createProject("Announced again");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(accessHeard()).toBe(2);
    } finally {
      stop();
    }
  });

  it("serves a known key without a statement, and refuses it at once when its scopes change or it is deleted", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read"]);
    const definitions = await definitionsPath(s);
    const first = await s.request("GET", definitions, { key });
    expect(first.status, first.text).toBe(200);
    const again = await s.request("GET", definitions, { key });
    expect(again.status).toBe(200);
    expect(statementsOf(again)).toBe(0);
    expect(again.text).toBe(first.text);

    // Changed outside any service (as psql would): the trigger announces it.
    await s.db
      .$executeRaw`UPDATE personal_api_keys SET scopes = ARRAY['cohort:read'] WHERE secure_value = ${hashApiKey(key)}`;
    const narrowed = await s.request("GET", definitions, { key });
    expect(narrowed.status, narrowed.text).toBe(403);

    await s.db.$executeRaw`DELETE FROM personal_api_keys WHERE secure_value = ${hashApiKey(key)}`;
    const revoked = await s.request("GET", definitions, { key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe("authentication_failed");
  });

  it("answers a conditional GET after a write with the new data, though the key and revision were cached", async () => {
    const s = server();
    await createFlag(s, { key: "feed-etag" });
    const before = await s.request("GET", flagsPath(s));
    const etag = before.headers.get("etag")!;
    const cached = await s.request("GET", flagsPath(s), { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(statementsOf(cached)).toBe(0);
    await createFlag(s, { key: "feed-etag-2" });
    const after = await s.request("GET", flagsPath(s), { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.body.results.map((f: { key: string }) => f.key)).toContain("feed-etag-2");
  });

  it("evaluates /flags with the definitions' revision from the feed: no statement once warm, new flags at once", async () => {
    const s = server();
    await createFlag(s, { key: "feed-remote", filters: { groups: [{ rollout_percentage: 100 }] } });
    const token = await projectToken(s);
    const ask = () =>
      s.request("POST", "/flags/?v=2", { key: null, body: { token, distinct_id: "feed-user" } });
    await ask();
    const warm = await ask();
    expect(warm.body.flags["feed-remote"].enabled).toBe(true);
    // Neither the revision (the feed's) nor the subject (a rollout alone needs nothing stored) is read.
    expect(statementsOf(warm)).toBe(0);
    await createFlag(s, { key: "feed-remote-2", filters: { groups: [{ rollout_percentage: 100 }] } });
    expect((await ask()).body.flags["feed-remote-2"]?.enabled).toBe(true);
  });

  if (backend === "postgres") {
    it("reaches a second process on the same PostgreSQL within a second", async () => {
      const s = server();
      const other = await openDatabase({ kind: "postgres", url: s.databaseUrl! });
      try {
        const data = dataAccessOf(other);
        expect(await data.revisions.current(s.projectId)).toBe(await revisionOf(s));
        await createFlag(s, { key: "feed-cross-process" });
        const revision = await revisionOf(s);
        expect(await eventually(() => data.revisions.peek(s.projectId) === revision)).toBe(true);
      } finally {
        await other.close();
      }
    });

    it("forgets what it cached while its listening connection is lost, and caches again once it is back", async () => {
      const s = server();
      const data = dataAccessOf(s.database);
      const definitions = await definitionsPath(s);
      await s.request("GET", definitions);
      expect(statementsOf(await s.request("GET", definitions))).toBe(0);
      expect(data.revisions.peek(s.projectId)).toBeDefined();

      const name = new URL(s.databaseUrl!).pathname.slice(1);
      await adminQuery(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${LISTENER_NAME}' AND datname = '${name}'`,
      );
      expect(await eventually(() => !s.database.changes.live)).toBe(true);
      expect(data.revisions.peek(s.projectId)).toBeUndefined();
      expect(await eventually(() => s.database.changes.live, 10_000)).toBe(true);
      // Changes may have been missed meanwhile: nothing cached before survives.
      expect(data.revisions.peek(s.projectId)).toBeUndefined();
      expect(statementsOf(await s.request("GET", definitions))).toBeGreaterThan(0);
      expect(statementsOf(await s.request("GET", definitions))).toBe(0);
    });
  }
});
