/**
 * CORS of the SDK door, as PostHog's capture service sets it (rust/capture/src/router.rs: "Very
 * permissive CORS policy, as old SDK versions and reverse proxies might send funky headers"):
 * tower-http's `CorsLayer` with the request's origin mirrored, credentials allowed, methods
 * `GET, POST, OPTIONS` and the preflight's requested headers mirrored. A page on any origin can send
 * events with `fetch(..., {credentials: "include"})` or `navigator.sendBeacon`.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The methods a preflight is told the SDK paths take. */
const ALLOWED_METHODS = "GET,POST,OPTIONS";

const VARY = "origin, access-control-request-method, access-control-request-headers";

/**
 * The CORS headers every answer of an SDK path carries (errors included), in the order they are
 * sent, from the request's headers.
 */
export function corsHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const origin = headers.origin;
  if (!origin) return { Vary: VARY };
  return { Vary: VARY, "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true" };
}

/** Sets `corsHeaders` on the reply. */
export function setCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(corsHeaders(request.headers));
}

/** Whether `request` is a CORS preflight (an OPTIONS with `Access-Control-Request-Method`). */
export function isPreflight(request: FastifyRequest): boolean {
  return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
}

/** Sets the preflight's own headers: the allowed methods and the requested headers, mirrored. */
export function setPreflightHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header("Access-Control-Allow-Methods", ALLOWED_METHODS);
  const requested = request.headers["access-control-request-headers"];
  if (requested) reply.header("Access-Control-Allow-Headers", requested);
}

/**
 * The header that lets a cross-origin page read the `answer`'s own headers (`Access-Control-Expose-Headers`),
 * or none: a browser hides every header but the CORS-safelisted ones otherwise, and OFREP's web
 * provider reads `ETag` to send it back as `If-None-Match`.
 */
export function exposeHeaders(
  headers: IncomingHttpHeaders,
  answer: Readonly<Record<string, string>>,
): Record<string, string> {
  if (!headers.origin) return {};
  const names = Object.keys(answer);
  return names.length === 0 ? {} : { "Access-Control-Expose-Headers": names.join(", ") };
}
