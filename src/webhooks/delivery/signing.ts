/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, spec/standard-webhooks.md):
 * the secret is `whsec_<base64 of 24 random bytes>`; each delivery carries `webhook-id` (stable
 * across retries: the activity-log entry's id), `webhook-timestamp` (Unix seconds of this attempt)
 * and `webhook-signature: v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>" with the decoded key>`.
 * Written with node:crypto: the algorithm is these few lines, and the `standardwebhooks` package
 * adds nothing a receiver-independent test does not check.
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A new secret: `whsec_` and the base64 of 24 random bytes (192 bits, within the spec's 24–64 bytes). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

/** The base64 signature (no `v1,`) of `body` sent as message `id` at `timestamp` (Unix seconds) with `secret`. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  return createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
}

/** The three Standard Webhooks headers of one attempt. */
export function signedHeaders(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${signature(secret, id, timestamp, body)}`,
  };
}
