/**
 * Scheduled changes under approval policies (issue 27; PostHog's
 * products/approvals/backend/scheduled_changes.py and tests/test_scheduled_change_gating.py), through
 * the real server on both backends, the services' clock moved by the test and the sweep job run:
 * a gated schedule is stored bound to a pending change request; approving it applies nothing until
 * the schedule's time, when the run applies it and marks it applied; still pending at that time it
 * expires and the change is skipped; a second schedule of the same action is refused (409); a
 * payload edit is gated again as the editor (a binding no longer needed expires); timing cannot change
 * while the request is open; deleting the schedule expires its request; a recurring schedule gets a
 * fresh request for each run.
 */
import { expect, it } from "vitest";
import { SCHEDULED_CHANGES_SWEEP_JOB } from "../../src/scheduled-changes/scheduled-changes.runs.js";
import { addUser, inOwnProject } from "../support/approvals.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestResponse } from "../support/server.js";

/** A change request as REST answers it, the fields these tests read. */
interface ChangeRequestBody {
  id: string;
  state: string;
  action_key: string;
  created_by: { id: number; email: string } | null;
}

/** The services' clock, moved by the tests. */
let clock = new Date("2031-03-03T10:00:00Z");
const hours = (n: number) => new Date(clock.getTime() + n * 3_600_000);

