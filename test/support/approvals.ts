/**
 * Approval fixtures for the route-walking tests: a policy no write matches (an action key no flag
 * write is, so the fixtures gate nothing), and pending change requests written straight to the
 * database (no policy or gated write needed), by another user for the bootstrap user to vote on, or
 * by the bootstrap user for it to cancel. Also the approval tests' users (`addUser`) and per-test
 * projects (`inOwnProject`).
 */
import { expect } from "vitest";
import { runAdminCommand } from "../../src/cli/admin-commands.js";
import type { TestServer } from "./server.js";

let policies = 0;

/** A new enabled policy of `project` under an action key no write is; its UUID. */
export async function createPolicyFixture(s: TestServer, project: number): Promise<string> {
  policies += 1;
  const response = await s.request("POST", `/api/projects/${project}/approval_policies/`, {
    body: {
      action_key: `fixture.never-${policies}-${Date.now()}`,
      approver_config: { quorum: 1, users: [s.userId] },
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

const requesters = new WeakMap<TestServer["db"], number>();

/** Another member of the bootstrap organization who asks for changes (made once per database). */
export async function requesterOf(s: TestServer): Promise<number> {
  const known = requesters.get(s.db);
  if (known !== undefined) return known;
  const created = (await runAdminCommand(s.db, {
    name: "users-create",
    options: { email: `requester-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com` },
  })) as { user_id: number };
  requesters.set(s.db, created.user_id);
  return created.user_id;
}

/**
 * A pending change request of `project` asking to rename flag `flagId` (applied at version 1 only),
 * by the other member (`by: "other"`, which the bootstrap user may approve) or by the bootstrap user
 * (`by: "self"`, which it may cancel, and approve too with `selfApprove`); its UUID.
 */
export async function createChangeRequestFixture(
  s: TestServer,
  project: number,
  flagId: number,
  by: "other" | "self" = "other",
  selfApprove = false,
): Promise<string> {
  const organizationId = (await s.db.project.findUniqueOrThrow({ where: { id: project } })).organizationId;
  const requester = by === "self" ? s.userId : await requesterOf(s);
  const created = await s.db.changeRequest.create({
    data: {
      projectId: project,
      organizationId,
      actionKey: "feature_flag.update",
      resourceType: "feature_flag",
      // Its own resource id, so that fixtures on one flag are never one open request of it.
      resourceId: `${flagId}-${Math.random().toString(36).slice(2)}`,
      intent: { flag_id: flagId, full_request_data: { name: "approved" }, preconditions: { version: 1 } },
      intentDisplay: { description: "a fixture" },
      policySnapshot: {
        quorum: 1,
        users: [s.userId],
        roles: [],
        allow_self_approve: selfApprove,
        conditions: {},
      },
      createdById: requester,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  return created.id;
}

/** Another user of the bootstrap organization, with a key of `scopes`. */
export async function addUser(
  s: TestServer,
  name: string,
  level: "member" | "admin" = "member",
  scopes = ["*"],
) {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = (await runAdminCommand(s.db, { name: "users-create", options: { email, level } })) as {
    user_id: number;
  };
  const { personal_api_key: key } = (await runAdminCommand(s.db, {
    name: "keys-create",
    options: { email, label: name, scopes, projects: [], organizations: [] },
  })) as { personal_api_key: string };
  return { id: user.user_id, key };
}

/**
 * The server as one test sees it: its own project of the bootstrap organization (the server, and so
 * the policies of its bootstrap project, are shared by the file's tests).
 */
export async function inOwnProject(server: () => TestServer, name: string): Promise<TestServer> {
  const s = server();
  const projectId = await s.createProject(name);
  return Object.assign(Object.create(s) as TestServer, { projectId });
}
