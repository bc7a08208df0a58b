/**
 * The local-evaluation payload (posthog-behavior.md §2.10, §3.6) on its three paths, on PGlite and
 * PostgreSQL: PostHog's shape field by field, `send_cohorts` against PostHog's cohort inlining,
 * remote-configuration flags left out and inactive ones kept, the ETag and 304 flow, the
 * revision invariant (a write that changes the payload changes its ETag; one that does not, such as
 * captured events, leaves it), the auth errors, and posthog-node in local-evaluation mode polling
 * `/flags/definitions` against the server.
 */
import { PostHog } from "posthog-node";
import { beforeAll, expect, it } from "vitest";
import { posthogNodeClient, projectToken } from "../../support/capture.js";
import { createFlag, flagsPath } from "../../support/flags.js";
import { insertGroupType } from "../../support/groups.js";
import { describeEachBackend, type TestResponse } from "../../support/server.js";

/** The SQL statements a response's `Server-Timing` reports. */
function statements(response: TestResponse): number {
  const match = /desc="(\d+) statements?"/.exec(response.headers.get("server-timing") ?? "");
  return Number(match?.[1]);
}

/** A person-property filter as cohorts and flags store it. */
const personFilter = (key: string, value: unknown, operator = "exact") => ({
  key,
  type: "person",
  value,
  operator,
});

