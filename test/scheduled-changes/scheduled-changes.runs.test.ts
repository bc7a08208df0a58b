/**
 * Scheduled changes applied, on both backends through the real server and its job queue
 * (posthog/tasks/process_scheduled_changes.py; the flag's dispatcher in
 * products/feature_flags/backend/models/feature_flag.py):
 * - on time: a change due a few seconds ahead is applied by its queued run within 5 s of its time,
 *   through the flag's update path as its creator (version + 1, an activity entry with PostHog's
 *   trigger, delivered to a webhook with it);
 * - with the services' clock moved by the test (`now`), the sweep job: each operation, PostHog's
 *   failure messages (permanent ones end the schedule, the flag untouched), recurrences (a month end
 *   clamped, a cron expression in the project's time zone across a daylight-saving change, runs
 *   missed while late skipped), end dates, pausing, and one application however many runs race.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEDULED_CHANGES_SWEEP_JOB } from "../../src/scheduled-changes/scheduled-changes.runs.js";
import { eventually } from "../support/eventually.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { type Receiver, startReceiver } from "../webhooks/receiver.js";

const base = (project: number) => `/api/projects/${project}/scheduled_changes/`;
const flagPath = (s: TestServer, id: number) => `/api/projects/${s.projectId}/feature_flags/${id}/`;

let keys = 0;
const freshKey = () => `scheduled-run-${++keys}`;

/** A flag with one condition group for everyone, active. */
const plainFlag = (s: TestServer, extra: Record<string, unknown> = {}) =>
  createFlag(s, {
    key: freshKey(),
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    ...extra,
  });

describeEachBackend(
  "scheduled changes applied on time",
  (server) => {
    let s: TestServer;
    let receiver: Receiver;
    beforeAll(async () => {
      s = server();
      receiver = await startReceiver();
      const webhook = await s.request("POST", `/api/projects/${s.projectId}/webhooks/`, {
        body: { url: `${receiver.base}/ok`, kinds: ["feature_flag.updated"] },
      });
      expect(webhook.status, webhook.text).toBe(201);
    });
    afterAll(async () => {
      await receiver.close();
    });

    it("applies a one-time change within 5 s of its time, as its creator, with PostHog's trigger", async () => {
      const flag = await plainFlag(s);
      const due = new Date(Date.now() + 2_000);
      const created = await s.request("POST", base(s.projectId), {
        body: {
          record_id: flag.id,
          model_name: "FeatureFlag",
          payload: { operation: "update_status", value: false },
          scheduled_at: due.toISOString(),
        },
      });
      expect(created.status, created.text).toBe(201);
      const applied = await eventually(async () => {
        const read = await s.request("GET", flagPath(s, flag.id));
        return read.body.active === false;
      }, 9_000);
      expect(applied).toBe(true);

      const stored = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flag.id } });
      expect(stored.version).toBe(flag.version + 1);
      expect(stored.lastModifiedById).toBe(s.userId);
      expect(stored.updatedAt.getTime()).toBeGreaterThanOrEqual(due.getTime());
      expect(stored.updatedAt.getTime()).toBeLessThan(due.getTime() + 5_000);

      const change = await s.request("GET", `${base(s.projectId)}${created.body.id}/`);
      expect(change.body).toMatchObject({
        failure_reason: null,
        last_executed_at: null,
        is_recurring: false,
      });
      expect(new Date(change.body.executed_at).getTime()).toBeGreaterThanOrEqual(due.getTime());

      const activity = await s.request("GET", `${flagPath(s, flag.id)}activity/`);
      expect(activity.status).toBe(200);
      const [entry] = activity.body.results;
      expect(entry).toMatchObject({
        activity: "updated",
        scope: "FeatureFlag",
        item_id: String(flag.id),
        user: { email: "admin@example.com" },
        detail: {
          trigger: {
            job_type: "scheduled_change",
            job_id: String(created.body.id),
            payload: { scheduled_change_id: created.body.id },
          },
        },
      });
      expect(entry.detail.changes).toEqual(
        expect.arrayContaining([
          { type: "FeatureFlag", action: "changed", field: "active", before: true, after: false },
        ]),
      );
      // The webhook delivery of the change carries the trigger too.
      const [delivery] = await receiver.waitFor("/ok", 1);
      expect(JSON.parse(delivery!.body).data).toMatchObject({
        item_id: String(flag.id),
        activity: "updated",
        detail: { trigger: { job_type: "scheduled_change", job_id: String(created.body.id) } },
      });
      // A change made by hand afterwards carries no trigger.
      await s.request("PATCH", flagPath(s, flag.id), { body: { name: "by hand" } });
      const after = await s.request("GET", `${flagPath(s, flag.id)}activity/`);
      expect(after.body.results[0].detail.trigger).toBeNull();
    });

    it("runs a change moved to a new time at that time, not its old one", async () => {
      const flag = await plainFlag(s);
      const created = await s.request("POST", base(s.projectId), {
        body: {
          record_id: flag.id,
          model_name: "FeatureFlag",
          payload: { operation: "update_status", value: false },
          scheduled_at: new Date(Date.now() + 60 * 60_000).toISOString(),
        },
      });
      const due = new Date(Date.now() + 1_500);
      const moved = await s.request("PATCH", `${base(s.projectId)}${created.body.id}/`, {
        body: { scheduled_at: due.toISOString() },
      });
      expect(moved.status, moved.text).toBe(200);
      expect(
        await eventually(
          async () => (await s.request("GET", flagPath(s, flag.id))).body.active === false,
          9_000,
        ),
      ).toBe(true);
    });
  },
  { env: { WEBHOOK_ALLOW_LOOPBACK: "true" } },
);

