/**
 * Personal API key material as PostHog makes it (posthog/models/personal_api_key.py,
 * posthog/models/utils.py): `phx_`/`phc_` + base62 of 32 random bytes, stored as `sha256$<hex>`,
 * shown masked.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generatePersonalApiKey,
  generateProjectApiToken,
  hashApiKey,
  maskApiKey,
  randomToken,
} from "../../../src/core/auth/api-keys.js";

const BASE62 = /^[0-9A-Za-z]+$/;

describe("randomToken", () => {
  it("is base62 of the bytes: 32 bytes give 42 or 43 characters, 1 byte at most 2", () => {
    for (let i = 0; i < 20; i++) {
      const token = randomToken();
      expect(token).toMatch(BASE62);
      // 62^42 < 2^256 <= 62^43: a full-width value needs 43 digits, a value below 62^42 fewer.
      expect(token.length).toBeGreaterThanOrEqual(38);
      expect(token.length).toBeLessThanOrEqual(43);
      const short = randomToken(1);
      expect(short).toMatch(BASE62);
      expect(short.length).toBeLessThanOrEqual(2);
    }
  });

  it("reads the bytes as one big-endian number, most significant digit first", () => {
    const decoded = (token: string) =>
      [...token].reduce(
        (value, digit) =>
          value * 62n +
          BigInt("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".indexOf(digit)),
        0n,
      );
    for (let i = 0; i < 20; i++) {
      const value = decoded(randomToken(2));
      expect(value).toBeGreaterThanOrEqual(0n);
      expect(value).toBeLessThan(65_536n);
    }
  });

  it("differs between calls", () => {
    expect(new Set(Array.from({ length: 50 }, () => randomToken())).size).toBe(50);
  });
});

describe("generated keys", () => {
  it("are phx_ and phc_ followed by a 32-byte token", () => {
    expect(generatePersonalApiKey()).toMatch(/^phx_[0-9A-Za-z]{38,43}$/);
    expect(generateProjectApiToken()).toMatch(/^phc_[0-9A-Za-z]{38,43}$/);
  });
});

describe("hashApiKey", () => {
  it("is sha256$ and the lower-case hex digest, unsalted", () => {
    const key = "phx_abc";
    expect(hashApiKey(key)).toBe(`sha256$${createHash("sha256").update(key).digest("hex")}`);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
  });
});

describe("maskApiKey", () => {
  it("keeps the first and last four characters", () => {
    expect(maskApiKey("phx_0123456789abcdWXYZ")).toBe("phx_...WXYZ");
  });
});
