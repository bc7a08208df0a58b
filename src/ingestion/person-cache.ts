/**
 * The persons this process read lately for capture's steady state (ingestion.service.ts), by
 * project and distinct id, each as it was read at its `version`: a steady stream of events of
 * known users then costs one statement, the INSERT whose check confirms that every person is still
 * at the version read (ingestion.queries.ts `insertEventsIfPersonsUnchanged`).
 *
 * An entry is never wrong, only out of date: a person's row at a given `version` is always the
 * same (every write of a person moves its `version`, person-store.ts), and a distinct id leaves
 * its person only when that person is merged away (deleted). An out-of-date entry fails the
 * check; the request then goes through its transaction and its ids are forgotten. Entries come
 * only from rows as read, never from a batch's outcome in memory, which may hold changes that
 * were not written (frequently changing keys, rules/person-properties.ts); nothing may modify an
 * entry's state (person-state.ts copies a state before changing it).
 *
 * Bounded: past `maxEntries`, the entries read longest ago go (a user still active is read again
 * once, one statement more).
 */
import type { LoadedPerson } from "./person-store.js";

/** How many distinct ids a process keeps by default (a few KB each for persons with many properties). */
const MAX_ENTRIES = 10_000;

/** Recently read persons of every project, by distinct id. */
export class PersonCache {
  private readonly entries = new Map<string, LoadedPerson>();

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  /** The persons of every one of `distinctIds` in `projectId` (one per id), or null if any is not kept. */
  get(projectId: number, distinctIds: readonly string[]): LoadedPerson[] | null {
    const found: LoadedPerson[] = [];
    for (const distinctId of distinctIds) {
      const person = this.entries.get(keyOf(projectId, distinctId));
      if (!person) return null;
      found.push(person);
    }
    return found;
  }

  /** Keeps `persons` of `projectId` (rows as read), evicting the oldest kept beyond the bound. */
  remember(projectId: number, persons: readonly LoadedPerson[]): void {
    for (const person of persons) {
      const key = keyOf(projectId, person.distinctId);
      this.entries.delete(key);
      this.entries.set(key, person);
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }

  /** Forgets `distinctIds` of `projectId` (their persons may have changed). */
  forget(projectId: number, distinctIds: readonly string[]): void {
    for (const distinctId of distinctIds) this.entries.delete(keyOf(projectId, distinctId));
  }
}

const keyOf = (projectId: number, distinctId: string) => `${projectId}\u0000${distinctId}`;
