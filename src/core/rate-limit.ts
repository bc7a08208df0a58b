/**
 * Request rate limits, as PostHog throttles its API (posthog/rate_limit.py on DRF's
 * `SimpleRateThrottle`, rest_framework/throttling.py):
 * - the management API (REST and GraphQL) per personal API key: `burst` 480/minute and `sustained`
 *   4800/hour (PostHog's `BurstRateThrottle`, `SustainedRateThrottle`), one request counted in each;
 * - a route's own scope instead of the key's limits, per project or per project token (PostHog's
 *   per-action throttles, such as `LocalEvaluationThrottle`): the domains declare their scopes
 *   (`RateScopes`) and the composition root gives each its configured rate.
 *
 * DRF's algorithm, exactly: each identity keeps the times of its requests within the last duration;
 * a request is refused when that many are already there, and a refused request is not recorded. Its
 * wait, sent as `Retry-After` and in the detail, is the time until the oldest of them leaves the
 * window. Every limit that applies is checked (a request refused by one is still counted by the
 * others that allow it, as DRF's `check_throttles` does), and the longest wait is answered.
 *
 * Counts are per process, in memory (PostHog keeps them in its Django cache, Redis): N server
 * processes behind one balancer allow up to N times a limit. A restart forgets them.
 */
import type { Rate } from "../config.js";
import { TooManyRequestsError } from "./errors.js";

/** Times a new identity's ring holds before it first grows. */
const INITIAL_CAPACITY = 8;

/**
 * The times of one identity's recent requests: a ring of at most `capacity` times (the rate's
 * requests), oldest at `head`. It starts small and doubles when full, so an identity costs what it
 * uses: allocated at `capacity` up front, a rate of 1,000,000/minute took 8 MB per identity even
 * for one request (the soak found 800 MB held for one key at 100,000,000/hour).
 */
class RequestTimes {
  private times: Float64Array;
  private head = 0;
  count = 0;

  constructor(private readonly capacity: number) {
    this.times = new Float64Array(Math.min(capacity, INITIAL_CAPACITY));
  }

  /** The newest time, or -Infinity when empty. */
  newest(): number {
    return this.count === 0
      ? Number.NEGATIVE_INFINITY
      : this.times[(this.head + this.count - 1) % this.times.length]!;
  }

  /** The oldest time (only when not empty). */
  oldest(): number {
    return this.times[this.head]!;
  }

  /** Forgets times at or before `cutoff` (DRF: `while history and history[-1] <= now - duration`). */
  dropUntil(cutoff: number): void {
    while (this.count > 0 && this.times[this.head]! <= cutoff) {
      this.head = (this.head + 1) % this.times.length;
      this.count--;
    }
  }

  /** Adds `time` as the newest; the caller keeps `count` under `capacity`. */
  push(time: number): void {
    if (this.count === this.times.length) this.grow();
    this.times[(this.head + this.count) % this.times.length] = time;
    this.count++;
  }

  /** Doubles the ring (at most to `capacity`), its times copied oldest first. */
  private grow(): void {
    const grown = new Float64Array(Math.min(this.capacity, this.times.length * 2));
    for (let i = 0; i < this.count; i++) grown[i] = this.times[(this.head + i) % this.times.length]!;
    this.times = grown;
    this.head = 0;
  }
}

/** One limit (DRF's `SimpleRateThrottle` of one scope) over any number of identities. */
export class Throttle {
  private readonly byIdent = new Map<string, RequestTimes>();
  private lastSweep = 0;

  constructor(readonly rate: Rate) {}

  /**
   * Records a request of `ident` at `now` (ms since the epoch) when the limit allows it and answers
   * 0; otherwise records nothing and answers the wait until it would be allowed, in ms (> 0).
   */
  take(ident: string, now: number): number {
    this.sweep(now);
    const cutoff = now - this.rate.durationMs;
    let times = this.byIdent.get(ident);
    if (times === undefined) {
      times = new RequestTimes(this.rate.requests);
      this.byIdent.set(ident, times);
    }
    times.dropUntil(cutoff);
    if (times.count >= this.rate.requests) return Math.max(1, times.oldest() - cutoff);
    times.push(now);
    return 0;
  }

  /** Identities with times held (for tests and metrics). */
  get size(): number {
    return this.byIdent.size;
  }

  /** Once per duration, forgets identities with no request in the window, so memory follows use. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.rate.durationMs) return;
    this.lastSweep = now;
    const cutoff = now - this.rate.durationMs;
    for (const [ident, times] of this.byIdent) if (times.newest() <= cutoff) this.byIdent.delete(ident);
  }
}

/**
 * The limits a route may take instead of the key's, by name, each counted per identity (a project's
 * id for management paths, a project token for SDK paths): PostHog's per-action throttles. Each
 * domain adds the scopes its routes name by declaration merging:
 * `declare module "../core/rate-limit.js" { interface RateScopes { capture: true } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from each domain
export interface RateScopes {}

/** A route's own limit (`RateScopes`). */
export type RateScope = keyof RateScopes & string;

/** The rates a process enforces: the key's two windows, and each route scope's (null: no limit). */
export interface RateLimitSettings {
  burst: Rate | null;
  sustained: Rate | null;
  scopes: { readonly [S in RateScope]: Rate | null };
}

/**
 * Throws DRF's `Throttled` for a positive wait (ms); does nothing for 0.
 * @throws TooManyRequestsError (429, `throttled`, `Retry-After`).
 */
export function throwIfThrottled(waitMs: number): void {
  if (waitMs > 0) throw throttledError(waitMs);
}

/**
 * DRF's `Throttled` for a wait in ms: 429 `throttled`, `Request was throttled. Expected available
 * in N seconds.` with N the wait rounded up to whole seconds, also its `Retry-After`.
 */
export function throttledError(waitMs: number): TooManyRequestsError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new TooManyRequestsError(
    `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? "" : "s"}.`,
    seconds,
  );
}

/** Every limit of a process, checked by the doors. */
export class RateLimits {
  private readonly burst: Throttle | null;
  private readonly sustained: Throttle | null;
  private readonly scopes = new Map<string, Throttle>();

  constructor(
    settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {
    const throttle = (rate: Rate | null) => (rate ? new Throttle(rate) : null);
    this.burst = throttle(settings.burst);
    this.sustained = throttle(settings.sustained);
    for (const [scope, rate] of Object.entries(settings.scopes) as [string, Rate | null][]) {
      if (rate) this.scopes.set(scope, new Throttle(rate));
    }
  }

  /**
   * Counts one management request (REST or GraphQL) of the key `keyId` against the burst and the
   * sustained limit; answers the longest wait in ms, 0 when both allow it.
   */
  waitForKey(keyId: string): number {
    const now = this.now();
    return Math.max(this.burst?.take(keyId, now) ?? 0, this.sustained?.take(keyId, now) ?? 0);
  }

  /**
   * Counts one request of the route scope `scope` for `identity` (a project's id, a project token);
   * answers the wait in ms, 0 when allowed or when the scope has no limit.
   */
  waitForScope(scope: RateScope, identity: string | number): number {
    return this.scopes.get(scope)?.take(String(identity), this.now()) ?? 0;
  }
}
