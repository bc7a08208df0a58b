/**
 * Group types and groups over REST (`groups_types/`, `groups_types/update_metadata/`, `groups/`,
 * `groups/find`), on PGlite and PostgreSQL, with rows inserted as capture would leave them:
 * PostHog's shapes, search, cursor pages, renames in one transaction, bad input and missing scopes.
 */
import { beforeAll, expect, it } from "vitest";
import { insertGroups, insertGroupType } from "../support/groups.js";
import { describeEachBackend } from "../support/server.js";

const MINUTE = 60 * 1000;

describeEachBackend("groups over REST", (server) => {
  const path = (rest: string) => `/api/projects/${server().projectId}/${rest}`;

  beforeAll(async () => {
    const s = server();
    await insertGroupType(s.db, s.projectId, 0, "company");
    await insertGroupType(s.db, s.projectId, 1, "team");
    const start = Date.now() - 60 * MINUTE;
    await insertGroups(s.db, s.projectId, [
      { groupTypeIndex: 0, groupKey: "acme", properties: { name: "Acme Inc" }, createdAt: new Date(start) },
      {
        groupTypeIndex: 0,
        groupKey: "globex",
        properties: { name: "Globex" },
        createdAt: new Date(start + MINUTE),
      },
      {
        groupTypeIndex: 0,
        groupKey: "initech",
        properties: { industry: "software" },
        createdAt: new Date(start + MINUTE),
      },
      { groupTypeIndex: 1, groupKey: "blue", createdAt: new Date(start) },
    ]);
  });

  it("lists group types by index with PostHog's fields and an ETag", async () => {
    const response = await server().request("GET", path("groups_types/"));
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^W\//);
    expect(response.body).toEqual([
      {
        group_type: "company",
        group_type_index: 0,
        name_singular: null,
        name_plural: null,
        detail_dashboard: null,
        default_columns: null,
        created_at: expect.any(String),
      },
      expect.objectContaining({ group_type: "team", group_type_index: 1 }),
    ]);
  });

  it("renames group types: absent keeps, null clears, all or nothing", async () => {
    const s = server();
    const patch = (body: unknown) => s.request("PATCH", path("groups_types/update_metadata/"), { body });
    const renamed = await patch([
      { group_type_index: 0, name_singular: "Company", name_plural: "Companies" },
    ]);
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body[0]).toMatchObject({ name_singular: "Company", name_plural: "Companies" });
    const kept = await patch([{ group_type_index: 0, name_plural: null }]);
    expect(kept.body[0]).toMatchObject({ name_singular: "Company", name_plural: null });
    // The second row names no group type: nothing of the request is written.
    const missing = await patch([
      { group_type_index: 1, name_singular: "Team" },
      { group_type_index: 4, name_singular: "Nope" },
    ]);
    expect(missing.status).toBe(404);
    const after = await s.request("GET", path("groups_types/"));
    expect(after.body[1].name_singular).toBeNull();
    const tooLong = await patch([{ group_type_index: 0, name_singular: "x".repeat(401) }]);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: "max_length", attr: "0__name_singular" });
    const nul = await patch([{ group_type_index: 0, name_singular: "a\u0000b" }]);
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({
      type: "validation_error",
      code: "null_characters_not_allowed",
      detail: "Null characters are not allowed.",
      attr: "0__name_singular",
    });
    const notList = await patch({ group_type_index: 0 });
    expect(notList.status).toBe(400);
    expect(notList.body.code).toBe("not_a_list");
  });

  it("lists groups of one type newest first, searching properties and keys", async () => {
    const keys = async (query: string) => {
      const response = await server().request("GET", path(`groups/${query}`));
      expect(response.status, response.text).toBe(200);
      return response.body.results.map((g: { group_key: string }) => g.group_key);
    };
    const response = await server().request("GET", path("groups/?group_type_index=0"));
    expect(response.headers.get("etag")).toBeNull();
    expect(response.body).toEqual({
      next: null,
      previous: null,
      results: [
        {
          group_type_index: 0,
          group_key: "initech",
          group_properties: { industry: "software" },
          created_at: expect.any(String),
        },
        expect.objectContaining({ group_key: "globex" }),
        expect.objectContaining({ group_key: "acme" }),
      ],
    });
    expect(await keys("?group_type_index=1")).toEqual(["blue"]);
    expect(await keys("?group_type_index=0&search=acme%20INC")).toEqual(["acme"]);
    expect(await keys("?group_type_index=0&search=GLOBEX")).toEqual(["globex"]);
    expect(await keys("?group_type_index=0&search=industry")).toEqual(["initech"]);
    expect(await keys("?group_type_index=0&group_key=O")).toEqual(["globex"]);
    expect(await keys("?group_type_index=3")).toEqual([]);
  });

  it("pages groups by cursor, forward and back", async () => {
    const s = server();
    const projectId = await s.createProject("Many groups");
    const start = Date.now() - 1000 * MINUTE;
    // Ties on created_at across page boundaries: the key breaks them.
    await insertGroups(
      s.db,
      projectId,
      Array.from({ length: 205 }, (_, i) => ({
        groupTypeIndex: 0,
        groupKey: `g${String(i).padStart(3, "0")}`,
        createdAt: new Date(start + Math.floor(i / 3) * MINUTE),
      })),
    );
    const get = (url: string) =>
      s.request("GET", new URL(url, s.baseUrl).pathname + new URL(url, s.baseUrl).search);
    const first = await get(`/api/projects/${projectId}/groups/?group_type_index=0`);
    expect(first.body.results).toHaveLength(100);
    expect(first.body.previous).toBeNull();
    const second = await get(first.body.next);
    const third = await get(second.body.next);
    expect(third.body.next).toBeNull();
    const all = [...first.body.results, ...second.body.results, ...third.body.results].map(
      (g: { group_key: string }) => g.group_key,
    );
    expect(all).toHaveLength(205);
    expect(new Set(all).size).toBe(205);
    expect(all[0]).toBe("g204");
    const back = await get(third.body.previous);
    expect(back.body.results).toEqual(second.body.results);
    const start2 = await get(back.body.previous);
    expect(start2.body.results).toEqual(first.body.results);
    expect(start2.body.previous).toBeNull();
    // One statement per page, whatever the page holds (the key is known to the process once seen).
    const statements = (response: { headers: Headers }) =>
      Number(/desc="(\d+) statements?"/.exec(response.headers.get("server-timing") ?? "")?.[1]);
    const small = await get(`/api/projects/${projectId}/groups/?group_type_index=0&group_key=g00`);
    expect(small.body.results).toHaveLength(10);
    expect(statements(small)).toBe(statements(second));
    expect(statements(second)).toBe(1);
    const invalid = await get(`/api/projects/${projectId}/groups/?group_type_index=0&cursor=bm9wZQ`);
    expect(invalid.status).toBe(404);
    expect(invalid.body).toEqual({
      type: "invalid_request",
      code: "not_found",
      detail: "Invalid cursor",
      attr: null,
    });
  });

  it("refuses a list without a group type, with PostHog's message", async () => {
    for (const query of ["", "?group_type_index=", "?group_type_index=abc"]) {
      const response = await server().request("GET", path(`groups/${query}`));
      expect(response.status, query).toBe(400);
      expect(response.body.attr).toBe("group_type_index");
    }
    const missing = await server().request("GET", path("groups/"));
    expect(missing.body.detail).toBe(
      "You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.",
    );
  });

  it("finds one group by type and exact key", async () => {
    const found = await server().request("GET", path("groups/find?group_type_index=0&group_key=acme"));
    expect(found.status, found.text).toBe(200);
    expect(found.body).toEqual({
      group_type_index: 0,
      group_key: "acme",
      group_properties: { name: "Acme Inc" },
      created_at: expect.any(String),
      notebook: null,
    });
    const partial = await server().request("GET", path("groups/find?group_type_index=0&group_key=acm"));
    expect(partial.status).toBe(404);
    const noKey = await server().request("GET", path("groups/find?group_type_index=0"));
    expect(noKey.status).toBe(400);
    expect(noKey.body).toMatchObject({ code: "required", attr: "group_key" });
  });

  it("refuses keys without group:read, and group:write for renames", async () => {
    const s = server();
    const reader = await s.createKey(["person:read"]);
    for (const rest of [
      "groups_types/",
      "groups/?group_type_index=0",
      "groups/find?group_type_index=0&group_key=acme",
    ]) {
      const response = await s.request("GET", path(rest), { key: reader });
      expect(response.status, rest).toBe(403);
      expect(response.body.detail).toBe("API key missing required scope 'group:read'");
    }
    const readOnly = await s.createKey(["group:read"]);
    const rename = await s.request("PATCH", path("groups_types/update_metadata/"), {
      key: readOnly,
      body: [{ group_type_index: 0, name_singular: "x" }],
    });
    expect(rename.status).toBe(403);
    expect(rename.body.detail).toBe("API key missing required scope 'group:write'");
  });
});
