/**
 * Endpoint materialization over REST, on PGlite and PostgreSQL (posthog-behavior.md §4.3–4.6,
 * query-and-experiments.md 1e): auto-enable on create, PATCH `is_materialized`/`sync_frequency` with
 * PostHog's rules and messages, a query change moving it to the new version, deactivation, a refresh
 * on the job queue storing the result and its status (or the error), `freshMaterializedResult` for
 * `run`, DELETE removing rows and the scheduled job, and the scopes.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { dataAccessOf } from "../../src/core/context.js";
import {
  createMaterializationService,
  materializeJobKey,
} from "../../src/endpoints/materialization/materialization.service.js";
import { createQueryService } from "../../src/queries/query.service.js";
import { describeEachBackend, startTestServer, type TestServer } from "../support/server.js";

const hogql = (query: string) => ({ kind: "HogQLQuery", query });
const base = (s: TestServer) => `/api/projects/${s.projectId}/endpoints`;

/** Polls `read` until `done` holds (at most 30 s), and returns the last value. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Jobs the queue holds under version `versionId`'s key (waiting or running). */
async function jobsOf(s: TestServer, versionId: string): Promise<number> {
  const key = materializeJobKey(versionId);
  const rows =
    s.backend === "pglite"
      ? await s.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM job_queue WHERE job_key = ${key}`
      : await s.db.$queryRaw<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE key = ${key}`;
  return rows[0]?.n ?? 0;
}