/** The services' clock, moved by the tests below. */
let clock = new Date("2030-01-31T10:00:00Z");

describeEachBackend(
  "scheduled changes applied by the sweep",
  (server) => {
    let s: TestServer;
    beforeAll(() => {
      s = server();
    });

    /** Schedules `payload` on `flagId` at `at` (with `extra` fields); fails unless 201. */
    const schedule = async (
      flagId: number,
      payload: Record<string, unknown>,
      at: Date,
      extra: Record<string, unknown> = {},
    ): Promise<number> => {
      const created = await s.request("POST", base(s.projectId), {
        body: {
          record_id: flagId,
          model_name: "FeatureFlag",
          payload,
          scheduled_at: at.toISOString(),
          ...extra,
        },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id;
    };

    /** Moves the clock to `at` and runs the sweep job now. */
    const sweepAt = async (at: Date) => {
      clock = at;
      return s.app.jobs.runNow(SCHEDULED_CHANGES_SWEEP_JOB);
    };

    const read = async (id: number) => (await s.request("GET", `${base(s.projectId)}${id}/`)).body;
    const flagOf = async (id: number) => (await s.request("GET", flagPath(s, id))).body;
    const hours = (n: number) => new Date(clock.getTime() + n * 3_600_000);

    describe("operations", () => {
      it("appends release conditions (add_release_condition)", async () => {
        const flag = await plainFlag(s);
        const group = {
          properties: [{ key: "email", type: "person", value: ["a@b.c"], operator: "exact" }],
          rollout_percentage: 50,
        };
        const id = await schedule(
          flag.id,
          { operation: "add_release_condition", value: { groups: [group] } },
          hours(1),
        );
        await sweepAt(hours(2));
        const after = await flagOf(flag.id);
        expect(after.filters.groups).toHaveLength(2);
        expect(after.filters.groups[1]).toMatchObject({
          rollout_percentage: 50,
          properties: [{ key: "email" }],
        });
        expect(after.version).toBe(flag.version + 1);
        expect((await read(id)).executed_at).not.toBeNull();
      });

      it("replaces variants and payloads (update_variants)", async () => {
        const flag = await plainFlag(s, {
          filters: {
            groups: [{ properties: [], rollout_percentage: 100 }],
            multivariate: {
              variants: [
                { key: "a", rollout_percentage: 50 },
                { key: "b", rollout_percentage: 50 },
              ],
            },
          },
        });
        const variants = [
          { key: "a", rollout_percentage: 20 },
          { key: "b", rollout_percentage: 30 },
          { key: "c", rollout_percentage: 50 },
        ];
        const id = await schedule(
          flag.id,
          { operation: "update_variants", value: { variants, payloads: { c: '{"x": 1}' } } },
          hours(1),
        );
        await sweepAt(hours(2));
        const after = await flagOf(flag.id);
        expect(after.filters.multivariate.variants).toEqual(variants);
        expect(after.filters.payloads).toEqual({ c: '{"x": 1}' });
        expect((await read(id)).failure_reason).toBeNull();
      });

      it("switches a flag on and off (update_status)", async () => {
        const flag = await plainFlag(s, { active: false });
        await schedule(flag.id, { operation: "update_status", value: true }, hours(1));
        await sweepAt(hours(2));
        expect((await flagOf(flag.id)).active).toBe(true);
      });
    });

    describe("failures, as PostHog words and classifies them", () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["a payload without value", { operation: "update_status" }, "Invalid payload (permanent error)"],
        [
          "an unknown operation",
          { operation: "rename", value: "x" },
          "Unrecognized operation: rename (permanent error)",
        ],
        [
          "variants not summing to 100",
          { operation: "update_variants", value: { variants: [{ key: "a", rollout_percentage: 90 }] } },
          "Invalid variant rollout percentages: sum is 90, must be 100 (permanent error)",
        ],
        [
          "payloads for unknown variants",
          {
            operation: "update_variants",
            value: { variants: [{ key: "a", rollout_percentage: 100 }], payloads: { z: "1" } },
          },
          "Payload keys {'z'} don't match variant keys {'a'} (permanent error)",
        ],
        [
          "a value the flag refuses",
          { operation: "update_status", value: "banana" },
          "active: Must be a valid boolean. (permanent error)",
        ],
      ];
      for (const [name, payload, message] of cases) {
        it(`ends the schedule on ${name}, the flag untouched`, async () => {
          const flag = await plainFlag(s);
          const id = await schedule(flag.id, payload, hours(1));
          await sweepAt(hours(2));
          const change = await read(id);
          expect(change.failure_reason).toBe(message);
          expect(change.executed_at).toBe(clock.toISOString().replace(".000Z", "Z"));
          const after = await flagOf(flag.id);
          expect(after.version).toBe(flag.version);
          expect(after.active).toBe(true);
          const stored = await s.db.scheduledChange.findUniqueOrThrow({ where: { id } });
          expect(stored.failureCount).toBe(1);
          expect(JSON.parse(stored.failureReason!)).toMatchObject({
            will_retry: false,
            retry_count: 1,
            max_retries: 5,
            error_classification: "unrecoverable",
            hostname: expect.any(String),
          });
          // It never runs again.
          await sweepAt(hours(3));
          expect((await s.db.scheduledChange.findUniqueOrThrow({ where: { id } })).failureCount).toBe(1);
        });
      }

      it("ends the schedule of a flag deleted since", async () => {
        const flag = await plainFlag(s);
        const id = await schedule(flag.id, { operation: "update_status", value: false }, hours(1));
        expect((await s.request("PATCH", flagPath(s, flag.id), { body: { deleted: true } })).status).toBe(
          200,
        );
        await sweepAt(hours(2));
        expect((await read(id)).failure_reason).toBe(
          "FeatureFlag matching query does not exist. (permanent error)",
        );
        expect((await flagOf(flag.id)).active).toBe(true);
      });
    });

    describe("recurrence", () => {
      it("moves a monthly schedule to the next month's end, clamped, and from there on", async () => {
        clock = new Date("2030-01-31T12:00:00Z");
        const flag = await plainFlag(s);
        const id = await schedule(
          flag.id,
          { operation: "update_status", value: false },
          new Date("2030-01-31T13:00:00Z"),
          { is_recurring: true, recurrence_interval: "monthly" },
        );
        await sweepAt(new Date("2030-01-31T13:00:01Z"));
        expect(await read(id)).toMatchObject({
          scheduled_at: "2030-02-28T13:00:00Z",
          last_executed_at: "2030-01-31T13:00:01Z",
          executed_at: null,
        });
        expect((await flagOf(flag.id)).active).toBe(false);
        await sweepAt(new Date("2030-02-28T13:00:00Z"));
        expect((await read(id)).scheduled_at).toBe("2030-03-28T13:00:00Z");
      });

      it("reads a cron expression in the project's time zone, across a daylight-saving change", async () => {
        await s.db.project.update({ where: { id: s.projectId }, data: { timezone: "Europe/Paris" } });
        // Friday 29 March 2030, 09:00 in Paris (UTC+1); clocks go forward on Sunday 31 March.
        clock = new Date("2030-03-29T07:00:00Z");
        const flag = await plainFlag(s);
        const id = await schedule(
          flag.id,
          { operation: "update_status", value: false },
          new Date("2030-03-29T08:00:00Z"),
          { is_recurring: true, cron_expression: "0 9 * * 1-5" },
        );
        await s.db.project.update({ where: { id: s.projectId }, data: { timezone: "UTC" } });
        expect((await read(id)).timezone).toBe("Europe/Paris");
        await sweepAt(new Date("2030-03-29T08:00:00Z"));
        // Monday 1 April 2030, 09:00 in Paris (UTC+2).
        expect((await read(id)).scheduled_at).toBe("2030-04-01T07:00:00Z");
      });

      it("skips the runs missed while late, to the first after now", async () => {
        clock = new Date("2030-05-01T00:00:00Z");
        const flag = await plainFlag(s);
        const id = await schedule(
          flag.id,
          { operation: "update_status", value: false },
          new Date("2030-05-01T06:00:00Z"),
          { is_recurring: true, recurrence_interval: "daily" },
        );
        await sweepAt(new Date("2030-05-04T12:00:00Z"));
        expect(await read(id)).toMatchObject({
          scheduled_at: "2030-05-05T06:00:00Z",
          last_executed_at: "2030-05-04T12:00:00Z",
        });
        const entries = await s.db.activityLog.count({
          where: { itemId: String(flag.id), activity: "updated" },
        });
        expect(entries).toBe(1);
      });

      it("ends after its last run before the end date, and without a run once past it", async () => {
        clock = new Date("2030-06-01T00:00:00Z");
        const flag = await plainFlag(s);
        const last = await schedule(
          flag.id,
          { operation: "update_status", value: false },
          new Date("2030-06-01T06:00:00Z"),
          { is_recurring: true, recurrence_interval: "weekly", end_date: "2030-06-05T00:00:00Z" },
        );
        await sweepAt(new Date("2030-06-01T06:00:00Z"));
        expect(await read(last)).toMatchObject({
          executed_at: "2030-06-01T06:00:00Z",
          last_executed_at: "2030-06-01T06:00:00Z",
          scheduled_at: "2030-06-01T06:00:00Z",
        });
        expect((await flagOf(flag.id)).active).toBe(false);

        const other = await plainFlag(s);
        const stale = await schedule(
          other.id,
          { operation: "update_status", value: false },
          new Date("2030-06-02T06:00:00Z"),
          { is_recurring: true, recurrence_interval: "daily", end_date: "2030-06-03T00:00:00Z" },
        );
        await sweepAt(new Date("2030-06-04T00:00:00Z"));
        expect(await read(stale)).toMatchObject({
          executed_at: "2030-06-04T00:00:00Z",
          last_executed_at: null,
        });
        expect((await flagOf(other.id)).active).toBe(true);
      });

      it("does not run a paused schedule, and runs it once resumed", async () => {
        clock = new Date("2030-07-01T00:00:00Z");
        const flag = await plainFlag(s);
        const id = await schedule(
          flag.id,
          { operation: "update_status", value: false },
          new Date("2030-07-01T06:00:00Z"),
          { is_recurring: true, recurrence_interval: "daily" },
        );
        const paused = await s.request("PATCH", `${base(s.projectId)}${id}/`, {
          body: { is_recurring: false },
        });
        expect(paused.status).toBe(200);
        await sweepAt(new Date("2030-07-02T00:00:00Z"));
        expect((await flagOf(flag.id)).active).toBe(true);
        expect(await read(id)).toMatchObject({ executed_at: null, recurrence_interval: "daily" });
        await s.request("PATCH", `${base(s.projectId)}${id}/`, { body: { is_recurring: true } });
        // Resuming enqueues its run (due already): that run or the sweep applies it, whichever claims it first.
        await sweepAt(new Date("2030-07-02T00:00:01Z"));
        expect(await eventually(async () => (await flagOf(flag.id)).active === false, 5_000)).toBe(true);
        expect((await read(id)).scheduled_at).toBe("2030-07-02T06:00:00Z");
      });
    });

    it("applies a change once however many runs race for it", async () => {
      clock = new Date("2030-08-01T00:00:00Z");
      const flag = await plainFlag(s);
      const id = await schedule(
        flag.id,
        { operation: "update_status", value: false },
        new Date("2030-08-01T01:00:00Z"),
      );
      clock = new Date("2030-08-01T02:00:00Z");
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () => s.services.scheduledChanges.runOne(id)),
      );
      expect(outcomes.filter((o) => o.outcome === "applied")).toHaveLength(1);
      expect(outcomes.filter((o) => o.outcome === "skipped")).toHaveLength(5);
      const stored = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flag.id } });
      expect(stored.version).toBe(flag.version + 1);
      const triggered = await s.db.activityLog.count({
        where: { itemId: String(flag.id), detail: { path: ["trigger", "job_id"], equals: String(id) } },
      });
      expect(triggered).toBe(1);
    });
  },
  { now: () => clock },
);
