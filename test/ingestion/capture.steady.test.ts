/**
 * Capture's steady state (ingestion.service.ts): events of known persons that change nothing are
 * stored by one statement without a transaction, checked against the persons' versions; when a
 * person changed since this process read it (another process, another request), nothing is stored
 * by that statement and the request goes through its transaction, deciding on the current rows.
 * Through HTTP on PGlite and PostgreSQL; "another process" is a second ingestion service on the same
 * database (its own caches), as a second server would be. On PostgreSQL, the statement racing a
 * merge that holds the person's lock.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { dataAccessOf } from "../../src/core/context.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import { createIngestionService } from "../../src/ingestion/ingestion.service.js";
import { applyPersonState } from "../../src/ingestion/person-state.js";
import { personUuidFor } from "../../src/ingestion/rules/person-identity.js";
import { projectToken, sendToSdk } from "../support/capture.js";
import { ingestEvent } from "../support/ingest.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

let counter = 0;
/** A distinct id no other test of the file uses. */
function freshId(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

const statementsOf = (header: string | null) => Number(/desc="(\d+) statements?"/.exec(header ?? "")?.[1]);

/** Sends `batch` to `/batch/` of `s`; returns the answer's status and its statement count. */
async function send(s: TestServer, batch: unknown[]) {
  const answer = await sendToSdk(s, "/batch/", { json: { api_key: await projectToken(s), batch } });
  return { status: answer.status, statements: statementsOf(answer.headers.get("server-timing")) };
}

/** An event as the SDK sends it, with a uuid to find it by. */
function sdkEvent(distinctId: string, properties: Record<string, unknown> = {}, event = "clicked") {
  return { event, distinct_id: distinctId, uuid: crypto.randomUUID(), properties };
}

/** The person uuid a stored event is attributed to. */
async function personOfEvent(s: TestServer, uuid: string): Promise<string | null> {
  const event = await s.db.event.findUniqueOrThrow({
    where: { projectId_uuid: { projectId: s.projectId, uuid } },
  });
  return event.personId;
}

/** Checks that `anon`'s person was merged into `user`'s: `eventUuid` is the survivor's, none is the merged one's. */
async function expectMergedInto(s: TestServer, eventUuid: string, anon: string, user: string) {
  expect(await personOfEvent(s, eventUuid)).toBe(personUuidFor(s.projectId, user));
  const merged = personUuidFor(s.projectId, anon);
  expect(await s.db.event.count({ where: { projectId: s.projectId, personId: merged } })).toBe(0);
}

async function personProperties(s: TestServer, distinctId: string) {
  const row = await s.db.personDistinctId.findUniqueOrThrow({
    where: { projectId_distinctId: { projectId: s.projectId, distinctId } },
    include: { person: true },
  });
  return row.person.properties as Record<string, unknown>;
}

/** Capture by "another process": a service of its own (its own person cache) on the same database. */
function otherProcess(s: TestServer) {
  const service = createIngestionService({
    now: () => new Date(),
    config: loadConfig({}),
    data: dataAccessOf(s.database),
  });
  return (batch: unknown[]) =>
    service.capture(
      s.projectId,
      { batch },
      { path: "/batch/", query: new URLSearchParams(), maxJsonDepth: 64 },
    );
}

describeEachBackend("capture's steady state", (server, backend) => {
  it("stores events of known persons that change nothing with one statement, attributed to their persons", async () => {
    const s = server();
    const ids = Array.from({ length: 20 }, () => freshId("steady"));
    const batch = () => ids.map((id) => sdkEvent(id, { $current_url: "https://example.com/a", plan: "pro" }));
    const created = await send(s, batch());
    expect(created.status).toBe(200);
    // Persons known now; the first steady request reads them (a second statement), later ones do not.
    expect((await send(s, batch())).statements).toBe(2);
    const events = batch();
    const steady = await send(s, events);
    expect(steady).toEqual({ status: 200, statements: 1 });
    for (const [index, event] of events.entries()) {
      expect(await personOfEvent(s, event.uuid)).toBe(personUuidFor(s.projectId, ids[index]!));
    }
    // A page change alone is not written (rules/person-properties.ts): still the steady state.
    const moved = ids.map((id) => sdkEvent(id, { $current_url: "https://example.com/b" }));
    expect((await send(s, moved)).statements).toBe(1);
    expect(await personProperties(s, ids[0]!)).toMatchObject({ $current_url: "https://example.com/a" });
  });

  it("stores a resent batch once, through the transaction when nothing in it is new", async () => {
    const s = server();
    const id = freshId("resend");
    await send(s, [sdkEvent(id)]);
    await send(s, [sdkEvent(id)]);
    const events = [sdkEvent(id), sdkEvent(id)];
    expect((await send(s, events)).statements).toBe(1);
    expect((await send(s, events)).status).toBe(200);
    expect(
      await s.db.event.count({ where: { projectId: s.projectId, uuid: { in: events.map((e) => e.uuid) } } }),
    ).toBe(2);
  });

  it("decides on the current person when another process changed it since this one read it", async () => {
    const s = server();
    const other = otherProcess(s);
    const id = freshId("changed");
    await send(s, [sdkEvent(id, { $set: { plan: "free" } })]);
    await send(s, [sdkEvent(id)]); // read, and remembered at this version
    // Elsewhere, `plan` goes; here the remembered person still has it, so `$set_once` would change nothing.
    await other([sdkEvent(id, { $unset: ["plan"] })]);
    const event = sdkEvent(id, { $set_once: { plan: "trial" } });
    const answer = await send(s, [event]);
    expect(answer.status).toBe(200);
    expect(answer.statements).toBeGreaterThan(1);
    expect(await personProperties(s, id)).toMatchObject({ plan: "trial" });
    expect(await personOfEvent(s, event.uuid)).toBe(personUuidFor(s.projectId, id));
  });

  it("attributes events to the survivor when another process merged the remembered person away", async () => {
    const s = server();
    const other = otherProcess(s);
    const [anon, user] = [freshId("anon"), freshId("user")];
    await send(s, [sdkEvent(anon), sdkEvent(user, { $set: { email: "u@example.com" } })]);
    await send(s, [sdkEvent(anon)]);
    await other([sdkEvent(user, { $anon_distinct_id: anon }, "$identify")]);
    const event = sdkEvent(anon);
    expect((await send(s, [event])).status).toBe(200);
    await expectMergedInto(s, event.uuid, anon, user);
  });

  describe.skipIf(backend !== "postgres")("concurrency", () => {
    it("an event racing a merge that holds its person's lock ends with the survivor", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      await send(s, [sdkEvent(anon), sdkEvent(user, { $set: { email: "u@example.com" } })]);
      await send(s, [sdkEvent(anon)]); // remembered: the next event of `anon` is one statement
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const lockedNow = new Promise<void>((resolve) => {
        locked = resolve;
      });
      // The merge of `anon` into `user`, held open with both persons locked and `anon`'s deleted.
      const merge = s.database.transaction(async (tx) => {
        await applyPersonState(tx, s.projectId, [
          ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
        ]);
        locked();
        await released;
      });
      await lockedNow;
      const event = sdkEvent(anon);
      const capture = send(s, [event]);
      // Wait until the capture's statement waits for the merge's lock, then let the merge commit.
      for (let attempt = 0; ; attempt++) {
        const [row] = await s.database.autocommit.rows<{ waiting: number }>(Prisma.sql`
          SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR SHARE OF p%'`);
        if ((row?.waiting ?? 0) > 0) break;
        if (attempt > 500) throw new Error("the capture never waited for the merge's lock");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      release();
      await merge;
      expect((await capture).status).toBe(200);
      await expectMergedInto(s, event.uuid, anon, user);
    });
  });
});
