import { expect, it } from "vitest";
import { describeEachBackend, type TestServer } from "../support/server.js";

const flagsPath = (s: TestServer, suffix = "") => `/api/projects/${s.projectId}/feature_flags/${suffix}`;

const SPEC_FLAG_FIELDS = [
  "id",
  "name",
  "key",
  "filters",
  "deleted",
  "active",
  "created_by",
  "created_at",
  "updated_at",
  "version",
  "last_modified_by",
  "is_simple_flag",
  "rollout_percentage",
  "ensure_experience_continuity",
  "experiment_set",
  "surveys",
  "features",
  "rollback_conditions",
  "performed_rollback",
  "can_edit",
  "tags",
  "evaluation_tags",
  "usage_dashboard",
  "analytics_dashboards",
  "has_enriched_analytics",
  "user_access_level",
  "creation_context",
  "is_remote_configuration",
  "has_encrypted_payloads",
  "status",
  "evaluation_runtime",
  "bucketing_identifier",
  "last_called_at",
  "_create_in_folder",
  "_should_create_usage_dashboard",
].sort();

const USER_FIELDS = [
  "id",
  "uuid",
  "distinct_id",
  "first_name",
  "last_name",
  "email",
  "is_email_verified",
  "hedgehog_config",
  "role_at_organization",
].sort();

