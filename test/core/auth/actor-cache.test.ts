/**
 * The per-process actor cache on a real change feed (the embedded database, on which the test
 * notifies on the feed's channel as migration `change_feed`'s triggers do): what it keeps, what
 * clears it, and that it serves nothing while the feed is not live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActorCache } from "../../../src/core/auth/actor-cache.js";
import { hashApiKey } from "../../../src/core/auth/api-keys.js";
import { ProjectRevisions } from "../../../src/core/project-revisions.js";
import { CHANGE_CHANNEL } from "../../../src/db/change-feed.js";
import type { Database } from "../../../src/db/database.js";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { openEmbeddedTestDatabase } from "../../support/server.js";
import { actor, project } from "./support.js";

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openEmbeddedTestDatabase());
});

afterAll(async () => {
  await database.close();
  await drop();
});

/** Announcements made so far: each carries its own number, as each real one names its transaction. */
let announced = 0;

/**
 * Announces `payload` on the feed's channel and waits until the feed delivered it. The feed delivers
 * a payload once (every pooled connection hears it, src/db/change-feed.ts), so each gets a number.
 */
async function announce(payload: object): Promise<void> {
  const heard = new Promise<void>((resolve) => {
    const unsubscribe = database.changes.subscribe(() => {
      unsubscribe();
      resolve();
    });
  });
  const numbered = JSON.stringify({ ...payload, tx: ++announced });
  await database.autocommit.rows(Prisma.sql`SELECT pg_notify(${CHANGE_CHANNEL}, ${numbered})`);
  await heard;
}

function cache(maxEntries?: number) {
  const revisions = new ProjectRevisions(database.changes, database.reader);
  return { revisions, actors: new ActorCache(database.changes, revisions, maxEntries) };
}

const entry = (revision = 1n) => ({
  actor: actor({ projects: [project(7, "org-a", revision)] }),
  lastUsedAtMs: 1000,
});

describe("ActorCache", () => {
  it("keeps a lookup per key and project, and finds nothing else", () => {
    const { actors } = cache();
    actors.keep(actors.generation, "hash-1", 7, entry());
    expect(actors.find("hash-1", 7)).toEqual(entry());
    expect(actors.find("hash-1", null)).toBeUndefined();
    expect(actors.find("hash-1", 8)).toBeUndefined();
    expect(actors.find("hash-2", 7)).toBeUndefined();
    actors.keep(actors.generation, "hash-1", null, entry());
    expect(actors.find("hash-1", null)).toEqual(entry());
  });

  it("tells the project revisions it read, and serves each project's newest known revision", async () => {
    const { actors, revisions } = cache();
    actors.keep(actors.generation, "hash-1", 7, entry(3n));
    expect(revisions.peek(7)).toBe(3n);
    await announce({ kind: "revision", project: 7, revision: "5" });
    const held = actors.find("hash-1", 7)?.actor;
    expect(held?.projects[0]?.revision).toBe(5n);
    expect(held?.projects[0]?.name).toBe("Project 7");
    await announce({ kind: "revision", project: 7, revision: "6" });
    expect(actors.find("hash-1", 7)?.actor.projects[0]?.revision).toBe(6n);
    // An actor a request already holds is replaced, not changed.
    expect(held?.projects[0]?.revision).toBe(5n);
  });

  it("remembers the stored form of a kept key until an announcement clears the cache", async () => {
    const { actors } = cache();
    expect(actors.storedFormOf("phx_raw")).toBe(hashApiKey("phx_raw"));
    actors.keep(actors.generation, "hash-1", 7, entry(), "phx_raw");
    expect(actors.storedFormOf("phx_raw")).toBe("hash-1");
    expect(actors.storedFormOf("phx_other")).toBe(hashApiKey("phx_other"));
    await announce({ kind: "access" });
    expect(actors.storedFormOf("phx_raw")).toBe(hashApiKey("phx_raw"));
  });

  it("is cleared by an access change or a reset, not by a revision, an object or a subject change", async () => {
    const { actors } = cache();
    actors.keep(actors.generation, "hash-1", 7, entry());
    await announce({ kind: "revision", project: 7, revision: "9" });
    await announce({ kind: "change", project: 7, revision: "9", scope: "FeatureFlag", activity: "updated" });
    await announce({ kind: "subject", project: 7, person: "1" });
    expect(actors.find("hash-1", 7)).toBeDefined();
    await announce({ kind: "access" });
    expect(actors.find("hash-1", 7)).toBeUndefined();
    actors.keep(actors.generation, "hash-1", 7, entry());
    await announce({ kind: "nonsense" });
    expect(actors.find("hash-1", 7)).toBeUndefined();
  });

  it("does not keep a lookup that raced an announcement", async () => {
    const { actors } = cache();
    const before = actors.generation;
    await announce({ kind: "access" });
    expect(actors.generation).toBe(before + 1);
    actors.keep(before, "hash-1", 7, entry());
    expect(actors.find("hash-1", 7)).toBeUndefined();
  });

  it("starts over past its bound", () => {
    const { actors } = cache(2);
    actors.keep(actors.generation, "hash-1", 7, entry());
    actors.keep(actors.generation, "hash-2", 7, entry());
    expect(actors.find("hash-1", 7)).toBeDefined();
    actors.keep(actors.generation, "hash-3", 7, entry());
    expect(actors.find("hash-1", 7)).toBeUndefined();
    expect(actors.find("hash-2", 7)).toBeUndefined();
    expect(actors.find("hash-3", 7)).toBeDefined();
  });

  it("records when a kept key was marked used, and ignores one it does not hold", () => {
    const { actors } = cache();
    actors.keep(actors.generation, "hash-1", 7, entry());
    actors.markUsed("hash-1", 7, 5000);
    actors.markUsed("hash-2", 7, 6000);
    expect(actors.find("hash-1", 7)?.lastUsedAtMs).toBe(5000);
    expect(actors.find("hash-2", 7)).toBeUndefined();
  });

  it("serves nothing while the feed is not live", async () => {
    const second = await openEmbeddedTestDatabase();
    try {
      const feed = second.database.changes;
      const actors = new ActorCache(feed, new ProjectRevisions(feed, second.database.reader));
      actors.keep(actors.generation, "hash-1", 7, entry());
      expect(actors.find("hash-1", 7)).toBeDefined();
      await second.database.close();
      expect(actors.find("hash-1", 7)).toBeUndefined();
    } finally {
      await second.drop();
    }
  });
});
