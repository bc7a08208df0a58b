/**
 * What capture records in the event catalogue (issue 7 §5), through HTTP on PGlite and PostgreSQL:
 * event names with `created_at`/`last_seen_at`, property names with their inferred types (1 event,
 * 2 person via `$set`/`$set_once`, 3 group via `$groupidentify`), event/property pairs; a repeat
 * within the hour writes nothing (the project's revision does not move); statements per request
 * stay bounded whatever the batch size.
 */
import { beforeAll, expect, it } from "vitest";
import { projectToken, sendToSdk } from "../support/capture.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("capture fills the event catalogue", (server) => {
  let token: string;
  beforeAll(async () => {
    token = await projectToken(server());
  });
  const revision = async () =>
    (await server().db.project.findUniqueOrThrow({ where: { id: server().projectId } })).revision;
  const statementsOf = (header: string | null) => Number(/desc="(\d+) statements?"/.exec(header ?? "")?.[1]);

  it("records event names, typed property definitions and event/property pairs", async () => {
    const answer = await sendToSdk(server(), "/batch/", {
      json: {
        api_key: token,
        batch: [
          {
            event: "$pageview",
            distinct_id: "u1",
            properties: {
              $current_url: "https://example.com",
              count: 3,
              is_admin: "true",
              signed_up_at: "2024-05-01T10:00:00Z",
              utm_source: 42,
              nested: { a: 1 },
              $set: { email: "a@example.com" },
              $set_once: { first_seen: "2024-05-01" },
            },
          },
          { event: "purchase", distinct_id: "u1", properties: { amount: 9.5 } },
        ],
      },
    });
    expect(answer.status, answer.text).toBe(200);
    const db = server().db;
    const events = await db.eventDefinition.findMany({
      where: { projectId: server().projectId },
      orderBy: { name: "asc" },
    });
    expect(events.map((e) => e.name)).toEqual(["$pageview", "purchase"]);
    for (const e of events) {
      expect(e.createdAt).toBeInstanceOf(Date);
      expect(e.lastSeenAt).toBeInstanceOf(Date);
    }
    const properties = await db.propertyDefinition.findMany({ where: { projectId: server().projectId } });
    const typeOf = (name: string, type: number) => properties.find((p) => p.name === name && p.type === type);
    expect(typeOf("$current_url", 1)?.propertyType).toBe("String");
    expect(typeOf("count", 1)).toMatchObject({ propertyType: "Numeric", isNumerical: true });
    expect(typeOf("is_admin", 1)?.propertyType).toBe("Boolean");
    expect(typeOf("signed_up_at", 1)?.propertyType).toBe("DateTime");
    expect(typeOf("utm_source", 1)?.propertyType).toBe("String");
    expect(typeOf("nested", 1)?.propertyType).toBeNull();
    expect(typeOf("amount", 1)?.propertyType).toBe("Numeric");
    expect(typeOf("email", 2)?.propertyType).toBe("String");
    expect(typeOf("first_seen", 2)?.propertyType).toBe("DateTime");
    expect(typeOf("$set", 1)).toBeUndefined();
    const pairs = await db.eventProperty.findMany({
      where: { projectId: server().projectId, event: "purchase" },
    });
    expect(pairs.map((p) => p.property)).toEqual(["amount"]);
  });

  it("records $groupidentify's $group_set keys as group properties of the group type's index", async () => {
    await server().db.groupTypeMapping.create({
      data: { projectId: server().projectId, groupTypeIndex: 0, groupType: "company" },
    });
    const answer = await sendToSdk(server(), "/e/", {
      json: {
        event: "$groupidentify",
        distinct_id: "u1",
        properties: { token, $group_type: "company", $group_key: "acme", $group_set: { employees: 12 } },
      },
    });
    expect(answer.status, answer.text).toBe(200);
    const group = await server().db.propertyDefinition.findFirst({
      where: { projectId: server().projectId, name: "employees" },
    });
    expect(group).toMatchObject({ type: 3, groupTypeIndex: 0, propertyType: "Numeric" });
  });

  it("writes nothing to the catalogue, and leaves the revision, when nothing is new within the hour", async () => {
    const send = (name: string) =>
      sendToSdk(server(), "/e/", {
        json: { event: name, distinct_id: "u", properties: { token, plan: "pro" } },
      });
    await send("repeat");
    const before = await revision();
    const again = await send("repeat");
    expect(again.status).toBe(200);
    expect(await revision()).toBe(before);
    await send("something new");
    expect(await revision()).toBeGreaterThan(before);
  });

  it("takes concurrent requests naming the same new events, properties and users", async () => {
    const batch = (n: number) => ({
      api_key: token,
      batch: Array.from({ length: 20 }, (_, i) => ({
        event: `concurrent ${i % 3}`,
        distinct_id: `concurrent-user-${(i + n) % 7}`,
        properties: { [`prop ${i % 4}`]: i, shared: "x" },
      })),
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => sendToSdk(server(), "/batch/", { json: batch(n) })),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const names = await server().db.eventDefinition.findMany({
      where: { projectId: server().projectId, name: { startsWith: "concurrent" } },
    });
    expect(names).toHaveLength(3);
    const stored = await server().db.event.count({
      where: { projectId: server().projectId, event: { startsWith: "concurrent" } },
    });
    expect(stored).toBe(120);
  });

  it("stores 100 events in a bounded number of statements", async () => {
    const batch = (n: number, tag: string) => ({
      api_key: token,
      batch: Array.from({ length: n }, (_, i) => ({
        event: `bulk ${tag}`,
        distinct_id: `bulk-${i}`,
        properties: { index: i, [`${tag} ${i % 5}`]: true },
      })),
    });
    const one = await sendToSdk(server(), "/batch/", { json: batch(1, "one") });
    const hundred = await sendToSdk(server(), "/batch/", { json: batch(100, "hundred") });
    expect(hundred.status).toBe(200);
    expect(statementsOf(hundred.headers.get("server-timing"))).toBe(
      statementsOf(one.headers.get("server-timing")),
    );
    // The same names again, persons now known (the first repeat reads them, the next has them in
    // memory): no catalogue statement, no transaction.
    await sendToSdk(server(), "/batch/", { json: batch(100, "hundred") });
    const steady = await sendToSdk(server(), "/batch/", { json: batch(100, "hundred") });
    expect(statementsOf(steady.headers.get("server-timing"))).toBe(1);
  });

  it("writes a known person's new names in one statement ahead of the events, outside any transaction", async () => {
    const batch = (tag: string) => ({
      api_key: token,
      batch: Array.from({ length: 50 }, (_, i) => ({
        event: `ahead ${tag}`,
        distinct_id: `ahead-${i}`,
        properties: { [`${tag} text`]: "x", [`${tag} number`]: i },
      })),
    });
    // Persons created, then read once into this process's memory (capture.steady.test.ts).
    await sendToSdk(server(), "/batch/", { json: batch("first") });
    await sendToSdk(server(), "/batch/", { json: batch("first") });
    const held = await sendToSdk(server(), "/batch/", { json: batch("first") });
    const fresh = await sendToSdk(server(), "/batch/", { json: batch("second") });
    expect(statementsOf(held.headers.get("server-timing"))).toBe(1);
    expect(statementsOf(fresh.headers.get("server-timing"))).toBe(2);
    const db = server().db;
    const projectId = server().projectId;
    expect(await db.eventDefinition.count({ where: { projectId, name: "ahead second" } })).toBe(1);
    expect(
      await db.propertyDefinition.findMany({
        where: { projectId, name: { startsWith: "second " } },
        select: { name: true, propertyType: true },
        orderBy: { name: "asc" },
      }),
    ).toEqual([
      { name: "second number", propertyType: "Numeric" },
      { name: "second text", propertyType: "String" },
    ]);
    expect(await db.eventProperty.count({ where: { projectId, event: "ahead second" } })).toBe(2);
    expect(await db.event.count({ where: { projectId, event: "ahead second" } })).toBe(50);
  });
});

describeEachBackend(
  "capture with SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP",
  (server) => {
    it("stores the events and records nothing in the catalogue", async () => {
      const { projectId, db } = server();
      const response = await sendToSdk(server(), "/batch/", {
        json: {
          api_key: await projectToken(server()),
          batch: [
            {
              event: "uncatalogued",
              distinct_id: "skip-1",
              properties: { plan: "pro", $set: { email: "a@b.c" } },
            },
          ],
        },
      });
      expect(response.status).toBe(200);
      expect(await db.event.count({ where: { projectId, event: "uncatalogued" } })).toBe(1);
      expect(await db.eventDefinition.count({ where: { projectId } })).toBe(0);
      expect(await db.propertyDefinition.count({ where: { projectId } })).toBe(0);
      expect(await db.eventProperty.count({ where: { projectId } })).toBe(0);
    });
  },
  { env: { SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP: "true" } },
);
