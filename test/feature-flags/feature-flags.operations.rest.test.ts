/**
 * The flag operations that need no evaluation engine, over REST on both backends, with PostHog's
 * exact bodies (posthog-behavior.md §2.6, §2.8, §2.10): `:id/status`, `:id/dependent_flags`,
 * `:id/has_active_dependents`, `:id/remote_config`, `bulk_keys` and `user_blast_radius`.
 * Missing scopes and other projects are walked for every route by test/app/auth-matrix.test.ts and
 * feature-flags.paths.rest.test.ts; here, behaviour.
 */
import { beforeAll, expect, it } from "vitest";
import { createFlag, flagsPath } from "../support/flags.js";
import { insertGroups, insertGroupType } from "../support/groups.js";
import { insertPersons } from "../support/people.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

const DAY = 24 * 60 * 60 * 1000;

/** A `type: flag` condition on flag `id` (a dependency, §2.6). */
const dependsOn = (id: number) => ({
  filters: {
    groups: [
      {
        properties: [{ key: String(id), type: "flag", value: true, operator: "flag_evaluates_to" }],
        rollout_percentage: 100,
      },
    ],
  },
});

const fullyRolledOut = { groups: [{ properties: [], rollout_percentage: 100 }] };

describeEachBackend("flag status over REST", (server) => {
  const status = (s: TestServer, id: number | string, project = s.projectId) =>
    s.request("GET", `/api/projects/${project}/feature_flags/${id}/status/`);

  it("answers the status as PostHog's lower-case value with its reason", async () => {
    const s = server();
    const fresh = await createFlag(s, { key: "status-fresh" });
    expect((await status(s, fresh.id)).body).toEqual({
      status: "active",
      reason: "Flag has no usage data yet",
    });

    const disabled = await createFlag(s, { key: "status-disabled", active: false });
    const answer = await status(s, disabled.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: "active",
      reason: "Flag is disabled (not evaluated for staleness)",
    });

    const deleted = await createFlag(s, { key: "status-deleted" });
    await s.request("PATCH", flagsPath(s, `${deleted.id}/`), { body: { deleted: true } });
    expect((await status(s, deleted.id)).body).toEqual({
      status: "deleted",
      reason: "Flag has been deleted",
    });
  });

  it("reports an old, fully rolled out flag STALE, as the flag's own status field does", async () => {
    const s = server();
    const old = await createFlag(s, { key: "status-old-full", filters: fullyRolledOut });
    await s.db.featureFlag.update({
      where: { id: old.id },
      data: { createdAt: new Date(Date.now() - 31 * DAY) },
    });
    const expected = { status: "stale", reason: 'This boolean flag will always evaluate to "true"' };
    expect((await status(s, old.id)).body).toEqual(expected);
    expect((await s.request("GET", flagsPath(s, `${old.id}/`))).body.status).toBe("STALE");

    await s.db.featureFlag.update({
      where: { id: old.id },
      data: { lastCalledAt: new Date(Date.now() - 3 * DAY - 60_000) },
    });
    expect((await status(s, old.id)).body).toEqual({
      status: "active",
      reason: "Flag was last called 3 days ago",
    });
  });

  it("answers 404 with status unknown for a flag it cannot find, in this project or at all", async () => {
    const s = server();
    const other = await s.createProject("Status other");
    const theirs = await createFlag(s, { key: "status-theirs" }, other);
    const unknown = { status: "unknown", reason: "Flag could not be found" };
    for (const id of [theirs.id, 987654, "not-a-number"]) {
      const answer = await status(s, id);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 404, body: unknown });
    }
    // A project that is not there is the door's own 404.
    expect((await status(s, theirs.id, 987654)).body.detail).toBe("Project not found.");
  });

  it("lists as STALE exactly the flags whose status is stale (same rules, same clock)", async () => {
    const s = server();
    const project = await s.createProject("Stale agreement");
    const shapes: Array<{ body: Record<string, unknown>; ageDays: number; calledDaysAgo: number | null }> =
      [];
    const bodies: Array<Record<string, unknown>> = [
      {},
      { filters: fullyRolledOut },
      { filters: { groups: [{ properties: [], rollout_percentage: 40 }] } },
      {
        filters: {
          groups: [{ properties: [], rollout_percentage: 100, variant: "b" }],
          multivariate: {
            variants: [
              { key: "a", rollout_percentage: 50 },
              { key: "b", rollout_percentage: 50 },
            ],
          },
        },
      },
      {
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] },
        },
      },
      { filters: fullyRolledOut, active: false },
    ];
    for (const body of bodies) {
      for (const ageDays of [1, 45]) {
        for (const calledDaysAgo of [null, 2, 40]) shapes.push({ body, ageDays, calledDaysAgo });
      }
    }
    const expectedStale: string[] = [];
    for (const [i, shape] of shapes.entries()) {
      const flag = await createFlag(s, { key: `agree-${i}`, ...shape.body }, project);
      await s.db.featureFlag.update({
        where: { id: flag.id },
        data: {
          createdAt: new Date(Date.now() - shape.ageDays * DAY),
          lastCalledAt:
            shape.calledDaysAgo === null ? null : new Date(Date.now() - shape.calledDaysAgo * DAY),
        },
      });
      const answer = await status(s, flag.id, project);
      if (answer.body.status === "stale") expectedStale.push(flag.key);
    }
    const listed = await s.request("GET", `/api/projects/${project}/feature_flags/?active=STALE&limit=1000`);
    const staleKeys = listed.body.results.map((f: { key: string }) => f.key).sort();
    expect(staleKeys).toEqual(expectedStale.sort());
    expect(staleKeys.length).toBeGreaterThan(0);
  });
});

