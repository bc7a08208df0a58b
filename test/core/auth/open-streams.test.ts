/**
 * The open-stream registry (src/core/auth/open-streams.ts) on a hand-driven change feed: which
 * streams an access change re-checks (only those it names; all when it names nothing, or the
 * listener came back), once per group, a bounded number at a time, and how a refusal or a failure
 * ends them. The streams themselves, through the real server: test/live/stream-revocation.test.ts.
 */
import { describe, expect, it } from "vitest";
import { OpenStreams, type WatchedStream } from "../../../src/core/auth/open-streams.js";
import { PermissionDeniedError } from "../../../src/core/errors.js";
import type { ChangeFeed, DatabaseChange } from "../../../src/db/change-feed.js";

/** A change feed the test announces on. */
function handFeed() {
  const listeners = new Set<(change: DatabaseChange) => void>();
  const feed = {
    live: true,
    subscribe(listener: (change: DatabaseChange) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    announce(change: DatabaseChange) {
      for (const listener of listeners) listener(change);
    },
  };
  return feed satisfies ChangeFeed;
}

/** Lets every pending re-check run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** A stream that records its re-checks (by group) and its end. */
function stream(
  checks: string[],
  ids: { keyId: string; userId: number; projectId: number; group: string },
  recheck: () => Promise<void> = async () => {},
) {
  const ended: unknown[] = [];
  const watched: WatchedStream = {
    ...ids,
    recheck: async () => {
      checks.push(ids.group);
      await recheck();
    },
    end: (error) => ended.push(error),
  };
  return { watched, ended };
}

describe("OpenStreams", () => {
  it("re-checks a stream once when it is watched, and forgets it when unwatched", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    const checks: string[] = [];
    const unwatch = streams.watch(
      stream(checks, { keyId: "k1", userId: 1, projectId: 1, group: "g1" }).watched,
    );
    expect(streams.size).toBe(1);
    await settle();
    expect(checks).toEqual(["g1"]);
    unwatch();
    expect(streams.size).toBe(0);
    feed.announce({ kind: "access" });
    await settle();
    expect(checks).toEqual(["g1"]);
  });

  it("re-checks only the streams an access change names, once per group", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    const checks: string[] = [];
    for (const ids of [
      { keyId: "k1", userId: 1, projectId: 1, group: "g1" },
      { keyId: "k1", userId: 1, projectId: 1, group: "g1" },
      { keyId: "k2", userId: 2, projectId: 1, group: "g2" },
      { keyId: "k3", userId: 2, projectId: 3, group: "g3" },
    ]) {
      streams.watch(stream(checks, ids).watched);
    }
    await settle();
    const checkedAfter = async (change: DatabaseChange) => {
      checks.length = 0;
      feed.announce(change);
      await settle();
      return [...checks].sort();
    };
    expect(await checkedAfter({ kind: "access", keyId: "k1" })).toEqual(["g1"]);
    expect(await checkedAfter({ kind: "access", keyId: "k9" })).toEqual([]);
    expect(await checkedAfter({ kind: "access", userId: 2 })).toEqual(["g2", "g3"]);
    expect(await checkedAfter({ kind: "access", projectId: 1 })).toEqual(["g1", "g2"]);
    expect(await checkedAfter({ kind: "access" })).toEqual(["g1", "g2", "g3"]);
    expect(await checkedAfter({ kind: "revision", projectId: 1, revision: 2n })).toEqual([]);
    // The listener came back: changes may have been missed. While it is down, nothing is re-checked.
    expect(await checkedAfter({ kind: "reset" })).toEqual(["g1", "g2", "g3"]);
    feed.live = false;
    expect(await checkedAfter({ kind: "reset" })).toEqual([]);
  });

  it("re-checks once every subscriber of the feed heard the change (caches have forgotten)", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    let forgotten = false;
    const seen: boolean[] = [];
    streams.watch(
      stream([], { keyId: "k1", userId: 1, projectId: 1, group: "g1" }, async () => {
        seen.push(forgotten);
      }).watched,
    );
    await settle();
    // A cache that subscribed after the registry, as one built later would.
    feed.subscribe((change) => {
      if (change.kind === "access") forgotten = true;
    });
    feed.announce({ kind: "access", keyId: "k1" });
    await settle();
    expect(seen).toEqual([false, true]);
  });

  it("ends every stream of a refused group with the refusal, and keeps the others", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    const checks: string[] = [];
    let refuse = false;
    const refusal = new PermissionDeniedError("You don't have access to the project.");
    const recheck = async () => {
      if (refuse) throw refusal;
    };
    const a = stream(checks, { keyId: "k1", userId: 1, projectId: 1, group: "g1" }, recheck);
    const b = stream(checks, { keyId: "k1", userId: 1, projectId: 1, group: "g1" }, recheck);
    const other = stream(checks, { keyId: "k2", userId: 2, projectId: 1, group: "g2" });
    for (const each of [a, b, other]) streams.watch(each.watched);
    await settle();
    refuse = true;
    feed.announce({ kind: "access", projectId: 1 });
    await settle();
    expect(a.ended).toEqual([refusal]);
    expect(b.ended).toEqual([refusal]);
    expect(other.ended).toEqual([]);
    expect(streams.size).toBe(1);
  });

  it("ends the streams whose re-check fails, and a stream that cannot end stops no other", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    const failure = new Error("connection refused");
    let fail = false;
    const recheck = async () => {
      if (fail) throw failure;
    };
    const broken: WatchedStream = {
      ...stream([], { keyId: "k1", userId: 1, projectId: 1, group: "g1" }, recheck).watched,
      end: () => {
        throw new Error("socket already gone");
      },
    };
    const fine = stream([], { keyId: "k1", userId: 1, projectId: 1, group: "g1" }, recheck);
    streams.watch(broken);
    streams.watch(fine.watched);
    await settle();
    fail = true;
    feed.announce({ kind: "access", keyId: "k1" });
    await settle();
    expect(fine.ended).toEqual([failure]);
    expect(streams.size).toBe(0);
  });

  it("re-checks at most 4 groups at a time, and changes heard meanwhile in a later pass", async () => {
    const feed = handFeed();
    const streams = new OpenStreams(feed);
    let blocking = false;
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const checks: string[] = [];
    const recheck = async () => {
      if (!blocking) return;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
    };
    for (let group = 0; group < 10; group++) {
      const ids = { keyId: `k${group}`, userId: group, projectId: 1, group: `g${group}` };
      streams.watch(stream(checks, ids, recheck).watched);
    }
    await settle();
    checks.length = 0;
    blocking = true;
    feed.announce({ kind: "access", projectId: 1 });
    await settle();
    expect(running).toBe(4);
    // Heard while the first pass is under way: every stream again, in a second pass.
    feed.announce({ kind: "access", projectId: 1 });
    for (let round = 0; round < 100 && checks.length < 20; round++) {
      for (const open of gates.splice(0)) open();
      await settle();
    }
    expect(most).toBe(4);
    expect(checks).toHaveLength(20);
  });
});
