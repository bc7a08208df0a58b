/**
 * Property definitions over REST (`property_definitions/`), on PGlite and PostgreSQL: events sent
 * through the real capture path (mixed value types, `$set` person properties, a `$groupidentify`)
 * fill the catalogue with inferred types; PostHog's list filters (kind, group type, search, names,
 * numerical, feature flags, event names, excluded, core, hidden), ordering and pages; retrieve,
 * PATCH with the type and verification rules and their stamps, DELETE, `seen_together`; bad input,
 * missing scopes, other projects' ids, activity entries, and a list's statement count.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { projectToken, sendToSdk } from "../support/capture.js";
import { describeEachBackend, statementsOf, type TestServer } from "../support/server.js";

/** What a captured event's properties hold: one of each value type capture infers. */
const SIGNED_UP = {
  plan: "pro",
  seats: 3,
  is_trial: false,
  trial_ends_at: "2026-12-01T00:00:00Z",
  $browser: "Chrome",
  utm_source: "newsletter",
  $initial_referrer: "$direct",
  tags_list: ["a", "b"],
  nested: { a: 1 },
  $set: { email: "ada@example.com", age: 36 },
  $groups: { company: "acme" },
};

describeEachBackend("property definitions over REST", (server) => {
  const base = (project = server().projectId) => `/api/projects/${project}/property_definitions`;
  const list = (query = "", key?: string) => server().request("GET", `${base()}/?${query}`, { key });
  const names = async (query: string) => {
    const answer = await list(query);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.results.map((definition: { name: string }) => definition.name);
  };
  const idOf = async (s: TestServer, name: string, type = 1) =>
    (await s.db.propertyDefinition.findFirstOrThrow({ where: { projectId: s.projectId, name, type } })).id;
  const activity = (s: TestServer, itemId: string) =>
    s.db.activityLog.findMany({
      where: { scope: "PropertyDefinition", itemId },
      orderBy: { createdAt: "asc" },
    });
  const validation = (detail: string, attr: string | null, code = "invalid_input") => ({
    type: "validation_error",
    code,
    detail,
    attr,
  });

  beforeAll(async () => {
    const s = server();
    const token = await projectToken(s);
    const first = await sendToSdk(s, "/batch/", {
      json: {
        api_key: token,
        batch: [
          { event: "signed up", distinct_id: "u1", properties: SIGNED_UP },
          {
            event: "$pageview",
            distinct_id: "u1",
            properties: {
              $browser: "Firefox",
              $current_url: "https://example.com/",
              load_ms: 12.5,
              "$feature/new-checkout": true,
            },
          },
        ],
      },
    });
    expect(first.status, first.text).toBe(200);
    // The group type exists once an event named it: `$groupidentify` then records its properties.
    const second = await sendToSdk(s, "/batch/", {
      json: {
        api_key: token,
        batch: [
          {
            event: "$groupidentify",
            distinct_id: "u1",
            properties: {
              $group_type: "company",
              $group_key: "acme",
              $group_set: { name: "Acme", employees: 50 },
            },
          },
        ],
      },
    });
    expect(second.status, second.text).toBe(200);
  });

  describe("the catalogue capture fills", () => {
    it("lists event properties by name in PostHog's enterprise shape, leaving ingestion's own keys out", async () => {
      const answer = await list();
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ count: 11, next: null, previous: null });
      // $initial_referrer is recorded but left out of event properties; $set and $groups are never recorded.
      expect(answer.body.results.map((d: { name: string }) => d.name)).toEqual([
        "$browser",
        "$current_url",
        "$feature/new-checkout",
        "is_trial",
        "load_ms",
        "nested",
        "plan",
        "seats",
        "tags_list",
        "trial_ends_at",
        "utm_source",
      ]);
      const seats = answer.body.results.find((d: { name: string }) => d.name === "seats");
      expect(seats).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "seats",
        description: "",
        tags: [],
        is_numerical: true,
        updated_at: null,
        updated_by: null,
        is_seen_on_filtered_events: null,
        property_type: "Numeric",
        verified: false,
        verified_at: null,
        verified_by: null,
        hidden: false,
      });
    });

    it("records each property's inferred type: events, persons through $set, groups through $groupidentify", async () => {
      const types = async (query: string) =>
        Object.fromEntries(
          (await list(query)).body.results.map(
            (d: { name: string; property_type: string | null; is_numerical: boolean }) => [
              d.name,
              [d.property_type, d.is_numerical],
            ],
          ),
        );
      expect(await types("")).toMatchObject({
        plan: ["String", false],
        seats: ["Numeric", true],
        load_ms: ["Numeric", true],
        is_trial: ["Boolean", false],
        trial_ends_at: ["DateTime", false],
        $browser: ["String", false],
        "$feature/new-checkout": ["String", false],
        tags_list: [null, false],
        nested: [null, false],
      });
      expect(await types("type=person")).toEqual({ age: ["Numeric", true], email: ["String", false] });
      expect(await types("type=group&group_type_index=0")).toEqual({
        employees: ["Numeric", true],
        name: ["String", false],
      });
      expect(await types("type=session")).toEqual({});
    });
  });

  describe("filters", () => {
    it("searches by terms in any case, names, excluded names, numerical and feature flags", async () => {
      expect(await names("search=SEA")).toEqual(["seats"]);
      expect(await names("search=trial%20ends")).toEqual(["trial_ends_at"]);
      expect(await names("search=%24cur")).toEqual(["$current_url"]);
      expect(await names("properties=seats,plan,nope")).toEqual(["plan", "seats"]);
      expect(
        await names(`search=s&excluded_properties=${encodeURIComponent('["seats","is_trial"]')}`),
      ).toEqual(["$browser", "load_ms", "nested", "tags_list", "trial_ends_at", "utm_source"]);
      expect(await names("is_numerical=true")).toEqual(["load_ms", "seats"]);
      expect(await names("is_numerical=false&search=seat")).toEqual(["seats"]);
      expect(await names("is_feature_flag=true")).toEqual(["$feature/new-checkout"]);
      expect(await names("is_feature_flag=false&search=new")).toEqual([]);
    });

    it("leaves out $ and core properties with exclude_core_properties", async () => {
      expect(await names("exclude_core_properties=true")).toEqual([
        "is_trial",
        "load_ms",
        "nested",
        "plan",
        "seats",
        "tags_list",
        "trial_ends_at",
      ]);
    });

    it("marks and orders properties seen on event_names first, or keeps only those", async () => {
      const pageview = encodeURIComponent('["$pageview"]');
      const answer = await list(`event_names=${pageview}&search=e`);
      expect(answer.status, answer.text).toBe(200);
      expect(
        answer.body.results.map((d: { name: string; is_seen_on_filtered_events: boolean }) => [
          d.name,
          d.is_seen_on_filtered_events,
        ]),
      ).toEqual([
        ["$browser", true],
        ["$current_url", true],
        ["$feature/new-checkout", true],
        ["nested", false],
        ["seats", false],
        ["trial_ends_at", false],
        ["utm_source", false],
      ]);
      expect(await names(`event_names=${pageview}&filter_by_event_names=true`)).toEqual([
        "$browser",
        "$current_url",
        "$feature/new-checkout",
        "load_ms",
      ]);
      const both = encodeURIComponent('["$pageview","signed up"]');
      expect((await list(`event_names=${both}&filter_by_event_names=true`)).body.count).toBe(11);
    });

    it("refuses bad filters with PostHog's messages", async () => {
      const refused = async (query: string, body: unknown) => {
        const answer = await list(query);
        expect(answer.status, query).toBe(400);
        expect(answer.body, query).toEqual(body);
      };
      await refused("type=group", validation("`group_type_index` must be set for `group` type", null));
      await refused(
        "group_type_index=0",
        validation("`group_type_index` can only set for `group` type", null),
      );
      await refused(
        "type=group&group_type_index=5",
        validation("Invalid value for `group_type_index`", null),
      );
      await refused(
        "type=group&group_type_index=-1",
        validation("Invalid value for `group_type_index`", null),
      );
      await refused(
        `type=person&event_names=${encodeURIComponent('["a"]')}`,
        validation("`event_names` can only be set for `event` type", null),
      );
      await refused("type=actions", validation('"actions" is not a valid choice.', "type", "invalid_choice"));
      await refused(
        "type=group&group_type_index=one",
        validation("A valid integer is required.", "group_type_index"),
      );
      await refused("is_numerical=maybe", validation("Must be a valid boolean.", "is_numerical"));
      await refused(
        "event_names=%24pageview",
        validation('Expected a JSON list of names, e.g. ["$pageview"].', "event_names"),
      );
    });

    it("pages with limit/offset and links, a bad limit falling back to the default as DRF's", async () => {
      const first = await list("limit=3");
      expect(first.body.count).toBe(11);
      expect(first.body.results).toHaveLength(3);
      expect(first.body.previous).toBeNull();
      expect(first.body.next).toContain("offset=3");
      const last = await list("limit=3&offset=10");
      expect(last.body.results.map((d: { name: string }) => d.name)).toEqual(["utm_source"]);
      expect(last.body.next).toBeNull();
      const beyond = await list("limit=3&offset=50");
      expect(beyond.body).toMatchObject({ count: 11, results: [] });
      const lenient = await list("limit=zero&offset=-1");
      expect(lenient.status).toBe(200);
      expect(lenient.body.results).toHaveLength(11);
    });

    it("reads a page in a fixed number of statements however many definitions, tags and users it holds", async () => {
      const s = server();
      const small = statementsOf(await list("search=seats&limit=50"));
      const project = await s.createProject("many properties");
      await s.db.propertyDefinition.createMany({
        data: Array.from({ length: 40 }, (_, i) => ({
          projectId: project,
          name: `prop ${i}`,
          propertyType: "String",
        })),
      });
      const ids = (await s.db.propertyDefinition.findMany({ where: { projectId: project } })).map(
        (d) => d.id,
      );
      for (const id of ids.slice(0, 10)) {
        const changed = await s.request("PATCH", `${base(project)}/${id}/`, {
          body: { verified: true, tags: ["a", "b"], description: "d" },
        });
        expect(changed.status, changed.text).toBe(200);
      }
      const big = await s.request("GET", `${base(project)}/?limit=50`);
      expect(big.body.count).toBe(40);
      expect(big.body.results.slice(0, 10).every((d: { verified: boolean }) => d.verified)).toBe(true);
      expect(big.body.results[0]).toMatchObject({ tags: ["a", "b"], verified_by: { id: s.userId } });
      // The page in one statement, plus at most the project and key when the process has not cached
      // them (the change feed may invalidate them between requests): never one per definition or user.
      expect(small).toBeLessThanOrEqual(3);
      expect(statementsOf(big)).toBeLessThanOrEqual(3);
    });
  });

  describe("one definition", () => {
    it("reads a definition by UUID; a non-UUID, an unknown one or another project's is 404", async () => {
      const s = server();
      const id = await idOf(s, "plan");
      const answer = await s.request("GET", `${base()}/${id}/`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        id,
        name: "plan",
        property_type: "String",
        is_seen_on_filtered_events: null,
      });
      const noSlash = await s.request("GET", `${base()}/${id}`);
      expect(noSlash.body.name).toBe("plan");
      const notFound = { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null };
      for (const path of [`${base()}/plan/`, `${base()}/00000000-0000-0000-0000-000000000000/`]) {
        const missing = await s.request("GET", path);
        expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: notFound });
      }
      const other = await s.createProject("other props");
      const foreign = await s.db.propertyDefinition.create({ data: { projectId: other, name: "theirs" } });
      const elsewhere = await s.request("GET", `${base()}/${foreign.id}/`);
      expect(elsewhere.status).toBe(404);
      const patched = await s.request("PATCH", `${base()}/${foreign.id}/`, { body: { description: "x" } });
      expect(patched.status).toBe(404);
    });

    it("changes description, tags and type: Numeric makes it numerical, any other type not", async () => {
      const s = server();
      const id = await idOf(s, "plan");
      const numeric = await s.request("PATCH", `${base()}/${id}/`, {
        body: {
          description: "The plan",
          tags: ["Billing", "billing ", "core"],
          property_type: "Numeric",
          name: "x",
        },
      });
      expect(numeric.status, numeric.text).toBe(200);
      expect(numeric.body).toMatchObject({
        name: "plan",
        description: "The plan",
        tags: ["billing", "core"],
        property_type: "Numeric",
        is_numerical: true,
        updated_at: expect.any(String),
        updated_by: { id: s.userId },
      });
      const text = await s.request("PATCH", `${base()}/${id}/`, { body: { property_type: "String" } });
      expect(text.body).toMatchObject({
        property_type: "String",
        is_numerical: false,
        tags: ["billing", "core"],
      });
      const cleared = await s.request("PUT", `${base()}/${id}/`, { body: { property_type: null } });
      expect(cleared.body).toMatchObject({ property_type: null, is_numerical: false });
      const entries = await activity(s, id);
      expect(entries.map((e) => e.activity)).toEqual(["changed", "changed", "changed"]);
      expect(entries[0]!.detail).toMatchObject({ name: "plan", type: "event" });
      expect(
        (entries[0]!.detail as { changes: Array<{ field: string }> }).changes.map((c) => c.field).sort(),
      ).toEqual(["description", "is_numerical", "property_type", "tags"]);
    });

    it("refuses a type that is not PostHog's and a property both hidden and verified, changing nothing", async () => {
      const s = server();
      const id = await idOf(s, "seats");
      const before = await s.db.propertyDefinition.findUniqueOrThrow({ where: { id } });
      const badType = await s.request("PATCH", `${base()}/${id}/`, { body: { property_type: "Array" } });
      expect(badType.status).toBe(400);
      expect(badType.body).toEqual(
        validation('"Array" is not a valid choice.', "property_type", "invalid_choice"),
      );
      const both = await s.request("PATCH", `${base()}/${id}/`, { body: { hidden: true, verified: true } });
      expect(both.status).toBe(400);
      expect(both.body).toEqual(validation("A property cannot be both hidden and verified", null));
      const badTags = await s.request("PATCH", `${base()}/${id}/`, { body: { tags: "core" } });
      expect(badTags.body).toMatchObject({ code: "not_a_list", attr: "tags" });
      expect(await s.db.propertyDefinition.findUniqueOrThrow({ where: { id } })).toEqual(before);
      expect(await activity(s, id)).toEqual([]);
    });

    it("verifies with a stamp kept on re-verifying, unhides; hiding unverifies; verified come first, hidden can be left out", async () => {
      const s = server();
      const id = await idOf(s, "is_trial");
      const verified = await s.request("PATCH", `${base()}/${id}/`, { body: { verified: true } });
      expect(verified.body).toMatchObject({
        verified: true,
        verified_at: expect.any(String),
        verified_by: { id: s.userId },
        hidden: false,
      });
      const again = await s.request("PATCH", `${base()}/${id}/`, {
        body: { verified: true, description: "Trial" },
      });
      expect(again.body.verified_at).toBe(verified.body.verified_at);
      expect((await names("search=i"))[0]).toBe("is_trial");
      const hiddenId = await idOf(s, "nested");
      await s.request("PATCH", `${base()}/${hiddenId}/`, { body: { verified: true } });
      const hidden = await s.request("PATCH", `${base()}/${hiddenId}/`, { body: { hidden: true } });
      expect(hidden.body).toMatchObject({
        hidden: true,
        verified: false,
        verified_at: null,
        verified_by: null,
      });
      expect(await names("search=nest")).toEqual(["nested"]);
      expect(await names("search=nest&exclude_hidden=true")).toEqual([]);
      const shown = await s.request("PATCH", `${base()}/${hiddenId}/`, { body: { hidden: false } });
      expect(shown.body).toMatchObject({ hidden: false, verified: false });
    });

    it("deletes a definition (204) with an activity entry; it is gone", async () => {
      const s = server();
      const id = await idOf(s, "employees", 3);
      const deleted = await s.request("DELETE", `${base()}/${id}/`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expect((await s.request("GET", `${base()}/${id}/`)).status).toBe(404);
      expect(await names("type=group&group_type_index=0")).toEqual(["name"]);
      const [entry] = await activity(s, id);
      expect(entry).toMatchObject({ activity: "deleted", userId: s.userId });
      expect(entry!.detail).toMatchObject({ name: "employees", type: "group", changes: null });
      expect((await s.request("DELETE", `${base()}/${id}/`)).status).toBe(404);
    });
  });

  describe("seen_together", () => {
    it("answers, per event name, whether the property was seen on it", async () => {
      const s = server();
      const answer = await s.request(
        "GET",
        `${base()}/seen_together/?event_names=%24pageview&event_names=signed%20up&event_names=other&property_name=%24browser`,
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ $pageview: true, "signed up": true, other: false });
      const load = await s.request(
        "GET",
        `${base()}/seen_together?event_names=signed%20up&property_name=load_ms`,
      );
      expect(load.body).toEqual({ "signed up": false });
      const missing = await s.request("GET", `${base()}/seen_together/?property_name=x`);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(validation("This field is required.", "event_names", "required"));
    });
  });

  describe("scopes", () => {
    it("needs property_definition:read to read and :write to change or delete", async () => {
      const s = server();
      const id = await idOf(s, "utm_source");
      const flagsOnly = await s.createKey(["feature_flag:read"]);
      const refusedRead = await list("", flagsOnly);
      expect(refusedRead.status).toBe(403);
      expect(refusedRead.body).toMatchObject({
        code: "permission_denied",
        detail: "API key missing required scope 'property_definition:read'",
      });
      const reader = await s.createKey(["property_definition:read"]);
      expect((await list("", reader)).status).toBe(200);
      for (const [method, body] of [
        ["PATCH", { description: "x" }],
        ["DELETE", undefined],
      ] as const) {
        const refused = await s.request(method, `${base()}/${id}/`, { key: reader, body });
        expect(refused.status).toBe(403);
        expect(refused.body.detail).toBe("API key missing required scope 'property_definition:write'");
      }
      const writer = await s.createKey(["property_definition:write"]);
      const changed = await s.request("PATCH", `${base()}/${id}/`, {
        key: writer,
        body: { description: "UTM" },
      });
      expect(changed.status).toBe(200);
    });
  });
});