describeEachBackend("local evaluation", (server) => {
  let token: string;
  let rowPath: string;
  let flagsDefinitions: string;
  let legacyPath: string;
  let ids: {
    simple: number;
    inactive: number;
    remote: number;
    inlinedAnd: number;
    inlinedOr: number;
    nestedFlag: number;
    staticFlag: number;
  };
  let cohorts: { and: number; or: number; outer: number; static: number };

  const cohort = async (body: Record<string, unknown>): Promise<number> => {
    const response = await server().request("POST", `/api/projects/${server().projectId}/cohorts/`, { body });
    expect(response.status, response.text).toBe(201);
    return response.body.id;
  };
  const cohortFilter = (id: number) => ({ key: "id", type: "cohort", value: id, operator: "in" });
  const get = (path: string, options: { key?: string | null; headers?: Record<string, string> } = {}) =>
    server().request("GET", path, options);

  beforeAll(async () => {
    const s = server();
    token = await projectToken(s);
    rowPath = flagsPath(s, "local_evaluation/");
    flagsDefinitions = `/flags/definitions?token=${token}&send_cohorts`;
    legacyPath = `/api/feature_flag/local_evaluation?token=${token}`;
    await insertGroupType(s.db, s.projectId, 0, "company");
    cohorts = {
      and: await cohort({
        name: "Example staff",
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [personFilter("email", "@example.com", "icontains")] }],
          },
        },
      }),
      or: await cohort({
        name: "Pro or team",
        filters: {
          properties: {
            type: "OR",
            values: [
              { type: "OR", values: [personFilter("plan", "pro")] },
              { type: "OR", values: [personFilter("plan", "team")] },
            ],
          },
        },
      }),
      static: await cohort({ name: "Listed", is_static: true }),
      outer: 0,
    };
    cohorts.outer = await cohort({
      name: "Staff in Europe",
      filters: {
        properties: {
          type: "AND",
          values: [{ type: "AND", values: [cohortFilter(cohorts.and), personFilter("region", "eu")] }],
        },
      },
    });
    const flag = async (body: Record<string, unknown>) => (await createFlag(s, body)).id as number;
    ids = {
      simple: await flag({
        key: "everyone",
        name: "Everyone",
        filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
        tags: ["web", "app"],
        evaluation_tags: ["web", "app"],
      }),
      inactive: await flag({ key: "switched-off", active: false }),
      remote: await flag({
        key: "remote-config",
        is_remote_configuration: true,
        filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":1}' } },
      }),
      inlinedAnd: await flag({
        key: "staff",
        filters: {
          groups: [
            { properties: [personFilter("beta", true)], rollout_percentage: 30 },
            { properties: [cohortFilter(cohorts.and)], rollout_percentage: 50 },
          ],
        },
      }),
      inlinedOr: await flag({
        key: "paying",
        filters: { groups: [{ properties: [cohortFilter(cohorts.or)], rollout_percentage: 100 }] },
      }),
      nestedFlag: await flag({
        key: "staff-eu",
        filters: { groups: [{ properties: [cohortFilter(cohorts.outer)], rollout_percentage: 100 }] },
      }),
      staticFlag: await flag({
        key: "listed",
        filters: { groups: [{ properties: [cohortFilter(cohorts.static)], rollout_percentage: 100 }] },
      }),
    };
  });

  /** The flag of a payload with `key`. */
  // biome-ignore lint/suspicious/noExplicitAny: payload JSON
  const flagOf = (body: any, key: string) => body.flags.find((f: { key: string }) => f.key === key);

  it("answers PostHog's shape: MinimalFlag field by field, the group type mapping, cohorts", async () => {
    const s = server();
    const response = await get(`${rowPath}?send_cohorts`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(response.body)).toEqual(["flags", "group_type_mapping", "cohorts"]);
    const stored = (await s.request("GET", flagsPath(s, `${ids.simple}/`))).body;
    expect(flagOf(response.body, "everyone")).toStrictEqual({
      id: ids.simple,
      team_id: s.projectId,
      name: "Everyone",
      key: "everyone",
      filters: stored.filters,
      deleted: false,
      active: true,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      version: 1,
      evaluation_runtime: "all",
      bucketing_identifier: "distinct_id",
      evaluation_tags: ["app", "web"],
    });
    expect(response.body.group_type_mapping).toStrictEqual({ "0": "company" });
  });

  it("includes inactive flags, leaves remote-configuration flags out, in id order", async () => {
    const { body } = await get(rowPath);
    expect(flagOf(body, "switched-off")).toMatchObject({ active: false, deleted: false });
    expect(flagOf(body, "remote-config")).toBeUndefined();
    expect(body.flags.map((f: { id: number }) => f.id)).toEqual([
      ids.simple,
      ids.inactive,
      ids.inlinedAnd,
      ids.inlinedOr,
      ids.nestedFlag,
      ids.staticFlag,
    ]);
  });

  it("with send_cohorts: flags as stored, and every non-static cohort they reach in PostHog's to_dict form", async () => {
    for (const path of [`${rowPath}?send_cohorts`, `${rowPath}?send_cohorts=`, flagsDefinitions]) {
      const { body } = await get(path);
      expect(flagOf(body, "staff").filters.groups[1].properties).toEqual([cohortFilter(cohorts.and)]);
      expect(body.cohorts, path).toStrictEqual({
        [cohorts.and]: {
          type: "OR",
          values: [{ type: "AND", values: [personFilter("email", "@example.com", "icontains")] }],
        },
        [cohorts.or]: {
          type: "OR",
          values: [
            { type: "OR", values: [personFilter("plan", "pro")] },
            { type: "OR", values: [personFilter("plan", "team")] },
          ],
        },
        [cohorts.outer]: {
          type: "AND",
          values: [{ type: "AND", values: [cohortFilter(cohorts.and), personFilter("region", "eu")] }],
        },
      });
    }
  });

  it("without send_cohorts: simple person-property cohorts inlined as PostHog does, others kept, no cohorts", async () => {
    const { body } = await get(rowPath);
    expect(body.cohorts).toStrictEqual({});
    // The group without the cohort keeps its place, the inlined one comes last with the rollout of
    // the flag's last condition (PostHog's transform_cohort_filters_for_easy_evaluation).
    expect(flagOf(body, "staff").filters.groups).toStrictEqual([
      { properties: [personFilter("beta", true)], rollout_percentage: 30 },
      { properties: [personFilter("email", "@example.com", "icontains")], rollout_percentage: 50 },
    ]);
    // An OR of single properties becomes one group per property.
    expect(flagOf(body, "paying").filters.groups).toStrictEqual([
      { properties: [personFilter("plan", "pro")], rollout_percentage: 100 },
      { properties: [personFilter("plan", "team")], rollout_percentage: 100 },
    ]);
    // A cohort naming another cohort (two cohorts reached) and a static cohort stay references.
    expect(flagOf(body, "staff-eu").filters.groups[0].properties).toEqual([cohortFilter(cohorts.outer)]);
    expect(flagOf(body, "listed").filters.groups[0].properties).toEqual([cohortFilter(cohorts.static)]);
  });

  it("answers the same bytes on its three paths, with a weak ETag; If-None-Match gets 304 after the key lookup alone", async () => {
    const row = await get(`${rowPath}?send_cohorts`);
    const definitions = await get(flagsDefinitions);
    const legacy = await get(`${legacyPath}&send_cohorts`);
    const withoutToken = await get("/api/feature_flag/local_evaluation/?send_cohorts");
    for (const response of [definitions, legacy, withoutToken]) {
      expect(response.status, response.text).toBe(200);
      expect(response.text).toBe(row.text);
      expect(response.headers.get("etag")).toBe(row.headers.get("etag"));
    }
    const etag = row.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(row.headers.get("cache-control")).toBe("private, must-revalidate");
    expect((await get(rowPath)).headers.get("etag")).not.toBe(etag);

    for (const path of [`${rowPath}?send_cohorts`, flagsDefinitions, `${legacyPath}&send_cohorts`]) {
      const again = await get(path, { headers: { "if-none-match": etag } });
      expect(again.status, path).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("private, must-revalidate");
      // The key and the revision are known to the process (core/auth/actor-cache.ts,
      // core/project-revisions.ts, kept by the change feed) and the payload is cached: no statement.
      expect(statements(again), path).toBe(0);
    }
    const stale = await get(flagsDefinitions, { headers: { "if-none-match": 'W/"something-else"' } });
    expect(stale.status).toBe(200);
    expect(statements(stale)).toBe(0);

    // Read as PostHog's extract_etag_from_header reads it: `W/` dropped, quotes stripped, so the bare
    // and the strong forms of the tag match; `*` and a list do not.
    const bare = etag.slice(3, -1);
    for (const [header, status] of [
      [bare, 304],
      [`"${bare}"`, 304],
      [` ${etag} `, 304],
      ["*", 200],
      [`${etag}, W/"other"`, 200],
    ] as const) {
      expect((await get(flagsDefinitions, { headers: { "if-none-match": header } })).status, header).toBe(
        status,
      );
    }
  });

  it("changes the ETag with every write that changes the payload: a flag PATCH, a cohort PATCH, a new group type", async () => {
    const s = server();
    const etag = async () => (await get(flagsDefinitions)).headers.get("etag");
    const before = await etag();
    const patched = await s.request("PATCH", flagsPath(s, `${ids.simple}/`), { body: { name: "Everyone!" } });
    expect(patched.status, patched.text).toBe(200);
    const afterFlag = await etag();
    expect(afterFlag).not.toBe(before);

    const cohortPatch = await s.request("PATCH", `/api/projects/${s.projectId}/cohorts/${cohorts.and}/`, {
      body: {
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [personFilter("email", "@example.org", "icontains")] }],
          },
        },
      },
    });
    expect(cohortPatch.status, cohortPatch.text).toBe(200);
    const afterCohort = await etag();
    expect(afterCohort).not.toBe(afterFlag);

    // A group type first seen in captured events ($groupidentify) joins group_type_mapping.
    const client = await posthogNodeClient(s);
    client.groupIdentify({ groupType: "team", groupKey: "blue", properties: { size: 3 } });
    await client.shutdown();
    const { body, headers } = await get(flagsDefinitions);
    expect(body.group_type_mapping).toStrictEqual({ "0": "company", "1": "team" });
    expect(headers.get("etag")).not.toBe(afterCohort);
  });

  it("keeps the ETag when the revision moves without the payload changing: captured events, a group type's display names", async () => {
    const s = server();
    const revision = async () =>
      (await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } })).revision;
    const before = await get(flagsDefinitions);
    const revisionBefore = await revision();

    const client = await posthogNodeClient(s);
    client.capture({ distinctId: "visitor-1", event: "a brand new event", properties: { plan: "pro" } });
    client.capture({ distinctId: "visitor-2", event: "$pageview" });
    await client.shutdown();
    const renamed = await s.request("PATCH", `/api/projects/${s.projectId}/groups_types/update_metadata/`, {
      body: [{ group_type_index: 0, name_singular: "Company", name_plural: "Companies" }],
    });
    expect(renamed.status, renamed.text).toBe(200);
    // The event catalogue and the group type row are configuration: the revision moved...
    expect(await revision()).toBeGreaterThan(revisionBefore);
    // ...but the payload (which shows neither) did not, so pollers keep getting 304.
    const after = await get(flagsDefinitions, { headers: { "if-none-match": before.headers.get("etag")! } });
    expect(after.status).toBe(304);
  });

  it("refuses a request without a key, a key without feature_flag:read, a project the key may not reach, an unknown token", async () => {
    const s = server();
    const other = await s.createProject("Elsewhere");
    const foreign = await s.createForeignProject("Foreign");
    const tokenOf = (id: number) => projectToken(s, id);
    const error = (type: string, code: string, detail: string, attr: string | null = null) => ({
      type,
      code,
      detail,
      attr,
    });
    const reader = await s.createKey(["cohort:read"]);
    const limited = await s.createKey(["feature_flag:read"], [s.projectId]);
    for (const path of [rowPath, flagsDefinitions, legacyPath]) {
      const anonymous = await get(path, { key: null });
      expect({ status: anonymous.status, body: anonymous.body }, path).toEqual({
        status: 401,
        body: error(
          "authentication_error",
          "not_authenticated",
          "Authentication credentials were not provided.",
        ),
      });
      const noScope = await get(path, { key: reader });
      expect({ status: noScope.status, body: noScope.body }, path).toEqual({
        status: 403,
        body: error(
          "authentication_error",
          "permission_denied",
          "API key missing required scope 'feature_flag:read'",
        ),
      });
    }
    for (const base of ["/flags/definitions", "/api/feature_flag/local_evaluation"]) {
      const otherProject = await get(`${base}?token=${await tokenOf(other)}`, { key: limited });
      expect(otherProject.status, base).toBe(403);
      expect(otherProject.body.detail).toBe(
        `API key does not have access to the requested project: ID ${other}.`,
      );
      const foreignProject = await get(`${base}?token=${await tokenOf(foreign)}`);
      expect(foreignProject.status, base).toBe(403);
      expect(foreignProject.body.detail).toBe("You don't have access to the project.");
      const unknown = await get(`${base}?token=phc_nosuchtoken`);
      expect({ status: unknown.status, body: unknown.body }, base).toEqual({
        status: 401,
        body: error("authentication_error", "authentication_failed", "Incorrect authentication credentials."),
      });
      // An unknown token with a malformed key: the key is judged first, as DRF authenticates first.
      const badKey = await get(`${base}?token=phc_nosuchtoken`, { key: "phx_notakey" });
      expect(badKey.body.detail).toBe("Personal API key found in request Authorization header is invalid.");
    }
    const noToken = await get("/flags/definitions");
    expect({ status: noToken.status, attr: noToken.body.attr, code: noToken.body.code }).toEqual({
      status: 400,
      attr: "token",
      code: "required",
    });
    // The other project's own definitions, through its token, for a key that may reach it.
    const elsewhere = await get(`/flags/definitions?token=${await tokenOf(other)}`);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.flags).toEqual([]);
  });

  it("exposes the definitions' revision on Project in GraphQL, needing feature_flag:read", async () => {
    const s = server();
    const query = `{ project(id: "${s.projectId}") { flagDefinitionsRevision } }`;
    const answer = await s.request("POST", "/graphql", { body: { query } });
    const stored = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
    expect(answer.body.data.project.flagDefinitionsRevision).toBe(String(stored.revision));
    const reader = await s.createKey(["project:read"]);
    const refused = await s.request("POST", "/graphql", { key: reader, body: { query } });
    expect(refused.body.errors[0].extensions.code).toBe("permission_denied");
  });

  it("serves posthog-node 5 in local-evaluation mode: it evaluates locally from /flags/definitions and revalidates with 304", async () => {
    const s = server();
    const polls: number[] = [];
    const client = new PostHog(token, {
      host: s.baseUrl,
      personalApiKey: s.key,
      featureFlagsPollingInterval: 600_000,
      flushAt: 1,
      flushInterval: 0,
      fetchRetryCount: 0,
      fetch: async (url, options) => {
        const response = await fetch(url, options);
        if (String(url).includes("/flags/definitions")) polls.push(response.status);
        return response;
      },
    });
    try {
      const value = await client.getFeatureFlag("everyone", "someone", {
        onlyEvaluateLocally: true,
        sendFeatureFlagEvents: false,
      });
      expect(value).toBe(true);
      expect(
        await client.getFeatureFlag("switched-off", "someone", {
          onlyEvaluateLocally: true,
          sendFeatureFlagEvents: false,
        }),
      ).toBe(false);
      await client.reloadFeatureFlags();
      expect(polls).toEqual([200, 304]);
      expect(
        await client.getFeatureFlag("everyone", "someone", {
          onlyEvaluateLocally: true,
          sendFeatureFlagEvents: false,
        }),
      ).toBe(true);
    } finally {
      await client.shutdown();
    }
  });
});
