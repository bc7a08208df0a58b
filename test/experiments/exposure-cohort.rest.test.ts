/**
 * The experiment actions that read events, over REST on both backends:
 * `create_exposure_cohort_for_experiment` (PostHog's dynamic cohort of persons who performed the
 * exposure event since the start, linked to the experiment; refusals; scopes) and
 * `requires_flag_implementation` (true until sampled events of the filter carry `$feature/...`).
 */
import { describe, expect, it } from "vitest";
import { pythonIsoformat } from "../../src/experiments/rules/fingerprint.js";
import { type CaptureEvent, capture } from "../queries/trends/fixture.js";
import { describeEachBackend } from "../support/server.js";

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describeEachBackend("experiment actions on events over REST", (server) => {
  const base = () => `/api/projects/${server().projectId}/experiments`;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;

  async function experiment(body: Record<string, unknown>) {
    const answer = await server().request("POST", `${base()}/`, { body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body as { id: number; feature_flag_key: string };
  }
  const exposureCohort = (id: number, key?: string, body: unknown = {}) =>
    server().request("POST", `${base()}/${id}/create_exposure_cohort_for_experiment/`, {
      body,
      ...(key ? { key } : {}),
    });
  const called = (distinctId: string, flag: string, hours: number): CaptureEvent => ({
    event: "$feature_flag_called",
    distinct_id: distinctId,
    timestamp: hoursAgo(hours),
    properties: { $feature_flag: flag, $feature_flag_response: "test", $set: { name: distinctId } },
  });

  describe("create_exposure_cohort_for_experiment", () => {
    it("creates PostHog's dynamic cohort of persons exposed since the start, and links it", async () => {
      const s = server();
      const key = unique("exposed");
      const created = await experiment({ name: "Exposure", feature_flag_key: key, start_date: hoursAgo(48) });
      await capture(s, s.projectId, [
        called(`${key}-in`, key, 24),
        called(`${key}-other-flag`, `${key}-x`, 24),
        called(`${key}-before-start`, key, 72),
      ]);
      const answer = await exposureCohort(created.id);
      expect(answer.status, answer.text).toBe(201);
      const cohort = answer.body.cohort;
      expect(cohort).toMatchObject({
        name: 'Users exposed to experiment "Exposure"',
        is_static: false,
        is_calculating: false,
        cohort_type: "behavioral",
        count: 1,
        experiment_set: [created.id],
        created_by: { id: s.userId },
      });
      const start = await s.db.experiment.findUniqueOrThrow({ where: { id: created.id } });
      expect(cohort.filters).toEqual({
        properties: {
          type: "OR",
          values: [
            {
              type: "OR",
              values: [
                {
                  type: "behavioral",
                  value: "performed_event",
                  key: "$feature_flag_called",
                  negation: false,
                  event_type: "events",
                  event_filters: [{ key: "$feature_flag", value: [key], operator: "exact", type: "event" }],
                  explicit_datetime: pythonIsoformat(start.startDate!),
                },
              ],
            },
          ],
        },
      });
      const persons = await s.request("GET", `/api/projects/${s.projectId}/cohorts/${cohort.id}/persons/`);
      expect(persons.body.results.map((p: { properties: { name: string } }) => p.properties.name)).toEqual([
        `${key}-in`,
      ]);
      const read = await s.request("GET", `${base()}/${created.id}/`);
      expect(read.body.exposure_cohort).toBe(cohort.id);

      const again = await exposureCohort(created.id);
      expect(again.status).toBe(400);
      expect(again.body.detail).toBe("Experiment already has an exposure cohort");
    });

    it("uses the custom exposure event and its event filters when parameters name one", async () => {
      const s = server();
      const key = unique("custom");
      const created = await experiment({
        name: "Custom exposure",
        feature_flag_key: key,
        start_date: hoursAgo(48),
        parameters: {
          custom_exposure_filter: {
            events: [
              {
                id: `${key}-seen`,
                type: "events",
                order: 0,
                properties: [{ key: "plan", value: "pro", operator: "exact", type: "event" }],
              },
            ],
          },
        },
      });
      await capture(s, s.projectId, [
        {
          event: `${key}-seen`,
          distinct_id: `${key}-pro`,
          timestamp: hoursAgo(2),
          properties: { plan: "pro" },
        },
        {
          event: `${key}-seen`,
          distinct_id: `${key}-free`,
          timestamp: hoursAgo(2),
          properties: { plan: "free" },
        },
      ]);
      const answer = await exposureCohort(created.id);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.cohort.count).toBe(1);
      expect(answer.body.cohort.filters.properties.values[0].values[0]).toMatchObject({
        key: `${key}-seen`,
        event_type: "events",
        event_filters: [{ key: "plan", value: "pro", operator: "exact", type: "event" }],
      });
    });

    it("refuses a draft, an unknown experiment and too deep a body, writing nothing", async () => {
      const s = server();
      const draft = await experiment({ name: "Draft", feature_flag_key: unique("draft") });
      const before = await s.db.cohort.count({ where: { projectId: s.projectId } });
      const refused = await exposureCohort(draft.id);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ detail: "Experiment does not have a start date", attr: null });
      expect((await exposureCohort(999_999)).status).toBe(404);
      const nested = JSON.parse(`${"[".repeat(200)}${"]".repeat(200)}`);
      expect((await exposureCohort(draft.id, undefined, { deep: nested })).status).toBe(400);
      expect(await s.db.cohort.count({ where: { projectId: s.projectId } })).toBe(before);
    });

    it("needs experiment:write, and no cohort scope", async () => {
      const s = server();
      const created = await experiment({
        name: "Scoped",
        feature_flag_key: unique("scoped"),
        start_date: hoursAgo(1),
      });
      const reader = await s.createKey(["experiment:read", "cohort:write"]);
      expect((await exposureCohort(created.id, reader)).status).toBe(403);
      const writer = await s.createKey(["experiment:write"]);
      expect((await exposureCohort(created.id, writer)).status).toBe(201);
    });
  });

  describe("requires_flag_implementation", () => {
    const requires = (events: unknown, extra = "") =>
      server().request(
        "GET",
        `${base()}/requires_flag_implementation/?events=${encodeURIComponent(JSON.stringify(events))}${extra}`,
      );

    it("is true until recent events of the filter carry a $feature/ property", async () => {
      const s = server();
      const event = unique("signup");
      const entities = [{ id: event, type: "events", order: 0 }];
      expect((await requires(entities)).body).toEqual({ result: true });
      await capture(s, s.projectId, [
        { event, distinct_id: "rfi-a", timestamp: hoursAgo(1), properties: { plan: "pro" } },
        // Older than the 7 days sampled: its flag property does not count.
        { event, distinct_id: "rfi-b", timestamp: hoursAgo(24 * 9), properties: { "$feature/x": "test" } },
        // Another event name than the filter's.
        {
          event: `${event}-other`,
          distinct_id: "rfi-c",
          timestamp: hoursAgo(1),
          properties: { "$feature/x": "test" },
        },
      ]);
      expect((await requires(entities)).body).toEqual({ result: true });
      await capture(s, s.projectId, [
        { event, distinct_id: "rfi-d", timestamp: hoursAgo(2), properties: { "$feature/x": "control" } },
      ]);
      const answer = await requires(entities);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ result: false });
      // Only the latest `limit` events of each name are sampled.
      expect((await requires(entities, "&limit=1")).body).toEqual({ result: true });
      // Actions name no events here: the answer is true.
      const actions = await s.request(
        "GET",
        `${base()}/requires_flag_implementation/?actions=${encodeURIComponent('[{"id": 1, "type": "actions"}]')}`,
      );
      expect(actions.body).toEqual({ result: true });
    });

    it("refuses malformed entity lists and limits, and keys without experiment:read", async () => {
      const s = server();
      const bad = await s.request("GET", `${base()}/requires_flag_implementation/?events=not-json`);
      expect(bad.status).toBe(400);
      expect(bad.body.attr).toBe("events");
      expect((await requires([1, 2])).body.attr).toBe("events");
      expect((await requires([], "&limit=x")).body.attr).toBe("limit");
      const none = await s.createKey(["feature_flag:read"]);
      const denied = await s.request("GET", `${base()}/requires_flag_implementation/`, { key: none });
      expect(denied.status).toBe(403);
    });
  });
});
