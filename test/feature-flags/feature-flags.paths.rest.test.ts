/**
 * Every documented flag path (spec rows 1–14 and 18, and `:id/dependent_flags`) answers bad
 * input, a missing scope and a wrong project the way PostHog does; success cases live beside each
 * feature's own tests.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

interface PathCase {
  name: string;
  method: string;
  path: (project: number | string, flagId: number | string) => string;
  body?: unknown;
  /** A request to this path with bad input, and the status and error code it gets. */
  bad: { path?: (project: number, flagId: number) => string; body?: unknown; status: number; code?: string };
  scope: string;
}

const base = (p: number | string) => `/api/projects/${p}/feature_flags/`;

const CASES: PathCase[] = [
  {
    name: "list",
    method: "GET",
    path: (p) => base(p),
    bad: { path: (p) => `${base(p)}?active=maybe&limit=-1`, status: 200 },
    scope: "feature_flag:read",
  },
  {
    name: "create",
    method: "POST",
    path: (p) => base(p),
    body: { key: "matrix-created" },
    bad: { body: { key: "bad key!" }, status: 400, code: "invalid_key" },
    scope: "feature_flag:write",
  },
  {
    name: "retrieve",
    method: "GET",
    path: (p, id) => `${base(p)}${id}/`,
    bad: { path: (p) => `${base(p)}not-a-number/`, status: 404, code: "not_found" },
    scope: "feature_flag:read",
  },
  {
    name: "update",
    method: "PATCH",
    path: (p, id) => `${base(p)}${id}/`,
    body: { name: "matrix" },
    bad: { body: { filters: "everyone" }, status: 400, code: "not_a_dict" },
    scope: "feature_flag:write",
  },
  {
    name: "delete",
    method: "DELETE",
    path: (p, id) => `${base(p)}${id}/`,
    bad: { status: 405 },
    scope: "feature_flag:write",
  },
  {
    name: "flag activity",
    method: "GET",
    path: (p, id) => `${base(p)}${id}/activity/`,
    bad: { path: (p, id) => `${base(p)}${id}/activity/?limit=0`, status: 400, code: "invalid_input" },
    scope: "activity_log:read",
  },
  {
    name: "project activity",
    method: "GET",
    path: (p) => `${base(p)}activity/`,
    bad: { path: (p) => `${base(p)}activity/?page=last`, status: 400, code: "invalid_input" },
    scope: "activity_log:read",
  },
  {
    name: "status",
    method: "GET",
    path: (p, id) => `${base(p)}${id}/status/`,
    bad: { path: (p) => `${base(p)}not-a-number/status/`, status: 404 },
    scope: "feature_flag:read",
  },
  {
    name: "dependent flags",
    method: "GET",
    path: (p, id) => `${base(p)}${id}/dependent_flags/`,
    bad: { path: (p) => `${base(p)}not-a-number/dependent_flags/`, status: 404, code: "not_found" },
    scope: "feature_flag:read",
  },
  {
    name: "has active dependents",
    method: "POST",
    path: (p, id) => `${base(p)}${id}/has_active_dependents/`,
    body: {},
    bad: { path: (p) => `${base(p)}0/has_active_dependents/`, status: 404, code: "not_found" },
    scope: "feature_flag:read",
  },
  {
    name: "static cohort",
    method: "POST",
    path: (p, id) => `${base(p)}${id}/create_static_cohort_for_flag/`,
    body: {},
    bad: { path: (p) => `${base(p)}0/create_static_cohort_for_flag/`, status: 404, code: "not_found" },
    scope: "feature_flag:read",
  },
  {
    name: "usage dashboard",
    method: "POST",
    path: (p, id) => `${base(p)}${id}/dashboard/`,
    body: {},
    bad: { path: (p) => `${base(p)}0/dashboard/`, status: 404, code: "not_found" },
    scope: "dashboard:write",
  },
  {
    name: "enrich usage dashboard",
    method: "POST",
    path: (p, id) => `${base(p)}${id}/enrich_usage_dashboard/`,
    body: {},
    bad: { path: (p) => `${base(p)}0/enrich_usage_dashboard/`, status: 404, code: "not_found" },
    scope: "dashboard:write",
  },
  {
    name: "remote config",
    method: "GET",
    path: (p, id) => `${base(p)}${id}/remote_config/`,
    // A NUL in a path parameter names no flag: 404, as DRF's get_object_or_404 answers a lookup that
    // cannot be made (src/rest/routes.ts), with remote config's empty body.
    bad: { path: (p) => `${base(p)}no%00key/remote_config/`, status: 404 },
    scope: "feature_flag:read",
  },
  {
    name: "bulk keys",
    method: "POST",
    path: (p) => `${base(p)}bulk_keys/`,
    body: { ids: [1] },
    bad: { body: { ids: ["one"] }, status: 400 },
    scope: "feature_flag:read",
  },
  {
    name: "user blast radius",
    method: "POST",
    path: (p) => `${base(p)}user_blast_radius/`,
    body: { condition: { properties: [] } },
    bad: { body: { condition: { properties: "everyone" } }, status: 400, code: "not_a_dict" },
    scope: "feature_flag:read",
  },
];