async function createFlag(s: TestServer, body: Record<string, unknown>) {
  const response = await s.request("POST", flagsPath(s), { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const multivariate = (variants: Array<[string, number]>) => ({
  groups: [{ properties: [], rollout_percentage: 100 }],
  multivariate: { variants: variants.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) },
});

describeEachBackend("feature flags over REST", (server) => {
  it("creates a flag from just a key, with the spec's record fields and defaults", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "omega-feature" });
    expect(Object.keys(flag).sort()).toEqual(SPEC_FLAG_FIELDS);
    expect(flag).toMatchObject({
      key: "omega-feature",
      name: "",
      active: true,
      deleted: false,
      version: 1,
      is_simple_flag: true,
      rollout_percentage: null,
      tags: [],
      evaluation_tags: [],
      evaluation_runtime: "all",
      bucketing_identifier: "distinct_id",
      creation_context: "feature_flags",
      status: "ACTIVE",
      filters: { groups: [{ properties: [], rollout_percentage: null }] },
    });
    expect(Object.keys(flag.created_by).sort()).toEqual(USER_FIELDS);
    expect(flag.created_by.email).toBe("admin@example.com");
    expect(flag.last_modified_by.id).toBe(flag.created_by.id);
    // As Django REST framework writes date-times: no fraction when it is zero, else six digits, Z.
    expect(flag.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}000)?Z$/);
    expect(Number.isNaN(Date.parse(flag.created_at))).toBe(false);
  });

  it("answers on paths with and without the trailing slash", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "slashless" });
    const withSlash = await s.request("GET", flagsPath(s, `${flag.id}/`));
    const withoutSlash = await s.request("GET", `/api/projects/${s.projectId}/feature_flags/${flag.id}`);
    expect(withSlash.status).toBe(200);
    expect(withoutSlash.status).toBe(200);
    expect(withoutSlash.body.key).toBe("slashless");
    const list = await s.request("GET", `/api/projects/${s.projectId}/feature_flags`);
    expect(list.status).toBe(200);
  });

  it("requires a key, with DRF's error body", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), { body: { name: "no key" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      type: "validation_error",
      code: "required",
      detail: "This field is required.",
      attr: "key",
    });
  });

  it("rejects keys with characters outside letters, digits, - and _", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), { body: { key: "has space" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      type: "validation_error",
      code: "invalid_key",
      detail: "Only letters, numbers, hyphens (-) & underscores (_) are allowed.",
      attr: "key",
    });
  });

  it("rejects keys longer than 400 characters", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), { body: { key: "k".repeat(401) } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "max_length", attr: "key" });
  });

  it("rejects a duplicate key among non-deleted flags and frees it after a soft delete", async () => {
    const s = server();
    const first = await createFlag(s, { key: "dup-key" });
    const dup = await s.request("POST", flagsPath(s), { body: { key: "dup-key" } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      type: "validation_error",
      code: "unique",
      detail: "There is already a feature flag with this key.",
      attr: "key",
    });
    await s.request("PATCH", flagsPath(s, `${first.id}/`), { body: { deleted: true } });
    const again = await createFlag(s, { key: "dup-key" });
    expect(again.id).not.toBe(first.id);
    expect((await s.request("GET", flagsPath(s, `${first.id}/`))).status).toBe(404);
  });

  it("rejects variants whose rollout does not sum to 100", async () => {
    const s = server();
    for (const [a, b] of [
      [50, 25],
      [75, 50],
    ] as const) {
      const response = await s.request("POST", flagsPath(s), {
        body: {
          key: `variants-${a}-${b}`,
          filters: multivariate([
            ["control", a],
            ["test", b],
          ]),
        },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail: "Invalid variant definitions: Variant rollout percentages must sum to 100.",
        attr: "filters",
      });
    }
    const ok = await createFlag(s, {
      key: "variants-ok",
      filters: multivariate([
        ["control", 50],
        ["test", 50],
      ]),
    });
    expect(ok.filters.multivariate.variants).toHaveLength(2);
  });

  it("rejects a group variant override that names no variant", async () => {
    const s = server();
    const filters = multivariate([
      ["control", 50],
      ["test", 50],
    ]);
    filters.groups = [{ properties: [], rollout_percentage: 100, variant: "missing" } as never];
    const response = await s.request("POST", flagsPath(s), { body: { key: "bad-override", filters } });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe("Filters are not valid (variant override does not exist)");
  });

  it("rejects payload keys that are not variant keys and stores JSON payloads", async () => {
    const s = server();
    const bad = await s.request("POST", flagsPath(s), {
      body: {
        key: "bad-payload",
        filters: { ...multivariate([["control", 100]]), payloads: { other: "1" } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe("Payload keys must match a variant key for multivariate flags");
    const flag = await createFlag(s, {
      key: "good-payload",
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        payloads: { true: { color: "blue" } },
      },
    });
    expect(flag.filters.payloads).toEqual({ true: '{"color": "blue"}' });
  });

  it("rejects group properties on a person flag", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), {
      body: {
        key: "group-prop",
        filters: {
          groups: [{ properties: [{ key: "plan", type: "group", value: "pro", group_type_index: 0 }] }],
        },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe(
      "Filters are not valid (can only use person, cohort, and flag properties)",
    );
  });

  it("rejects wrong field types without writing anything", async () => {
    const s = server();
    const before = await s.db.featureFlag.count();
    const response = await s.request("POST", flagsPath(s), { body: { key: "typed", active: "maybe" } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      type: "validation_error",
      code: "invalid_input",
      detail: "Must be a valid boolean.",
      attr: "active",
    });
    const choice = await s.request("POST", flagsPath(s), {
      body: { key: "typed", evaluation_runtime: "edge" },
    });
    expect(choice.body).toMatchObject({ code: "invalid_choice", attr: "evaluation_runtime" });
    expect(await s.db.featureFlag.count()).toBe(before);
  });

  it("answers malformed JSON with a parse error", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), { rawBody: '{"key": ' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: "invalid_request", code: "parse_error", attr: null });
  });

  it("answers a JSON array body with DRF's dictionary error", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), { body: [{ key: "x" }] });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe("Invalid data. Expected a dictionary, but got list.");
  });

  it("answers an oversize body with 413 and writes nothing", async () => {
    const s = server();
    const before = await s.db.featureFlag.count();
    const response = await s.request("POST", flagsPath(s), {
      body: { key: "huge", name: "x".repeat(3 * 1024 * 1024) },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: "payload_too_large" });
    expect(await s.db.featureFlag.count()).toBe(before);
  });

  it("requires feature_flag:write to create, feature_flag:read to list", async () => {
    const s = server();
    const readOnly = await s.createKey(["feature_flag:read"]);
    const denied = await s.request("POST", flagsPath(s), { body: { key: "nope" }, key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      type: "authentication_error",
      code: "permission_denied",
      detail: "API key missing required scope 'feature_flag:write'",
      attr: null,
    });
    const other = await s.createKey(["experiment:read"]);
    const list = await s.request("GET", flagsPath(s), { key: other });
    expect(list.status).toBe(403);
    expect(list.body.detail).toBe("API key missing required scope 'feature_flag:read'");
    expect((await s.request("GET", flagsPath(s), { key: readOnly })).status).toBe(200);
    const writer = await s.createKey(["feature_flag:write"]);
    expect((await s.request("GET", flagsPath(s), { key: writer })).status).toBe(200);
  });

  it("answers 401 without a credential and with an unknown key", async () => {
    const s = server();
    const none = await s.request("GET", flagsPath(s), { key: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(none.body).toEqual({
      type: "authentication_error",
      code: "not_authenticated",
      detail: "Authentication credentials were not provided.",
      attr: null,
    });
    const bad = await s.request("GET", flagsPath(s), { key: "phx_not_a_real_key" });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({
      code: "authentication_failed",
      detail: "Personal API key found in request Authorization header is invalid.",
    });
  });

  it("accepts the key as personal_api_key in the query string and in the body", async () => {
    const s = server();
    const viaQuery = await s.request("GET", `${flagsPath(s)}?personal_api_key=${s.key}`, { key: null });
    expect(viaQuery.status).toBe(200);
    const viaBody = await s.request("POST", flagsPath(s), {
      key: null,
      body: { key: "body-auth", personal_api_key: s.key },
    });
    expect(viaBody.status).toBe(201);
  });

  it("keeps projects apart: unknown project, other project's flag, keys limited to a project", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "home-flag" });
    const unknown = await s.request("GET", "/api/projects/999999/feature_flags/");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found", detail: "Project not found." });
    expect((await s.request("GET", "/api/projects/abc/feature_flags/")).status).toBe(404);

    const second = await s.createProject("Second");
    const crossed = await s.request("GET", `/api/projects/${second}/feature_flags/${flag.id}/`);
    expect(crossed.status).toBe(404);
    expect(crossed.body).toEqual({
      type: "invalid_request",
      code: "not_found",
      detail: "Not found.",
      attr: null,
    });
    const patchCrossed = await s.request("PATCH", `/api/projects/${second}/feature_flags/${flag.id}/`, {
      body: { name: "hijack" },
    });
    expect(patchCrossed.status).toBe(404);

    const limited = await s.createKey(["*"], [second]);
    const outside = await s.request("GET", flagsPath(s), { key: limited });
    expect(outside.status).toBe(403);
    expect(outside.body.detail).toBe(
      `API key does not have access to the requested project: ID ${s.projectId}.`,
    );
    expect((await s.request("GET", `/api/projects/${second}/feature_flags/`, { key: limited })).status).toBe(
      200,
    );

    const foreign = await s.createForeignProject("Foreign");
    const notMember = await s.request("GET", `/api/projects/${foreign}/feature_flags/`);
    expect(notMember.status).toBe(403);
    expect(notMember.body.detail).toBe("You don't have access to the project.");
  });

  it("retrieves a flag, soft-deleted ones included", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "to-retrieve", name: "A description" });
    const got = await s.request("GET", flagsPath(s, `${flag.id}/`));
    expect(got.body).toEqual(flag);
    await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { deleted: true } });
    const deleted = await s.request("GET", flagsPath(s, `${flag.id}/`));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, status: "DELETED" });
    expect((await s.request("GET", flagsPath(s, "424242/"))).status).toBe(404);
    const reader = await s.createKey(["activity_log:read"]);
    expect((await s.request("GET", flagsPath(s, `${flag.id}/`), { key: reader })).status).toBe(403);
  });

  it("updates with PATCH, bumping version and last_modified_by", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "patch-me" });
    const patched = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { name: "Now described", filters: { groups: [{ properties: [], rollout_percentage: 30 }] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "Now described",
      version: 2,
      rollout_percentage: 30,
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
    });
    const again = await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { active: false } });
    expect(again.body).toMatchObject({ active: false, version: 3, name: "Now described" });
  });

  it("keeps stored filters when a PATCH sends filters without groups", async () => {
    const s = server();
    const flag = await createFlag(s, {
      key: "keep-filters",
      filters: { groups: [{ properties: [], rollout_percentage: 10 }] },
    });
    const patched = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { filters: { payloads: {} } },
    });
    expect(patched.body.filters.groups[0].rollout_percentage).toBe(10);
  });

  it("refuses a stale version with 409 when original_flag shows the same field changed by someone else", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "contended", name: "start" });
    const first = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { name: "first", version: 1 },
    });
    expect(first.status).toBe(200);
    const stale = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { name: "second", version: 1, original_flag: flag },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      type: "server_error",
      code: "conflict",
      detail:
        "The feature flag was updated by admin@example.com since you started editing it. Please refresh and try again.",
      attr: null,
    });
    const now = await s.request("GET", flagsPath(s, `${flag.id}/`));
    expect(now.body).toMatchObject({ name: "first", version: 2 });
    const activity = await s.request("GET", flagsPath(s, `${flag.id}/activity/`));
    expect(activity.body.total_count).toBe(2);
  });

  it("applies a stale version when no field the caller changed was changed by someone else (PostHog's rule)", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "merged", name: "start" });
    expect(
      (await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { active: false, version: 1 } })).status,
    ).toBe(200);
    // Another field, with original_flag: no overlap, so the change goes through on top of version 2.
    const other = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { name: "renamed", version: 1, original_flag: flag },
    });
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ name: "renamed", active: false, version: 3 });
    // The same field without original_flag: PostHog raises no conflict either.
    const blind = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { name: "blind", version: 1 },
    });
    expect(blind.status).toBe(200);
    expect(blind.body).toMatchObject({ name: "blind", version: 4 });
    // The same field set to the value someone else already chose is no conflict.
    const same = await s.request("PATCH", flagsPath(s, `${flag.id}/`), {
      body: { active: false, version: 1, original_flag: flag },
    });
    expect(same.status).toBe(200);
    expect(same.body.version).toBe(4);
  });

  it("lets exactly one of concurrent conflicting PATCHes win, and loses no update", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "race" });
    const results = await Promise.all(
      ["a", "b", "c"].map((name) =>
        s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { name, version: 1, original_flag: flag } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await s.request("GET", flagsPath(s, `${flag.id}/`))).body.version).toBe(2);
    // Without original_flag every writer's change applies, one after the other: none is lost.
    const tagged = await Promise.all(
      ["x", "y", "z"].map((name, i) =>
        s.request("PATCH", flagsPath(s, `${flag.id}/`), {
          body: i === 0 ? { name } : i === 1 ? { active: false } : { tags: [name] },
        }),
      ),
    );
    expect(tagged.map((r) => r.status)).toEqual([200, 200, 200]);
    const final = await s.request("GET", flagsPath(s, `${flag.id}/`));
    expect(final.body).toMatchObject({ name: "x", active: false, tags: ["z"], version: 5 });
  });

  it("answers a PATCH that changes nothing with the flag as it is: no version bump, no activity", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "unchanged", name: "same" });
    const same = await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { name: "same" } });
    expect(same.status).toBe(200);
    expect(same.body.version).toBe(1);
    const empty = await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(same.body);
    const activity = await s.request("GET", flagsPath(s, `${flag.id}/activity/`));
    expect(activity.body.total_count).toBe(1);
  });

  it("fully updates with PUT: key required, PostHog's rules as for PATCH", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "put-me", name: "before" });
    const missing = await s.request("PUT", flagsPath(s, `${flag.id}/`), { body: { name: "no key" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      type: "validation_error",
      code: "required",
      detail: "This field is required.",
      attr: "key",
    });
    const put = await s.request("PUT", flagsPath(s, `${flag.id}/`), {
      body: {
        key: "put-me-too",
        name: "after",
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ key: "put-me-too", name: "after", version: 2 });
    expect(put.body.filters.groups[0].rollout_percentage).toBe(50);
    const readOnly = await s.createKey(["feature_flag:read"]);
    const denied = await s.request("PUT", flagsPath(s, `${flag.id}/`), { key: readOnly, body: { key: "x" } });
    expect(denied.status).toBe(403);
    expect((await s.request("GET", flagsPath(s, `${flag.id}/`))).body.key).toBe("put-me-too");
  });

  it("refuses DELETE with 405 and an empty body, after checking the write scope", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "undeletable" });
    const response = await s.request("DELETE", flagsPath(s, `${flag.id}/`));
    expect(response.status).toBe(405);
    expect(response.text).toBe("");
    const readOnly = await s.createKey(["feature_flag:read"]);
    const denied = await s.request("DELETE", flagsPath(s, `${flag.id}/`), { key: readOnly });
    expect(denied.status).toBe(403);
    expect((await s.request("GET", flagsPath(s, `${flag.id}/`))).body.deleted).toBe(false);
  });

  it("answers other methods on a known path with 405", async () => {
    const s = server();
    const response = await s.request("PUT", flagsPath(s));
    expect(response.status).toBe(405);
    expect(response.body).toEqual({
      type: "invalid_request",
      code: "method_not_allowed",
      detail: 'Method "PUT" not allowed.',
      attr: null,
    });
  });

  it("soft-deletes and restores through PATCH, hidden from the list while deleted", async () => {
    const s = server();
    const flag = await createFlag(s, { key: "phoenix" });
    await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { deleted: true } });
    let list = await s.request("GET", `${flagsPath(s)}?search=phoenix`);
    expect(list.body.count).toBe(0);
    const restored = await s.request("PATCH", flagsPath(s, `${flag.id}/`), { body: { deleted: false } });
    expect(restored.body.deleted).toBe(false);
    list = await s.request("GET", `${flagsPath(s)}?search=phoenix`);
    expect(list.body.results.map((f: { id: number }) => f.id)).toEqual([flag.id]);
  });

  it("refuses to disable or delete a flag that other active flags depend on", async () => {
    const s = server();
    const base = await createFlag(s, { key: "base-flag" });
    await createFlag(s, {
      key: "dependent-flag",
      filters: {
        groups: [
          {
            properties: [{ key: String(base.id), type: "flag", value: true, operator: "flag_evaluates_to" }],
          },
        ],
      },
    });
    const disable = await s.request("PATCH", flagsPath(s, `${base.id}/`), { body: { active: false } });
    expect(disable.status).toBe(400);
    expect(disable.body.detail).toMatch(
      /^Cannot disable this feature flag because other flags depend on it: dependent-flag/,
    );
    const del = await s.request("PATCH", flagsPath(s, `${base.id}/`), { body: { deleted: true } });
    expect(del.status).toBe(400);
    expect(del.body.detail).toMatch(/^Cannot delete this feature flag because other flags depend on it/);
  });

  it("normalises tags and requires evaluation tags to be a subset of them", async () => {
    const s = server();
    const flag = await createFlag(s, {
      key: "tagged",
      tags: [" Beta ", "beta", "Mobile"],
      evaluation_tags: ["MOBILE"],
    });
    expect(flag.tags).toEqual(["beta", "mobile"]);
    expect(flag.evaluation_tags).toEqual(["mobile"]);
    const bad = await s.request("POST", flagsPath(s), {
      body: { key: "eval-bad", tags: ["a"], evaluation_tags: ["b"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe("Evaluation tags must be a subset of tags. Invalid evaluation tags: b");
  });

  it("answers encrypted payloads with 501 until they are built", async () => {
    const s = server();
    const response = await s.request("POST", flagsPath(s), {
      body: { key: "secret", has_encrypted_payloads: true },
    });
    expect(response.status).toBe(501);
    expect(response.body).toMatchObject({ code: "not_implemented" });
  });
});