describeEachBackend("flag dependents over REST", (server) => {
  let base: { id: number; key: string };
  let leaf: { id: number; key: string };
  let first: { id: number; key: string };
  let second: { id: number; key: string };
  beforeAll(async () => {
    const s = server();
    base = await createFlag(s, { key: "dep-base" });
    // Keys out of creation order, to see the list ordered by key; one without a name.
    second = await createFlag(s, { key: "dep-z-second", name: "Second", ...dependsOn(base.id) });
    first = await createFlag(s, { key: "dep-a-first", ...dependsOn(base.id) });
    const disabled = await createFlag(s, { key: "dep-m-disabled", ...dependsOn(base.id) });
    await s.request("PATCH", flagsPath(s, `${disabled.id}/`), { body: { active: false } });
    const deleted = await createFlag(s, { key: "dep-n-deleted", ...dependsOn(base.id) });
    await s.request("PATCH", flagsPath(s, `${deleted.id}/`), { body: { deleted: true } });
    leaf = await createFlag(s, { key: "dep-leaf" });
  });

  it("lists the active flags that depend on a flag, by key, the name falling back to the key", async () => {
    const s = server();
    const answer = await s.request("GET", flagsPath(s, `${base.id}/dependent_flags/`));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      { id: first.id, key: "dep-a-first", name: "dep-a-first" },
      { id: second.id, key: "dep-z-second", name: "Second" },
    ]);
    expect((await s.request("GET", flagsPath(s, `${leaf.id}/dependent_flags/`))).body).toEqual([]);
  });

  it("answers has_active_dependents with the same flags and a warning, writing nothing", async () => {
    const s = server();
    const before = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
    const answer = await s.request("POST", flagsPath(s, `${base.id}/has_active_dependents/`), { body: {} });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      has_active_dependents: true,
      dependent_flags: [
        { id: first.id, key: "dep-a-first", name: "dep-a-first" },
        { id: second.id, key: "dep-z-second", name: "Second" },
      ],
      warning:
        "This feature flag is used by 2 other active flags: it cannot be disabled or deleted until those flags " +
        "no longer depend on it.",
    });
    const none = await s.request("POST", flagsPath(s, `${leaf.id}/has_active_dependents/`));
    expect(none.body).toEqual({ has_active_dependents: false, dependent_flags: [] });
    const after = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
    expect(after.revision).toBe(before.revision);
  });

  it("answers 404 for a flag of another project or none", async () => {
    const s = server();
    const other = await s.createProject("Dependents other");
    const theirs = await createFlag(s, { key: "dep-theirs" }, other);
    for (const id of [theirs.id, 987654]) {
      const listed = await s.request("GET", flagsPath(s, `${id}/dependent_flags/`));
      expect({ status: listed.status, code: listed.body.code }).toEqual({ status: 404, code: "not_found" });
      const checked = await s.request("POST", flagsPath(s, `${id}/has_active_dependents/`));
      expect({ status: checked.status, code: checked.body.code }).toEqual({ status: 404, code: "not_found" });
    }
  });
});

