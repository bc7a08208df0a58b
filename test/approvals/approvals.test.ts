/**
 * Approvals (issue 27) through the real server, on both backends, with several users and keys:
 * policies as PostHog's `ApprovalPolicyViewSet` answers them; the gate on flag and experiment writes
 * (409 `approval_required`, `change_request_pending`, 400 `policy_conflict`, nothing written);
 * change requests approved, rejected, cancelled and expired with PostHog's permission rules and
 * messages; applied at quorum as the requester, or failed as stale when the flag moved; concurrent
 * votes applying once; the same outcomes over GraphQL, and `changeRequestChanged`.
 */
import { expect, it } from "vitest";
import { addUser, inOwnProject } from "../support/approvals.js";
import { expectNothingWritten } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";
import { subscribeSse } from "../support/sse.js";
import { createExperiment } from "../support/tenancy.js";

const base = (s: TestServer) => `/api/projects/${s.projectId}/`;

async function ok(response: Promise<TestResponse>, status = 200) {
  const answer = await response;
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

/** A policy made by the bootstrap user (the organization's owner). */
function createPolicy(s: TestServer, body: Record<string, unknown>) {
  return ok(s.request("POST", `${base(s)}approval_policies/`, { body }), 201);
}

async function flagAt(s: TestServer, id: number) {
  return ok(s.request("GET", `${base(s)}feature_flags/${id}/`));
}

describeEachBackend("approvals", (server) => {
  it("keeps policies as PostHog's viewset does: admins write, one per action, its validation and formats", async () => {
    const s = await inOwnProject(server, "approvals 2");
    const member = await addUser(s, "member");
    const created = await createPolicy(s, {
      action_key: "feature_flag.enable",
      approver_config: { quorum: 1, users: [member.id] },
    });
    expect(created).toMatchObject({
      action_key: "feature_flag.enable",
      conditions: {},
      approver_config: { quorum: 1, users: [member.id] },
      allow_self_approve: false,
      bypass_org_membership_levels: [],
      bypass_roles: [],
      expires_after: "14 00:00:00",
      enabled: true,
      created_by: { id: s.userId },
    });
    const path = `${base(s)}approval_policies/`;
    const duplicate = await s.request("POST", path, {
      body: { action_key: "feature_flag.enable", approver_config: { quorum: 1 } },
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.detail).toBe(
      "A policy for this action already exists. You can edit the existing policy instead.",
    );
    const quorum = await s.request("POST", path, {
      body: { action_key: "feature_flag.disable", approver_config: { quorum: 0 } },
    });
    expect(quorum.status).toBe(400);
    expect(quorum.body).toMatchObject({ attr: "approver_config", detail: "Quorum must be at least 1" });
    const duration = await s.request("PATCH", `${path}${created.id}/`, { body: { expires_after: "soon" } });
    expect(duration.status).toBe(400);
    expect(duration.body.attr).toBe("expires_after");
    expect(
      await ok(s.request("PATCH", `${path}${created.id}/`, { body: { expires_after: "P7DT1H" } })),
    ).toMatchObject({
      expires_after: "7 01:00:00",
    });
    const refused = await s.request("POST", path, {
      key: member.key,
      body: { action_key: "feature_flag.disable", approver_config: { quorum: 1 } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("Your organization access level is insufficient.");
    const reader = await s.createKey(["approvals:read"]);
    const scoped = await s.request("POST", path, {
      key: reader,
      body: { action_key: "feature_flag.disable", approver_config: { quorum: 1 } },
    });
    expect(scoped.status).toBe(403);
    expect(scoped.body.detail).toContain("approvals:write");
    const list = await ok(s.request("GET", `${path}?action_key=feature_flag.enable`, { key: reader }));
    expect(list).toMatchObject({ count: 1, results: [{ id: created.id }] });
    expect(await ok(s.request("GET", `${path}?enabled=false`))).toMatchObject({ count: 0 });
    await ok(s.request("DELETE", `${path}${created.id}/`), 204);
    expect(await ok(s.request("GET", path))).toMatchObject({ count: 0 });
  });

  it("holds a gated write as a change request, and applies it as the requester once approved", async () => {
    const s = await inOwnProject(server, "approvals 3");
    const requester = await addUser(s, "requester");
    const approver = await addUser(s, "approver");
    await createPolicy(s, {
      action_key: "feature_flag.enable",
      approver_config: { quorum: 1, users: [approver.id] },
    });
    const flag = await createFlag(s, { key: "gated", active: false });
    const path = `${base(s)}feature_flags/${flag.id}/`;

    const gated = await s.request("PATCH", path, {
      key: requester.key,
      body: { active: true, name: "Turned on" },
    });
    expect(gated.status, gated.text).toBe(409);
    expect(gated.body).toMatchObject({
      code: "approval_required",
      status: "approval_required",
      message: "A change request has been created and is pending approval.",
      resource_type: "feature_flag",
      resource_id: String(flag.id),
      required_approvers: { quorum: 1, users: [approver.id] },
      change_request: {
        action_key: "feature_flag.enable",
        state: "pending",
        validation_status: "valid",
        created_by: { id: requester.id },
        intent: {
          flag_id: flag.id,
          current_state: { active: false },
          gated_changes: { active: true },
          full_request_data: { active: true, name: "Turned on" },
          preconditions: { version: 1 },
        },
        intent_display: { description: "Enable feature flag 'gated'" },
        policy_snapshot: { quorum: 1, users: [approver.id], allow_self_approve: false },
      },
    });
    expect(gated.body.change_request_id).toBe(gated.body.change_request.id);
    expect(await flagAt(s, flag.id)).toMatchObject({ active: false, name: "", version: 1 });

    const again = await s.request("PATCH", path, { key: requester.key, body: { active: true } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: "change_request_pending",
      change_request_id: gated.body.change_request_id,
    });

    const requestPath = `${base(s)}change_requests/${gated.body.change_request_id}/`;
    const own = await s.request("POST", `${requestPath}approve/`, { key: requester.key, body: {} });
    expect(own.status).toBe(403);
    expect(own.body.detail).toBe("You cannot approve your own change request");
    const outsider = await s.request("POST", `${requestPath}approve/`, { body: {} });
    expect(outsider.status).toBe(403);
    expect(outsider.body.detail).toBe("You are not in the approver set for this change request");
    expect(await ok(s.request("GET", requestPath, { key: approver.key }))).toMatchObject({
      can_approve: true,
      can_cancel: false,
      is_requester: false,
      user_decision: null,
    });

    const approved = await ok(
      s.request("POST", `${requestPath}approve/`, { key: approver.key, body: { reason: "fine" } }),
    );
    expect(approved).toMatchObject({
      status: "applied",
      message: "Quorum reached. Change applied successfully.",
      result: { resource_id: flag.id, resource_version: 2 },
      change_request: {
        state: "applied",
        applied_by: { id: requester.id },
        result_data: { resource_id: flag.id, resource_version: 2 },
        approvals: [{ decision: "approved", reason: "fine", created_by: { id: approver.id } }],
        user_decision: "approved",
      },
    });
    expect(await flagAt(s, flag.id)).toMatchObject({
      active: true,
      name: "Turned on",
      version: 2,
      last_modified_by: { id: requester.id },
    });
    const activity = await ok(s.request("GET", `${path}activity/`));
    expect(activity.results[0].detail.trigger).toMatchObject({
      job_type: "change_request",
      job_id: gated.body.change_request_id,
    });
    const transitions = await ok(
      s.request("GET", `/api/projects/${s.projectId}/activity_log/?scope=ChangeRequest`),
    ).catch(() => null);
    if (transitions) expect(transitions.results.length).toBeGreaterThanOrEqual(3);
    const late = await s.request("POST", `${requestPath}approve/`, { key: approver.key, body: {} });
    expect(late.status).toBe(403);
    expect(late.body.detail).toBe("Only pending change requests can be approved");
  });

  it("holds a flag create a policy gates: nothing is created until approved, then once, as the requester", async () => {
    const s = await inOwnProject(server, "approvals create");
    const requester = await addUser(s, "requester");
    const approver = await addUser(s, "approver");
    await createPolicy(s, {
      action_key: "feature_flag.enable",
      approver_config: { quorum: 1, users: [approver.id] },
    });
    const flags = `${base(s)}feature_flags/`;
    const everyone = { groups: [{ properties: [], rollout_percentage: 100 }] };
    // Born active (the model's default when `active` is not sent): held.
    const held = await s.request("POST", flags, {
      key: requester.key,
      body: { key: "born-active", filters: everyone },
    });
    expect(held.status, held.text).toBe(409);
    expect(held.body).toMatchObject({
      code: "approval_required",
      resource_type: "feature_flag",
      resource_id: null,
      change_request: { action_key: "feature_flag.enable", state: "pending", resource_id: null },
    });
    const keys = async () =>
      (await ok(s.request("GET", `${flags}?search=born`))).results.map((flag: { key: string }) => flag.key);
    expect(await keys()).toEqual([]);
    // Another held create, of another flag, is a request of its own; a disabled create passes.
    const other = await s.request("POST", flags, {
      key: requester.key,
      body: { key: "born-active-too", active: true, filters: everyone },
    });
    expect(other.status, other.text).toBe(409);
    expect(other.body.code).toBe("approval_required");
    await ok(
      s.request("POST", flags, {
        key: requester.key,
        body: { key: "born-off", active: false, filters: everyone },
      }),
      201,
    );

    const decision = await ok(
      s.request("POST", `${base(s)}change_requests/${held.body.change_request_id}/approve/`, {
        key: approver.key,
        body: {},
      }),
    );
    expect(decision).toMatchObject({ status: "applied" });
    const listed = await ok(s.request("GET", `${flags}?search=born-active`));
    const created = listed.results.filter((flag: { key: string }) => flag.key === "born-active");
    expect(created).toMatchObject([{ active: true, created_by: { id: requester.id } }]);
    expect(decision.result_data ?? decision.change_request?.result_data).toMatchObject({
      resource_id: created[0].id,
    });

    // Enabling and setting a rollout at once would need two approvals: refused, nothing written.
    await createPolicy(s, {
      action_key: "feature_flag.update",
      conditions: { type: "before_after", field: "rollout_percentage", operator: ">", value: 0 },
      approver_config: { quorum: 1, users: [approver.id] },
    });
    const conflict = await expectNothingWritten(s.db, "conflicting create", () =>
      s.request("POST", flags, { body: { key: "born-both", active: true, filters: everyone } }),
    );
    expect(conflict.status, conflict.text).toBe(400);
    expect(conflict.body.code).toBe("policy_conflict");
  });

  it("rejects with a reason, refuses a second vote, and lets the requester cancel", async () => {
    const s = await inOwnProject(server, "approvals 4");
    const requester = await addUser(s, "requester");
    const [first, second] = [await addUser(s, "first"), await addUser(s, "second")];
    await createPolicy(s, {
      action_key: "feature_flag.disable",
      approver_config: { quorum: 2, users: [first.id, second.id] },
    });
    const flag = await createFlag(s, { key: "kept-on" });
    const gated = await s.request("PATCH", `${base(s)}feature_flags/${flag.id}/`, {
      key: requester.key,
      body: { active: false },
    });
    expect(gated.status).toBe(409);
    const requestPath = `${base(s)}change_requests/${gated.body.change_request_id}/`;
    const one = await ok(s.request("POST", `${requestPath}approve/`, { key: first.key, body: {} }));
    expect(one).toMatchObject({ status: "approved", message: "Approval recorded. 1/2 approvals received." });
    expect(one.change_request.state).toBe("pending");
    const twice = await s.request("POST", `${requestPath}approve/`, { key: first.key, body: {} });
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ error: "You have already voted on this change request." });
    // With an approval given and the flag unchanged, the requester may no longer cancel.
    const cancel = await s.request("POST", `${requestPath}cancel/`, { key: requester.key, body: {} });
    expect(cancel.status).toBe(403);
    expect(cancel.body.detail).toBe("You cannot cancel this change request");
    await expectNothingWritten(s.db, "reject without a reason", async () => {
      const noReason = await s.request("POST", `${requestPath}reject/`, { key: second.key, body: {} });
      expect(noReason.status).toBe(400);
      expect(noReason.body).toEqual({ error: "A reason is required for rejection." });
    });
    const rejected = await ok(
      s.request("POST", `${requestPath}reject/`, { key: second.key, body: { reason: "not now" } }),
    );
    expect(rejected).toMatchObject({ status: "rejected", message: "Change request rejected." });
    expect(rejected.change_request.state).toBe("rejected");
    expect((await flagAt(s, flag.id)).active).toBe(true);

    // A new request of the same action may be made once the last one closed; its requester cancels it.
    const next = await s.request("PATCH", `${base(s)}feature_flags/${flag.id}/`, {
      key: requester.key,
      body: { active: false },
    });
    expect(next.status).toBe(409);
    const nextPath = `${base(s)}change_requests/${next.body.change_request_id}/`;
    const notMine = await s.request("POST", `${nextPath}cancel/`, { key: first.key, body: {} });
    expect(notMine.status).toBe(403);
    const canceled = await ok(s.request("POST", `${nextPath}cancel/`, { key: requester.key, body: {} }));
    expect(canceled).toMatchObject({ status: "canceled", message: "Change request canceled." });
    expect(canceled.change_request).toMatchObject({
      state: "rejected",
      approvals: [{ decision: "rejected", reason: "Canceled by requester" }],
    });
    const states = await ok(
      s.request("GET", `${base(s)}change_requests/?state=rejected,applied&requester=${requester.id}`),
    );
    expect(states.count).toBe(2);
    const bad = await s.request("GET", `${base(s)}change_requests/?requester=me`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ attr: "requester", detail: "Enter a number." });
  });

  it("gates rollout changes by their conditions, lets bypassing members through, and refuses a change two policies hold", async () => {
    const s = await inOwnProject(server, "approvals 5");
    const requester = await addUser(s, "requester");
    const approver = await addUser(s, "approver");
    await createPolicy(s, {
      action_key: "feature_flag.update",
      conditions: { type: "before_after", field: "rollout_percentage", operator: ">", value: 50 },
      approver_config: { quorum: 1, users: [approver.id] },
      bypass_org_membership_levels: [15],
    });
    const flag = await createFlag(s, {
      key: "rolled",
      filters: { groups: [{ properties: [], rollout_percentage: 10 }] },
    });
    const path = `${base(s)}feature_flags/${flag.id}/`;
    const rollout = (value: number) => ({
      filters: { groups: [{ properties: [], rollout_percentage: value }] },
    });
    await ok(s.request("PATCH", path, { key: requester.key, body: rollout(40) }));
    const gated = await s.request("PATCH", path, { key: requester.key, body: rollout(60) });
    expect(gated.status).toBe(409);
    expect(gated.body.change_request).toMatchObject({
      action_key: "feature_flag.update",
      intent: {
        current_state: { rollout_percentage: [{ path: "groups[0].rollout_percentage", value: 40 }] },
        gated_changes: { rollout_percentage: [{ path: "groups[0].rollout_percentage", value: 60 }] },
        triggered_paths: ["groups[0].rollout_percentage"],
      },
      intent_display: {
        description:
          "Update rollout percentage for feature flag 'rolled': rollout percentage at groups[0].rollout_percentage: 40% -> 60%",
      },
    });
    // The owner (level 15) bypasses; the pending request goes stale, and its approval then fails.
    await ok(s.request("PATCH", path, { body: rollout(70) }));
    const requestPath = `${base(s)}change_requests/${gated.body.change_request_id}/`;
    expect(await ok(s.request("GET", requestPath))).toMatchObject({
      validation_status: "stale",
      validation_errors: { staleness: "Resource has been modified since this change request was created" },
    });
    const failed = await ok(s.request("POST", `${requestPath}approve/`, { key: approver.key, body: {} }));
    expect(failed).toMatchObject({
      status: "failed",
      message: "Quorum reached but application failed: Flag version mismatch: expected 2, got 3",
      change_request: {
        state: "failed",
        apply_error: "Precondition failed: Flag version mismatch: expected 2, got 3",
      },
    });
    expect((await flagAt(s, flag.id)).filters.groups[0].rollout_percentage).toBe(70);

    await createPolicy(s, {
      action_key: "feature_flag.enable",
      approver_config: { quorum: 1, users: [approver.id] },
    });
    await ok(s.request("PATCH", path, { body: { active: false } }));
    await expectNothingWritten(s.db, "a policy conflict", async () => {
      const conflict = await s.request("PATCH", path, {
        key: requester.key,
        body: { active: true, ...rollout(90) },
      });
      expect(conflict.status).toBe(400);
      expect(conflict.body).toMatchObject({
        code: "policy_conflict",
        error: "This change matches multiple approval policies",
        guidance: "Split your changes into separate API calls to address each policy independently",
      });
      expect(conflict.body.conflicting_policies).toHaveLength(2);
    });
  });

  it("applies once when many approvers vote at once, and an edit racing an approval stays intact", async () => {
    const s = await inOwnProject(server, "approvals 6");
    const requester = await addUser(s, "requester");
    const approvers = await Promise.all(Array.from({ length: 20 }, (_, i) => addUser(s, `approver${i}`)));
    // Made active before the enable policy, which would hold its create.
    const raced = await createFlag(s, { key: "raced" });
    await createPolicy(s, {
      action_key: "feature_flag.enable",
      approver_config: { quorum: 3, users: approvers.map((a) => a.id) },
    });
    const flag = await createFlag(s, { key: "crowded", active: false });
    const gated = await s.request("PATCH", `${base(s)}feature_flags/${flag.id}/`, {
      key: requester.key,
      body: { active: true },
    });
    const requestPath = `${base(s)}change_requests/${gated.body.change_request_id}/`;
    const votes = await Promise.all(
      approvers.map((a) => s.request("POST", `${requestPath}approve/`, { key: a.key, body: {} })),
    );
    const applied = votes.filter((v) => v.status === 200 && v.body.status === "applied");
    expect(applied).toHaveLength(1);
    expect(votes.filter((v) => v.status === 200)).toHaveLength(3);
    for (const refused of votes.filter((v) => v.status !== 200)) {
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toBe("Only pending change requests can be approved");
    }
    expect(await flagAt(s, flag.id)).toMatchObject({ active: true, version: 2 });
    const request = await ok(s.request("GET", requestPath));
    expect(request.approvals).toHaveLength(3);

    // An edit and an approval at once: whichever commits first, the edit is kept.
    await createPolicy(s, {
      action_key: "feature_flag.disable",
      approver_config: { quorum: 1, users: [approvers[0]!.id] },
    });
    const held = await s.request("PATCH", `${base(s)}feature_flags/${raced.id}/`, {
      key: requester.key,
      body: { active: false },
    });
    expect(held.status, held.text).toBe(409);
    const [edit, vote] = await Promise.all([
      s.request("PATCH", `${base(s)}feature_flags/${raced.id}/`, { body: { name: "edited" } }),
      s.request("POST", `${base(s)}change_requests/${held.body.change_request_id}/approve/`, {
        key: approvers[0]!.key,
        body: {},
      }),
    ]);
    expect(edit.status, edit.text).toBe(200);
    expect(vote.status, vote.text).toBe(200);
    const after = await flagAt(s, raced.id);
    expect(after.name).toBe("edited");
    if (vote.body.status === "applied") {
      expect(after.active).toBe(false);
    } else {
      expect(vote.body).toMatchObject({ status: "failed", change_request: { state: "failed" } });
      expect(after.active).toBe(true);
    }
  });

  it("gates an experiment's launch as experiment.launch, and expires requests whose time is up", async () => {
    const s = await inOwnProject(server, "approvals 7");
    const requester = await addUser(s, "requester");
    const approver = await addUser(s, "approver");
    await createPolicy(s, {
      action_key: "experiment.launch",
      approver_config: { quorum: 1, users: [approver.id] },
      expires_after: "00:00:01",
    });
    const id = await createExperiment(s, s.projectId, "Gated launch");
    const launch = await s.request("PATCH", `${base(s)}experiments/${id}/`, {
      key: requester.key,
      body: { start_date: new Date().toISOString() },
    });
    expect(launch.status, launch.text).toBe(409);
    expect(launch.body.change_request).toMatchObject({ action_key: "experiment.launch", state: "pending" });
    const experiment = await ok(s.request("GET", `${base(s)}experiments/${id}/`));
    expect(experiment.start_date).toBeNull();
    expect(experiment.feature_flag.active).toBe(false);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await s.services.approvals.expireDue()).toBe(1);
    const requestPath = `${base(s)}change_requests/${launch.body.change_request_id}/`;
    expect((await ok(s.request("GET", requestPath))).state).toBe("expired");
    const late = await s.request("POST", `${requestPath}approve/`, { key: approver.key, body: {} });
    expect(late.status).toBe(403);
  });

  it("answers the same over GraphQL: a typed ApprovalRequiredError, votes, and changeRequestChanged", async () => {
    const s = await inOwnProject(server, "approvals 8");
    const requester = await addUser(s, "requester");
    const approver = await addUser(s, "approver");
    const policy = await s.request("POST", "/graphql", {
      body: {
        query: `mutation($input: CreateApprovalPolicyInput!) { createApprovalPolicy(input: $input) {
          __typename ... on CreateApprovalPolicySuccess { approvalPolicy { actionKey expiresAfter } } ... on Error { message } } }`,
        variables: {
          input: {
            projectId: String(s.projectId),
            actionKey: "feature_flag.enable",
            approverConfig: { quorum: 1, users: [approver.id] },
          },
        },
      },
    });
    expect(policy.body.data.createApprovalPolicy).toEqual({
      __typename: "CreateApprovalPolicySuccess",
      approvalPolicy: { actionKey: "feature_flag.enable", expiresAfter: "14 00:00:00" },
    });
    const flag = await createFlag(s, { key: "graphed", active: false });
    const stream = await subscribeSse(
      s.baseUrl,
      approver.key,
      `subscription($projectId: ID!) { changeRequestChanged(projectId: $projectId) { activity changeRequest { state actionKey } } }`,
      { projectId: String(s.projectId) },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const update = await s.request("POST", "/graphql", {
        key: requester.key,
        body: {
          query: `mutation($input: UpdateFeatureFlagInput!) { updateFeatureFlag(input: $input) {
            __typename ... on ApprovalRequiredError { code message changeRequest { id uuid state actionKey } requiredApprovers }
            ... on Error { message } } }`,
          variables: { input: { projectId: String(s.projectId), id: String(flag.id), active: true } },
        },
      });
      const gated = update.body.data.updateFeatureFlag;
      expect(gated).toMatchObject({
        __typename: "ApprovalRequiredError",
        code: "approval_required",
        changeRequest: { state: "pending", actionKey: "feature_flag.enable" },
        requiredApprovers: { quorum: 1, users: [approver.id] },
      });
      const created = JSON.parse((await stream.next(5_000)).data);
      expect(created.data.changeRequestChanged).toEqual({
        activity: "created",
        changeRequest: { state: "pending", actionKey: "feature_flag.enable" },
      });
      const vote = await s.request("POST", "/graphql", {
        key: approver.key,
        body: {
          query: `mutation($input: ApproveChangeRequestInput!) { approveChangeRequest(input: $input) {
            __typename ... on ApproveChangeRequestSuccess { decision { status result changeRequest { state } } } ... on Error { message } } }`,
          variables: { input: { projectId: String(s.projectId), id: gated.changeRequest.id } },
        },
      });
      expect(vote.body.data.approveChangeRequest).toEqual({
        __typename: "ApproveChangeRequestSuccess",
        decision: {
          status: "applied",
          result: { resource_id: flag.id, resource_version: 2 },
          changeRequest: { state: "applied" },
        },
      });
      const seen: string[] = [];
      while (seen.length < 2)
        seen.push(JSON.parse((await stream.next(5_000)).data).data.changeRequestChanged.activity);
      expect(seen).toEqual(["approved", "applied"]);
    } finally {
      stream.close();
    }
    expect((await flagAt(s, flag.id)).active).toBe(true);
  });
});
