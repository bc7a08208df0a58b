/**
 * The streams open in this process (GraphQL subscriptions over SSE and WebSocket, the flag
 * definitions streams) and whom each was authorised for, so that a revoked key, scope, project or
 * membership reaches them: each is authorised again, through the same rules as a request
 * (`WatchedStream.recheck`, see access.ts `authorizeProjectStream`), when the database's change feed
 * (db/change-feed.ts) announces an access change that names its key, its user or its project, or
 * names nothing; and every one after a `reset` (the feed's listener came back: changes may have been
 * missed). A stream that is refused, or whose re-check fails, is ended with that error.
 *
 * Cost of one access change with N streams open: finding the streams it names is one map lookup
 * (by key, user or project), whatever N; they are then re-checked once per `group` (streams opened
 * with the same door, key, token, project and scope are authorised alike), at most
 * `CONCURRENT_RECHECKS` at a time. A re-check is the door's authentication and `authorizeProject`:
 * the access change has emptied the key cache (./actor-cache.ts), so each costs one key lookup
 * statement (one more for a token a project change made the process forget, or a project not read
 * along with the key). So a change naming k streams in G groups costs G statements or a few more,
 * whatever N; a change that names nothing, or a `reset`, costs that for every group open. Changes
 * heard while a pass runs join the next pass.
 *
 * A stream is also re-checked once when it is watched: its authorisation may have read the key just
 * before a change whose announcement came before the stream was watched. (Its key is cached then: no
 * statement, unless such a change did come.)
 */
import type { ChangeFeed, DatabaseChange } from "../../db/change-feed.js";

/** Groups re-checked at once: bounds the connections one access change holds. */
const CONCURRENT_RECHECKS = 4;

/** One open stream as `OpenStreams` re-checks it. */
export interface WatchedStream {
  /** The key the stream was authorised with: an access change naming it re-checks the stream. */
  readonly keyId: string;
  /** The key's user: an access change naming the user (or a membership of theirs) re-checks the stream. */
  readonly userId: number;
  /** The project the stream shows: an access change naming it re-checks the stream. */
  readonly projectId: number;
  /**
   * Streams with the same group are authorised alike (the same door, credential, project and
   * scope): the re-check of one answers for all of them. Holds no secret.
   */
  readonly group: string;
  /** Authorises the stream again as a request would be; rejects with the refusal (a DomainError) or the failure. */
  recheck(): Promise<void>;
  /** Ends the stream with `error`: the refusal, or the re-check's failure. Called at most once. */
  end(error: unknown): void;
}

/** Streams by one id they were authorised for. */
class StreamIndex<K> {
  private readonly streams = new Map<K, Set<WatchedStream>>();

  add(id: K, stream: WatchedStream): void {
    let set = this.streams.get(id);
    if (!set) {
      set = new Set();
      this.streams.set(id, set);
    }
    set.add(stream);
  }

  delete(id: K, stream: WatchedStream): void {
    const set = this.streams.get(id);
    set?.delete(stream);
    if (set?.size === 0) this.streams.delete(id);
  }

  get(id: K): Iterable<WatchedStream> {
    return this.streams.get(id) ?? [];
  }
}

/** The process's open streams, re-checked when access changes (see the module comment). */
export class OpenStreams {
  private readonly all = new Set<WatchedStream>();
  private readonly byKey = new StreamIndex<string>();
  private readonly byUser = new StreamIndex<number>();
  private readonly byProject = new StreamIndex<number>();
  /** Streams to re-check in the next pass. */
  private due = new Set<WatchedStream>();
  private draining = false;

  constructor(private readonly feed: ChangeFeed) {
    feed.subscribe((change) => this.heard(change));
  }

  /** How many streams are watched. */
  get size(): number {
    return this.all.size;
  }

  /**
   * Watches `stream` until the returned function is called (call it when the stream ends, for any
   * reason); re-checks it once soon (see the module comment).
   */
  watch(stream: WatchedStream): () => void {
    this.all.add(stream);
    this.byKey.add(stream.keyId, stream);
    this.byUser.add(stream.userId, stream);
    this.byProject.add(stream.projectId, stream);
    this.recheck([stream]);
    return () => this.forget(stream);
  }

  private forget(stream: WatchedStream): void {
    if (!this.all.delete(stream)) return;
    this.byKey.delete(stream.keyId, stream);
    this.byUser.delete(stream.userId, stream);
    this.byProject.delete(stream.projectId, stream);
    this.due.delete(stream);
  }

  private heard(change: DatabaseChange): void {
    if (change.kind === "reset") {
      // Re-checked when the listener is back: while it is down the re-checks would read what the
      // missed changes may since have changed, and the feed says `reset` again once it is back.
      if (this.feed.live) this.recheck(this.all);
    } else if (change.kind === "access") {
      if (change.keyId !== undefined) this.recheck(this.byKey.get(change.keyId));
      else if (change.userId !== undefined) this.recheck(this.byUser.get(change.userId));
      else if (change.projectId !== undefined) this.recheck(this.byProject.get(change.projectId));
      else this.recheck(this.all);
    }
  }

  private recheck(streams: Iterable<WatchedStream>): void {
    for (const stream of streams) this.due.add(stream);
    if (this.due.size === 0 || this.draining) return;
    this.draining = true;
    // After the feed has told every subscriber: the key and token caches forget what the change
    // made stale before a re-check can read them, whatever order they subscribed in.
    queueMicrotask(() => void this.drain());
  }

  /** Re-checks the due streams in passes until none is due; never rejects. */
  private async drain(): Promise<void> {
    try {
      while (this.due.size > 0) {
        const groups = new Map<string, WatchedStream[]>();
        for (const stream of this.due) {
          const group = groups.get(stream.group);
          if (group) group.push(stream);
          else groups.set(stream.group, [stream]);
        }
        this.due = new Set();
        const pending = [...groups.values()];
        const worker = async () => {
          for (let group = pending.pop(); group; group = pending.pop()) await this.check(group);
        };
        await Promise.all(Array.from({ length: Math.min(CONCURRENT_RECHECKS, pending.length) }, worker));
      }
    } finally {
      this.draining = false;
    }
  }

  /** Re-checks one group through its first stream; ends every stream of it still open when refused. */
  private async check(group: readonly WatchedStream[]): Promise<void> {
    try {
      await group[0]!.recheck();
    } catch (error) {
      for (const stream of group) {
        if (!this.all.has(stream)) continue;
        this.forget(stream);
        try {
          stream.end(error);
        } catch {
          // A stream that cannot be ended cleanly is the door's to clean up: it never stops the others.
        }
      }
    }
  }
}
