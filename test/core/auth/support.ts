/** Actors and projects for the core/auth unit tests, shaped as the key lookup reads them. */
import type { Actor, ActorKey } from "../../../src/core/auth/actor.js";
import type { ProjectRecord } from "../../../src/core/records.js";

/** A project of organization `organizationId` at `revision`. */
export function project(id: number, organizationId = "org-a", revision = 1n): ProjectRecord {
  const at = new Date("2025-11-15T12:00:00Z");
  return {
    id,
    organizationId,
    name: `Project ${id}`,
    apiToken: `phc_project${id}`,
    timezone: "UTC",
    revision,
    createdAt: at,
    updatedAt: at,
  };
}

/** A member of `organizationIds` whose key is `key` (all scopes, no limits, unless given). */
export function actor(options: {
  organizationIds?: string[];
  projects?: ProjectRecord[];
  key?: Partial<ActorKey>;
}): Actor {
  return {
    user: {
      id: 1,
      uuid: "0190a0a0-0000-7000-8000-000000000001",
      distinctId: "user-1",
      firstName: "Ada",
      lastName: "",
      email: "ada@example.com",
      isEmailVerified: true,
      hedgehogConfig: null,
      roleAtOrganization: null,
      currentProjectId: null,
    },
    apiKey: {
      id: "key-1",
      label: "test key",
      maskValue: "phx_...abcd",
      scopes: ["*"],
      scopedTeams: [],
      scopedOrganizations: [],
      ...options.key,
    },
    organizationIds: options.organizationIds ?? ["org-a"],
    projects: options.projects ?? [],
  };
}
