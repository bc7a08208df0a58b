/**
 * The scheduled changes' pure rules, pinned by tables of cases: recurrence (posthog/tasks/process_scheduled_changes.py
 * `compute_next_run`, `compute_next_run_cron`, the catch-up loop), failures (`is_unrecoverable_error`,
 * the failure context, products/feature_flags/backend/models/scheduled_change.py `formatted_failure_reason`),
 * the payload operations (`scheduled_changes_dispatcher`) and the serializer's `validate` order.
 */
import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, NotImplementedError, ValidationError } from "../../src/core/errors.js";
import {
  describeFailure,
  failedRun,
  formatFailureReason,
  isUnrecoverable,
  MAX_RETRY_ATTEMPTS,
  ScheduledChangeError,
} from "../../src/scheduled-changes/rules/failures.js";
import { flagChangeOf } from "../../src/scheduled-changes/rules/operations.js";
import {
  isValidCron,
  MAX_CATCHUP_ITERATIONS,
  nextCronRun,
  nextIntervalRun,
  nextRunAfter,
  resolveScheduleTimezone,
} from "../../src/scheduled-changes/rules/recurrence.js";
import { checkSchedule, isPaused, type StoredSchedule } from "../../src/scheduled-changes/rules/schedule.js";

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe("intervals (relativedelta in UTC)", () => {
  const cases: Array<[string, string, string]> = [
    ["2030-03-10T09:00:00.000Z", "daily", "2030-03-11T09:00:00.000Z"],
    ["2030-03-10T09:00:00.000Z", "weekly", "2030-03-17T09:00:00.000Z"],
    ["2030-01-31T09:00:00.000Z", "monthly", "2030-02-28T09:00:00.000Z"],
    ["2028-01-31T09:00:00.000Z", "monthly", "2028-02-29T09:00:00.000Z"],
    ["2030-02-28T09:00:00.000Z", "monthly", "2030-03-28T09:00:00.000Z"],
    ["2030-12-31T23:30:00.000Z", "monthly", "2031-01-31T23:30:00.000Z"],
    ["2028-02-29T09:00:00.000Z", "yearly", "2029-02-28T09:00:00.000Z"],
    ["2030-05-31T00:00:00.000Z", "yearly", "2031-05-31T00:00:00.000Z"],
  ];
  for (const [from, interval, expected] of cases) {
    it(`${from} + ${interval} = ${expected}`, () => {
      expect(iso(nextIntervalRun(at(from), interval))).toBe(expected);
    });
  }

  it("refuses an interval it does not know, as a permanent failure", () => {
    expect(() => nextIntervalRun(at("2030-01-01T00:00:00Z"), "hourly")).toThrow(
      "Unknown recurrence interval: hourly",
    );
    try {
      nextIntervalRun(at("2030-01-01T00:00:00Z"), "hourly");
    } catch (error) {
      expect(isUnrecoverable(error)).toBe(true);
    }
  });
});

describe("cron expressions in the stored time zone", () => {
  it("keeps wall-clock time across daylight-saving changes", () => {
    // Friday 09:00 Paris (UTC+1) → Monday 09:00 Paris (UTC+2, after 31 March 2030).
    expect(iso(nextCronRun("0 9 * * 1-5", at("2030-03-29T08:00:00Z"), "Europe/Paris"))).toBe(
      "2030-04-01T07:00:00.000Z",
    );
    expect(iso(nextCronRun("0 9 * * 1-5", at("2030-03-29T09:00:00Z"), "UTC"))).toBe(
      "2030-04-01T09:00:00.000Z",
    );
    expect(iso(nextCronRun("30 17 * * *", at("2030-11-02T00:00:00Z"), "America/New_York"))).toBe(
      "2030-11-02T21:30:00.000Z",
    );
    expect(iso(nextCronRun("30 17 * * *", at("2030-11-03T12:00:00Z"), "America/New_York"))).toBe(
      "2030-11-03T22:30:00.000Z",
    );
  });

  it("is strictly after the reference time", () => {
    expect(iso(nextCronRun("0 9 * * *", at("2030-01-01T09:00:00Z"), "UTC"))).toBe("2030-01-02T09:00:00.000Z");
  });

  it("matches either restricted day field, as cron does", () => {
    // Day 15 or any Monday: Monday 3 June 2030 comes first.
    expect(iso(nextCronRun("0 0 15 * 1", at("2030-06-01T00:00:00Z"), "UTC"))).toBe(
      "2030-06-03T00:00:00.000Z",
    );
  });

  it("reads a missing or unknown zone as UTC", () => {
    expect(resolveScheduleTimezone(null)).toBe("UTC");
    expect(resolveScheduleTimezone("Mars/Olympus")).toBe("UTC");
    expect(resolveScheduleTimezone("Asia/Kolkata")).toBe("Asia/Kolkata");
    expect(iso(nextCronRun("0 9 * * *", at("2030-01-01T00:00:00Z"), "Mars/Olympus"))).toBe(
      "2030-01-01T09:00:00.000Z",
    );
  });

  const validity: Array<[string, boolean]> = [
    ["0 9 * * 1-5", true],
    ["*/15 * * * *", true],
    ["0 0 1 JAN MON", true],
    ["0 12 * * THU", true],
    ["0 0 L * *", true],
    ["0 9 * * 1#2", true],
    ["0 0 * * 7", true],
    ["61 * * * *", false],
    ["0 24 * * *", false],
    ["* * 0 * *", false],
    ["* * * 13 *", false],
    ["* * * * 8", false],
    ["*/0 * * * *", false],
    ["abc * * * *", false],
    ["H * * * *", false],
  ];
  for (const [expression, valid] of validity) {
    it(`${valid ? "takes" : "refuses"} ${expression}`, () => {
      expect(isValidCron(expression)).toBe(valid);
    });
  }
});

