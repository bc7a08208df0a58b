/**
 * Event definitions over REST (`event_definitions/`), on PGlite and PostgreSQL: events sent through
 * capture appear in the list; PostHog's filters, ordering and pages; create, retrieve, PATCH with the
 * verification rules and their stamps, DELETE, `:id/metrics`, `by_name`; bad input, missing scopes,
 * other projects' ids, activity entries. The code-generation rows: event-definitions.code.rest.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { projectToken, sendToSdk } from "../support/capture.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

describeEachBackend("event definitions over REST", (server) => {
  const base = (project = server().projectId) => `/api/projects/${project}/event_definitions`;
  const create = (body: Record<string, unknown>, project?: number) =>
    server().request("POST", `${base(project)}/`, { body });
  const list = (query = "") => server().request("GET", `${base()}/?${query}`);
  const names = async (query: string) => {
    const answer = await list(query);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.results.map((definition: { name: string }) => definition.name);
  };
  const activity = (s: TestServer, itemId: string) =>
    s.db.activityLog.findMany({ where: { scope: "EventDefinition", itemId }, orderBy: { createdAt: "asc" } });

  describe("the catalogue capture fills", () => {
    beforeAll(async () => {
      const s = server();
      const token = await projectToken(s);
      const answer = await sendToSdk(s, "/batch/", {
        json: {
          api_key: token,
          batch: [
            { event: "$pageview", distinct_id: "u1", properties: {} },
            { event: "signed up", distinct_id: "u1", properties: {} },
            { event: "signed in", distinct_id: "u2", properties: {} },
          ],
        },
      });
      expect(answer.status, answer.text).toBe(200);
    });

    it("lists captured events with PostHog's enterprise fields and a DRF page", async () => {
      const answer = await list("search=signed");
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ count: 2, next: null, previous: null });
      expect(answer.body.results[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "signed in",
        owner: null,
        description: "",
        tags: [],
        created_at: expect.any(String),
        updated_at: null,
        updated_by: null,
        last_seen_at: expect.any(String),
        last_updated_at: null,
        verified: false,
        verified_at: null,
        verified_by: null,
        hidden: false,
        is_action: false,
        action_id: null,
        is_calculating: false,
        last_calculated_at: null,
        created_by: null,
        post_to_slack: false,
        default_columns: [],
      });
    });

    it("filters by search terms, event type, names and excluded names", async () => {
      expect(await names("search=SIGN%20in")).toEqual(["signed in"]);
      expect(await names("event_type=event_posthog&search=page")).toEqual(["$pageview"]);
      expect(await names("event_type=event_custom&search=signed")).toEqual(["signed in", "signed up"]);
      expect(await names("names=signed%20up,$pageview&ordering=name")).toEqual(["$pageview", "signed up"]);
      expect(await names("names=signed%20up&names=signed%20in&ordering=-name")).toEqual([
        "signed up",
        "signed in",
      ]);
      expect(await names(`search=signed&excluded_properties=${encodeURIComponent('["signed in"]')}`)).toEqual(
        ["signed up"],
      );
    });

    it("refuses an unknown event type with PostHog's message", async () => {
      const answer = await list("event_type=actions");
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail: "Not a valid event type. Use one of: event, event_custom, event_posthog.",
        attr: "event_type",
      });
    });

    it("refuses a limit below 1 and pages with next/previous links", async () => {
      const bad = await list("limit=0");
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "min_value", attr: "limit" });
      const first = await list("search=signed&limit=1&ordering=name");
      expect(first.body.count).toBe(2);
      expect(first.body.results.map((d: { name: string }) => d.name)).toEqual(["signed in"]);
      expect(first.body.next).toContain("offset=1");
      const second = await server().request(
        "GET",
        new URL(first.body.next).pathname + new URL(first.body.next).search,
      );
      expect(second.body.results.map((d: { name: string }) => d.name)).toEqual(["signed up"]);
      expect(second.body.previous).not.toBeNull();
    });
  });

  describe("ordering and the stale, hidden, verified and tag filters", () => {
    let ids: Record<string, string>;
    beforeAll(async () => {
      const s = server();
      ids = {};
      for (const name of ["ord b", "ord a", "ord stale", "ord never"]) {
        const created = await create({ name });
        expect(created.status, created.text).toBe(201);
        ids[name] = created.body.id;
      }
      const day = 24 * 60 * 60 * 1000;
      const now = Date.now();
      const seen = { "ord b": 1, "ord a": 1, "ord stale": 40 } as const;
      for (const [name, daysAgo] of Object.entries(seen)) {
        await s.db.eventDefinition.update({
          where: { id: ids[name]! },
          data: { lastSeenAt: new Date(now - daysAgo * day), createdAt: new Date(now - daysAgo * day) },
        });
      }
    });

    it("orders by last seen day then name by default, never-seen first descending last", async () => {
      // With a search and no ordering: shorter names first, then the default.
      expect(await names("search=ord")).toEqual(["ord a", "ord b", "ord stale", "ord never"]);
      // With no search: `-last_seen_at::date` (nulls last) then `name`.
      const all = await names("names=ord%20a,ord%20b,ord%20stale,ord%20never");
      expect(all).toEqual(["ord a", "ord b", "ord stale", "ord never"]);
    });

    it("honours explicit ordering with name as the tie-breaker", async () => {
      const only = "names=ord%20a,ord%20b,ord%20stale,ord%20never";
      expect(await names(`${only}&ordering=last_seen_at`)).toEqual([
        "ord never",
        "ord stale",
        "ord a",
        "ord b",
      ]);
      expect(await names(`${only}&ordering=-last_seen_at::date`)).toEqual([
        "ord a",
        "ord b",
        "ord stale",
        "ord never",
      ]);
      expect(await names(`${only}&ordering=-name`)).toEqual(["ord stale", "ord never", "ord b", "ord a"]);
      // Unknown fields are dropped: the default applies.
      expect(await names(`${only}&ordering=event`)).toEqual(["ord a", "ord b", "ord stale", "ord never"]);
    });

    it("leaves out stale events but keeps never-seen ones", async () => {
      expect(await names("search=ord&exclude_stale=true&ordering=name")).toEqual([
        "ord a",
        "ord b",
        "ord never",
      ]);
    });

    it("filters hidden, verified and tagged events", async () => {
      const s = server();
      const hide = await s.request("PATCH", `${base()}/${ids["ord a"]}/`, { body: { hidden: true } });
      expect(hide.status, hide.text).toBe(200);
      const verify = await s.request("PATCH", `${base()}/${ids["ord b"]}`, {
        body: { verified: true, tags: ["Core", "core ", "web"] },
      });
      expect(verify.body.tags).toEqual(["core", "web"]);
      expect(await names("search=ord&exclude_hidden=true&ordering=name")).toEqual([
        "ord b",
        "ord never",
        "ord stale",
      ]);
      expect(await names("search=ord&verified=true")).toEqual(["ord b"]);
      expect(await names("search=ord&verified=false&ordering=name")).toEqual([
        "ord a",
        "ord never",
        "ord stale",
      ]);
      expect(await names(`tags=${encodeURIComponent('["web","other"]')}`)).toEqual(["ord b"]);
      // Not a JSON list: no tag filter, as PostHog ignores it.
      expect((await names("search=ord&tags=web")).length).toBe(4);
    });
  });

  describe("writes", () => {
    it("creates a definition: no timestamps until captured, a created activity entry, 201", async () => {
      const s = server();
      const created = await create({
        name: "checkout",
        description: "Paid",
        owner: s.userId,
        tags: ["Shop"],
        default_columns: ["person", "event"],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({
        name: "checkout",
        description: "Paid",
        owner: { id: s.userId },
        tags: ["shop"],
        created_at: null,
        last_seen_at: null,
        updated_by: { id: s.userId },
        default_columns: ["person", "event"],
        verified: false,
        hidden: false,
      });
      expect(await activity(s, created.body.id)).toEqual([
        expect.objectContaining({
          activity: "created",
          detail: expect.objectContaining({ name: "checkout" }),
        }),
      ]);
      const fetched = await s.request("GET", `${base()}/${created.body.id}/`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(created.body);
    });

    it("refuses a duplicate name, a blank name and a foreign owner with PostHog's errors", async () => {
      const s = server();
      await create({ name: "dup" });
      const dup = await create({ name: "dup" });
      expect(dup.status).toBe(400);
      expect(dup.body).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail: "Event definition with name 'dup' already exists",
        attr: "name",
      });
      expect((await create({ name: "" })).body).toMatchObject({ code: "blank", attr: "name" });
      expect((await create({})).body).toMatchObject({ code: "required", attr: "name" });
      const stranger = await s.db.user.create({
        data: { email: "stranger@example.com", distinctId: "stranger" },
      });
      const foreign = await create({ name: "owned", owner: stranger.id });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toMatchObject({ code: "does_not_exist", attr: "owner" });
    });

    it("refuses hidden and verified together, on create and on update", async () => {
      const both = await create({ name: "both", hidden: true, verified: true });
      expect(both.status).toBe(400);
      expect(both.body).toEqual({
        type: "validation_error",
        code: "invalid_input",
        detail: "An event cannot be both hidden and verified",
        attr: null,
      });
      const created = await create({ name: "both later" });
      const patch = await server().request("PATCH", `${base()}/${created.body.id}/`, {
        body: { hidden: true, verified: true },
      });
      expect(patch.status).toBe(400);
      expect(patch.body.detail).toBe("An event cannot be both hidden and verified");
    });

    it("stamps verification, keeps the first stamp, clears it on unverify or hide, logs changes", async () => {
      const s = server();
      const created = await create({ name: "verify me", verified: true });
      expect(created.body).toMatchObject({ verified: true, hidden: false, verified_by: { id: s.userId } });
      const stampedAt = created.body.verified_at;
      expect(stampedAt).not.toBeNull();
      const path = `${base()}/${created.body.id}/`;
      const again = await s.request("PATCH", path, {
        body: { verified: true, description: "x", name: "renamed" },
      });
      expect(again.body).toMatchObject({
        verified: true,
        verified_at: stampedAt,
        description: "x",
        name: "verify me",
      });
      const hidden = await s.request("PATCH", path, { body: { hidden: true } });
      expect(hidden.body).toMatchObject({
        hidden: true,
        verified: false,
        verified_at: null,
        verified_by: null,
      });
      const shown = await s.request("PATCH", path, { body: { verified: true } });
      expect(shown.body).toMatchObject({ hidden: false, verified: true });
      const unverified = await s.request("PATCH", path, { body: { verified: false } });
      expect(unverified.body).toMatchObject({ verified: false, verified_at: null, verified_by: null });
      const entries = await activity(s, created.body.id);
      expect(entries.map((entry) => entry.activity)).toEqual([
        "created",
        "changed",
        "changed",
        "changed",
        "changed",
      ]);
      const changes = (
        entries[2]!.detail as { changes: Array<{ field: string; before: unknown; after: unknown }> }
      ).changes;
      expect(changes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: "hidden", before: false, after: true }),
          expect.objectContaining({ field: "verified", before: true, after: false }),
        ]),
      );
    });

    it("deletes a definition (204, activity deleted) and answers 404 after", async () => {
      const s = server();
      const created = await create({ name: "doomed", tags: ["t"] });
      const path = `${base()}/${created.body.id}`;
      const deleted = await s.request("DELETE", path);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expect((await s.request("GET", path)).status).toBe(404);
      expect((await s.request("DELETE", path)).status).toBe(404);
      expect((await activity(s, created.body.id)).map((entry) => entry.activity)).toEqual([
        "created",
        "deleted",
      ]);
    });
  });

  describe("lookups, metrics and the code-generation rows", () => {
    it("answers a non-UUID id and an unknown UUID with 404", async () => {
      const s = server();
      for (const id of ["undefined", "123", "00000000-0000-0000-0000-000000000000"]) {
        const answer = await s.request("GET", `${base()}/${id}/`);
        expect(answer.status, id).toBe(404);
        expect(answer.body).toMatchObject({ type: "invalid_request", code: "not_found" });
        expect((await s.request("PATCH", `${base()}/${id}/`, { body: {} })).status).toBe(404);
        expect((await s.request("GET", `${base()}/${id}/metrics/`)).status).toBe(404);
      }
    });

    it("finds a definition by exact name, 404 with PostHog's detail otherwise, 400 without a name", async () => {
      const s = server();
      const created = await create({ name: "By Name" });
      const found = await s.request("GET", `${base()}/by_name/?name=By%20Name`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.id).toBe(created.body.id);
      const missing = await s.request("GET", `${base()}/by_name?name=by%20name`);
      expect(missing.status).toBe(404);
      expect(missing.body.detail).toBe("Event definition with name 'by name' not found");
      const noName = await s.request("GET", `${base()}/by_name/`);
      expect(noName.status).toBe(400);
      expect(noName.body.detail).toBe("Query parameter 'name' is required");
    });

    it("answers metrics with query_usage_30_day, with event_definition:read", async () => {
      const s = server();
      const created = await create({ name: "metered" });
      await s.db.eventDefinition.update({ where: { id: created.body.id }, data: { queryUsage30Day: 7 } });
      const reader = await s.createKey(["event_definition:read"]);
      const metrics = await s.request("GET", `${base()}/${created.body.id}/metrics`, { key: reader });
      expect(metrics.status, metrics.text).toBe(200);
      expect(metrics.body).toEqual({ query_usage_30_day: 7 });
    });
  });

  describe("authorization", () => {
    it("needs event_definition:read to read and event_definition:write to write", async () => {
      const s = server();
      const reader = await s.createKey(["event_definition:read"]);
      const nothing = await s.createKey(["feature_flag:read"]);
      const listed = await s.request("GET", `${base()}/`, { key: nothing });
      expect(listed.status).toBe(403);
      expect(listed.body.detail).toBe("API key missing required scope 'event_definition:read'");
      const written = await s.request("POST", `${base()}/`, { key: reader, body: { name: "nope" } });
      expect(written.status).toBe(403);
      expect(written.body.detail).toBe("API key missing required scope 'event_definition:write'");
      expect((await s.request("GET", `${base()}/`, { key: reader })).status).toBe(200);
    });

    it("answers another project's definition with 404 and keeps names per project", async () => {
      const s = server();
      const other = await s.createProject("other events");
      const foreign = await create({ name: "shared name" }, other);
      expect(foreign.status, foreign.text).toBe(201);
      // The same name is free in this project.
      expect((await create({ name: "shared name" })).status).toBe(201);
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const answer = await s.request(
          method,
          `${base()}/${foreign.body.id}/`,
          method === "PATCH" ? { body: {} } : {},
        );
        expect(answer.status, method).toBe(404);
      }
      expect((await s.request("GET", `${base()}/${foreign.body.id}/metrics/`)).status).toBe(404);
    });
  });
});