describeEachBackend("remote config over REST", (server) => {
  let config: { id: number; key: string };
  let empty: { id: number; key: string };
  let plain: { id: number; key: string };
  beforeAll(async () => {
    const s = server();
    config = await createFlag(s, {
      key: "remote-colors",
      is_remote_configuration: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        payloads: { true: { color: "blue" } },
      },
    });
    empty = await createFlag(s, { key: "remote-empty", is_remote_configuration: true });
    plain = await createFlag(s, {
      key: "remote-plain",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: "1" } },
    });
  });

  it("answers the stored true payload by id and by key: the JSON text as stored", async () => {
    const s = server();
    for (const ref of [config.id, config.key]) {
      const answer = await s.request("GET", flagsPath(s, `${ref}/remote_config/`));
      expect(answer.status).toBe(200);
      // Objects are stored as Python's json.dumps text; the answer is that text, JSON-encoded.
      expect(answer.text).toBe(JSON.stringify('{"color": "blue"}'));
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    }
    const none = await s.request("GET", flagsPath(s, `${empty.key}/remote_config/`));
    expect({ status: none.status, text: none.text }).toEqual({ status: 200, text: "null" });
  });

  it("answers an empty 404 for a flag that is not a remote configuration, or not found", async () => {
    const s = server();
    const other = await s.createProject("Remote other");
    const theirs = await createFlag(s, { key: "remote-colors", is_remote_configuration: true }, other);
    for (const ref of [plain.id, plain.key, "no-such-key", 987654, theirs.id, "99999999999999999999"]) {
      const answer = await s.request("GET", flagsPath(s, `${ref}/remote_config/`));
      expect({ ref, status: answer.status, text: answer.text }).toEqual({ ref, status: 404, text: "" });
    }
  });
});

describeEachBackend("bulk keys over REST", (server) => {
  let a: { id: number; key: string };
  let b: { id: number; key: string };
  let deleted: { id: number; key: string };
  let theirs: { id: number; key: string };
  beforeAll(async () => {
    const s = server();
    a = await createFlag(s, { key: "bulk-a" });
    b = await createFlag(s, { key: "bulk-b" });
    deleted = await createFlag(s, { key: "bulk-deleted" });
    await s.request("PATCH", flagsPath(s, `${deleted.id}/`), { body: { deleted: true } });
    theirs = await createFlag(s, { key: "bulk-theirs" }, await s.createProject("Bulk other"));
  });
  const bulk = (s: TestServer, body: unknown) => s.request("POST", flagsPath(s, "bulk_keys/"), { body });

  it("maps ids (integers or digit strings) to keys, leaving out deleted, unknown and other projects' flags", async () => {
    const s = server();
    const answer = await bulk(s, { ids: [a.id, String(b.id), deleted.id, 987654, theirs.id] });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ keys: { [String(a.id)]: "bulk-a", [String(b.id)]: "bulk-b" } });
  });

  it("ignores items that are not ids with PostHog's warning, in Python's repr", async () => {
    const s = server();
    const answer = await bulk(s, { ids: [a.id, "abc", null, 1.5, "12a", true, ["x"], "it's"] });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      keys: { [String(a.id)]: "bulk-a" },
      warning: `Invalid flag IDs ignored: ['abc', None, 1.5, '12a', True, ['x'], "it's"]`,
    });
  });

  it("answers an empty mapping when no ids are asked for", async () => {
    const s = server();
    for (const body of [{}, { ids: [] }, { ids: null }, { ids: "" }]) {
      expect((await bulk(s, body)).body).toEqual({ keys: {} });
    }
  });

  it("answers PostHog's own 400 body when ids were sent and none is one", async () => {
    const s = server();
    for (const ids of [["abc"], [null, "x"], 5]) {
      const answer = await bulk(s, { ids });
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 400,
        body: { error: "Invalid flag IDs provided" },
      });
    }
    const list = await bulk(s, [a.id]);
    expect(list.status).toBe(400);
    expect(list.body.detail).toBe("Invalid data. Expected a dictionary, but got list.");
  });
});

