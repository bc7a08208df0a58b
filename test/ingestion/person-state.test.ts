/**
 * Person state against the real database (PGlite and PostgreSQL): `applyPersonState` runs inside a
 * transaction of the test server's client, as capture calls it, and the rows it leaves are read back.
 */
import { describe, expect, it } from "vitest";
import { measureSql } from "../../src/db/sql-stats.js";
import type { IngestEvent } from "../../src/ingestion/ingest-event.js";
import { applyPersonState } from "../../src/ingestion/person-state.js";
import { personUuidFor } from "../../src/ingestion/rules/person-identity.js";
import { applyBatch, ingestEvent } from "../support/ingest.js";
import { insertPerson } from "../support/people.js";
import { describeEachBackend, type TestServer } from "../support/server.js";

let counter = 0;
/** A distinct id no other test of the file uses. */
function freshId(label: string): string {
  counter += 1;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

async function personOf(s: TestServer, distinctId: string) {
  const row = await s.db.personDistinctId.findUnique({
    where: { projectId_distinctId: { projectId: s.projectId, distinctId } },
    include: { person: { include: { distinctIds: { orderBy: { distinctId: "asc" } } } } },
  });
  return row?.person ?? null;
}

async function personCount(s: TestServer, uuid: string): Promise<number> {
  return s.db.person.count({ where: { projectId: s.projectId, uuid } });
}

/** Applies person state to `events` in a transaction, counting the statements it sends. */
async function statementsOf(s: TestServer, events: IngestEvent[]) {
  return s.database.transaction(async (tx) => {
    const { result, stats } = await measureSql(() => applyPersonState(tx, s.projectId, events));
    return { result, statements: stats.statements };
  });
}

/** Stores an event of `distinctId` attributed to `personId`, as capture would have earlier. */
async function storeEvent(s: TestServer, distinctId: string, personId: string): Promise<string> {
  const uuid = crypto.randomUUID();
  await s.db.event.create({
    data: { projectId: s.projectId, uuid, event: "$pageview", distinctId, personId, timestamp: new Date() },
  });
  return uuid;
}

/** The person uuid a stored event is attributed to now. */
async function storedPersonId(s: TestServer, uuid: string): Promise<string | null> {
  const event = await s.db.event.findUniqueOrThrow({
    where: { projectId_uuid: { projectId: s.projectId, uuid } },
  });
  return event.personId;
}

const at = (iso: string) => ({ timestamp: new Date(iso) });

describeEachBackend("person state", (server, backend) => {
  describe("creation", () => {
    it("creates one person per new distinct id, with PostHog's derived uuid and $set/$set_once", async () => {
      const s = server();
      const id = freshId("new");
      const event = ingestEvent(id, { $set: { plan: "pro" }, $set_once: { first: "a", plan: "free" } });
      const [uuid] = await applyBatch(s, [event]);
      expect(uuid).toBe(personUuidFor(s.projectId, id));
      const person = await personOf(s, id);
      expect(person).toMatchObject({
        uuid,
        isIdentified: false,
        version: 0n,
        createdAt: event.timestamp,
        properties: { plan: "pro", first: "a", $creator_event_uuid: event.uuid },
        propertiesLastOperation: { plan: "set", first: "set_once" },
        propertiesLastUpdatedAt: {
          plan: event.timestamp.toISOString(),
          first: event.timestamp.toISOString(),
        },
      });
      expect(person!.distinctIds.map((d) => d.distinctId)).toEqual([id]);
    });

    it("gives every event of a batch its person, creating each new person once", async () => {
      const s = server();
      const [a, b] = [freshId("a"), freshId("b")];
      const uuids = await applyBatch(s, [ingestEvent(a), ingestEvent(b), ingestEvent(a)]);
      expect(uuids).toEqual([personUuidFor(s.projectId, a), personUuidFor(s.projectId, b), uuids[0]]);
      expect(await personCount(s, uuids[0]!)).toBe(1);
      expect(await personCount(s, uuids[1]!)).toBe(1);
    });

    it("writes a batch of 100 new distinct ids in a bounded number of statements", async () => {
      const s = server();
      const events = Array.from({ length: 100 }, (_, i) => ingestEvent(freshId(`bulk${i}`), { $set: { i } }));
      const created = await statementsOf(s, events);
      expect(new Set(created.result).size).toBe(100);
      expect(created.statements).toBe(3); // load, insert persons, insert distinct ids
      const updated = await statementsOf(
        s,
        events.map((e) => ingestEvent(e.distinctId, { $set: { i: -1 } })),
      );
      expect(updated.statements).toBe(2); // load, one update for all 100
      expect((await personOf(s, events[7]!.distinctId))!.properties).toMatchObject({ i: -1 });
    });
  });

  describe("property updates", () => {
    it("applies $set, $set_once and $unset in event order, top-level $set winning", async () => {
      const s = server();
      const id = freshId("props");
      await applyBatch(s, [ingestEvent(id, { $set: { a: 1, b: 1, c: 1 } }, at("2026-11-20T10:00:00Z"))]);
      await applyBatch(s, [
        ingestEvent(
          id,
          { $set: { a: 2, d: "props" }, $set_once: { b: 2, e: 1 }, $unset: ["c", "missing"] },
          { ...at("2026-11-20T11:00:00Z"), topLevel: { $set: { d: "top" }, $set_once: { f: 1 } } },
        ),
      ]);
      const person = await personOf(s, id);
      expect(person!.properties).toEqual({
        a: 2,
        b: 1,
        d: "top",
        e: 1,
        f: 1,
        $creator_event_uuid: expect.any(String),
      });
      expect(person!.propertiesLastOperation).toEqual({
        a: "set",
        b: "set",
        d: "set",
        e: "set_once",
        f: "set_once",
      });
      expect(person!.propertiesLastUpdatedAt).toMatchObject({
        a: "2026-11-20T11:00:00.000Z",
        b: "2026-11-20T10:00:00.000Z",
      });
      expect(person!.version).toBe(1n);
    });

    it("writes nothing when the event changes nothing", async () => {
      const s = server();
      const id = freshId("same");
      await applyBatch(s, [ingestEvent(id, { $set: { nested: { x: [1, 2] } } })]);
      const { statements } = await statementsOf(s, [
        ingestEvent(id, { $set: { nested: { x: [1, 2] } }, $set_once: { nested: 0 } }),
      ]);
      expect(statements).toBe(1); // the load
      expect((await personOf(s, id))!.version).toBe(0n);
    });

    it("lifts page properties onto the person, writing a mere URL change only with the next write", async () => {
      const s = server();
      const id = freshId("pages");
      await applyBatch(s, [ingestEvent(id, { $current_url: "https://a.example/1", utm_source: "ads" })]);
      expect((await personOf(s, id))!.properties).toMatchObject({
        $current_url: "https://a.example/1",
        $initial_current_url: "https://a.example/1",
        utm_source: "ads",
        $initial_utm_source: "ads",
      });
      const browsing = await statementsOf(s, [ingestEvent(id, { $current_url: "https://a.example/2" })]);
      expect(browsing.statements).toBe(1); // the load: nothing written
      await applyBatch(s, [
        ingestEvent(id, { $current_url: "https://a.example/3" }),
        ingestEvent(id, { $set: { plan: "pro" } }),
      ]);
      expect(await personOf(s, id)).toMatchObject({
        version: 1n,
        properties: {
          $current_url: "https://a.example/3",
          $initial_current_url: "https://a.example/1",
          plan: "pro",
        },
      });
    });

    it("ignores top-level $unset and the person properties of $exception events, as PostHog does", async () => {
      const s = server();
      const id = freshId("ignored");
      await applyBatch(s, [ingestEvent(id, { $set: { keep: 1 } })]);
      await applyBatch(s, [
        ingestEvent(id, {}, { topLevel: { $unset: ["keep"] } }),
        ingestEvent(id, { $set: { keep: 2 } }, { event: "$exception" }),
      ]);
      expect((await personOf(s, id))!.properties).toMatchObject({ keep: 1 });
    });
  });

  describe("personless events", () => {
    it("create no person and carry the derived uuid, or the uuid of the person the id has", async () => {
      const s = server();
      const [lonely, known] = [freshId("personless"), freshId("known")];
      const existing = await insertPerson(s.db, s.projectId, { distinctIds: [known], properties: { a: 1 } });
      const uuids = await applyBatch(s, [
        ingestEvent(lonely, { $process_person_profile: false, $set: { a: 1 } }),
        ingestEvent(known, { $process_person_profile: false, $set: { a: 2 } }),
      ]);
      expect(uuids).toEqual([personUuidFor(s.projectId, lonely), existing.uuid]);
      expect(await personOf(s, lonely)).toBeNull();
      expect((await personOf(s, known))!.properties).toEqual({ a: 1 });
    });
  });

  describe("$identify", () => {
    it("merges the anonymous person into the identified one", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      await applyBatch(s, [
        ingestEvent(anon, { $set: { shared: "anon", anonOnly: 1 } }, at("2026-11-01T00:00:00Z")),
        ingestEvent(user, { $set: { shared: "user" } }, at("2026-11-10T00:00:00Z")),
      ]);
      const anonPerson = (await personOf(s, anon))!;
      const userPerson = (await personOf(s, user))!;
      const cohort = await s.db.cohort.create({
        data: { projectId: s.projectId, name: "static", isStatic: true },
      });
      await s.db.cohortPerson.create({
        data: { projectId: s.projectId, cohortId: cohort.id, personId: anonPerson.id },
      });

      const [uuid] = await applyBatch(s, [
        ingestEvent(
          user,
          { $anon_distinct_id: anon, $set: { email: "u@example.com" } },
          { event: "$identify" },
        ),
      ]);
      expect(uuid).toBe(userPerson.uuid);
      const merged = (await personOf(s, anon))!;
      expect(merged).toMatchObject({
        uuid: userPerson.uuid,
        isIdentified: true,
        version: 1n,
        createdAt: new Date("2026-11-01T00:00:00Z"),
        properties: { shared: "user", anonOnly: 1, email: "u@example.com" },
      });
      expect(merged.distinctIds.map((d) => [d.distinctId, d.version])).toEqual(
        [
          [anon, 1n],
          [user, 0n],
        ].sort(),
      );
      expect(await personCount(s, anonPerson.uuid)).toBe(0);
      expect(await s.db.cohortPerson.findMany({ where: { cohortId: cohort.id } })).toEqual([
        expect.objectContaining({ personId: userPerson.id }),
      ]);
    });

    it("re-attributes the merged person's stored events to the survivor", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const [anonUuid] = await applyBatch(s, [ingestEvent(anon), ingestEvent(user)]);
      const stored = await storeEvent(s, anon, anonUuid!);
      const [userUuid] = await applyBatch(s, [
        ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
      ]);
      expect(await storedPersonId(s, stored)).toBe(userUuid);
    });

    it("refuses to merge a person that is already identified, but identifies the target", async () => {
      const s = server();
      const [first, second] = [freshId("first"), freshId("second")];
      const a = await insertPerson(s.db, s.projectId, { distinctIds: [first], isIdentified: true });
      const b = await insertPerson(s.db, s.projectId, { distinctIds: [second] });
      await applyBatch(s, [ingestEvent(second, { $anon_distinct_id: first }, { event: "$identify" })]);
      expect((await personOf(s, first))!.uuid).toBe(a.uuid);
      expect(await personOf(s, second)).toMatchObject({ uuid: b.uuid, isIdentified: true, version: 1n });
    });

    it("creates one identified person holding both ids when neither has one", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const [uuid] = await applyBatch(s, [
        ingestEvent(user, { $anon_distinct_id: anon, $set: { a: 1 } }, { event: "$identify" }),
      ]);
      expect(uuid).toBe(personUuidFor(s.projectId, user));
      const person = (await personOf(s, anon))!;
      expect(person).toMatchObject({ uuid, isIdentified: true, version: 0n, properties: { a: 1 } });
      expect(person.distinctIds.map((d) => d.distinctId).sort()).toEqual([anon, user].sort());
    });

    it("adds the new id to the person of the known one", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const [anonUuid] = await applyBatch(s, [ingestEvent(anon)]);
      const [uuid] = await applyBatch(s, [
        ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
      ]);
      expect(uuid).toBe(anonUuid);
      expect(await personOf(s, user)).toMatchObject({ uuid: anonUuid, isIdentified: true, version: 1n });
    });

    it("resolves every event of a batch to the person it ends in", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const uuids = await applyBatch(s, [
        ingestEvent(anon, { $set: { step: 1 } }),
        ingestEvent(user),
        ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
        ingestEvent(anon, { $process_person_profile: false }),
      ]);
      const survivor = personUuidFor(s.projectId, user);
      expect(uuids).toEqual([survivor, survivor, survivor, survivor]);
      expect(await personCount(s, personUuidFor(s.projectId, anon))).toBe(0);
      expect((await personOf(s, anon))!.properties).toMatchObject({ step: 1 });
    });

    it("merges a stored person into one the same batch creates", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const [anonUuid] = await applyBatch(s, [ingestEvent(anon, { $set: { old: true } })]);
      const uuids = await applyBatch(s, [
        ingestEvent(user, { $set: { fresh: true } }),
        ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
      ]);
      const survivor = personUuidFor(s.projectId, user);
      expect(uuids).toEqual([survivor, survivor]);
      expect(await personCount(s, anonUuid!)).toBe(0);
      const person = (await personOf(s, anon))!;
      expect(person).toMatchObject({
        uuid: survivor,
        isIdentified: true,
        properties: { old: true, fresh: true },
      });
      expect(person.distinctIds.map((d) => d.distinctId).sort()).toEqual([anon, user].sort());
    });

    it("re-attributes personless events of an id that joins another person", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      const [userUuid] = await applyBatch(s, [ingestEvent(user)]);
      const [personlessUuid] = await applyBatch(s, [ingestEvent(anon, { $process_person_profile: false })]);
      const stored = await storeEvent(s, anon, personlessUuid!);
      await applyBatch(s, [ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" })]);
      expect(await storedPersonId(s, stored)).toBe(userUuid);
    });

    it("neither merges nor identifies with an illegal or equal id", async () => {
      const s = server();
      const user = freshId("user");
      await applyBatch(s, [
        ingestEvent(user, { $anon_distinct_id: "anonymous" }, { event: "$identify" }),
        ingestEvent(user, { $anon_distinct_id: null }, { event: "$identify" }),
        ingestEvent(user, { $anon_distinct_id: user }, { event: "$identify" }),
      ]);
      expect(await personOf(s, "anonymous")).toBeNull();
      expect(await personOf(s, "null")).toBeNull();
      expect(await personOf(s, user)).toMatchObject({ isIdentified: false });
    });
  });

  describe("$create_alias and $merge_dangerously", () => {
    it("$create_alias merges the alias's person into the event's", async () => {
      const s = server();
      const [alias, user] = [freshId("alias"), freshId("user")];
      await applyBatch(s, [ingestEvent(alias, { $set: { x: 1 } }), ingestEvent(user)]);
      await applyBatch(s, [ingestEvent(user, { alias }, { event: "$create_alias" })]);
      const person = (await personOf(s, alias))!;
      expect(person.uuid).toBe(personUuidFor(s.projectId, user));
      expect(person.properties).toMatchObject({ x: 1 });
    });

    it("$merge_dangerously merges even an identified person", async () => {
      const s = server();
      const [alias, user] = [freshId("alias"), freshId("user")];
      await insertPerson(s.db, s.projectId, { distinctIds: [alias], isIdentified: true });
      const target = await insertPerson(s.db, s.projectId, { distinctIds: [user], isIdentified: true });
      await applyBatch(s, [ingestEvent(user, { alias }, { event: "$merge_dangerously" })]);
      expect((await personOf(s, alias))!.uuid).toBe(target.uuid);
    });
  });

  describe.skipIf(backend !== "postgres")("concurrency", () => {
    it("two requests creating the same distinct id at once make one person", async () => {
      const s = server();
      const id = freshId("race");
      const results = await Promise.all(
        [1, 2, 3].map((n) =>
          s.database.transaction((tx) =>
            applyPersonState(tx, s.projectId, [ingestEvent(id, { $set: { [`n${n}`]: n } })]),
          ),
        ),
      );
      expect(new Set(results.flat()).size).toBe(1);
      const person = (await personOf(s, id))!;
      expect(person.properties).toMatchObject({ n1: 1, n2: 2, n3: 3 });
      expect(
        await s.db.person.count({
          where: { projectId: s.projectId, distinctIds: { some: { distinctId: id } } },
        }),
      ).toBe(1);
    });

    it("two requests merging the same two persons at once leave one person with both ids", async () => {
      const s = server();
      const [anon, user] = [freshId("anon"), freshId("user")];
      await applyBatch(s, [ingestEvent(anon, { $set: { a: 1 } }), ingestEvent(user, { $set: { u: 1 } })]);
      const identify = () =>
        s.database.transaction((tx) =>
          applyPersonState(tx, s.projectId, [
            ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
          ]),
        );
      const results = await Promise.all([identify(), identify(), identify()]);
      const survivor = personUuidFor(s.projectId, user);
      expect(results.flat()).toEqual([survivor, survivor, survivor]);
      expect(await personOf(s, anon)).toMatchObject({ uuid: survivor, properties: { a: 1, u: 1 } });
      expect(await personCount(s, personUuidFor(s.projectId, anon))).toBe(0);
    });

    it("two requests identifying into the same new person at once make one person", async () => {
      const s = server();
      const user = freshId("user");
      const anons = [freshId("anon"), freshId("anon")];
      await Promise.all(
        anons.map((anon) =>
          s.database.transaction((tx) =>
            applyPersonState(tx, s.projectId, [
              ingestEvent(user, { $anon_distinct_id: anon }, { event: "$identify" }),
            ]),
          ),
        ),
      );
      const person = (await personOf(s, user))!;
      expect(person.distinctIds.map((d) => d.distinctId).sort()).toEqual([...anons, user].sort());
    });
  });
});
