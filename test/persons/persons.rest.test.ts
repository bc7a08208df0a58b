/**
 * Persons over REST (`GET persons/`, `GET persons/:id/`), on PGlite and PostgreSQL, with persons and
 * events inserted as capture would leave them: PostHog's two shapes, filters, paging without a
 * total, lookups by uuid and integer id, bad input, missing scope, no ETag, and a constant number
 * of SQL statements per page.
 */
import { beforeAll, expect, it } from "vitest";
import { insertEvents } from "../support/groups.js";
import { type InsertedPerson, insertPerson } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

const HOUR = 60 * 60 * 1000;

/** The SQL statements a response cost (`Server-Timing`). */
const statements = (headers: Headers) =>
  Number(/desc="(\d+) statements?"/.exec(headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);

describeEachBackend("persons over REST", (server) => {
  const base = () => `/api/projects/${server().projectId}/persons/`;
  let alice: InsertedPerson;
  let anon: InsertedPerson;
  let bob: InsertedPerson;

  beforeAll(async () => {
    const s = server();
    const start = Date.now() - 10 * HOUR;
    alice = await insertPerson(s.db, s.projectId, {
      distinctIds: ["1f0e7c1a-aaaa-bbbb-cccc-0123456789ab", "alice-id"],
      properties: { email: "Alice@Example.com", plan: "pro" },
      isIdentified: true,
      createdAt: new Date(start),
    });
    anon = await insertPerson(s.db, s.projectId, {
      distinctIds: ["0190aa00-1111-2222-3333-444455556666"],
      createdAt: new Date(start + HOUR),
    });
    bob = await insertPerson(s.db, s.projectId, {
      distinctIds: ["bob"],
      properties: { name: "Bob", email: "" },
      createdAt: new Date(start + 2 * HOUR),
    });
    // A person created far in the future is not listed (PostHog's `filter_future_persons`).
    await insertPerson(s.db, s.projectId, {
      distinctIds: ["future"],
      createdAt: new Date(Date.now() + 3 * 24 * HOUR),
    });
    await insertEvents(s.db, s.projectId, [
      {
        event: "$pageview",
        distinctId: "alice-id",
        personId: alice.uuid,
        timestamp: new Date(start + 5 * HOUR),
      },
      {
        event: "$pageview",
        distinctId: "alice-id",
        personId: alice.uuid,
        timestamp: new Date(start + 6 * HOUR),
      },
    ]);
  });

  it("lists persons newest first in PostHog's actor shape, without a count", async () => {
    const response = await server().request("GET", base());
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("etag")).toBeNull();
    expect(response.body.count).toBeUndefined();
    expect(response.body.next).toBeNull();
    expect(response.body.previous).toBeNull();
    expect(response.body.results.map((p: { uuid: string }) => p.uuid)).toEqual([
      bob.uuid,
      anon.uuid,
      alice.uuid,
    ]);
    const listed = response.body.results[2];
    expect(listed).toEqual({
      type: "person",
      id: alice.uuid,
      uuid: alice.uuid,
      created_at: expect.any(String),
      last_seen_at: expect.any(String),
      properties: { email: "Alice@Example.com", plan: "pro" },
      is_identified: true,
      name: "Alice@Example.com",
      distinct_ids: ["1f0e7c1a-aaaa-bbbb-cccc-0123456789ab", "alice-id"],
      matched_recordings: [],
      value_at_data_point: null,
    });
    expect(Date.parse(listed.last_seen_at)).toBeGreaterThan(Date.parse(listed.created_at) + 5 * HOUR);
    expect(response.body.results[1].last_seen_at).toBeNull();
    // Display names: email, else name ("" is not a name), else an identified id, else the first id.
    expect(response.body.results.map((p: { name: string }) => p.name)).toEqual([
      "Bob",
      "0190aa00-1111-2222-3333-444455556666",
      "Alice@Example.com",
    ]);
  });

  it("filters by distinct id, email and search (email contains, exact distinct id, exact uuid)", async () => {
    const uuids = async (query: string) =>
      (await server().request("GET", `${base()}${query}`)).body.results.map((p: { uuid: string }) => p.uuid);
    expect(await uuids("?distinct_id=alice-id")).toEqual([alice.uuid]);
    expect(await uuids("?distinct_id=alice")).toEqual([]);
    expect(await uuids("?email=Alice@Example.com")).toEqual([alice.uuid]);
    expect(await uuids("?email=alice@example.com")).toEqual([]);
    expect(await uuids("?search=EXAMPLE")).toEqual([alice.uuid]);
    expect(await uuids("?search=bob")).toEqual([bob.uuid]);
    expect(await uuids("?search=bo")).toEqual([]);
    expect(await uuids(`?search=${anon.uuid.toUpperCase()}`)).toEqual([anon.uuid]);
    expect(await uuids("?search=%25")).toEqual([]);
    expect(await uuids("?search=&distinct_id=")).toHaveLength(3);
  });

  it("filters by PostHog property filters: person properties and cohort membership", async () => {
    const s = server();
    const uuids = async (properties: unknown) => {
      const response = await s.request(
        "GET",
        `${base()}?properties=${encodeURIComponent(JSON.stringify(properties))}`,
      );
      expect(response.status, response.text).toBe(200);
      return response.body.results.map((p: { uuid: string }) => p.uuid);
    };
    expect(await uuids([{ key: "plan", value: "pro", type: "person" }])).toEqual([alice.uuid]);
    expect(await uuids([{ key: "email", value: "example", operator: "icontains", type: "person" }])).toEqual([
      alice.uuid,
    ]);
    expect(
      await uuids({
        type: "OR",
        values: [
          { key: "plan", value: "pro", type: "person" },
          { key: "name", value: "Bob", type: "person" },
        ],
      }),
    ).toEqual([bob.uuid, alice.uuid]);
    expect(await uuids([{ key: "plan", type: "person", operator: "is_not_set" }])).toEqual([
      bob.uuid,
      anon.uuid,
    ]);
    const members = await s.db.cohort.create({
      data: { projectId: s.projectId, name: "Static", isStatic: true },
    });
    await s.db.cohortPerson.create({
      data: { projectId: s.projectId, cohortId: members.id, personId: anon.id },
    });
    const dynamic = await s.db.cohort.create({
      data: {
        projectId: s.projectId,
        name: "Named",
        filters: { properties: { type: "AND", values: [{ key: "name", value: "Bob", type: "person" }] } },
      },
    });
    expect(await uuids([{ key: "id", value: members.id, type: "cohort" }])).toEqual([anon.uuid]);
    expect(await uuids([{ key: "id", value: dynamic.id, type: "cohort" }])).toEqual([bob.uuid]);
    expect(await uuids([{ key: "id", value: dynamic.id, type: "cohort", operator: "not_in" }])).toEqual([
      anon.uuid,
      alice.uuid,
    ]);
  });

  it("refuses a properties filter that is not JSON, not PostHog's shape, or not about persons", async () => {
    const s = server();
    const refused = async (text: string, attr: string | RegExp) => {
      const response = await s.request("GET", `${base()}?properties=${encodeURIComponent(text)}`);
      expect(response.status, response.text).toBe(400);
      expect(response.body.type).toBe("validation_error");
      expect(response.body.attr).toMatch(attr);
    };
    await refused("[{", /^properties$/);
    await refused('[{"key":"plan","type":"nope","value":"x"}]', /^properties/);
    await refused('[{"key":"plan","type":"person","value":"x","operator":"in"}]', /^properties/);
    const events = await s.request(
      "GET",
      `${base()}?properties=${encodeURIComponent('[{"key":"$browser","type":"event","value":"x"}]')}`,
    );
    expect(events.status).toBe(400);
    expect(events.body.code).toBe("invalid_property_type");
  });

  it("pages by limit and offset with PostHog's links, and counts only with include_total", async () => {
    const first = await server().request("GET", `${base()}?limit=2`);
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toBe(`${new URL(first.body.next).origin}${base()}?limit=2&offset=2`);
    expect(first.body.previous).toBeNull();
    const second = await server().request(
      "GET",
      new URL(first.body.next).pathname + new URL(first.body.next).search,
    );
    expect(second.body.results.map((p: { uuid: string }) => p.uuid)).toEqual([alice.uuid]);
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.previous).search).toBe("?limit=2&offset=0");
    const counted = await server().request("GET", `${base()}?limit=1&include_total`);
    expect(counted.body.count).toBe(3);
    const past = await server().request("GET", `${base()}?limit=1&offset=10&include_total=1`);
    expect(past.body).toMatchObject({ count: 3, results: [] });
  });

  it("reads a page of persons with their distinct ids in a constant number of statements", async () => {
    const s = server();
    const projectId = await s.createProject("Many persons");
    for (let i = 0; i < 30; i++) {
      await insertPerson(s.db, projectId, { distinctIds: [`p${i}-a`, `p${i}-b`] });
    }
    const page = (limit: number) => s.request("GET", `/api/projects/${projectId}/persons/?limit=${limit}`);
    await page(1);
    const three = await page(3);
    const thirty = await page(30);
    expect(thirty.body.results).toHaveLength(30);
    expect(thirty.body.results[0].distinct_ids).toHaveLength(2);
    expect(statements(thirty.headers)).toBe(statements(three.headers));
    // The page with its distinct ids; the key is known to the process once seen (core/auth/actor-cache.ts).
    expect(statements(three.headers)).toBe(1);
  });

  it("retrieves a person by uuid or integer id in PersonSerializer's shape", async () => {
    const byUuid = await server().request("GET", `${base()}${alice.uuid}/`);
    expect(byUuid.status, byUuid.text).toBe(200);
    expect(byUuid.headers.get("etag")).toBeNull();
    expect(byUuid.body).toEqual({
      id: Number(alice.id),
      name: "Alice@Example.com",
      distinct_ids: ["alice-id", "1f0e7c1a-aaaa-bbbb-cccc-0123456789ab"],
      properties: { email: "Alice@Example.com", plan: "pro" },
      created_at: expect.any(String),
      uuid: alice.uuid,
    });
    const byId = await server().request("GET", `${base()}${alice.id}`);
    expect(byId.body).toEqual(byUuid.body);
    const braced = await server().request(
      "GET",
      `${base()}${encodeURIComponent(`{${alice.uuid.replaceAll("-", "")}}`)}/`,
    );
    expect(braced.body.uuid).toBe(alice.uuid);
  });

  it("answers 404 for a person of another project or none, and 400 for an id that is neither", async () => {
    const s = server();
    const other = await s.createProject("Other persons");
    const elsewhere = await insertPerson(s.db, other, { distinctIds: ["elsewhere"] });
    for (const id of [elsewhere.uuid, String(elsewhere.id), "0", "99999999999999999999"]) {
      const response = await s.request("GET", `${base()}${id}/`);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({
        type: "invalid_request",
        code: "not_found",
        detail: "Not found.",
        attr: null,
      });
    }
    const bad = await s.request("GET", `${base()}alice-id/`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      type: "validation_error",
      code: "invalid_input",
      detail:
        "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=alice-id instead.",
      attr: null,
    });
  });

  it("refuses a key without person:read", async () => {
    const s = server();
    const key = await s.createKey(["feature_flag:read"]);
    for (const path of [base(), `${base()}${alice.uuid}/`]) {
      const response = await s.request("GET", path, { key });
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe("API key missing required scope 'person:read'");
    }
  });
});