describe("the catch-up after a late run", () => {
  it("is the next run when on time", () => {
    const next = nextRunAfter(
      { kind: "interval", interval: "daily" },
      at("2030-01-01T06:00:00Z"),
      at("2030-01-01T06:00:02Z"),
    );
    expect({ next: iso(next.next), missed: next.missed }).toEqual({
      next: "2030-01-02T06:00:00.000Z",
      missed: 0,
    });
  });

  it("skips the runs missed, counting them as PostHog does (the loop's steps less one)", () => {
    const next = nextRunAfter(
      { kind: "cron", expression: "0 * * * *", timezone: "UTC" },
      at("2030-01-01T06:00:00Z"),
      at("2030-01-01T09:30:00Z"),
    );
    expect({ next: iso(next.next), missed: next.missed }).toEqual({
      next: "2030-01-01T10:00:00.000Z",
      missed: 2,
    });
  });

  it("jumps to the first run after now once past the cap", () => {
    const next = nextRunAfter(
      { kind: "interval", interval: "daily" },
      at("2020-01-01T06:00:00Z"),
      at("2030-01-01T12:00:00Z"),
    );
    expect(iso(next.next)).toBe("2030-01-02T12:00:00.000Z");
    expect(next.missed).toBe(MAX_CATCHUP_ITERATIONS - 1);
  });
});

describe("failures", () => {
  it("classifies as is_unrecoverable_error does", () => {
    const table: Array<[unknown, boolean, string]> = [
      [new ValidationError("Must be a valid boolean.", { attr: "active" }), true, "ValidationError"],
      [new NotFoundError(), true, "DoesNotExist"],
      [new ScheduledChangeError("Invalid payload", "Exception"), true, "Exception"],
      [new ScheduledChangeError("bad", "ValueError"), true, "ValueError"],
      [new NotImplementedError("Encrypted payloads are not supported"), true, "NotImplementedError"],
      [
        new ConflictError("The feature flag was updated by x since you started editing it."),
        false,
        "Conflict",
      ],
      [new Error("Connection terminated unexpectedly"), false, "Error"],
      [new Error("insert violates foreign key constraint"), true, "Error"],
      [new Error("relation x does not exist"), true, "Error"],
    ];
    for (const [error, unrecoverable, type] of table) {
      expect({ unrecoverable: isUnrecoverable(error), type: describeFailure(error).errorType }).toEqual({
        unrecoverable,
        type,
      });
    }
    expect(describeFailure(new ValidationError("Must be a valid boolean.", { attr: "active" })).error).toBe(
      "active: Must be a valid boolean.",
    );
    expect(describeFailure(new Error("Invalid `prisma.$queryRaw()` invocation")).error).toBe(
      "A server error occurred.",
    );
  });

  it("retries a recoverable failure until the fifth, and ends at once on a permanent one", () => {
    const recoverable = new Error("Connection terminated unexpectedly");
    const runs = [0, 1, 2, 3, 4].map((before) => failedRun(before, recoverable, "host-a"));
    expect(runs.map((run) => [run.failureCount, run.ends])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
      [5, true],
    ]);
    expect(runs[0]!.context).toEqual({
      error: "Connection terminated unexpectedly",
      error_type: "Error",
      hostname: "host-a",
      will_retry: true,
      retry_count: 1,
      max_retries: MAX_RETRY_ATTEMPTS,
      error_classification: "recoverable",
    });
    expect(runs[4]!.context).toMatchObject({ will_retry: false, retry_exhausted: true, retry_count: 5 });
    expect(runs.map((run) => formatFailureReason(JSON.stringify(run.context)))).toEqual([
      "Connection terminated unexpectedly (will retry automatically, 4 attempts remaining)",
      "Connection terminated unexpectedly (will retry automatically, 3 attempts remaining)",
      "Connection terminated unexpectedly (will retry automatically, 2 attempts remaining)",
      "Connection terminated unexpectedly (will retry automatically, 1 attempt remaining)",
      "Connection terminated unexpectedly (failed after 5 out of 5 attempts)",
    ]);
    const permanent = failedRun(2, new ScheduledChangeError("Invalid payload", "Exception"), "host-a");
    expect(permanent.ends).toBe(true);
    expect(formatFailureReason(JSON.stringify(permanent.context))).toBe("Invalid payload (permanent error)");
  });

  it("formats stored reasons as formatted_failure_reason does", () => {
    expect(formatFailureReason(null)).toBeNull();
    expect(formatFailureReason("")).toBeNull();
    expect(formatFailureReason("a legacy text")).toBe("a legacy text");
    expect(formatFailureReason("[1, 2]")).toBe("[1, 2]");
    expect(formatFailureReason(JSON.stringify({ error: "x", will_retry: true }))).toBe(
      "x (will retry automatically)",
    );
    expect(
      formatFailureReason(
        JSON.stringify({ error: "x", will_retry: false, retry_exhausted: true, retry_count: 3 }),
      ),
    ).toBe("x (failed after 3 attempts)");
    expect(formatFailureReason(JSON.stringify({ error: "x" }))).toBe("x");
  });
});

