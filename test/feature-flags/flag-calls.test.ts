/**
 * `last_called_at` from `$feature_flag_called` events (posthog-behavior.md §2.12), on both backends:
 * posthog-node (unchanged) sends the events through `/batch/`, the server's roll-up job is run on
 * demand (`app.jobs.runNow`), and the flag's `last_called_at`, `status` and the `active=STALE`
 * list follow, with the services' clock moved forward instead of waiting 30 days.
 */
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FLAG_CALL_ROLLUP } from "../../src/feature-flags/flag-calls.js";
import { drfDateTime } from "../../src/rest/date-time.js";
import { posthogNodeClient } from "../support/capture.js";
import { createFlag, flagsPath } from "../support/flags.js";
import { itWhere } from "../support/it-where.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const DAY = 24 * 60 * 60 * 1000;

/** How far the services' clock is ahead of the real one. */
let clockOffsetMs = 0;

describeEachBackend(
  "flag calls rolled up into last_called_at",
  (server, backend) => {
    let client: PostHog;
    let called: { id: number; key: string };
    let quiet: { id: number; key: string };
    beforeAll(async () => {
      const s = server();
      clockOffsetMs = 0;
      client = await posthogNodeClient(s);
      called = await createFlag(s, { key: "fc-called" });
      quiet = await createFlag(s, { key: "fc-quiet" });
    });
    afterAll(async () => {
      await client.shutdown();
    });

    const rollUp = () => server().app.jobs.runNow(FLAG_CALL_ROLLUP);
    const flagRow = (id: number) => server().db.featureFlag.findUniqueOrThrow({ where: { id } });
    const revision = async (s: TestServer) =>
      (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).revision;
    const status = async (id: number) =>
      (await server().request("GET", flagsPath(server(), `${id}/status/`))).body;
    const sendCall = (key: string, distinctId: string, timestamp?: Date) =>
      client.capture({
        distinctId,
        event: "$feature_flag_called",
        properties: { $feature_flag: key, $feature_flag_response: true },
        ...(timestamp ? { timestamp } : {}),
      });

    it("leaves last_called_at alone while events arrive, until a roll-up", async () => {
      sendCall(called.key, "user-1");
      sendCall(called.key, "user-2");
      sendCall("fc-no-such-flag", "user-1");
      // Older than the first roll-up looks back (PostHog's one day).
      sendCall(quiet.key, "user-3", new Date(Date.now() - 2 * DAY));
      await client.flush();
      const stored = await server().db.event.count({
        where: { projectId: server().projectId, event: "$feature_flag_called" },
      });
      expect(stored).toBe(4);
      expect((await flagRow(called.id)).lastCalledAt).toBeNull();
      expect(await status(called.id)).toEqual({ status: "active", reason: "Flag has no usage data yet" });
    });

    it("moves last_called_at to the latest call in one write: no version, activity entry or updated_at", async () => {
      const s = server();
      const before = await flagRow(called.id);
      const revisionBefore = await revision(s);
      const activityBefore = await s.db.activityLog.count({ where: { projectId: s.projectId } });
      const result = await rollUp();
      expect(result).toMatchObject({ skipped: false, flagsUpdated: 1 });
      const [latest] = await s.db.event.findMany({
        where: {
          projectId: s.projectId,
          event: "$feature_flag_called",
          properties: { path: ["$feature_flag"], equals: called.key },
        },
        orderBy: { timestamp: "desc" },
        take: 1,
      });
      const after = await flagRow(called.id);
      expect(after.lastCalledAt?.toISOString()).toBe(latest!.timestamp.toISOString());
      expect({ version: after.version, updatedAt: after.updatedAt }).toEqual({
        version: before.version,
        updatedAt: before.updatedAt,
      });
      expect(await s.db.activityLog.count({ where: { projectId: s.projectId } })).toBe(activityBefore);
      expect(await revision(s)).toBe(revisionBefore + 1n);
      expect((await flagRow(quiet.id)).lastCalledAt).toBeNull();
      expect(await status(called.id)).toEqual({ status: "active", reason: "Flag was called today" });
      const record = await s.request("GET", flagsPath(s, `${called.id}/`));
      expect(record.body.last_called_at).toBe(drfDateTime(latest!.timestamp));
    });

    it("writes nothing, and keeps the revision, when no flag's last call moved", async () => {
      const s = server();
      const revisionBefore = await revision(s);
      const stored = (await flagRow(called.id)).lastCalledAt;
      // A call older than the stored one, but inside the window (late events are read again).
      sendCall(called.key, "user-4", new Date(stored!.getTime() - 30 * 60_000));
      await client.flush();
      expect(await rollUp()).toMatchObject({ skipped: false, flagsUpdated: 0 });
      expect((await flagRow(called.id)).lastCalledAt).toEqual(stored);
      expect(await revision(s)).toBe(revisionBefore);
    });

    it("turns a flag STALE 30 days after its last call, in its status and in the list", async () => {
      const s = server();
      clockOffsetMs = 31 * DAY;
      expect(await status(called.id)).toEqual({
        status: "stale",
        reason: "Flag has not been called in 31 days",
      });
      const listed = await s.request("GET", flagsPath(s, "?active=STALE"));
      expect(listed.body.results.map((f: { key: string }) => f.key)).toContain(called.key);
      // A new call (posthog-node's clock agrees with the server's moved one) makes it active again.
      sendCall(called.key, "user-5", new Date(Date.now() + clockOffsetMs - 60_000));
      await client.flush();
      expect(await rollUp()).toMatchObject({ flagsUpdated: 1 });
      expect(await status(called.id)).toEqual({ status: "active", reason: "Flag was called today" });
      const relisted = await s.request("GET", flagsPath(s, "?active=STALE"));
      expect(relisted.body.results.map((f: { key: string }) => f.key)).not.toContain(called.key);
    });

    itWhere(backend === "postgres")(
      "skips a run while another process holds the roll-up's advisory lock",
      async () => {
        const s = server();
        // Prisma's transaction is another pooled connection: for the roll-up, another process.
        const result = await s.db.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT pg_advisory_xact_lock(${0x5342}::int, ${1}::int)::text AS locked`;
          return rollUp();
        });
        expect(result).toEqual({ skipped: true, projects: 0, flagsUpdated: 0 });
        expect(await rollUp()).toMatchObject({ skipped: false });
      },
    );
  },
  { now: () => new Date(Date.now() + clockOffsetMs) },
);
