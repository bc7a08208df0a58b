/**
 * PostHog's bucketing hash (posthog-behavior.md §3.1; Rust `flag_matching_utils.rs` `calculate_hash`,
 * posthog-node `getFeatureFlagHash`): the first 15 hex digits of `sha1(prefix + identifier + salt)`
 * read as an integer and divided by `0xFFFFFFFFFFFFFFF`, a float in [0, 1). The division is done in
 * doubles as posthog-node does it, which is what the published vectors were computed with.
 */
import { hash } from "node:crypto";

/** `0xFFFFFFFFFFFFFFF` as a double, which rounds to exactly 2^60 (as it does in posthog-node). */
const LONG_SCALE = 2 ** 60;

/** How many hashes each kind's memo holds before it starts over. */
const MAX_REMEMBERED = 25_000;
/** The longest identifier remembered, in UTF-16 units (a distinct id is the caller's to choose). */
const MAX_REMEMBERED_IDENTIFIER = 200;

/**
 * Hashes of one kind computed lately, by identifier, then flag key: a subject evaluated again (each
 * page load of a person calls `/flags`) hashes none of its flags again. SHA-1 was 29% of a `/flags`
 * answer's CPU (issue 29's profile). Keyed by the strings evaluation already holds (no key is built
 * per lookup). Bounded: past `maxEntries` hashes it starts over; identifiers longer than
 * `maxIdentifier` are not kept.
 */
export class HashMemo {
  private readonly byIdentifier = new Map<string, Map<string, number>>();
  private count = 0;

  constructor(
    private readonly compute: (flagKey: string, identifier: string) => number,
    private readonly maxEntries = MAX_REMEMBERED,
    private readonly maxIdentifier = MAX_REMEMBERED_IDENTIFIER,
  ) {}

  /** How many hashes are kept. */
  get size(): number {
    return this.count;
  }

  /** The hash of `flagKey` and `identifier`, remembered or computed. */
  hash(flagKey: string, identifier: string): number {
    let forIdentifier = this.byIdentifier.get(identifier);
    const known = forIdentifier?.get(flagKey);
    if (known !== undefined) return known;
    const value = this.compute(flagKey, identifier);
    if (identifier.length > this.maxIdentifier) return value;
    if (this.count >= this.maxEntries) {
      this.byIdentifier.clear();
      this.count = 0;
      forIdentifier = undefined;
    }
    if (forIdentifier === undefined) {
      forIdentifier = new Map();
      this.byIdentifier.set(identifier, forIdentifier);
    }
    forIdentifier.set(flagKey, value);
    this.count++;
    return value;
  }
}

/**
 * `hash(prefix, identifier, salt)` of §3.1, in [0, 1). One-shot `crypto.hash` (UTF-8 input, hex
 * output): evaluation hashes once or twice per flag and subject, and the one-shot form skips the
 * `Hash` object `createHash` builds each time (npm run bench, `engine`).
 */
export function bucketHash(prefix: string, identifier: string, salt = ""): number {
  const hex = hash("sha1", prefix + identifier + salt, "hex");
  return Number.parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
}

const rollouts = new HashMemo((flagKey, identifier) => bucketHash(`${flagKey}.`, identifier));
const variants = new HashMemo((flagKey, identifier) => bucketHash(`${flagKey}.`, identifier, "variant"));
const holdouts = new HashMemo((_, identifier) => bucketHash("holdout-", identifier));

/** The hash a condition's rollout compares with `rollout_percentage / 100` (prefix `"<key>."`). */
export function rolloutHash(flagKey: string, identifier: string): number {
  return rollouts.hash(flagKey, identifier);
}

/** The hash that picks a variant (prefix `"<key>."`, salt `"variant"`). */
export function variantHash(flagKey: string, identifier: string): number {
  return variants.hash(flagKey, identifier);
}

/** The hash a holdout compares with `exclusion_percentage / 100` (prefix `"holdout-"`, any flag). */
export function holdoutHash(identifier: string): number {
  return holdouts.hash("", identifier);
}
