/**
 * Retention metrics (PostHog's `_build_retention_query`; query-and-experiments.md 2b Step 3): the
 * start event after the exposure, a completion inside the retention window on days truncated in
 * the project's zone, entities without a start left out; on PGlite and PostgreSQL, one statement.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachBackend } from "../../support/server.js";
import { capture, compute, event, exposure, inputOf } from "./fixture.js";

const retention = (extra: Record<string, unknown> = {}) => ({
  kind: "ExperimentMetric",
  metric_type: "retention",
  start_event: { kind: "EventsNode", event: "signup" },
  completion_event: { kind: "EventsNode", event: "login" },
  retention_window_start: 1,
  retention_window_end: 3,
  retention_window_unit: "day",
  start_handling: "first_seen",
  ...extra,
});

describeEachBackend("experiment results: retention", (server) => {
  beforeAll(async () => {
    const s = server();
    const at = (day: string, time: string) => `2020-01-${day}T${time}:00Z`;
    await capture(s, s.projectId, [
      // Control: retained on day 2; completed the same day (day 0); no start; two starts.
      exposure("rt_1", "ret", "control", at("02", "12:00")),
      event("signup", "rt_1", at("02", "13:00")),
      event("login", "rt_1", at("04", "01:00")),
      exposure("rt_2", "ret", "control", at("02", "12:00")),
      event("signup", "rt_2", at("02", "13:00")),
      event("login", "rt_2", at("02", "20:00")),
      exposure("rt_3", "ret", "control", at("02", "12:00")),
      event("login", "rt_3", at("03", "12:00")),
      exposure("rt_7", "ret", "control", at("02", "12:00")),
      event("signup", "rt_7", at("02", "13:00")),
      event("signup", "rt_7", at("04", "13:00")),
      event("login", "rt_7", at("06", "12:00")),
      // Test: retained on day 3 (the window's last); a start before the exposure only; day 4;
      // a completion on the next UTC day that is the same day in New York.
      exposure("rt_4", "ret", "test", at("02", "12:00")),
      event("signup", "rt_4", at("02", "23:00")),
      event("login", "rt_4", at("05", "23:30")),
      event("signup", "rt_5", at("02", "11:00")),
      exposure("rt_5", "ret", "test", at("02", "12:00")),
      event("login", "rt_5", at("03", "12:00")),
      exposure("rt_6", "ret", "test", at("02", "12:00")),
      event("signup", "rt_6", at("02", "13:00")),
      event("login", "rt_6", at("06", "00:30")),
      exposure("rt_8", "ret", "test", at("02", "12:00")),
      event("signup", "rt_8", at("02", "13:00")),
      event("login", "rt_8", at("03", "03:00")),
    ]);
  });

  it("counts entities with a start after exposure and a completion in the window, in one statement", async () => {
    const s = server();
    const { results, statements } = await compute(s, inputOf(s, "ret", retention()));
    expect(statements).toBe(1);
    expect(results).toEqual([
      {
        key: "control",
        number_of_samples: 3,
        sum: 1,
        sum_squares: 1,
        denominator_sum: 3,
        denominator_sum_squares: 3,
        numerator_denominator_sum_product: 1,
      },
      {
        key: "test",
        number_of_samples: 3,
        sum: 2,
        sum_squares: 2,
        denominator_sum: 3,
        denominator_sum_squares: 3,
        numerator_denominator_sum_product: 2,
      },
    ]);
  });

  it("starts from the last start event with last_seen", async () => {
    const s = server();
    const { results } = await compute(s, inputOf(s, "ret", retention({ start_handling: "last_seen" })));
    expect(results.map((r) => [r.number_of_samples, r.sum])).toEqual([
      [3, 2],
      [3, 2],
    ]);
  });

  it("truncates to days in the project's time zone", async () => {
    const s = server();
    const { results } = await compute(s, inputOf(s, "ret", retention(), { timezone: "America/New_York" }));
    // rt_8's login is on its start's day in New York (day 0: not retained); rt_6's, at 19:30 on
    // Jan 5 there, is day 3 (retained).
    expect(results.map((r) => [r.number_of_samples, r.sum])).toEqual([
      [3, 1],
      [3, 2],
    ]);
  });

  it("refuses a window that ends before it starts", async () => {
    const s = server();
    const error = await compute(s, inputOf(s, "ret", retention({ retention_window_end: 0 }))).catch((e) => e);
    expect(error.attr).toBe("metric__retention_window_end");
  });
});
