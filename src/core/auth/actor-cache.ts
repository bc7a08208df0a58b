/**
 * Authenticated actors per key, kept per process so that a request with a known key costs no
 * statement (the key lookup was the largest part of every cheap request: issue 6's GraphQL page,
 * issue 8's local-evaluation poll).
 *
 * Correct by construction on the database's change feed (db/change-feed.ts): every change to what
 * the key lookup reads (keys, users, memberships, projects' own fields; migration `change_feed`) is
 * announced and clears the cache, this process's own before its COMMIT returns; revisions, which
 * move with every configuration write, are not kept here but taken from `ProjectRevisions` on each
 * hit. A lookup that raced an announcement is not kept (`generation`), and nothing is served or kept
 * while the feed is not live. Unknown keys are never cached: a key created a moment ago works at once.
 */
import type { ChangeFeed } from "../../db/change-feed.js";
import type { ProjectRevisions } from "../project-revisions.js";
import type { Actor } from "./actor.js";
import { hashApiKey } from "./api-keys.js";

/** How many (key, project) lookups a process keeps before it starts over. */
const MAX_ENTRIES = 10_000;

/** A cached lookup: the actor as read, and when its key was last marked used (ms since the epoch). */
export interface CachedActor {
  actor: Actor;
  lastUsedAtMs: number | null;
}

/** Actors by (key hash, project the request named), invalidated by the change feed. */
export class ActorCache {
  private readonly entries = new Map<string, CachedActor>();
  /**
   * The stored forms (`hashApiKey`) of the raw keys whose actors are kept, so that a poll with a
   * known key hashes nothing (issue 25's poll). Raw keys are held only while their actor is: cleared
   * with the entries, so a deleted or changed key is forgotten at its announcement.
   */
  private readonly storedForms = new Map<string, string>();
  /** Moves with every announcement that clears the cache: a lookup begun before it is not kept. */
  private generationValue = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly revisions: ProjectRevisions,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    feed.subscribe((change) => {
      if (change.kind === "revision" || change.kind === "change" || change.kind === "subject") return;
      this.generationValue++;
      this.entries.clear();
      this.storedForms.clear();
    });
  }

  /** Take before a lookup; pass to `keep` after it. */
  get generation(): number {
    return this.generationValue;
  }

  /**
   * The actor of `secureValue` for `projectId` (null: none named), with each project's newest known
   * revision, or undefined when not cached (or the feed is not live). The entry itself is returned
   * (no copy per hit: the poll path's cost); its actor is replaced, never changed, when a revision
   * moved, so an actor a request holds stays as it was.
   */
  find(secureValue: string, projectId: number | null): CachedActor | undefined {
    if (!this.feed.live) return undefined;
    const entry = this.entries.get(entryKey(secureValue, projectId));
    if (!entry) return undefined;
    const { projects } = entry.actor;
    if (projects.some(this.revisionMoved)) {
      entry.actor = {
        ...entry.actor,
        projects: projects.map((each) => ({
          ...each,
          revision: this.revisions.note(each.id, each.revision),
        })),
      };
    }
    return entry;
  }

  /** Whether a newer revision of `project` is known than the one it carries. */
  private readonly revisionMoved = (project: Actor["projects"][number]): boolean =>
    this.revisions.note(project.id, project.revision) !== project.revision;

  /** The stored form of `rawKey` (`hashApiKey`): remembered while its actor is kept, else hashed. */
  storedFormOf(rawKey: string): string {
    return (this.feed.live && this.storedForms.get(rawKey)) || hashApiKey(rawKey);
  }

  /**
   * Keeps a lookup made since `generation` was taken, unless an announcement came in between;
   * `rawKey`, when given, is the key whose stored form `secureValue` is (see `storedFormOf`).
   */
  keep(
    generation: number,
    secureValue: string,
    projectId: number | null,
    entry: CachedActor,
    rawKey?: string,
  ): void {
    if (generation !== this.generationValue || !this.feed.live) return;
    for (const project of entry.actor.projects) this.revisions.note(project.id, project.revision);
    if (this.entries.size >= this.maxEntries) {
      this.entries.clear();
      this.storedForms.clear();
    }
    this.entries.set(entryKey(secureValue, projectId), entry);
    if (rawKey !== undefined) this.storedForms.set(rawKey, secureValue);
  }

  /** Records that the key was just marked used, so the hourly update is not repeated. */
  markUsed(secureValue: string, projectId: number | null, atMs: number): void {
    const entry = this.entries.get(entryKey(secureValue, projectId));
    if (entry) entry.lastUsedAtMs = atMs;
  }
}

function entryKey(secureValue: string, projectId: number | null): string {
  return projectId === null ? secureValue : `${secureValue}#${projectId}`;
}
