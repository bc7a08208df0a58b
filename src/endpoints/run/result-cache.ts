/**
 * Cached endpoint run results, PostHog's cache rules for `run` (posthog-behavior.md §4.7;
 * `posthog/hogql_queries/query_runner.py` `cache_target_age`, `posthog/caching/utils.py`
 * `staleness_threshold_map`, `hogql_query_runner.py`):
 * - a result is reused while younger than its target age: the version's `cache_age_seconds`, or
 *   PostHog's default for the query kind: HogQL is cached "like a day insight" (6 hours); an insight
 *   by its interval (minute 5 min, hour 1 h, day 6 h, week and month 1 day; no interval 6 h);
 * - `force_blocking` always recomputes (and stores the new result);
 * - the key is the project (and its timezone), the endpoint and version, the query as run (its
 *   variables applied), limit and offset.
 *
 * Storage: an in-process LRU (`lru-cache`), bounded by entries and bytes of result JSON (config
 * `endpointCache`). Results are recomputable from the database, so losing them on restart costs only
 * a recomputation; each process keeps its own (a second process computes once more). Stored results
 * are frozen copies: callers get a fresh object per hit.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { ownValue } from "../../core/own-keys.js";
import { canonicalJson } from "../rules/query.js";

/** PostHog's DEFAULT staleness thresholds by interval, in seconds (`staleness_threshold_map`). */
const STALENESS_SECONDS: Readonly<Record<string, number>> = {
  minute: 5 * 60,
  hour: 60 * 60,
  day: 6 * 60 * 60,
  week: 24 * 60 * 60,
  month: 24 * 60 * 60,
};
/** The threshold of a query without an interval (`None` in the map): 6 hours. */
const DEFAULT_STALENESS_SECONDS = 6 * 60 * 60;

/**
 * How long a result of `query` stays fresh, in seconds: `cacheAgeSeconds` when set, else PostHog's
 * default target age for the query's kind (see the module comment).
 */
export function targetAgeSeconds(query: Record<string, unknown>, cacheAgeSeconds: number | null): number {
  if (cacheAgeSeconds !== null) return cacheAgeSeconds;
  if (query["kind"] === "HogQLQuery") return STALENESS_SECONDS["day"]!;
  const interval = typeof query["interval"] === "string" ? query["interval"] : "day";
  return ownValue(STALENESS_SECONDS, interval) ?? DEFAULT_STALENESS_SECONDS;
}

/** What identifies one cached result (see the module comment). */
export interface ResultKey {
  projectId: number;
  timezone: string;
  endpointId: string;
  version: number;
  /** The query as run, variables applied. */
  query: Record<string, unknown>;
  limit: number | null;
  offset: number | null;
}

/** A stored result: the engine's response and when it was computed. */
export interface CachedResult {
  response: Record<string, unknown>;
  computedAt: Date;
}

/** The digest a key is stored under. */
function digest(key: ResultKey): string {
  return createHash("sha256")
    .update(
      canonicalJson([
        key.projectId,
        key.timezone,
        key.endpointId,
        key.version,
        key.query,
        key.limit,
        key.offset,
      ]),
    )
    .digest("hex");
}

/** The endpoint result cache (see the module comment). */
export class ResultCache {
  readonly #lru: LRUCache<string, { json: string; computedAt: number }> | null;

  /** `maxEntries` or `maxBytes` 0 turns the cache off (every run computes). */
  constructor(options: { maxEntries: number; maxBytes: number }) {
    this.#lru =
      options.maxEntries > 0 && options.maxBytes > 0
        ? new LRUCache({
            max: options.maxEntries,
            maxSize: options.maxBytes,
            sizeCalculation: (value) => Math.max(1, value.json.length),
          })
        : null;
  }

  /** The result stored under `key` if it is younger than `maxAgeSeconds` at `now`, else undefined. */
  fresh(key: ResultKey, maxAgeSeconds: number, now: Date): CachedResult | undefined {
    const entry = this.#lru?.get(digest(key));
    if (!entry || now.getTime() >= entry.computedAt + maxAgeSeconds * 1000) return undefined;
    return { response: JSON.parse(entry.json), computedAt: new Date(entry.computedAt) };
  }

  /** Stores `response` (computed at `computedAt`) under `key`; a result too large for the cache is not kept. */
  store(key: ResultKey, response: Record<string, unknown>, computedAt: Date): void {
    this.#lru?.set(digest(key), { json: JSON.stringify(response), computedAt: computedAt.getTime() });
  }
}
