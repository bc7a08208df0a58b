/**
 * PostHog's own Node SDK (posthog-node, unchanged) sending to the running server, on PGlite and
 * PostgreSQL: `capture`, `identify`, `alias` and `groupIdentify`, flushed, then the events, persons,
 * distinct ids and groups read back from the database.
 */
import type { PostHog } from "posthog-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { posthogNodeClient, storedEvents } from "../support/capture.js";
import { describeEachBackend } from "../support/server.js";

describeEachBackend("posthog-node sends to capture", (server) => {
  let client: PostHog;
  beforeAll(async () => {
    client = await posthogNodeClient(server());
  });
  afterAll(async () => {
    await client.shutdown();
  });

  const personOf = async (distinctId: string) => {
    const row = await server().db.personDistinctId.findUnique({
      where: { projectId_distinctId: { projectId: server().projectId, distinctId } },
      include: { person: true },
    });
    return row?.person ?? null;
  };

  it("captures events with their properties, uuid and timestamp", async () => {
    const uuid = "0190b2d4-4c4e-7c4e-8d7e-000000000001";
    const timestamp = new Date("2026-11-01T12:00:00.000Z");
    client.capture({
      distinctId: "anon-1",
      event: "signed up",
      properties: { plan: "pro" },
      uuid,
      timestamp,
    });
    await client.flush();
    const [event] = (await storedEvents(server())).filter((e) => e.uuid === uuid);
    expect(event).toMatchObject({ event: "signed up", distinctId: "anon-1" });
    expect(event?.properties["plan"]).toBe("pro");
    expect(event?.properties["$lib"]).toBe("posthog-node");
    // posthog-node sends sent_at with the batch: a timestamp from its own clock is kept (same clock).
    expect(Math.abs(event!.timestamp.getTime() - timestamp.getTime())).toBeLessThan(5_000);
    expect(event?.personId).toBe((await personOf("anon-1"))?.uuid);
  });

  it("identify sets person properties; alias joins two distinct ids in one person", async () => {
    client.identify({ distinctId: "user-1", properties: { email: "ada@example.com" } });
    await client.flush();
    client.alias({ distinctId: "user-1", alias: "anon-1" });
    await client.flush();
    const identified = await personOf("user-1");
    expect(identified?.properties).toMatchObject({ email: "ada@example.com" });
    expect((await personOf("anon-1"))?.uuid).toBe(identified?.uuid);
    const names = (await storedEvents(server())).map((e) => e.event);
    expect(names).toEqual(expect.arrayContaining(["$identify", "$create_alias"]));
  });

  it("groupIdentify creates the group type and the group with its properties", async () => {
    client.groupIdentify({ groupType: "company", groupKey: "acme", properties: { employees: 12 } });
    await client.flush();
    const mapping = await server().db.groupTypeMapping.findFirst({
      where: { projectId: server().projectId, groupType: "company" },
    });
    expect(mapping?.groupTypeIndex).toBe(0);
    const group = await server().db.group.findUnique({
      where: {
        projectId_groupTypeIndex_groupKey: {
          projectId: server().projectId,
          groupTypeIndex: 0,
          groupKey: "acme",
        },
      },
    });
    expect(group?.groupProperties).toMatchObject({ employees: 12 });
  });
});