/**
 * What a flag path answers for a flag of another project: 404, with PostHog's error body, an empty
 * body (remote config) or its own body (status); a path without a flag answers as for the own project.
 */
function otherProjectStatus(c: PathCase, needsFlag: boolean): number {
  if (c.method === "DELETE") return 405;
  if (needsFlag) return 404;
  return c.method === "POST" && c.name === "create" ? 201 : 200;
}

/** A scope that is not the one a case needs (nor its write form). */
const otherScope = (scope: string) =>
  scope.startsWith("activity_log") ? "feature_flag:write" : "activity_log:read";

describeEachBackend("every flag path", (server) => {
  let flagId: number;
  let otherProject: number;
  let foreignProject: number;
  beforeAll(async () => {
    const s: TestServer = server();
    const created = await s.request("POST", base(s.projectId), { body: { key: "matrix-flag" } });
    flagId = created.body.id;
    otherProject = await s.createProject("Matrix other");
    foreignProject = await s.createForeignProject("Matrix foreign");
  });

  for (const c of CASES) {
    it(`${c.name}: bad input gets PostHog's answer and changes nothing`, async () => {
      const s = server();
      const before = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flagId } });
      const path = c.bad.path ? c.bad.path(s.projectId, flagId) : c.path(s.projectId, flagId);
      const response = await s.request(c.method, path, c.bad.body === undefined ? {} : { body: c.bad.body });
      expect(response.status, response.text).toBe(c.bad.status);
      if (c.bad.code) expect(response.body.code).toBe(c.bad.code);
      const after = await s.db.featureFlag.findUniqueOrThrow({ where: { id: flagId } });
      expect(after.version).toBe(before.version);
    });

    it(`${c.name}: a key without ${c.scope} gets 403`, async () => {
      const s = server();
      const key = await s.createKey([otherScope(c.scope)]);
      const response = await s.request(c.method, c.path(s.projectId, flagId), { key, body: c.body });
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe(`API key missing required scope '${c.scope}'`);
    });

    it(`${c.name}: another project, an unknown one and one of another organization are refused`, async () => {
      const s = server();
      const needsFlag = c.path(1, "X").includes("X");
      const other = await s.request(c.method, c.path(otherProject, flagId), { body: c.body });
      expect(other.status).toBe(otherProjectStatus(c, needsFlag));
      if (needsFlag && c.method !== "DELETE") {
        expect(other.text === "" || other.body.code === "not_found" || other.body.status === "unknown").toBe(
          true,
        );
      }
      const unknown = await s.request(c.method, c.path(987654, flagId), { body: c.body });
      expect(unknown.status).toBe(404);
      expect(unknown.body.detail).toBe("Project not found.");
      const foreign = await s.request(c.method, c.path(foreignProject, flagId), { body: c.body });
      expect(foreign.status).toBe(403);
      expect(foreign.body.detail).toBe("You don't have access to the project.");
      const limited = await s.createKey(["*"], [otherProject]);
      const outside = await s.request(c.method, c.path(s.projectId, flagId), { key: limited, body: c.body });
      expect(outside.status).toBe(403);
    });
  }
});