describeEachBackend("endpoint materialization over REST", (server, backend) => {
  let counter = 0;
  const fresh = () => `mat_${++counter}`;
  const create = async (body: Record<string, unknown>) => {
    const answer = await server().request("POST", `${base(server())}/`, { body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };
  const status = async (name: string) => {
    const answer = await server().request("GET", `${base(server())}/${name}/materialization_status/`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const versionId = async (name: string, version = 1) => {
    const row = await server().db.endpointVersion.findFirstOrThrow({
      where: { endpoint: { name, projectId: server().projectId }, version },
    });
    return row.id;
  };

  describe("enabling and disabling", () => {
    it("materializes a materializable HogQL query on create, every 24 hours, and refreshes it at once", async () => {
      const name = fresh();
      const body = await create({ name, query: hogql("SELECT 1 AS one, 'a' AS letter") });
      expect(body.is_materialized).toBe(true);
      expect(body.materialization).toMatchObject({ can_materialize: true, sync_frequency: "24hour" });
      const done = await waitFor(
        () => status(name),
        (value) => value.status === "Completed",
      );
      expect(done).toEqual({
        status: "Completed",
        can_materialize: true,
        last_materialized_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        error: "",
        sync_frequency: "24hour",
      });
      const id = await versionId(name);
      const rows = await server().db.endpointMaterializedRow.findMany({ where: { versionId: id } });
      expect(rows.map((row) => row.values)).toEqual([[1, "a"]]);
      // The next refresh waits under the version's key.
      expect(await jobsOf(server(), id)).toBe(1);
    });

    it("leaves materialization off when asked, and for what cannot be materialized", async () => {
      const off = await create({ name: fresh(), query: hogql("SELECT 1"), is_materialized: false });
      expect(off.is_materialized).toBe(false);
      expect(off.materialization).toEqual({ can_materialize: true, reason: null });
      const variables = await create({
        name: fresh(),
        query: hogql("SELECT count() FROM events WHERE event = {variables.e}"),
      });
      expect(variables.is_materialized).toBe(false);
      expect(variables.materialization.reason).toMatch(/^Variables not supported: /);
    });

    it("enables, re-times and disables through PATCH with PostHog's rules and messages", async () => {
      const s = server();
      const name = fresh();
      await create({ name, query: hogql("SELECT 1"), is_materialized: false });
      const patch = (body: Record<string, unknown>) => s.request("PATCH", `${base(s)}/${name}/`, { body });

      const on = await patch({ is_materialized: true, sync_frequency: "1hour" });
      expect(on.status, on.text).toBe(200);
      expect(on.body).toMatchObject({
        is_materialized: true,
        materialization: { can_materialize: true, sync_frequency: "1hour" },
      });
      const retimed = await patch({ sync_frequency: "6hour" });
      expect(retimed.body.materialization.sync_frequency).toBe("6hour");

      const bad = await patch({ sync_frequency: "1min" });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ attr: "sync_frequency", detail: '"1min" is not a valid choice.' });
      const both = await patch({ is_materialized: false, sync_frequency: "1hour" });
      expect(both.status).toBe(400);
      expect(both.body).toMatchObject({
        attr: "sync_frequency",
        detail: "Cannot set sync_frequency when disabling materialization.",
      });

      const id = await versionId(name);
      const disabled = await patch({ is_materialized: false });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({
        is_materialized: false,
        materialization: { can_materialize: true, reason: null },
      });
      expect(await s.db.endpointMaterialization.count({ where: { versionId: id } })).toBe(0);
      // The job re-enqueued to run now finds nothing and leaves no successor.
      await waitFor(
        () => jobsOf(s, id),
        (n) => n === 0,
      );

      const inactive = await patch({ is_active: false, is_materialized: true });
      expect(inactive.status).toBe(400);
      expect(inactive.body).toMatchObject({
        attr: "is_materialized",
        detail: "Cannot enable materialization on inactive endpoint.",
      });
      const variables = await s.request("PATCH", `${base(s)}/${name}/`, {
        body: { query: hogql("SELECT 1 FROM events WHERE event = {variables.e}"), is_materialized: true },
      });
      expect(variables.status).toBe(400);
      expect(variables.body.detail).toMatch(/^Cannot materialize endpoint: Variables not supported: /);
    });

    it("moves materialization to a new version keeping its frequency, and deactivating disables it", async () => {
      const s = server();
      const name = fresh();
      await create({ name, query: hogql("SELECT 1"), sync_frequency: "12hour" });
      const first = await versionId(name);
      const moved = await s.request("PATCH", `${base(s)}/${name}/`, { body: { query: hogql("SELECT 2") } });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body).toMatchObject({
        current_version: 2,
        is_materialized: true,
        materialization: { can_materialize: true, sync_frequency: "12hour" },
      });
      const second = await versionId(name, 2);
      expect(await s.db.endpointMaterialization.count({ where: { versionId: first } })).toBe(0);
      const done = await waitFor(
        () => status(name),
        (value) => value.status === "Completed",
      );
      expect(done.sync_frequency).toBe("12hour");
      expect(
        (await s.db.endpointMaterializedRow.findMany({ where: { versionId: second } })).map((r) => r.values),
      ).toEqual([[2]]);

      const off = await s.request("PATCH", `${base(s)}/${name}/`, { body: { is_active: false } });
      expect(off.body).toMatchObject({ is_active: false, is_materialized: false });
      expect(await s.db.endpointMaterialization.count({ where: { versionId: second } })).toBe(0);
      const activity = await s.db.activityLog.findMany({
        where: { scope: "Endpoint", activity: "updated", itemId: moved.body.id },
        orderBy: { createdAt: "asc" },
      });
      const fields = activity.flatMap((entry) =>
        ((entry.detail as { changes: Array<{ field: string }> | null }).changes ?? []).map((c) => c.field),
      );
      expect(fields).toContain("is_materialized");
    });
  });

  describe("refreshing", () => {
    it("stores the result of a run (runNow) and answers it fresh to run", async () => {
      const s = server();
      const name = fresh();
      await create({ name, query: hogql("SELECT arrayJoin([0, 1, 2]) AS n"), sync_frequency: "1hour" });
      const id = await versionId(name);
      // Create queues a refresh at once: let the queue's run finish first, so that it cannot
      // complete after runNow's and move `lastRunAt` under this test's comparison.
      await waitFor(
        () => status(name),
        (value) => value.status === "Completed",
      );
      const outcome = (await s.app.jobs.runNow("endpoint-materialize", { versionId: id })) as {
        outcome: string;
        rows: number;
      };
      expect(outcome).toMatchObject({ outcome: "completed", rows: 3 });
      const materialization = await s.db.endpointMaterialization.findUniqueOrThrow({
        where: { versionId: id },
      });
      expect(materialization).toMatchObject({ status: "Completed", latestError: null, rowCount: 3 });
      expect(materialization.columns).toEqual(["n"]);

      const [record] = await s.db.endpointVersion.findMany({ where: { id } });
      const version = {
        id,
        projectId: s.projectId,
        isMaterialized: record!.isMaterialized,
        materialization: {
          status: materialization.status,
          syncFrequency: materialization.syncFrequency,
          lastRunAt: materialization.lastRunAt,
        },
      };
      // The function `run` uses, called directly (as the other helper's run path will).
      const materializations = createMaterializationService(
        { now: () => new Date(), config: loadConfig({}), data: dataAccessOf(s.database) },
        createQueryService({ now: () => new Date(), config: loadConfig({}) }, []),
      );
      const answer = await materializations.freshMaterializedResult(
        { db: s.db },
        version,
        new Date(materialization.lastRunAt!.getTime() + 60_000),
      );
      expect(answer).toEqual({
        columns: ["n"],
        types: [["n", expect.any(String)]],
        results: [[0], [1], [2]],
        materializedAt: materialization.lastRunAt,
      });
      // Stale after the interval (1 hour), and never for a version whose last run did not complete.
      expect(
        await materializations.freshMaterializedResult(
          { db: s.db },
          version,
          new Date(materialization.lastRunAt!.getTime() + 3_600_000),
        ),
      ).toBeNull();
      expect(
        await materializations.freshMaterializedResult(
          { db: s.db },
          { ...version, materialization: { ...version.materialization, status: "Failed" } },
          new Date(materialization.lastRunAt!.getTime() + 60_000),
        ),
      ).toBeNull();
    });

    it("waits a whole interval before the next refresh, though the service clock lags the queue's by years", async () => {
      // The service clock decides how long until the next refresh; the queue counts it on its own
      // clock. Handing the queue the service clock's instant instead made every refresh due at once
      // whenever that clock lagged (a test's fixed clock, days later): each run enqueued the next, forever.
      const s = await startTestServer(backend, { now: () => new Date("2020-01-01T00:00:00Z") });
      try {
        const name = "lagging_clock";
        const created = await s.request("POST", `${base(s)}/`, {
          body: { name, query: hogql("SELECT 1 AS one"), sync_frequency: "5min" },
        });
        expect(created.status, created.text).toBe(201);
        const { id } = await s.db.endpointVersion.findFirstOrThrow({
          where: { endpoint: { name, projectId: s.projectId } },
        });
        const read = () => s.db.endpointMaterialization.findUniqueOrThrow({ where: { versionId: id } });
        await waitFor(read, (row) => row.status === "Completed");
        // Each refresh takes milliseconds: a refresh due at once would have run many times by now.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(await read()).toMatchObject({ status: "Completed", runCount: 1 });
        expect(await jobsOf(s, id)).toBe(1);
      } finally {
        await s.close();
      }
    });

    it("pauses the schedule after failures in a row, with PostHog's message, across restarts, until it is set again", async () => {
      const s = await startTestServer(backend, { env: { ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE: "2" } });
      try {
        // 64,000 rows: more than the query engine answers, so every refresh fails (never stored truncated).
        const set = (i: number) =>
          `(SELECT arrayJoin([${Array.from({ length: 40 }, (_, n) => n).join(", ")}]) AS x${i}) AS t${i}`;
        const name = "always_failing";
        const created = await s.request("POST", `${base(s)}/`, {
          body: { name, query: hogql(`SELECT x0 FROM ${[0, 1, 2].map(set).join(" CROSS JOIN ")}`) },
        });
        expect(created.status, created.text).toBe(201);
        const { id } = await s.db.endpointVersion.findFirstOrThrow({
          where: { endpoint: { name, projectId: s.projectId } },
        });
        const read = () => s.db.endpointMaterialization.findUniqueOrThrow({ where: { versionId: id } });
        // The refresh create queued fails once; the next waits a whole interval (never at once).
        await waitFor(read, (row) => row.consecutiveFailures === 1);
        expect(await jobsOf(s, id)).toBe(1);
        expect(await s.app.jobs.runNow("endpoint-materialize", { versionId: id })).toMatchObject({
          outcome: "paused",
          failures: 2,
        });
        const statusOf = async () =>
          (await s.request("GET", `${base(s)}/${name}/materialization_status/`)).body;
        const paused = await statusOf();
        expect(paused).toMatchObject({ status: "Failed", can_materialize: true });
        expect(paused.error).toMatch(
          /^This materialized view sync schedule has been paused until you modify the query and reset the sync schedule\. Error: The result has 50000 rows or more/,
        );
        // A restart restores every schedule but the paused one.
        const restarted = createMaterializationService(
          { now: () => new Date(), config: loadConfig({}), data: dataAccessOf(s.database) },
          createQueryService({ now: () => new Date(), config: loadConfig({}) }, []),
        );
        await restarted.attachQueue(s.app.jobs);
        // The refresh that was waiting ran and ended without a successor; none was restored.
        await waitFor(
          () => jobsOf(s, id),
          (jobs) => jobs === 0,
        );
        expect((await read()).runCount).toBe(2);
        // Setting the materialization again resumes it: a refresh at once, the count of failures reset.
        const reset = await s.request("PATCH", `${base(s)}/${name}/`, {
          body: { is_materialized: true, sync_frequency: "1hour" },
        });
        expect(reset.status, reset.text).toBe(200);
        await waitFor(read, (row) => !row.paused && row.runCount === 3 && row.status === "Failed");
        expect(await read()).toMatchObject({ paused: false, consecutiveFailures: 1 });
      } finally {
        await s.close();
      }
    });

    it("answers run from the fresh stored result, and `direct` or a limit computes past it", async () => {
      const s = server();
      const name = fresh();
      await create({ name, query: hogql("SELECT count() AS n FROM events"), sync_frequency: "1hour" });
      const id = await versionId(name);
      await waitFor(
        () => s.db.endpointMaterialization.findUnique({ where: { versionId: id } }),
        (row) => row?.status === "Completed",
      );
      // An event after the refresh: the stored result does not count it, a computed one does.
      await s.db.event.create({
        data: {
          projectId: s.projectId,
          uuid: crypto.randomUUID(),
          event: "after refresh",
          distinctId: "late",
          timestamp: new Date(),
        },
      });
      const run = (body: Record<string, unknown>) =>
        s.request("POST", `${base(s)}/${name}/run/`, { body }).then((answer) => {
          expect(answer.status, answer.text).toBe(200);
          return answer.body;
        });
      const stored = await run({});
      const computed = await run({ refresh: "direct" });
      expect(stored).toMatchObject({ endpoint_materialized: true, columns: ["n"], hasMore: false });
      expect(stored.endpoint_materialized_at).toBe(stored.last_refresh);
      expect(computed.endpoint_materialized).toBeUndefined();
      expect(computed.results[0][0]).toBe(stored.results[0][0] + 1);
      expect((await run({ limit: 10 })).endpoint_materialized).toBeUndefined();
      // `direct` is for materialized endpoints only.
      const plain = fresh();
      await create({ name: plain, query: hogql("SELECT 1 AS n"), is_materialized: false });
      const refused = await s.request("POST", `${base(s)}/${plain}/run/`, { body: { refresh: "direct" } });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toMatch(/^'direct' refresh mode is only valid for materialized endpoints/);
    });

    it("records a failed run's error and keeps the schedule", async () => {
      const s = server();
      const name = fresh();
      await create({ name, query: hogql("SELECT count() FROM no_such_table"), sync_frequency: "1hour" });
      const id = await versionId(name);
      const failed = await waitFor(
        () => status(name),
        (value) => value.status === "Failed",
      );
      expect(failed).toMatchObject({
        can_materialize: true,
        last_materialized_at: null,
        sync_frequency: "1hour",
      });
      expect(failed.error).toMatch(/no_such_table/);
      expect(await jobsOf(s, id)).toBe(1);
    });
  });

  it("deletes the stored rows and the scheduled job with the endpoint", async () => {
    const s = server();
    const name = fresh();
    await create({ name, query: hogql("SELECT 1") });
    const id = await versionId(name);
    await waitFor(
      () => status(name),
      (value) => value.status === "Completed",
    );
    expect(await s.db.endpointMaterializedRow.count({ where: { versionId: id } })).toBe(1);
    const deleted = await s.request("DELETE", `${base(s)}/${name}/`);
    expect(deleted.status).toBe(204);
    expect(await s.db.endpointMaterialization.count({ where: { versionId: id } })).toBe(0);
    expect(await s.db.endpointMaterializedRow.count({ where: { versionId: id } })).toBe(0);
    await waitFor(
      () => jobsOf(s, id),
      (n) => n === 0,
    );
    expect(await s.app.jobs.runNow("endpoint-materialize", { versionId: id })).toEqual({
      outcome: "gone",
      versionId: id,
    });
  });

  it("answers materialization_status only with endpoint:read, and PATCH only with endpoint:write", async () => {
    const s = server();
    const name = fresh();
    await create({ name, query: hogql("SELECT 1"), is_materialized: false });
    const none = await s.createKey(["feature_flag:read"]);
    const refused = await s.request("GET", `${base(s)}/${name}/materialization_status/`, { key: none });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("API key missing required scope 'endpoint:read'");
    const readOnly = await s.createKey(["endpoint:read"]);
    const patch = await s.request("PATCH", `${base(s)}/${name}/`, {
      key: readOnly,
      body: { is_materialized: true },
    });
    expect(patch.status).toBe(403);
    expect(await status(name)).toEqual({ can_materialize: true, reason: null });
  });
});
