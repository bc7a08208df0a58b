/**
 * Project access in PostHog's order (posthog/permissions.py, posthog-behavior.md §1.1, §1.4–§1.5):
 * the key's project and organization limits, then its scope, then the user's membership. These
 * tests hold the projects in the request already (read with the key), so no check reads the
 * database; reading an unknown project is the HTTP auth matrix's (test/app/auth-matrix.test.ts).
 */
import { describe, expect, it } from "vitest";
import {
  authorizeProject,
  authorizeProjectScopes,
  authorizeProjects,
  canReachProject,
} from "../../../src/core/auth/access.js";
import type { ActorKey } from "../../../src/core/auth/actor.js";
import type { ProjectAccess, ServiceContext } from "../../../src/core/context.js";
import { PermissionDeniedError } from "../../../src/core/errors.js";
import { actor, project } from "./support.js";

const seven = project(7, "org-a");
const eight = project(8, "org-b");

/**
 * A request's context holding projects 7 (organization org-a) and 8 (org-b), for a member of org-a.
 * Only what the checks read is there: were one to issue a statement, `db` would fail the test.
 */
function context(key: Partial<ActorKey> = {}): ServiceContext {
  const projects = new Map([seven, eight].map((p) => [p.id, p]));
  return {
    actor: actor({ key, projects: [seven, eight] }),
    projects,
  } as Partial<ServiceContext> as ServiceContext;
}

const denied = (detail: string) => expect.objectContaining({ message: detail, code: "permission_denied" });

describe("canReachProject", () => {
  it("reaches a project of the user's organizations when the key is not limited", () => {
    expect(canReachProject(context(), seven)).toBe(true);
    expect(canReachProject(context(), eight)).toBe(false);
  });

  it("follows the key's project limit", () => {
    expect(canReachProject(context({ scopedTeams: [7] }), seven)).toBe(true);
    expect(canReachProject(context({ scopedTeams: [8] }), seven)).toBe(false);
  });

  it("follows the key's organization limit", () => {
    expect(canReachProject(context({ scopedOrganizations: ["org-a"] }), seven)).toBe(true);
    expect(canReachProject(context({ scopedOrganizations: ["org-b"] }), seven)).toBe(false);
  });
});

describe("authorizeProject on a held project answers at once (no promise), as answers from memory need", () => {
  it("answers a held project the actor may use", () => {
    expect(authorizeProject(context(), 7, "feature_flag:read")).toBe(seven);
  });

  it("answers a promise for a project the request does not hold (it must read it)", () => {
    const pending = authorizeProject(context(), 9, "feature_flag:read");
    expect(pending).toBeInstanceOf(Promise);
    (pending as Promise<ProjectAccess>).catch(() => undefined);
  });

  it("refuses a key limited to other projects, naming the project", () => {
    expect(() => authorizeProject(context({ scopedTeams: [8] }), 7, "feature_flag:read")).toThrow(
      denied("API key does not have access to the requested project: ID 7."),
    );
  });

  it("refuses a key limited to other organizations, naming the organization", () => {
    expect(() =>
      authorizeProject(context({ scopedOrganizations: ["org-b"] }), 7, "feature_flag:read"),
    ).toThrow(denied("API key does not have access to the requested organization: ID org-a."));
  });

  it("refuses a key without the scope, then a user who is not a member", () => {
    expect(() => authorizeProject(context({ scopes: ["cohort:read"] }), 7, "feature_flag:read")).toThrow(
      denied("API key missing required scope 'feature_flag:read'"),
    );
    expect(() => authorizeProject(context(), 8, "feature_flag:read")).toThrow(
      denied("You don't have access to the project."),
    );
  });

  it("checks in PostHog's order: limits, scope, membership", () => {
    const key = { scopedTeams: [7], scopes: ["cohort:read"] };
    expect(() => authorizeProject(context(key), 8, "feature_flag:read")).toThrow(
      denied("API key does not have access to the requested project: ID 8."),
    );
    expect(() => authorizeProject(context({ scopes: ["cohort:read"] }), 8, "feature_flag:read")).toThrow(
      denied("API key missing required scope 'feature_flag:read'"),
    );
  });
});

describe("authorizeProject and authorizeProjectScopes on held projects", () => {
  it("answers the project without a statement", async () => {
    expect(await authorizeProject(context(), 7, "experiment:write")).toBe(seven);
    expect(() => authorizeProject(context(), 8, "experiment:write")).toThrow(PermissionDeniedError);
  });

  it("checks every scope in order and answers the first missing", async () => {
    const key = { scopes: ["feature_flag:read"] };
    await expect(authorizeProjectScopes(context(key), 7, ["feature_flag:read"])).resolves.toBe(seven);
    await expect(
      authorizeProjectScopes(context(key), 7, ["feature_flag:read", "cohort:write"]),
    ).rejects.toThrow(denied("API key missing required scope 'cohort:write'"));
    await expect(
      authorizeProjectScopes(context(key), 7, ["experiment:read", "cohort:write"]),
    ).rejects.toThrow(denied("API key missing required scope 'experiment:read'"));
  });
});

describe("authorizeProjects on held projects", () => {
  it("answers each id in order with the project or the error authorizeProject would throw", async () => {
    const [first, second, third] = await authorizeProjects(context(), [8, 7, 7], "feature_flag:read");
    expect(first).toEqual(denied("You don't have access to the project."));
    expect(first).toBeInstanceOf(PermissionDeniedError);
    expect(second).toBe(seven);
    expect(third).toBe(seven);
  });
});
