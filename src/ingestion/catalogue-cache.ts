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

/** Recently written catalogue entries of every project. */
export class CatalogueCache {
  private readonly written = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  /** `entries` of `projectId` minus those written less than an hour before `now`. */
  unwritten(projectId: number, entries: CatalogueEntries, now: Date): CatalogueEntries {
    const stale = (key: string) => {
      const at = this.written.get(key);
      return at === undefined || now.getTime() - at >= FRESH_MS;
    };
    return {
      eventNames: entries.eventNames.filter((name) => stale(eventKey(projectId, name))),
      properties: entries.properties.filter((p) => stale(propertyKey(projectId, p))),
      eventProperties: entries.eventProperties.filter((pair) => stale(pairKey(projectId, pair))),
    };
  }

  /** Marks `entries` of `projectId` as written at `now` (call once their transaction committed). */
  markWritten(projectId: number, entries: CatalogueEntries, now: Date): void {
    const keys = [
      ...entries.eventNames.map((name) => eventKey(projectId, name)),
      ...entries.properties.map((p) => propertyKey(projectId, p)),
      ...entries.eventProperties.map((pair) => pairKey(projectId, pair)),
    ];
    if (this.written.size + keys.length > this.maxEntries) this.written.clear();
    for (const key of keys) this.written.set(key, now.getTime());
  }
}

const eventKey = (projectId: number, name: string) => `e\u0000${projectId}\u0000${name}`;
const propertyKey = (projectId: number, p: CatalogueEntries["properties"][number]) =>
  `p\u0000${projectId}\u0000${p.type}\u0000${p.groupTypeIndex}\u0000${p.name}`;
const pairKey = (projectId: number, pair: CatalogueEntries["eventProperties"][number]) =>
  `x\u0000${projectId}\u0000${pair.event}\u0000${pair.property}`;
