/**
 * Persons through the GraphQL door, over HTTP on the real server, on PGlite and PostgreSQL: the
 * persons connection and its filters, `person(id:)` by uuid, integer id or global id, `node(id:)`,
 * a person's events newest first in forward pages, missing scopes, and SQL statements per page.
 */
import { beforeAll, expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { insertEvents } from "../support/groups.js";
import { type InsertedPerson, insertPerson } from "../support/people.js";
import { describeEachBackend } from "../support/server.js";

const PersonList = graphql(`
  query PersonList(
    $projectId: ID!
    $search: String
    $distinctId: String
    $properties: JSON
    $first: Int
    $after: String
  ) {
    project(id: $projectId) {
      persons(search: $search, distinctId: $distinctId, properties: $properties, first: $first, after: $after) {
        edges { node { id uuid name distinctIds isIdentified properties lastSeenAt } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`);

const PersonById = graphql(`
  query PersonById($projectId: ID!, $id: ID!, $first: Int, $after: String) {
    project(id: $projectId) {
      person(id: $id) {
        id uuid name
        events(first: $first, after: $after) {
          edges { cursor node { uuid event distinctId timestamp properties } }
          pageInfo { hasNextPage hasPreviousPage endCursor }
        }
      }
    }
  }
`);

const PersonNode = graphql(`
  query PersonNode($id: ID!) {
    node(id: $id) { __typename id ... on Person { uuid distinctIds } }
  }
`);

const HOUR = 60 * 60 * 1000;

describeEachBackend("persons over GraphQL", (server) => {
  let ada: InsertedPerson;
  let grace: InsertedPerson;
  const projectId = () => String(server().projectId);

  beforeAll(async () => {
    const s = server();
    const start = Date.now() - 100 * HOUR;
    ada = await insertPerson(s.db, s.projectId, {
      distinctIds: ["ada", "0190aa00-1111-2222-3333-444455556666"],
      properties: { email: "ada@example.com" },
      isIdentified: true,
      createdAt: new Date(start),
    });
    grace = await insertPerson(s.db, s.projectId, {
      distinctIds: ["grace"],
      properties: { name: "Grace" },
      createdAt: new Date(start + HOUR),
    });
    // Events under both of Ada's distinct ids count as hers; Grace's are not.
    await insertEvents(
      s.db,
      s.projectId,
      Array.from({ length: 5 }, (_, i) => ({
        event: `e${i}`,
        distinctId: i % 2 === 0 ? "ada" : "0190aa00-1111-2222-3333-444455556666",
        timestamp: new Date(start + (i + 2) * HOUR),
      })),
    );
    await insertEvents(s.db, s.projectId, [{ event: "other", distinctId: "grace", timestamp: new Date() }]);
  });

  it("lists persons newest first with their distinct ids, filtered and paged", async () => {
    const s = server();
    const all = await execute(s, PersonList, { projectId: projectId() });
    expect(all.errors).toBeUndefined();
    const nodes = all.data.project?.persons?.edges.map((edge) => edge.node) ?? [];
    expect(nodes.map((node) => node.uuid)).toEqual([grace.uuid, ada.uuid]);
    expect(nodes[1]).toMatchObject({
      name: "ada@example.com",
      distinctIds: ["ada", "0190aa00-1111-2222-3333-444455556666"],
      isIdentified: true,
      properties: { email: "ada@example.com" },
    });
    expect(nodes[0]?.name).toBe("Grace");
    const searched = await execute(s, PersonList, { projectId: projectId(), search: "ADA@" });
    expect(searched.data.project?.persons?.edges.map((edge) => edge.node.uuid)).toEqual([ada.uuid]);
    const byId = await execute(s, PersonList, { projectId: projectId(), distinctId: "grace" });
    expect(byId.data.project?.persons?.edges.map((edge) => edge.node.uuid)).toEqual([grace.uuid]);
    const filtered = await execute(s, PersonList, {
      projectId: projectId(),
      properties: [{ key: "name", value: "grace", type: "person" }],
    });
    expect(filtered.data.project?.persons?.edges.map((edge) => edge.node.uuid)).toEqual([grace.uuid]);
    const badFilter = await execute(s, PersonList, {
      projectId: projectId(),
      properties: [{ type: "person" }],
    });
    expect(badFilter.data.project?.persons).toBeNull();
    expect(badFilter.errors?.[0]?.extensions).toMatchObject({ attr: "properties__values__0__key" });
    const first = await execute(s, PersonList, { projectId: projectId(), first: 1 });
    expect(first.data.project?.persons?.pageInfo.hasNextPage).toBe(true);
    const second = await execute(s, PersonList, {
      projectId: projectId(),
      first: 1,
      after: first.data.project?.persons?.pageInfo.endCursor ?? null,
    });
    expect(second.data.project?.persons?.edges.map((edge) => edge.node.uuid)).toEqual([ada.uuid]);
    expect(second.data.project?.persons?.pageInfo.hasNextPage).toBe(false);
  });

  it("reads one person by uuid, integer id or global id, and through node(id:)", async () => {
    const s = server();
    const byUuid = await execute(s, PersonById, { projectId: projectId(), id: ada.uuid });
    const person = byUuid.data.project?.person;
    expect(person?.uuid).toBe(ada.uuid);
    const byInteger = await execute(s, PersonById, { projectId: projectId(), id: String(ada.id) });
    expect(byInteger.data.project?.person?.uuid).toBe(ada.uuid);
    const byGlobal = await execute(s, PersonById, { projectId: projectId(), id: person?.id ?? "" });
    expect(byGlobal.data.project?.person?.uuid).toBe(ada.uuid);
    const node = await execute(s, PersonNode, { id: person?.id ?? "" });
    expect(node.data.node).toEqual({
      __typename: "Person",
      id: person?.id,
      uuid: ada.uuid,
      distinctIds: ["ada", "0190aa00-1111-2222-3333-444455556666"],
    });
    const other = await s.createProject("Other persons");
    const elsewhere = await insertPerson(s.db, other, { distinctIds: ["elsewhere"] });
    const missing = await execute(s, PersonById, { projectId: projectId(), id: elsewhere.uuid });
    expect(missing.errors).toBeUndefined();
    expect(missing.data.project?.person).toBeNull();
    const malformed = await execute(s, PersonById, { projectId: projectId(), id: "not-an-id" });
    expect(malformed.errors?.[0]?.extensions?.["code"]).toBe("invalid_input");
  });

  it("pages a person's events newest first across all its distinct ids", async () => {
    const s = server();
    const page = (after: string | null) =>
      execute(s, PersonById, { projectId: projectId(), id: ada.uuid, first: 2, after });
    const first = await page(null);
    const events = first.data.project?.person?.events;
    expect(events?.edges.map((edge) => edge.node.event)).toEqual(["e4", "e3"]);
    expect(events?.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await page(events?.pageInfo.endCursor ?? null);
    const third = await page(second.data.project?.person?.events?.pageInfo.endCursor ?? null);
    expect(second.data.project?.person?.events?.edges.map((edge) => edge.node.event)).toEqual(["e2", "e1"]);
    expect(third.data.project?.person?.events?.edges.map((edge) => edge.node.event)).toEqual(["e0"]);
    expect(third.data.project?.person?.events?.pageInfo.hasNextPage).toBe(false);
    const invalid = await page("garbage");
    expect(invalid.errors?.[0]).toMatchObject({
      message: "Invalid cursor",
      extensions: { code: "not_found" },
    });
  });

  it("refuses a key without person:read, at the field", async () => {
    const s = server();
    const key = await s.createKey(["project:read"]);
    const answer = await execute(s, PersonList, { projectId: projectId() }, key);
    expect(answer.data.project?.persons).toBeNull();
    expect(answer.errors?.[0]).toMatchObject({
      message: "API key missing required scope 'person:read'",
      extensions: { code: "permission_denied" },
    });
  });

  it("reads a page of persons in a constant number of SQL statements", async () => {
    const s = server();
    const other = await s.createProject("Many persons");
    for (let i = 0; i < 25; i++) await insertPerson(s.db, other, { distinctIds: [`m${i}`, `n${i}`] });
    const page = (first: number) => execute(s, PersonList, { projectId: String(other), first });
    await page(1);
    const five = await page(5);
    const twentyFive = await page(25);
    expect(twentyFive.data.project?.persons?.edges).toHaveLength(25);
    expect(twentyFive.statements).toBe(five.statements);
    // The page with its distinct ids; the key is known to the process once seen (core/auth/actor-cache.ts).
    expect(five.statements).toBe(1);
  });
});
