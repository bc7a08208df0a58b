/**
 * The catalogue entries this process wrote lately, so that a steady stream of the same events costs
 * no catalogue statement at all (property-defs-rs keeps such a cache of updates it issued,
 * rust/property-defs-rs/src/types.rs "dedupe and cache updates"). An entry counts as fresh for an
 * hour, the catalogue's `last_seen_at` resolution; entries are marked only after their transaction
 * committed. Bounded: past `maxEntries` it starts over (the database statements stay correct
 * without it, only cheaper with it).
 */
import type { CatalogueEntries } from "./rules/catalogue.js";

/** How long a written entry is not written again, in ms. */
const FRESH_MS = 60 * 60 * 1000;

/** What one project's catalogue entries were last written at (ms), keyed without building strings. */
interface ProjectEntries {
  events: Map<string, number>;
  /** By `type * 8 + groupTypeIndex + 1` (type 1–3, index -1–4), then name. */
  properties: Map<number, Map<string, number>>;
  /** By event, then property. */
  pairs: Map<string, Map<string, number>>;
}

/** The inner map of `outer` at `key`, made empty when missing. */
function inner<K, V>(outer: Map<K, Map<string, V>>, key: K): Map<string, V> {
  let found = outer.get(key);
  if (!found) {
    found = new Map();
    outer.set(key, found);
  }
  return found;
}

/** Recently written catalogue entries of every project. */
export class CatalogueCache {
  private readonly byProject = new Map<number, ProjectEntries>();
  private size = 0;

  constructor(private readonly maxEntries = 100_000) {}

  /** `entries` of `projectId` minus those written less than an hour before `now`. */
  unwritten(projectId: number, entries: CatalogueEntries, now: Date): CatalogueEntries {
    const written = this.byProject.get(projectId);
    if (!written) return entries;
    const stale = (at: number | undefined) => at === undefined || now.getTime() - at >= FRESH_MS;
    return {
      eventNames: entries.eventNames.filter((name) => stale(written.events.get(name))),
      properties: entries.properties.filter((p) => stale(written.properties.get(ownerOf(p))?.get(p.name))),
      eventProperties: entries.eventProperties.filter((pair) =>
        stale(written.pairs.get(pair.event)?.get(pair.property)),
      ),
    };
  }

  /** Marks `entries` of `projectId` as written at `now` (call once their transaction committed). */
  markWritten(projectId: number, entries: CatalogueEntries, now: Date): void {
    const count = entries.eventNames.length + entries.properties.length + entries.eventProperties.length;
    if (this.size + count > this.maxEntries) {
      this.byProject.clear();
      this.size = 0;
    }
    let written = this.byProject.get(projectId);
    if (!written) {
      written = { events: new Map(), properties: new Map(), pairs: new Map() };
      this.byProject.set(projectId, written);
    }
    const at = now.getTime();
    // Counted as added even when refreshed: the bound may be reached early, never late.
    this.size += count;
    for (const name of entries.eventNames) written.events.set(name, at);
    for (const p of entries.properties) inner(written.properties, ownerOf(p)).set(p.name, at);
    for (const pair of entries.eventProperties) inner(written.pairs, pair.event).set(pair.property, at);
  }
}

/** A property entry's owner (type and group type index) as one small number. */
const ownerOf = (p: CatalogueEntries["properties"][number]) => p.type * 8 + p.groupTypeIndex + 1;
