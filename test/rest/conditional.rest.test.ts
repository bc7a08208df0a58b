/**
 * Conditional GETs on project paths (src/rest/conditional.ts): every management GET of a project
 * answers a weak ETag derived from the project's revision, `If-None-Match` answers 304 without the
 * read's main query, every committed write changes the tag and a rolled-back one does not, the tag
 * differs by caller, and GraphQL is untouched. The clock is fixed (and moved by hand) so that the
 * tag's time slot only changes when a test says so.
 */
import { expect, it } from "vitest";
import { describeEachBackend, statementsOf, type TestServer } from "../support/server.js";

let clock = new Date();
const DAY_MS = 24 * 60 * 60 * 1000;

const flagsPath = (s: TestServer, suffix = "") => `/api/projects/${s.projectId}/feature_flags/${suffix}`;

async function etagOf(s: TestServer, path: string, key?: string): Promise<string> {
  const response = await s.request("GET", path, key === undefined ? {} : { key });
  expect(response.status, response.text).toBe(200);
  const etag = response.headers.get("etag");
  expect(etag).toMatch(/^W\/"\d+-[A-Za-z0-9_-]{22}"$/);
  return etag!;
}

async function createFlag(s: TestServer, body: Record<string, unknown>) {
  const response = await s.request("POST", flagsPath(s), { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describeEachBackend(
  "conditional GETs on project paths",
  (server) => {
    it("answers an ETag on every management GET of a project, none where no project is in the path", async () => {
      const s = server();
      const flag = await createFlag(s, { key: "tagged-read" });
      for (const path of [
        flagsPath(s),
        flagsPath(s, `${flag.id}/`),
        flagsPath(s, "activity/"),
        flagsPath(s, `${flag.id}/activity/`),
        `/api/projects/${s.projectId}/`,
      ]) {
        const response = await s.request("GET", path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get("etag"), path).toMatch(/^W\/"/);
        expect(response.headers.get("cache-control"), path).toBe("private, no-cache");
      }
      for (const path of ["/api/projects/", "/api/users/@me/", "/api/personal_api_keys/@current"]) {
        expect((await s.request("GET", path)).headers.get("etag"), path).toBeNull();
      }
      const refused = await s.request("GET", flagsPath(s, "999999/"));
      expect(refused.status).toBe(404);
      expect(refused.headers.get("etag")).toBeNull();
    });

    it("answers 304 with no body to a matching If-None-Match, with no statement once the key is known (the project and its revision come with it)", async () => {
      const s = server();
      await createFlag(s, { key: "cached-list" });
      const first = await s.request("GET", flagsPath(s));
      const etag = first.headers.get("etag")!;
      const again = await s.request("GET", flagsPath(s), { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(statementsOf(again)).toBe(0);
      expect(statementsOf(first)).toBe(1);

      const inList = await s.request("GET", flagsPath(s), {
        headers: { "if-none-match": `W/"0-AAAAAAAAAAAAAAAAAAAAAA", ${etag}` },
      });
      expect(inList.status).toBe(304);
      const strongForm = await s.request("GET", flagsPath(s), {
        headers: { "if-none-match": etag.slice(2) },
      });
      expect(strongForm.status).toBe(304);
      // `no-cache` asks caches to revalidate with the origin, which this is (fetch sends it anyway).
      const revalidating = await s.request("GET", flagsPath(s), {
        headers: { "if-none-match": etag, "cache-control": "no-cache" },
      });
      expect(revalidating.status).toBe(304);
    });

    it("answers 200 with the body when If-None-Match does not match or is `*`", async () => {
      const s = server();
      const etag = await etagOf(s, flagsPath(s));
      for (const headers of [{ "if-none-match": `W/"0-AAAAAAAAAAAAAAAAAAAAAA"` }, { "if-none-match": "*" }]) {
        const response = await s.request("GET", flagsPath(s), { headers });
        expect(response.status).toBe(200);
        expect(response.body.results).toBeInstanceOf(Array);
        expect(response.headers.get("etag")).toBe(etag);
      }
    });

    it("keeps authorization ahead of the 304: a caller who may not read gets its 403 or 401", async () => {
      const s = server();
      const etag = await etagOf(s, flagsPath(s));
      const noScope = await s.createKey(["project:read"]);
      const refused = await s.request("GET", flagsPath(s), {
        key: noScope,
        headers: { "if-none-match": etag },
      });
      expect(refused.status).toBe(403);
      const anonymous = await s.request("GET", flagsPath(s), {
        key: null,
        headers: { "if-none-match": etag },
      });
      expect(anonymous.status).toBe(401);
    });

    it("changes the list's and the flag's ETags with every write: create, PATCH, tag change, soft delete", async () => {
      const s = server();
      const flag = await createFlag(s, { key: "moving" });
      const flagPath = flagsPath(s, `${flag.id}/`);
      const seen = new Set<string>();
      const snapshot = async () => {
        const tags = [await etagOf(s, flagsPath(s)), await etagOf(s, flagPath)];
        for (const tag of tags) {
          expect(seen.has(tag), tag).toBe(false);
          seen.add(tag);
        }
        return tags;
      };
      const [listBefore] = await snapshot();
      await createFlag(s, { key: "another" });
      await snapshot();
      const patched = await s.request("PATCH", flagPath, { body: { name: "Renamed" } });
      expect(patched.status).toBe(200);
      await snapshot();
      const tagged = await s.request("PATCH", flagPath, { body: { tags: ["beta"] } });
      expect(tagged.status).toBe(200);
      await snapshot();
      const deleted = await s.request("PATCH", flagPath, { body: { deleted: true } });
      expect(deleted.status).toBe(200);
      await snapshot();
      const stale = await s.request("GET", flagsPath(s), { headers: { "if-none-match": listBefore! } });
      expect(stale.status).toBe(200);
    });

    it("does not change the ETag on writes that fail: a 400, a 409 and a transaction rolled back", async () => {
      const s = server();
      const flag = await createFlag(s, { key: "steady" });
      const flagPath = flagsPath(s, `${flag.id}/`);
      expect((await s.request("PATCH", flagPath, { body: { name: "first" } })).status).toBe(200);
      const before = [await etagOf(s, flagsPath(s)), await etagOf(s, flagPath)];

      const invalid = await s.request("PATCH", flagPath, { body: { key: "has space" } });
      expect(invalid.status).toBe(400);
      const duplicate = await s.request("POST", flagsPath(s), { body: { key: "steady" } });
      expect(duplicate.status).toBe(400);
      // A stale version with the client's original copy, whose `name` someone else changed since: a
      // conflict under either conflict rule (any stale version, or PostHog's `original_flag` rule).
      const conflict = await s.request("PATCH", flagPath, {
        body: { name: "second", version: 1, original_flag: { ...flag, name: "" } },
      });
      expect(conflict.status).toBe(409);
      await expect(
        s.db.$transaction(async (tx) => {
          await tx.featureFlag.update({ where: { id: flag.id }, data: { name: "never committed" } });
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");

      expect([await etagOf(s, flagsPath(s)), await etagOf(s, flagPath)]).toEqual(before);
    });

    it("gives a caller with other scopes, or another user's key, a different ETag for the same URL", async () => {
      const s = server();
      const flag = await createFlag(s, { key: "per-caller" });
      const path = flagsPath(s, `${flag.id}/`);
      const reader = await s.createKey(["feature_flag:read"]);
      const writer = await s.createKey(["feature_flag:write"]);
      const asAdmin = await etagOf(s, path);
      const asReader = await etagOf(s, path, reader);
      const asWriter = await etagOf(s, path, writer);
      expect(new Set([asAdmin, asReader, asWriter]).size).toBe(3);
      expect((await s.request("GET", path, { key: reader })).body.can_edit).toBe(false);
      const crossed = await s.request("GET", path, { key: reader, headers: { "if-none-match": asWriter } });
      expect(crossed.status).toBe(200);
      expect(await etagOf(s, path, await s.createKey(["feature_flag:read"]))).toBe(asReader);
    });

    it("changes the ETag when a shown user or the project itself changes, and with the clock's minute", async () => {
      const s = server();
      await createFlag(s, { key: "shown-user" });
      const list = await etagOf(s, flagsPath(s));
      await s.db.user.update({ where: { id: s.userId }, data: { firstName: "Renamed" } });
      const afterUser = await etagOf(s, flagsPath(s));
      expect(afterUser).not.toBe(list);
      // A change to a field no project GET shows moves nothing.
      await s.db.user.update({ where: { id: s.userId }, data: { isActive: true } });
      expect(await etagOf(s, flagsPath(s))).toBe(afterUser);

      const project = await etagOf(s, `/api/projects/${s.projectId}/`);
      await s.db.project.update({ where: { id: s.projectId }, data: { timezone: "Europe/Paris" } });
      expect(await etagOf(s, `/api/projects/${s.projectId}/`)).not.toBe(project);

      clock = new Date();
      const now = await etagOf(s, flagsPath(s));
      clock = new Date(clock.getTime() + 61_000);
      expect(await etagOf(s, flagsPath(s))).not.toBe(now);
    });

    it("notices a flag turning STALE with time alone", async () => {
      const s = server();
      clock = new Date();
      const flag = await createFlag(s, {
        key: "ageing",
        filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
      });
      const path = flagsPath(s, `${flag.id}/`);
      const fresh = await s.request("GET", path);
      expect(fresh.body.status).toBe("ACTIVE");
      clock = new Date(clock.getTime() + 31 * DAY_MS);
      const later = await s.request("GET", path, {
        headers: { "if-none-match": fresh.headers.get("etag")! },
      });
      expect(later.status).toBe(200);
      expect(later.body.status).toBe("STALE");
    });

    it("leaves GraphQL as it was: no ETag, If-None-Match ignored", async () => {
      const s = server();
      const etag = await etagOf(s, flagsPath(s));
      const response = await s.request("POST", "/graphql", {
        body: { query: `{ project(id: "${s.projectId}") { featureFlags(first: 5) { totalCount } } }` },
        headers: { "if-none-match": etag },
      });
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      expect(typeof response.body.data.project.featureFlags.totalCount).toBe("number");
      expect(response.headers.get("etag")).toBeNull();
    });
  },
  { now: () => clock },
);
