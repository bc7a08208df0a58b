/**
 * Experiment timeseries over REST on PGlite and PostgreSQL: `recalculate_timeseries` queues the
 * `experiment-timeseries` job, which the test server's queue runs; `timeseries_results` then answers
 * each day's cumulative result (as of the day's end, the experiment's end on its last day) in
 * PostHog's shape. A pending request answers 200 instead of a new one; a metric that cannot compute
 * fails every day (`failed`, `errors`); PostHog's 400s, 404 and the scopes.
 */
import { beforeAll, expect, it } from "vitest";
import { drfDateTime } from "../../../src/rest/date-time.js";
import { describeEachBackend } from "../../support/server.js";
import { type CaptureEvent, capture, event, exposure, meanMetric } from "./fixture.js";

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

describeEachBackend("experiment timeseries over REST", (server) => {
  const base = () => `/api/projects/${server().projectId}/experiments`;
  const metric = { ...meanMetric("sum"), uuid: "ts-revenue" };
  let id = 0;
  let fingerprint = "";
  let draft = 0;

  const results = (query: string, key?: string) =>
    server().request("GET", `${base()}/${id}/timeseries_results/?${query}`, key ? { key } : {});
  const recalculate = (body: unknown, experiment = id, key?: string) =>
    server().request("POST", `${base()}/${experiment}/recalculate_timeseries/`, {
      body,
      ...(key ? { key } : {}),
    });

  beforeAll(async () => {
    const s = server();
    const created = await s.request("POST", `${base()}/`, {
      body: {
        name: "Timeseries",
        feature_flag_key: "ts-flag",
        metrics: [metric],
        start_date: "2020-01-01T12:00:00Z",
        end_date: "2020-01-03T12:00:00Z",
      },
    });
    expect(created.status, created.text).toBe(201);
    id = created.body.id;
    fingerprint = created.body.metrics[0].fingerprint;
    draft = (
      await s.request("POST", `${base()}/`, { body: { name: "Draft ts", feature_flag_key: "ts-draft" } })
    ).body.id;
    // Day 1: 5 + 5 exposed, test buyers spend 10; day 2: 5 + 5 more, likewise; day 3 after the end: ignored.
    const events: CaptureEvent[] = [];
    for (const [group, at] of [
      ["a", "2020-01-01T15:00:00Z"],
      ["b", "2020-01-02T15:00:00Z"],
      ["c", "2020-01-03T13:00:00Z"],
    ] as const) {
      for (const variant of ["control", "test"]) {
        for (let i = 0; i < 5; i++) {
          const person = `ts_${group}_${variant}_${i}`;
          events.push(exposure(person, "ts-flag", variant, at));
          if (variant === "test") {
            events.push(
              event("purchase", person, at.replace("15:00", "16:00").replace("13:00", "14:00"), {
                amount: 10,
              }),
            );
          }
        }
      }
    }
    await capture(s, s.projectId, events);
  });

  it("queues the job, which stores each day's cumulative result; timeseries_results answers them", async () => {
    const queued = await recalculate({ metric, fingerprint });
    expect(queued.status, queued.text).toBe(201);
    expect(queued.body).toMatchObject({ experiment_id: id, metric_uuid: "ts-revenue", fingerprint });
    expect(queued.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(["pending", "in_progress", "completed"]).toContain(queued.body.status);

    // Finished: every day stored and the request no longer active (the job marks it done after its
    // last day, so for a moment all days read completed while the request is still in progress).
    const done = await waitFor(
      () => results(`metric_uuid=ts-revenue&fingerprint=${fingerprint}`),
      (answer) => answer.body?.status === "completed" && answer.body?.recalculation_status === null,
    );
    expect(done.status).toBe(200);
    expect(done.headers.get("etag")).toBeNull();
    const body = done.body;
    expect(Object.keys(body.timeseries)).toEqual(["2020-01-01", "2020-01-02", "2020-01-03"]);
    const counts = (day: string) => {
      const r = body.timeseries[day];
      return [
        r.baseline.number_of_samples,
        r.baseline.sum,
        r.variant_results[0].number_of_samples,
        r.variant_results[0].sum,
      ];
    };
    expect(counts("2020-01-01")).toEqual([5, 0, 5, 50]);
    expect(counts("2020-01-02")).toEqual([10, 0, 10, 100]);
    expect(counts("2020-01-03")).toEqual([10, 0, 10, 100]);
    // Control buys nothing: its mean is zero, and 5 exposures are too few.
    expect(body.timeseries["2020-01-01"].baseline.validation_failures).toEqual([
      "not-enough-exposures",
      "baseline-mean-is-zero",
    ]);
    expect(body).toMatchObject({
      experiment_id: id,
      metric_uuid: "ts-revenue",
      errors: null,
      recalculation_status: null,
      recalculation_created_at: null,
    });
    expect(typeof body.computed_at).toBe("string");
  });

  it("answers the pending request with 200 instead of queueing another", async () => {
    const s = server();
    const pending = await s.db.experimentTimeseriesRecalculation.create({
      data: {
        projectId: s.projectId,
        experimentId: id,
        metric: { ...metric, uuid: "ts-pending" },
        metricUuid: "ts-pending",
        fingerprint: "fp-pending",
        status: "pending",
      },
    });
    const again = await recalculate({ metric: { ...metric, uuid: "ts-pending" }, fingerprint: "fp-pending" });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: pending.id, status: "pending", metric_uuid: "ts-pending" });
    const listed = await results("metric_uuid=ts-pending&fingerprint=fp-pending");
    expect(listed.body).toMatchObject({
      status: "pending",
      timeseries: { "2020-01-01": null, "2020-01-02": null, "2020-01-03": null },
      recalculation_status: "pending",
      recalculation_created_at: drfDateTime(pending.createdAt),
    });
  });

  it("stores a failed day per day when the metric cannot compute: status failed, errors by day", async () => {
    const bad = {
      ...metric,
      uuid: "ts-bad",
      source: { kind: "EventsNode", event: "purchase", math: "hogql" },
    };
    expect((await recalculate({ metric: bad, fingerprint: "fp-bad" })).status).toBe(201);
    const failed = await waitFor(
      () => results("metric_uuid=ts-bad&fingerprint=fp-bad"),
      // Finished: no recalculation active any more (a failed first day already reads `failed`).
      (answer) => answer.body?.status === "failed" && answer.body?.recalculation_status === null,
    );
    expect(Object.keys(failed.body.errors)).toEqual(["2020-01-01", "2020-01-02", "2020-01-03"]);
    expect(failed.body.timeseries["2020-01-02"]).toBeNull();
    expect(failed.body.computed_at).toBeNull();
  });

  it("answers PostHog's 400s, 404 for an unknown experiment, and 403 without the scopes", async () => {
    const s = server();
    expect((await recalculate({ fingerprint })).body.detail).toBe("metric is required");
    expect((await recalculate({ metric, fingerprint: "" })).body.detail).toBe("fingerprint is required");
    const notStarted = await recalculate({ metric, fingerprint }, draft);
    expect(notStarted.status).toBe(400);
    expect(notStarted.body.detail).toBe("Cannot recalculate timeseries for experiment that hasn't started");
    expect((await recalculate({ metric, fingerprint }, 987654)).status).toBe(404);

    const noUuid = await results(`fingerprint=${fingerprint}`);
    expect(noUuid.status).toBe(400);
    expect(noUuid.body.detail).toBe("metric_uuid query parameter is required");
    expect((await results("metric_uuid=ts-revenue")).body.detail).toBe(
      "fingerprint query parameter is required",
    );
    const draftResults = await s.request(
      "GET",
      `${base()}/${draft}/timeseries_results/?metric_uuid=x&fingerprint=y`,
    );
    expect(draftResults.status).toBe(400);
    expect(draftResults.body.detail).toBe("Experiment has not been started yet");

    const reader = await s.createKey(["experiment:read"]);
    expect((await recalculate({ metric, fingerprint }, id, reader)).status).toBe(403);
    expect((await results(`metric_uuid=ts-revenue&fingerprint=${fingerprint}`, reader)).status).toBe(200);
    const none = await s.createKey(["feature_flag:read"]);
    expect((await results(`metric_uuid=ts-revenue&fingerprint=${fingerprint}`, none)).status).toBe(403);
  });
});
