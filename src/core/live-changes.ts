/**
 * Live changes per project, for the subscribers that push them to clients (GraphQL subscriptions,
 * the flag definitions stream): the database's change feed (db/change-feed.ts) fanned out by
 * project, so an event costs only the subscriptions of its project, whatever the number open.
 *
 * What a subscriber hears, in commit order: `revision` when the project's revision moved, then a
 * `change` for each object its transaction wrote (ids only: subscribers read the objects
 * themselves, through the services, as of the event). `reset` when changes may have been missed
 * (the feed's connection dropped, and again once it is back): a subscriber then re-reads what it
 * shows. A subscriber never hears of a rolled-back write (NOTIFY is transactional).
 */
import type { ChangeFeed, DatabaseChange, ObjectChange } from "../db/change-feed.js";

/** What a project's subscriber hears. */
export type ProjectEvent =
  | { kind: "revision"; projectId: number; revision: bigint }
  | ObjectChange
  /** Changes may have been missed: re-read. */
  | { kind: "reset" };

/** Events a subscription may queue before the oldest are replaced by one `reset` (a slow reader). */
const MAX_QUEUED_EVENTS = 1_000;

/** A project's events as an async iterator; `return()` (or the signal) unsubscribes. */
export type ProjectEventStream = AsyncIterableIterator<ProjectEvent> & {
  return(): Promise<IteratorResult<ProjectEvent>>;
  /**
   * Ends the stream with `error`: the read waiting now, or else the next one, rejects with it (events
   * still queued are dropped), and every read after that is done. For a reader whose access was
   * revoked (core/auth/access.ts `authorizeProjectStream`).
   */
  fail(error: unknown): void;
};

/** Subscriptions to live changes, by project. */
export class LiveChanges {
  private readonly byProject = new Map<number, Set<(event: ProjectEvent) => void>>();

  constructor(private readonly feed: ChangeFeed) {
    feed.subscribe((change) => this.deliver(change));
  }

  /** True while every committed change is heard (see `ChangeFeed.live`). */
  get live(): boolean {
    return this.feed.live;
  }

  /** Open subscriptions, all projects together. */
  get subscriptions(): number {
    let count = 0;
    for (const listeners of this.byProject.values()) count += listeners.size;
    return count;
  }

  /** Calls `listener` with each event of `projectId` as it is heard; returns the unsubscribe function. */
  subscribe(projectId: number, listener: (event: ProjectEvent) => void): () => void {
    let listeners = this.byProject.get(projectId);
    if (!listeners) {
      listeners = new Set();
      this.byProject.set(projectId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.byProject.get(projectId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.byProject.delete(projectId);
    };
  }

  /**
   * The events of `projectId` from now on, queued until read (at most `MAX_QUEUED_EVENTS`: a reader
   * that falls further behind gets one `reset` instead). Ends when `signal` aborts, `return()` is
   * called or `fail()` ends it; `onEnd`, if given, is called once then.
   */
  stream(projectId: number, signal?: AbortSignal, onEnd?: () => void): ProjectEventStream {
    let queue: ProjectEvent[] = [];
    let waiting: {
      resolve: (result: IteratorResult<ProjectEvent>) => void;
      reject: (error: unknown) => void;
    } | null = null;
    let done = false;
    /** The error the next read rejects with (`fail`), once. */
    let failure: { error: unknown } | null = null;
    const finish = (): Promise<IteratorResult<ProjectEvent>> => {
      if (!done) {
        done = true;
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        queue = [];
        if (waiting && failure) waiting.reject(failure.error);
        else waiting?.resolve({ value: undefined, done: true });
        if (waiting) failure = null;
        waiting = null;
        onEnd?.();
      }
      return Promise.resolve({ value: undefined, done: true });
    };
    const onAbort = () => void finish();
    const unsubscribe = this.subscribe(projectId, (event) => {
      if (waiting) {
        const { resolve } = waiting;
        waiting = null;
        resolve({ value: event, done: false });
      } else if (queue.length >= MAX_QUEUED_EVENTS) {
        queue = [{ kind: "reset" }];
      } else {
        queue.push(event);
      }
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) void finish();
    const iterator: ProjectEventStream = {
      next: () => {
        if (done) {
          const failed = failure;
          failure = null;
          return failed ? Promise.reject(failed.error) : Promise.resolve({ value: undefined, done: true });
        }
        const event = queue.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      },
      return: finish,
      fail: (error) => {
        if (done) return;
        failure = { error };
        void finish();
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  private deliver(change: DatabaseChange): void {
    if (change.kind === "revision" || change.kind === "change") {
      const listeners = this.byProject.get(change.projectId);
      if (listeners) for (const listener of [...listeners]) listener(change);
    } else if (change.kind === "reset") {
      for (const listeners of [...this.byProject.values()]) {
        for (const listener of [...listeners]) listener(change);
      }
    }
    // `access`: open streams are authorised again by auth/open-streams.ts.
  }
}

/**
 * The object changes of `events` that `matches` accepts, and a `reset` as `reset` (the caller may
 * have missed changes: it re-reads what it shows). Revisions are left out.
 */
export async function* objectChanges(
  events: ProjectEventStream,
  matches: (change: ObjectChange) => boolean,
): AsyncGenerator<ObjectChange | { kind: "reset" }> {
  try {
    for await (const event of events) {
      if (event.kind === "reset" || (event.kind === "change" && matches(event))) yield event;
    }
  } finally {
    await events.return();
  }
}