describe("payload operations (scheduled_changes_dispatcher)", () => {
  const stored = {
    groups: [{ properties: [], rollout_percentage: 100 }],
    multivariate: { variants: [{ key: "a", rollout_percentage: 100 }], extra: 1 },
    payloads: { a: "1" },
  };
  it("shapes each operation", () => {
    expect(flagChangeOf({ operation: "update_status", value: false })).toEqual({
      kind: "update",
      body: { active: false },
    });
    const add = flagChangeOf({
      operation: "add_release_condition",
      value: { groups: [{ rollout_percentage: 5 }] },
    });
    expect(add.kind === "filters" && add.rewrite(stored).groups).toEqual([
      { properties: [], rollout_percentage: 100 },
      { rollout_percentage: 5 },
    ]);
    const variants = [
      { key: "a", rollout_percentage: 40 },
      { key: "b", rollout_percentage: 60 },
    ];
    const update = flagChangeOf({ operation: "update_variants", value: { variants, payloads: { b: "2" } } });
    expect(update.kind === "filters" && update.rewrite(stored)).toEqual({
      groups: stored.groups,
      multivariate: { variants, extra: 1 },
      payloads: { b: "2" },
    });
  });

  it("refuses in PostHog's words", () => {
    const message = (payload: unknown) => {
      try {
        flagChangeOf(payload);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message({ value: 1 })).toBe("Invalid payload");
    expect(message({ operation: "update_status" })).toBe("Invalid payload");
    expect(message({ operation: "archive", value: 1 })).toBe("Unrecognized operation: archive");
    expect(message({ operation: null, value: 1 })).toBe("Unrecognized operation: None");
    expect(
      message({
        operation: "update_variants",
        value: {
          variants: [
            { key: "a", rollout_percentage: 30 },
            { key: "b", rollout_percentage: 30 },
          ],
        },
      }),
    ).toBe("Invalid variant rollout percentages: sum is 60, must be 100");
    expect(
      message({
        operation: "update_variants",
        value: { variants: [{ key: "a", rollout_percentage: 100 }], payloads: { x: "1", "y'": "2", a: "3" } },
      }),
    ).toBe("Payload keys {'x', 'y\\''} don't match variant keys {'a'}");
    // No variants: payloads are not checked against them (PostHog allows clearing variants).
    expect(
      message({ operation: "update_variants", value: { variants: [], payloads: { x: "1" } } }),
    ).toBeNull();
  });
});

describe("the serializer's validate", () => {
  const stored: StoredSchedule = {
    recordId: "7",
    modelName: "FeatureFlag",
    payload: { operation: "update_status", value: true },
    scheduledAt: at("2030-01-01T00:00:00Z"),
    isRecurring: false,
    recurrenceInterval: null,
    cronExpression: null,
    endDate: null,
    executedAt: null,
  };
  const messageOf = (run: () => unknown) => {
    try {
      run();
      return null;
    } catch (error) {
      return (error as ValidationError).detail;
    }
  };

  it("reports the target change before anything else, then an executed one-time schedule", () => {
    const executed = { ...stored, executedAt: at("2030-01-01T00:00:01Z") };
    expect(messageOf(() => checkSchedule({ record_id: "8", cron_expression: "x" }, executed))).toBe(
      "Cannot change the target record of an existing scheduled change.",
    );
    expect(messageOf(() => checkSchedule({ end_date: at("2020-01-01T00:00:00Z") }, executed))).toBe(
      "Cannot modify a scheduled change that has already executed.",
    );
    // A recurring schedule that ended can still be edited (it stays ended).
    expect(
      messageOf(() =>
        checkSchedule({ end_date: null }, { ...executed, isRecurring: true, recurrenceInterval: "daily" }),
      ),
    ).toBeNull();
  });

  it("keeps a paused schedule's recurrence on update, and an empty cron expression counts as none", () => {
    const paused = checkSchedule(
      { is_recurring: false },
      { ...stored, isRecurring: true, cronExpression: "0 9 * * *" },
    );
    expect(paused).toMatchObject({ isRecurring: false, cronExpression: "0 9 * * *" });
    expect(isPaused(paused)).toBe(true);
    const blank = checkSchedule(
      {
        record_id: "7",
        model_name: "FeatureFlag",
        payload: {},
        scheduled_at: at("2030-01-01T00:00:00Z"),
        cron_expression: "",
      },
      null,
    );
    expect(blank.cronExpression).toBe("");
    expect(isPaused(blank)).toBe(false);
  });
});
