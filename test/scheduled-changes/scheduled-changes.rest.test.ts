/**
 * Scheduled changes over REST (`/api/projects/:project_id/scheduled_changes/`), on both backends:
 * create (the target flag checked, its id stored canonical, the project's time zone kept), list with
 * PostHog's `model_name` / `record_id` filters, retrieve, PATCH/PUT (pausing keeps the recurrence),
 * delete; every rule of PostHog's `ScheduledChangeSerializer.validate` with its message word for word
 * (products/feature_flags/backend/api/scheduled_change.py); a missing scope and another project's
 * change for every path. Runs are test/scheduled-changes/scheduled-changes.runs.test.ts's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const base = (project: number) => `/api/projects/${project}/scheduled_changes/`;

/** A time far enough ahead that no run applies anything during the file. */
const LATER = "2099-06-01T14:00:00Z";

/** DRF's validation error body. */
const invalid = (detail: string, attr: string | null, code = "invalid") => ({
  type: "validation_error",
  code,
  detail,
  attr,
});

describeEachBackend("scheduled changes over REST", (server) => {
  let s: TestServer;
  let flag: { id: number; key: string };
  let other: number;
  let otherFlag: { id: number };
  beforeAll(async () => {
    s = server();
    flag = await createFlag(s, { key: "scheduled-rest" });
    other = await s.createProject("scheduled other");
    otherFlag = await createFlag(s, { key: "scheduled-rest-other" }, other);
  });

  const create = (body: Record<string, unknown>, project = s.projectId, key?: string) =>
    s.request("POST", base(project), { body, ...(key ? { key } : {}) });

  /** A valid one-time schedule of `flag`, with `extra` over it. */
  const body = (extra: Record<string, unknown> = {}) => ({
    record_id: flag.id,
    model_name: "FeatureFlag",
    payload: { operation: "update_status", value: false },
    scheduled_at: LATER,
    ...extra,
  });

  describe("create, read, list", () => {
    it("creates a schedule with PostHog's fields, read-only fields ignored, the project's time zone kept", async () => {
      await s.db.project.update({ where: { id: s.projectId }, data: { timezone: "Europe/Paris" } });
      const created = await create(
        body({
          id: 999,
          team_id: 12345,
          executed_at: "2020-01-01T00:00:00Z",
          timezone: "Asia/Tokyo",
          created_by: null,
          last_executed_at: "2020-01-01T00:00:00Z",
          failure_reason: "nope",
        }),
      );
      await s.db.project.update({ where: { id: s.projectId }, data: { timezone: "UTC" } });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        team_id: s.projectId,
        record_id: String(flag.id),
        model_name: "FeatureFlag",
        payload: { operation: "update_status", value: false },
        scheduled_at: "2099-06-01T14:00:00Z",
        executed_at: null,
        failure_reason: null,
        created_at: expect.any(String),
        created_by: expect.objectContaining({ email: "admin@example.com" }),
        updated_at: expect.any(String),
        is_recurring: false,
        recurrence_interval: null,
        cron_expression: null,
        last_executed_at: null,
        end_date: null,
        timezone: "Europe/Paris",
      });
      expect(created.body.id).not.toBe(999);

      const read = await s.request("GET", `${base(s.projectId)}${created.body.id}/`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      // The path without its trailing slash is served too.
      expect((await s.request("GET", `${base(s.projectId)}${created.body.id}`)).status).toBe(200);
    });

    it("stores the flag's canonical id whatever the spelling of record_id", async () => {
      for (const recordId of [` ${flag.id} `, `000${flag.id}`, flag.id]) {
        const created = await create(body({ record_id: recordId }));
        expect(created.status, created.text).toBe(201);
        expect(created.body.record_id).toBe(String(flag.id));
      }
    });

    it("takes recurring schedules: an interval, or a cron expression", async () => {
      const daily = await create(body({ is_recurring: true, recurrence_interval: "daily" }));
      expect(daily.status, daily.text).toBe(201);
      expect(daily.body).toMatchObject({
        is_recurring: true,
        recurrence_interval: "daily",
        cron_expression: null,
      });
      const cron = await create(
        body({ is_recurring: true, cron_expression: "0 9 * * 1-5", end_date: "2099-12-31T00:00:00+01:00" }),
      );
      expect(cron.status, cron.text).toBe(201);
      expect(cron.body).toMatchObject({
        is_recurring: true,
        recurrence_interval: null,
        cron_expression: "0 9 * * 1-5",
        end_date: "2099-12-30T23:00:00Z",
      });
    });

    it("lists in creation order, filtered exactly by model_name and record_id, in DRF pages", async () => {
      const second = await createFlag(s, { key: "scheduled-rest-second" });
      const mine = await create(body({ record_id: second.id }));
      expect(mine.status).toBe(201);
      const all = await s.request("GET", base(s.projectId));
      expect(all.status).toBe(200);
      expect(all.body.count).toBe(all.body.results.length);
      const ids = all.body.results.map((c: { id: number }) => c.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));

      const byRecord = await s.request("GET", `${base(s.projectId)}?record_id=${second.id}`);
      expect(byRecord.body).toMatchObject({ count: 1, next: null, previous: null });
      expect(byRecord.body.results.map((c: { id: number }) => c.id)).toEqual([mine.body.id]);
      const byModel = await s.request(
        "GET",
        `${base(s.projectId)}?model_name=FeatureFlag&record_id=${second.id}`,
      );
      expect(byModel.body.count).toBe(1);
      expect((await s.request("GET", `${base(s.projectId)}?model_name=Survey`)).body).toMatchObject({
        count: 0,
        results: [],
      });
      const paged = await s.request("GET", `${base(s.projectId)}?limit=1`);
      expect(paged.body.results).toHaveLength(1);
      expect(paged.body.next).toContain("offset=1");
      // Another project's schedules are not listed.
      const theirs = await create({ ...body(), record_id: otherFlag.id }, other);
      expect(theirs.status).toBe(201);
      const again = await s.request("GET", base(s.projectId));
      expect(again.body.results.map((c: { id: number }) => c.id)).not.toContain(theirs.body.id);
    });

    it("answers an ETag from the project's revision, and 304 until a schedule changes", async () => {
      const first = await s.request("GET", base(s.projectId));
      const etag = first.headers.get("etag");
      expect(etag).toBeTruthy();
      const same = await s.request("GET", base(s.projectId), { headers: { "if-none-match": etag! } });
      expect(same.status).toBe(304);
      expect((await create(body())).status).toBe(201);
      const changed = await s.request("GET", base(s.projectId), { headers: { "if-none-match": etag! } });
      expect(changed.status).toBe(200);
    });
  });

  describe("PostHog's messages for bad input", () => {
    const cases: Array<[string, Record<string, unknown>, ReturnType<typeof invalid>]> = [
      [
        "record_id missing",
        { record_id: undefined },
        invalid("This field is required.", "record_id", "required"),
      ],
      ["record_id blank", { record_id: "  " }, invalid("This field may not be blank.", "record_id", "blank")],
      ["record_id a list", { record_id: [1] }, invalid("Not a valid string.", "record_id", "invalid_input")],
      [
        "model_name unknown",
        { model_name: "Survey" },
        invalid('"Survey" is not a valid choice.', "model_name", "invalid_choice"),
      ],
      ["payload null", { payload: null }, invalid("This field may not be null.", "payload", "null")],
      [
        "scheduled_at unreadable",
        { scheduled_at: "next tuesday" },
        invalid(
          "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
          "scheduled_at",
        ),
      ],
      [
        "scheduled_at missing",
        { scheduled_at: undefined },
        invalid("This field is required.", "scheduled_at", "required"),
      ],
      [
        "recurrence_interval unknown",
        { is_recurring: true, recurrence_interval: "hourly" },
        invalid('"hourly" is not a valid choice.', "recurrence_interval", "invalid_choice"),
      ],
      [
        "both recurrence fields",
        { is_recurring: true, recurrence_interval: "daily", cron_expression: "0 9 * * *" },
        invalid(
          "Cannot set both cron_expression and recurrence_interval. Use one or the other.",
          "cron_expression",
        ),
      ],
      [
        "a 6-field cron expression",
        { is_recurring: true, cron_expression: "0 0 9 * * 1-5" },
        invalid(
          "Only standard 5-field cron expressions are supported (minute hour day month weekday). Example: '0 9 * * 1-5'.",
          "cron_expression",
        ),
      ],
      [
        "an invalid cron expression",
        { is_recurring: true, cron_expression: "61 * * * *" },
        invalid(
          "Invalid cron expression. Use standard 5-field cron syntax (e.g., '0 9 * * 1-5').",
          "cron_expression",
        ),
      ],
      [
        "recurring without a recurrence",
        { is_recurring: true },
        invalid(
          "Either recurrence_interval or cron_expression is required when is_recurring is true.",
          "recurrence_interval",
        ),
      ],
      [
        "a recurring add_release_condition",
        {
          is_recurring: true,
          recurrence_interval: "weekly",
          payload: { operation: "add_release_condition", value: { groups: [] } },
        },
        invalid(
          "Recurring schedules are not supported for add_release_condition because it appends conditions on each run, creating duplicates.",
          "payload",
        ),
      ],
      [
        "an interval on a one-time schedule",
        { recurrence_interval: "daily" },
        invalid(
          "Cannot set recurrence_interval when is_recurring is false for new schedules.",
          "recurrence_interval",
        ),
      ],
      [
        "a cron expression on a one-time schedule",
        { cron_expression: "0 9 * * *" },
        invalid(
          "Cannot set cron_expression when is_recurring is false for new schedules.",
          "cron_expression",
        ),
      ],
      [
        "an end date before the start",
        { is_recurring: true, recurrence_interval: "daily", end_date: "2099-06-01T14:00:00Z" },
        invalid("End date must be after the scheduled start date.", "end_date"),
      ],
      ["a flag that does not exist", { record_id: 987654 }, invalid("Feature flag not found", null)],
      ["a record id that is no flag id", { record_id: "abc" }, invalid("Feature flag not found", null)],
    ];
    for (const [name, extra, expected] of cases) {
      it(`refuses ${name}`, async () => {
        const response = await create(body(extra));
        expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: expected });
      });
    }

    it("refuses a body that is not an object, another project's flag, and a deleted flag", async () => {
      const list = await s.request("POST", base(s.projectId), { body: [body()] });
      expect(list.status).toBe(400);
      expect(list.body.detail).toBe("Invalid data. Expected a dictionary, but got list.");
      const theirs = await create(body({ record_id: otherFlag.id }));
      expect(theirs.body).toEqual(invalid("Feature flag not found", null));
      const gone = await createFlag(s, { key: "scheduled-rest-deleted" });
      expect(
        (
          await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${gone.id}/`, {
            body: { deleted: true },
          })
        ).status,
      ).toBe(200);
      expect((await create(body({ record_id: gone.id }))).body).toEqual(
        invalid("Feature flag not found", null),
      );
    });
  });

  describe("update and delete", () => {
    it("patches fields, and refuses moving it to another record or model", async () => {
      const created = await create(body());
      const path = `${base(s.projectId)}${created.body.id}/`;
      const patched = await s.request("PATCH", path, {
        body: { scheduled_at: "2099-07-01T00:00:00Z", payload: { operation: "update_status", value: true } },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({
        scheduled_at: "2099-07-01T00:00:00Z",
        payload: { operation: "update_status", value: true },
      });
      // The same target in another spelling is no change.
      expect((await s.request("PATCH", path, { body: { record_id: String(flag.id) } })).status).toBe(200);
      const second = await createFlag(s, { key: "scheduled-rest-move" });
      const moved = await s.request("PATCH", path, { body: { record_id: second.id } });
      expect(moved.body).toEqual(
        invalid("Cannot change the target record of an existing scheduled change.", "record_id"),
      );
      const remodelled = await s.request("PATCH", path, { body: { model_name: "FeatureFlag" } });
      expect(remodelled.status).toBe(200);
      const badModel = await s.request("PATCH", path, { body: { model_name: "Survey" } });
      expect(badModel.body.detail).toBe('"Survey" is not a valid choice.');
    });

    it("pauses a recurring schedule with is_recurring false, keeping its recurrence, and resumes it", async () => {
      const created = await create(body({ is_recurring: true, cron_expression: "30 6 * * *" }));
      const path = `${base(s.projectId)}${created.body.id}/`;
      const paused = await s.request("PATCH", path, { body: { is_recurring: false } });
      expect(paused.status, paused.text).toBe(200);
      expect(paused.body).toMatchObject({ is_recurring: false, cron_expression: "30 6 * * *" });
      const resumed = await s.request("PATCH", path, { body: { is_recurring: true } });
      expect(resumed.body).toMatchObject({ is_recurring: true, cron_expression: "30 6 * * *" });
      // Switching to an interval needs the cron expression cleared in the same request.
      const both = await s.request("PATCH", path, { body: { recurrence_interval: "monthly" } });
      expect(both.body).toEqual(
        invalid(
          "Cannot set both cron_expression and recurrence_interval. Use one or the other.",
          "cron_expression",
        ),
      );
      const switched = await s.request("PATCH", path, {
        body: { recurrence_interval: "monthly", cron_expression: null },
      });
      expect(switched.body).toMatchObject({ recurrence_interval: "monthly", cron_expression: null });
      // The stored start counts for an end date given alone.
      const early = await s.request("PATCH", path, { body: { end_date: "2099-05-01T00:00:00Z" } });
      expect(early.body).toEqual(invalid("End date must be after the scheduled start date.", "end_date"));
    });

    it("refuses editing a one-time schedule that has executed", async () => {
      const created = await create(body());
      await s.db.scheduledChange.update({ where: { id: created.body.id }, data: { executedAt: new Date() } });
      const response = await s.request("PATCH", `${base(s.projectId)}${created.body.id}/`, {
        body: { scheduled_at: LATER },
      });
      expect(response.body).toEqual(
        invalid("Cannot modify a scheduled change that has already executed.", null),
      );
    });

    it("replaces with PUT, its required fields required", async () => {
      const created = await create(body());
      const path = `${base(s.projectId)}${created.body.id}/`;
      const put = await s.request("PUT", path, { body: body({ scheduled_at: "2099-08-01T00:00:00Z" }) });
      expect(put.status, put.text).toBe(200);
      expect(put.body.scheduled_at).toBe("2099-08-01T00:00:00Z");
      const partial = await s.request("PUT", path, { body: { scheduled_at: LATER } });
      expect(partial.body).toEqual(invalid("This field is required.", "record_id", "required"));
    });

    it("writes no activity entry of its own, as PostHog's viewset", async () => {
      const before = await s.db.activityLog.count();
      const created = await create(body());
      const path = `${base(s.projectId)}${created.body.id}/`;
      expect(
        (await s.request("PATCH", path, { body: { scheduled_at: "2099-09-01T00:00:00Z" } })).status,
      ).toBe(200);
      expect((await s.request("DELETE", path)).status).toBe(204);
      expect(await s.db.activityLog.count()).toBe(before);
    });

    it("deletes, then answers 404", async () => {
      const created = await create(body());
      const path = `${base(s.projectId)}${created.body.id}/`;
      const deleted = await s.request("DELETE", path);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expect((await s.request("GET", path)).status).toBe(404);
      expect((await s.request("DELETE", path)).status).toBe(404);
      expect((await s.request("PATCH", path, { body: {} })).status).toBe(404);
    });
  });

  describe("scopes and tenancy", () => {
    it("needs feature_flag:read to read and feature_flag:write to write, on every path", async () => {
      const created = await create(body());
      const path = `${base(s.projectId)}${created.body.id}/`;
      const unrelated = await s.createKey(["cohort:read"]);
      const reader = await s.createKey(["feature_flag:read"]);
      const denied = (scope: string) => ({
        type: "authentication_error",
        code: "permission_denied",
        detail: `API key missing required scope '${scope}'`,
        attr: null,
      });
      for (const [method, url] of [
        ["GET", base(s.projectId)],
        ["GET", path],
      ] as const) {
        const refused = await s.request(method, url, { key: unrelated });
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 403,
          body: denied("feature_flag:read"),
        });
        expect((await s.request(method, url, { key: reader })).status).toBe(200);
      }
      for (const [method, url, payload] of [
        ["POST", base(s.projectId), body()],
        ["PATCH", path, { scheduled_at: LATER }],
        ["PUT", path, body()],
        ["DELETE", path, undefined],
      ] as const) {
        const refused = await s.request(method, url, { key: reader, ...(payload ? { body: payload } : {}) });
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 403,
          body: denied("feature_flag:write"),
        });
      }
      const writer = await s.createKey(["feature_flag:write"]);
      expect((await create(body(), s.projectId, writer)).status).toBe(201);
      expect((await s.request("DELETE", path, { key: writer })).status).toBe(204);
    });

    it("answers another project's schedule with 404 on every path", async () => {
      const theirs = await create({ ...body(), record_id: otherFlag.id }, other);
      const path = `${base(s.projectId)}${theirs.body.id}/`;
      for (const method of ["GET", "PATCH", "PUT", "DELETE"] as const) {
        const response = await s.request(
          method,
          path,
          method === "GET" || method === "DELETE" ? {} : { body: body() },
        );
        expect({ status: response.status, body: response.body }, method).toEqual({
          status: 404,
          body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null },
        });
      }
      expect((await s.request("GET", `${base(other)}${theirs.body.id}/`)).status).toBe(200);
    });
  });
});