async function ok(response: Promise<TestResponse>, status = 200) {
  const answer = await response;
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

describeEachBackend(
  "scheduled changes under approval policies",
  (server) => {
    /** A project with an enable policy approved by a new user, a disabled flag, and a requester. */
    async function gatedSetup(name: string) {
      const s = await inOwnProject(server, name);
      const requester = await addUser(s, "requester");
      const approver = await addUser(s, "approver");
      await ok(
        s.request("POST", `/api/projects/${s.projectId}/approval_policies/`, {
          body: { action_key: "feature_flag.enable", approver_config: { quorum: 1, users: [approver.id] } },
        }),
        201,
      );
      const flag = await createFlag(s, {
        key: `scheduled-gated-${Math.random().toString(36).slice(2, 8)}`,
        active: false,
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      });
      const schedules = `/api/projects/${s.projectId}/scheduled_changes/`;
      const schedule = (payload: Record<string, unknown>, at: Date, key = requester.key, extra = {}) =>
        s.request("POST", schedules, {
          key,
          body: {
            record_id: flag.id,
            model_name: "FeatureFlag",
            payload,
            scheduled_at: at.toISOString(),
            ...extra,
          },
        });
      const requests = async () =>
        (await ok(s.request("GET", `/api/projects/${s.projectId}/change_requests/?resource_id=${flag.id}`)))
          .results as ChangeRequestBody[];
      const flagNow = async () =>
        ok(s.request("GET", `/api/projects/${s.projectId}/feature_flags/${flag.id}/`));
      const sweepAt = async (at: Date) => {
        clock = at;
        await s.app.jobs.runNow(SCHEDULED_CHANGES_SWEEP_JOB);
      };
      return { s, requester, approver, flag, schedules, schedule, requests, flagNow, sweepAt };
    }

    const ENABLE = { operation: "update_status", value: true };
    const DISABLE = { operation: "update_status", value: false };

    it("binds a gated schedule to a pending request; approval applies nothing until the schedule's time", async () => {
      const { s, approver, schedule, requests, flagNow, sweepAt, schedules } =
        await gatedSetup("scheduled approvals 1");
      const created = await ok(schedule(ENABLE, hours(1)), 201);
      const [request] = await requests();
      expect(request).toMatchObject({
        action_key: "feature_flag.enable",
        state: "pending",
        created_by: { email: expect.stringContaining("requester") },
      });
      const approved = await ok(
        s.request("POST", `/api/projects/${s.projectId}/change_requests/${request!.id}/approve/`, {
          key: approver.key,
          body: {},
        }),
      );
      expect(approved).toMatchObject({
        status: "approved",
        message: "Quorum reached. The change applies at its scheduled time.",
      });
      expect((await flagNow()).active).toBe(false);

      await sweepAt(hours(2));
      expect((await flagNow()).active).toBe(true);
      expect((await requests())[0]).toMatchObject({ id: request!.id, state: "applied" });
      const ran = await ok(s.request("GET", `${schedules}${created.id}/`));
      expect(ran.executed_at).not.toBeNull();
      expect(ran.failure_reason).toBeNull();
    });

    it("expires a request still pending at the schedule's time and skips the change", async () => {
      const { schedule, requests, flagNow, sweepAt, s, schedules } =
        await gatedSetup("scheduled approvals 2");
      const created = await ok(schedule(ENABLE, hours(1)), 201);
      await sweepAt(hours(2));
      expect((await flagNow()).active).toBe(false);
      expect((await requests())[0]).toMatchObject({ state: "expired" });
      const ran = await ok(s.request("GET", `${schedules}${created.id}/`));
      expect(ran.executed_at).not.toBeNull();
    });

    it("refuses a second schedule of the same action while one waits (409), storing nothing", async () => {
      const { s, schedule, requests, schedules, flag } = await gatedSetup("scheduled approvals 3");
      await ok(schedule(ENABLE, hours(3)), 201);
      const second = await schedule(ENABLE, hours(1));
      expect(second.status, second.text).toBe(409);
      expect(second.body).toMatchObject({
        code: "change_request_pending",
        message:
          "A change for this feature flag is already awaiting approval or its scheduled application. Wait for it to resolve before scheduling another change.",
      });
      expect((await ok(s.request("GET", `${schedules}?record_id=${flag.id}`))).count).toBe(1);
      expect(await requests()).toHaveLength(1);
      // An immediate enable meanwhile is refused the same way: one open request per action.
      const now = await s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${flag.id}/`, {
        body: { active: true },
      });
      expect(now.status).toBe(409);
      expect(now.body.code).toBe("change_request_pending");

      // GraphQL: the same refusal as a typed error, and the schedule names the request it waits for.
      const gql = await ok(
        s.request("POST", "/graphql", {
          body: {
            query: `mutation($input: CreateScheduledChangeInput!) { createScheduledChange(input: $input) {
              __typename ... on ChangeRequestPendingError { code changeRequest { uuid state } } } }`,
            variables: {
              input: {
                projectId: String(s.projectId),
                featureFlagId: String(flag.id),
                payload: { operation: "UPDATE_STATUS", value: true },
                scheduledAt: hours(1).toISOString(),
              },
            },
          },
        }),
      );
      const [open] = await requests();
      expect(gql.data.createScheduledChange).toEqual({
        __typename: "ChangeRequestPendingError",
        code: "change_request_pending",
        changeRequest: { uuid: open!.id, state: "pending" },
      });
      const listed = await ok(
        s.request("POST", "/graphql", {
          body: {
            query: `{ project(id: "${s.projectId}") { featureFlag(id: "${flag.id}") {
              scheduledChanges { edges { node { changeRequest { uuid state } } } } } } }`,
          },
        }),
      );
      expect(listed.data.project.featureFlag.scheduledChanges.edges).toEqual([
        { node: { changeRequest: { uuid: open!.id, state: "pending" } } },
      ]);
    });

    it("gates a payload edit as the editor, expires a binding no longer needed, keeps the timing of an open request, and expires it with its schedule", async () => {
      const { s, schedule, requests, schedules } = await gatedSetup("scheduled approvals 4");
      const editor = await addUser(s, "editor");
      const created = await ok(schedule(DISABLE, hours(2)), 201);
      expect(await requests()).toEqual([]);
      const path = `${schedules}${created.id}/`;

      await ok(s.request("PATCH", path, { key: editor.key, body: { payload: ENABLE } }));
      const [bound] = await requests();
      expect(bound).toMatchObject({ state: "pending", created_by: { id: editor.id } });

      const retimed = await s.request("PATCH", path, { body: { scheduled_at: hours(-1).toISOString() } });
      expect(retimed.status, retimed.text).toBe(400);
      expect(retimed.body).toMatchObject({
        attr: "scheduled_at",
        detail:
          "Cannot change the timing of a scheduled change while its approval request is pending or approved. Delete this schedule and create a new one to reschedule.",
      });

      await ok(s.request("PATCH", path, { body: { payload: DISABLE } }));
      expect((await requests()).map((r) => r.state)).toEqual(["expired"]);
      // Ungated now: its timing may change.
      await ok(s.request("PATCH", path, { body: { scheduled_at: hours(3).toISOString() } }));

      await ok(s.request("PATCH", path, { body: { payload: ENABLE } }));
      const reopened = (await requests()).find((r) => r.state === "pending");
      expect(reopened).toBeDefined();
      await ok(s.request("DELETE", path), 204);
      expect((await requests()).map((r) => r.state).sort()).toEqual(["expired", "expired"]);
    });

    it("gates a rollout change of a release condition under an update policy", async () => {
      const { s, schedule, requests, flagNow, sweepAt } = await gatedSetup("scheduled approvals 5");
      await ok(
        s.request("POST", `/api/projects/${s.projectId}/approval_policies/`, {
          body: {
            action_key: "feature_flag.update",
            conditions: { type: "before_after", field: "rollout_percentage", operator: ">", value: 0 },
            approver_config: { quorum: 1, users: [s.userId] },
          },
        }),
        201,
      );
      await ok(
        schedule(
          {
            operation: "add_release_condition",
            value: { groups: [{ properties: [], rollout_percentage: 90 }] },
          },
          hours(1),
        ),
        201,
      );
      expect(await requests()).toMatchObject([{ action_key: "feature_flag.update", state: "pending" }]);
      await sweepAt(hours(2));
      const rollouts = (await flagNow()).filters.groups.map(
        (g: { rollout_percentage: number }) => g.rollout_percentage,
      );
      expect(rollouts).toEqual([50]);
    });

    it("gives a recurring schedule a fresh request for each run", async () => {
      const { s, approver, schedule, requests, flagNow, sweepAt, schedules } =
        await gatedSetup("scheduled approvals 6");
      const created = await ok(
        schedule(ENABLE, hours(1), undefined, { is_recurring: true, recurrence_interval: "daily" }),
        201,
      );
      const [first] = await requests();
      await ok(
        s.request("POST", `/api/projects/${s.projectId}/change_requests/${first!.id}/approve/`, {
          key: approver.key,
          body: {},
        }),
      );
      await sweepAt(hours(2));
      expect((await flagNow()).active).toBe(true);
      const after = await requests();
      expect(after.find((r) => r.id === first!.id)).toMatchObject({ state: "applied" });
      // The next run's own request: the flag is active now, so an enable is no gated change: none.
      expect(after).toHaveLength(1);
      const next = await ok(s.request("GET", `${schedules}${created.id}/`));
      expect(next.executed_at).toBeNull();
      expect(new Date(next.scheduled_at).getTime()).toBeGreaterThan(clock.getTime());

      // Turned off meanwhile, the unbound next run meets the gate itself: it fails (to be retried),
      // the flag untouched; only a request bound at scheduling is applied by a run.
      await ok(
        s.request("PATCH", `/api/projects/${s.projectId}/feature_flags/${(await flagNow()).id}/`, {
          body: { active: false },
        }),
      );
      await sweepAt(new Date(new Date(next.scheduled_at).getTime() + 60_000));
      expect((await flagNow()).active).toBe(false);
      const failed = await ok(s.request("GET", `${schedules}${created.id}/`));
      expect(failed.failure_reason).toMatch(/^Approval required: .*feature_flag\.enable/);
      expect(await requests()).toHaveLength(1);
    });

    it("binds a recurring schedule's next run again when the change is gated then", async () => {
      const { s, schedule, requests, flagNow, sweepAt, schedules } =
        await gatedSetup("scheduled approvals 7");
      const created = await ok(
        schedule(ENABLE, hours(1), undefined, { is_recurring: true, recurrence_interval: "daily" }),
        201,
      );
      const [first] = await requests();
      // Not approved by the first run: it expires, the run is skipped, and the next run (the flag
      // still off) waits for a request of its own.
      await sweepAt(hours(2));
      expect((await flagNow()).active).toBe(false);
      const states = await requests();
      expect(states.find((r) => r.id === first!.id)).toMatchObject({ state: "expired" });
      expect(states.filter((r) => r.state === "pending")).toHaveLength(1);
      const next = await ok(s.request("GET", `${schedules}${created.id}/`));
      expect(next.executed_at).toBeNull();
      expect(next.failure_reason).toBeNull();
    });
  },
  { now: () => clock },
);
