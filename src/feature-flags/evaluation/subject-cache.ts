/**
 * Evaluation subjects this process read lately (./subject.queries.ts), kept until what each was read
 * from changes, so that `/flags`, OFREP and API evaluations of a known person cost no statement.
 * On the embedded database this is what keeps remote evaluation answering while another caller's
 * statement holds the one session until its timeout (issue 24, docs/architecture.md); on
 * PostgreSQL it saves a round trip per request.
 *
 * Correct by construction on the database's change feed (db/change-feed.ts): every write to what
 * the subject's statement reads (persons, their distinct ids, static cohort memberships, hash keys,
 * groups) is announced row by row by migration `change_feed_subjects`, naming the person, distinct
 * id or group it touched; this process's own writes are heard before their COMMIT returns. Each
 * entry keeps the names it was read from (`SubjectRead.dependsOn`) and the feed's position when its
 * read began; it is served only while none of those names has changed since. A read that raced a
 * change of its names is not kept, nothing is served or kept while the feed is not live, and a
 * `reset` or a truncation forgets everything.
 *
 * Bounded: past `maxEntries` subjects the least recently used goes, and past `maxChanges`
 * remembered changes the cache starts over.
 */
import type { DataAccess } from "../../core/context.js";
import type { ChangeFeed } from "../../db/change-feed.js";
import type { StoredSubject } from "./rules/subject.js";
import type { SubjectQuery, SubjectRead } from "./subject.queries.js";

/** How many subjects a process keeps by default (a few KB each for persons with many properties). */
const MAX_ENTRIES = 10_000;
/** How many changed names are remembered before the cache starts over. */
const MAX_CHANGES = 100_000;

interface Entry {
  stored: StoredSubject;
  /** The project's names the read depends on (`<project>:<name>`). */
  dependsOn: string[];
  /** The feed position when the read began: a change after it voids the entry. */
  readAt: number;
}

/** Subjects by project and query, kept while what they were read from is unchanged. */
export class SubjectCache {
  private readonly entries = new Map<string, Entry>();
  /** Feed position of the latest change of each name (`<project>:<name>`). */
  private readonly changedAt = new Map<string, number>();
  /** The feed position: moves with every change heard. */
  private position = 0;
  /** Reads begun before this position are not kept (the cache started over after them). */
  private floor = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxChanges = MAX_CHANGES,
  ) {
    feed.subscribe((change) => {
      if (change.kind === "reset") this.startOver();
      else if (change.kind === "subject") {
        if (change.projectId === null || change.named === null) this.startOver();
        else this.changed(`${change.projectId}:${change.named}`);
      }
    });
  }

  /**
   * The subject of `query` (never one that writes: `query.write` must be null), from the cache while
   * what it was read from is unchanged, else from `load`, kept for the next caller when no change
   * of its names raced the read.
   */
  async read(query: SubjectQuery, load: () => Promise<SubjectRead>): Promise<StoredSubject> {
    const key = entryKey(query);
    const found = this.find(key);
    if (found) return found;
    const readAt = this.position;
    const read = await load();
    this.keep(key, read, query.projectId, readAt);
    return read.stored;
  }

  private find(key: string): StoredSubject | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.dependsOn.some((name) => (this.changedAt.get(name) ?? 0) > entry.readAt)) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.stored;
  }

  private keep(key: string, read: SubjectRead, projectId: number, readAt: number): void {
    if (!this.feed.live || readAt < this.floor) return;
    const dependsOn = read.dependsOn.map((name) => `${projectId}:${name}`);
    if (dependsOn.some((name) => (this.changedAt.get(name) ?? 0) > readAt)) return;
    this.entries.delete(key);
    this.entries.set(key, { stored: read.stored, dependsOn, readAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  private changed(name: string): void {
    this.position++;
    this.changedAt.set(name, this.position);
    if (this.changedAt.size > this.maxChanges) this.startOver();
  }

  private startOver(): void {
    this.position++;
    this.floor = this.position;
    this.entries.clear();
    this.changedAt.clear();
  }
}

/** The cache key of a read-only subject query: everything it reads by. */
function entryKey(query: SubjectQuery): string {
  return JSON.stringify([
    query.projectId,
    query.distinctId,
    query.staticCohortIds,
    query.groups.map((group) => [group.groupTypeIndex, group.groupKey]),
    query.hashKeysOf,
  ]);
}

const cacheByData = new WeakMap<DataAccess, SubjectCache>();

/** The one subject cache of an open database's `DataAccess`, whichever service asks for it. */
export function subjectCacheOf(data: DataAccess): SubjectCache {
  let cache = cacheByData.get(data);
  if (!cache) {
    cache = new SubjectCache(data.changes);
    cacheByData.set(data, cache);
  }
  return cache;
}
