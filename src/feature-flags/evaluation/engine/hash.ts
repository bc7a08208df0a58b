/**
 * PostHog's bucketing hash (posthog-behavior.md §3.1; Rust `flag_matching_utils.rs` `calculate_hash`,
 * posthog-node `getFeatureFlagHash`): the first 15 hex digits of `sha1(prefix + identifier + salt)`
 * read as an integer and divided by `0xFFFFFFFFFFFFFFF`, a float in [0, 1). The division is done in
 * doubles as posthog-node does it, which is what the published vectors were computed with.
 */
import { hash } from "node:crypto";

/** `0xFFFFFFFFFFFFFFF` as a double, which rounds to exactly 2^60 (as it does in posthog-node). */
const LONG_SCALE = 2 ** 60;

/**
 * `hash(prefix, identifier, salt)` of §3.1, in [0, 1). One-shot `crypto.hash` (UTF-8 input, hex
 * output): evaluation hashes once or twice per flag and subject, and the one-shot form skips the
 * `Hash` object `createHash` builds each time (npm run bench, `engine`).
 */
export function bucketHash(prefix: string, identifier: string, salt = ""): number {
  const hex = hash("sha1", prefix + identifier + salt, "hex");
  return Number.parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
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
