/**
 * PostHog's bucketing hash (posthog-behavior.md §3.1; Rust `flag_matching_utils.rs` `calculate_hash`,
 * posthog-node `getFeatureFlagHash`): the first 15 hex digits of `sha1(prefix + identifier + salt)`
 * read as an integer and divided by `0xFFFFFFFFFFFFFFF`, a float in [0, 1). The division is done in
 * doubles as posthog-node does it, which is what the published vectors were computed with.
 */
import { hash } from "node:crypto";

/** `0xFFFFFFFFFFFFFFF` as a double, which rounds to exactly 2^60 (as it does in posthog-node). */
const LONG_SCALE = 2 ** 60;

/** How many hashes the process remembers before it starts over. */
const MAX_REMEMBERED = 50_000;
/**
 * The longest input remembered, in UTF-16 units (a distinct id is the caller's to choose): with
 * `MAX_REMEMBERED`, at most some 30 MB, typically a few (keys of a flag key and an id).
 */
const MAX_REMEMBERED_INPUT = 256;

/**
 * The hashes computed lately, by their input: a subject evaluated again (each page load of a
 * person calls `/flags`) hashes none of its flags again. SHA-1 was 29% of a `/flags` answer's CPU
 * (issue 29's profile). Bounded: past `MAX_REMEMBERED` it starts over.
 */
const remembered = new Map<string, number>();

/**
 * `hash(prefix, identifier, salt)` of §3.1, in [0, 1). One-shot `crypto.hash` (UTF-8 input, hex
 * output): evaluation hashes once or twice per flag and subject, and the one-shot form skips the
 * `Hash` object `createHash` builds each time (npm run bench, `engine`); remembered by input.
 */
export function bucketHash(prefix: string, identifier: string, salt = ""): number {
  const input = prefix + identifier + salt;
  let value = remembered.get(input);
  if (value === undefined) {
    value = Number.parseInt(hash("sha1", input, "hex").slice(0, 15), 16) / LONG_SCALE;
    if (input.length <= MAX_REMEMBERED_INPUT) {
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(input, value);
    }
  }
  return value;
}

/** The hash a condition's rollout compares with `rollout_percentage / 100` (prefix `"<key>."`). */
export function rolloutHash(flagKey: string, identifier: string): number {
  return bucketHash(`${flagKey}.`, identifier);
}

/** The hash that picks a variant (prefix `"<key>."`, salt `"variant"`). */
export function variantHash(flagKey: string, identifier: string): number {
  return bucketHash(`${flagKey}.`, identifier, "variant");
}

/** The hash a holdout compares with `exclusion_percentage / 100` (prefix `"holdout-"`, any flag). */
export function holdoutHash(identifier: string): number {
  return bucketHash("holdout-", identifier);
}
