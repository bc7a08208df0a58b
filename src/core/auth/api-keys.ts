/**
 * Personal API key material (posthog/models/personal_api_key.py, posthog/models/utils.py):
 * `phx_` + base62 of 32 random bytes; stored only as `sha256$<hex>`; shown masked as `phx_...abcd`.
 */
import { hash, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 of an unsigned big-endian integer, as PostHog's `int_to_base(..., 62)`. */
function toBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out || "0";
}

/** A random token: base62 of `nbytes` random bytes. */
export function randomToken(nbytes = 32): string {
  return toBase62(randomBytes(nbytes));
}

/** A new raw personal API key (`phx_…`). Show it once; store only its `hashApiKey`. */
export function generatePersonalApiKey(): string {
  return `phx_${randomToken(32)}`;
}

/** A new public project token (`phc_…`), used by SDKs to send events and evaluate flags. */
export function generateProjectApiToken(): string {
  return `phc_${randomToken(32)}`;
}

/** The stored form of a key: `sha256$` + lower-case hex SHA-256 (no salt, as PostHog). */
export function hashApiKey(rawKey: string): string {
  return `sha256$${hash("sha256", rawKey, "hex")}`;
}

/** The displayable mask of a key: first 4 and last 4 characters, e.g. `phx_...abcd`. */
export function maskApiKey(rawKey: string): string {
  return `${rawKey.slice(0, 4)}...${rawKey.slice(-4)}`;
}
