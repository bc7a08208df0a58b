/**
 * The REST door's answers kept by ETag (src/rest/response-cache.ts), on PGlite and PostgreSQL: a
 * repeated project-path GET is answered with the same bytes and headers without a statement; any
 * write to the project's data, another caller or another URL gets its own answer; data routes
 * (`conditional: false`) are never kept; `RESPONSE_CACHE_BYTES=0` turns it off.
 */
import { expect, it } from "vitest";
import { createFlag, flagsPath } from "../support/flags.js";
import { insertPerson } from "../support/people.js";
import { describeEachBackend, statementsOf, type TestResponse } from "../support/server.js";

/** The headers a kept answer must repeat (the request id and timing are per request). */
function shownHeaders(response: TestResponse): Record<string, string | null> {
  return Object.fromEntries(
    ["content-type", "etag", "cache-control"].map((name) => [name, response.headers.get(name)]),
  );
}

describeEachBackend("REST answers kept by ETag", (server) => {
  it("answers a repeated GET with the same bytes and headers, without a statement", async () => {
    const s = server();
    await createFlag(s, { key: "kept-1", tags: ["beta"] });
    const first = await s.request("GET", flagsPath(s, "?limit=10"));
    const again = await s.request("GET", flagsPath(s, "?limit=10"));
    expect(first.status).toBe(200);
    expect(statementsOf(first)).toBeGreaterThan(0);
    expect(again.status).toBe(200);
    expect(statementsOf(again)).toBe(0);
    expect(again.text).toBe(first.text);
    expect(shownHeaders(again)).toEqual(shownHeaders(first));

    const one = first.body.results[0].id;
    const read = await s.request("GET", flagsPath(s, `${one}/`));
    const readAgain = await s.request("GET", flagsPath(s, `${one}/`));
    expect(statementsOf(readAgain)).toBe(0);
    expect(readAgain.text).toBe(read.text);
  });

  it("answers the new data after any write to the project, whoever made it", async () => {
    const s = server();
    const created = await createFlag(s, { key: "kept-2" });
    const path = flagsPath(s, `${created.id}/`);
    await s.request("GET", path);
    const patched = await s.request("PATCH", path, { body: { name: "renamed" } });
    expect(patched.status).toBe(200);
    expect((await s.request("GET", path)).body.name).toBe("renamed");
    // Outside any service, as psql would: the revision triggers still move the tag.
    await s.db.$executeRaw`UPDATE feature_flags SET name = 'by hand' WHERE id = ${created.id}`;
    expect((await s.request("GET", path)).body.name).toBe("by hand");
  });

  it("keeps each caller's and each URL's answer apart", async () => {
    const s = server();
    await createFlag(s, { key: "kept-3" });
    const reader = await s.createKey(["feature_flag:read"]);
    const mine = await s.request("GET", flagsPath(s, "?limit=5"));
    const theirs = await s.request("GET", flagsPath(s, "?limit=5"), { key: reader });
    expect(statementsOf(theirs)).toBeGreaterThan(0);
    expect(theirs.headers.get("etag")).not.toBe(mine.headers.get("etag"));
    // What the key may do shows in the body: an all-scopes key can edit, a read-only one cannot.
    expect(mine.body.results[0].can_edit).toBe(true);
    expect(theirs.body.results[0].can_edit).toBe(false);
    const other = await s.request("GET", flagsPath(s, "?limit=6"));
    expect(statementsOf(other)).toBeGreaterThan(0);
  });

  it("never keeps a data read (no ETag): persons are read every time", async () => {
    const s = server();
    await insertPerson(s.db, s.projectId, { distinctIds: ["kept-person"] });
    const path = `/api/projects/${s.projectId}/persons/`;
    await s.request("GET", path);
    const again = await s.request("GET", path);
    expect(again.headers.get("etag")).toBeNull();
    expect(statementsOf(again)).toBeGreaterThan(0);
  });
});

describeEachBackend(
  "REST answers with the cache off",
  (server) => {
    it("reads every time when RESPONSE_CACHE_BYTES is 0, with the same answer", async () => {
      const s = server();
      await createFlag(s, { key: "unkept" });
      const first = await s.request("GET", flagsPath(s));
      const again = await s.request("GET", flagsPath(s));
      expect(statementsOf(again)).toBeGreaterThan(0);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    });
  },
  { env: { RESPONSE_CACHE_BYTES: "0" } },
);