describeEachBackend("user blast radius over REST", (server) => {
  const radius = (s: TestServer, body: unknown) =>
    s.request("POST", flagsPath(s, "user_blast_radius/"), { body });
  const plan = (value: unknown, operator = "exact") => ({ key: "plan", type: "person", value, operator });

  beforeAll(async () => {
    const s = server();
    await insertPersons(s.db, s.projectId, [
      { distinctIds: ["br-1"], properties: { plan: "pro", email: "a@acme.com" } },
      { distinctIds: ["br-2"], properties: { plan: "pro", email: "b@other.io" } },
      { distinctIds: ["br-3"], properties: { plan: "free", email: "c@acme.com" } },
      { distinctIds: ["br-4"], properties: {} },
    ]);
    const other = await s.createProject("Radius other");
    await insertPersons(s.db, other, [{ distinctIds: ["br-x"], properties: { plan: "pro" } }]);
    await insertGroupType(s.db, s.projectId, 0, "company");
    await insertGroupType(s.db, s.projectId, 1, "team");
    await insertGroups(s.db, s.projectId, [
      { groupTypeIndex: 0, groupKey: "acme", properties: { size: 120, industry: "retail" } },
      { groupTypeIndex: 0, groupKey: "globex", properties: { size: 8 } },
      { groupTypeIndex: 0, groupKey: "initech", properties: { size: 40, industry: "software" } },
      { groupTypeIndex: 1, groupKey: "red", properties: {} },
    ]);
  });

  it("counts the persons a condition's properties select, of all, without applying the rollout", async () => {
    const s = server();
    const answer = await radius(s, { condition: { properties: [plan("pro")], rollout_percentage: 10 } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ users_affected: 2, total_users: 4 });
    const both = await radius(s, {
      condition: {
        properties: [
          plan(["pro", "free"]),
          { key: "email", type: "person", value: "acme", operator: "icontains" },
        ],
      },
    });
    expect(both.body).toEqual({ users_affected: 2, total_users: 4 });
    const negative = await radius(s, { condition: { properties: [plan("pro", "is_not")] } });
    expect(negative.body).toEqual({ users_affected: 2, total_users: 4 });
  });

  it("counts everyone for a condition without properties", async () => {
    const s = server();
    for (const condition of [{}, { properties: [] }, null, { properties: null, rollout_percentage: 50 }]) {
      expect((await radius(s, { condition })).body).toEqual({ users_affected: 4, total_users: 4 });
    }
  });

  it("counts cohort members", async () => {
    const s = server();
    const cohort = await s.request("POST", `/api/projects/${s.projectId}/cohorts/`, {
      body: {
        name: "Acme",
        filters: {
          properties: {
            type: "AND",
            values: [{ key: "email", type: "person", value: "acme", operator: "icontains" }],
          },
        },
      },
    });
    expect(cohort.status, cohort.text).toBe(201);
    const answer = await radius(s, {
      condition: { properties: [{ key: "id", type: "cohort", value: cohort.body.id, operator: "in" }] },
    });
    expect(answer.body).toEqual({ users_affected: 2, total_users: 4 });
  });

  it("counts groups of group_type_index, $group_key being the group's key", async () => {
    const s = server();
    const size = { key: "size", type: "group", group_type_index: 0, value: 30, operator: "gt" };
    expect((await radius(s, { condition: { properties: [size] }, group_type_index: 0 })).body).toEqual({
      users_affected: 2,
      total_users: 3,
    });
    const byKey = { key: "$group_key", type: "group", value: ["acme", "globex"], operator: "exact" };
    expect((await radius(s, { condition: { properties: [byKey] }, group_type_index: 0 })).body).toEqual({
      users_affected: 2,
      total_users: 3,
    });
    expect((await radius(s, { condition: { properties: [] }, group_type_index: 1 })).body).toEqual({
      users_affected: 1,
      total_users: 1,
    });
  });

  it("refuses what PostHog refuses, with its messages", async () => {
    const s = server();
    const missing = await radius(s, { group_type_index: 0 });
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 400,
      body: {
        type: "validation_error",
        code: "invalid_input",
        detail: "Missing condition for which to get blast radius",
        attr: null,
      },
    });
    const wrongType = await radius(s, {
      condition: { properties: [{ key: "size", type: "group", group_type_index: 1, value: 1 }] },
      group_type_index: 0,
    });
    expect({ status: wrongType.status, detail: wrongType.body.detail }).toEqual({
      status: 400,
      detail: "Invalid group type index for feature flag condition.",
    });
    const personWithGroups = await radius(s, {
      condition: { properties: [plan("pro")] },
      group_type_index: 0,
    });
    expect(personWithGroups.body.detail).toBe("Invalid group type index for feature flag condition.");
  });

  it("refuses malformed conditions with a 400 naming the field", async () => {
    const s = server();
    const cases: Array<[unknown, string | null, string]> = [
      [{ condition: "everyone" }, "condition", "not_a_dict"],
      [{ condition: { properties: "plan" } }, "condition__properties", "not_a_dict"],
      [
        { condition: { properties: [{ key: "plan", type: "nope", value: 1 }] } },
        "condition__properties__values__0__type",
        "invalid_choice",
      ],
      [{ condition: { properties: [plan("(", "regex")] } }, "condition__properties", "invalid_regex"],
      [{ condition: {}, group_type_index: 7 }, "group_type_index", "max_value"],
      [
        { condition: { properties: [{ key: "size", type: "group", value: 1 }] }, group_type_index: 0 },
        "condition__properties__values__0__group_type_index",
        "required",
      ],
    ];
    for (const [body, attr, code] of cases) {
      const answer = await radius(s, body);
      expect({ body, status: answer.status, attr: answer.body.attr, code: answer.body.code }).toEqual({
        body,
        status: 400,
        attr,
        code,
      });
    }
  });

  it("answers 501 for a condition on another flag, which only flag evaluation can count", async () => {
    const s = server();
    const answer = await radius(s, {
      condition: { properties: [{ key: "1", type: "flag", value: true, operator: "flag_evaluates_to" }] },
    });
    expect(answer.status).toBe(501);
    expect(answer.body.code).toBe("not_implemented");
  });
});
