/**
 * The public project token of an SDK request, read where PostHog's capture service reads it
 * (rust/capture/src/v0_request.rs `extract_and_verify_token`, rust/common/types/src/event.rs
 * `RawEvent::extract_token`): a batch's own `api_key`/`token`; otherwise each event's `token`,
 * `$token` or `api_key`, else its `properties.token`, all events agreeing; a single object (an event,
 * or a `/flags` body) the same way. When the payload names none, the query's `token` or `api_key`
 * (older clients, posthog/api/capture.py `_get_token`).
 */
import { AuthenticationError, ParseError } from "../core/errors.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = record[name];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** One event's (or one body's) token: `token`, `$token`, `api_key`, then `properties.token`. */
function tokenOf(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  const own = stringField(item, "token", "$token", "api_key");
  if (own !== undefined) return own;
  return isRecord(item["properties"]) ? stringField(item["properties"], "token") : undefined;
}

/**
 * The one token the events name, if any.
 * @throws AuthenticationError when they name different tokens (capture's `MultipleTokensError`).
 */
function tokenOfEvents(events: readonly unknown[]): string | undefined {
  const tokens = new Set(events.map(tokenOf).filter((token) => token !== undefined));
  if (tokens.size > 1) {
    throw new AuthenticationError(
      "batch submitted with inconsistent api_key values",
      "authentication_failed",
    );
  }
  return tokens.values().next().value;
}

/**
 * The token of a decoded SDK payload (see the module comment).
 * @throws ParseError `failed to parse request: ...` (400) for a payload that is neither an object nor
 *   a list (capture fails to parse such a request before it looks for a token).
 * @throws AuthenticationError `event submitted without an api_key` (401) when there is none or it is
 *   empty; `batch submitted with inconsistent api_key values` when events disagree.
 */
export function findProjectToken(payload: unknown, query: URLSearchParams): string {
  let token: string | undefined;
  if (Array.isArray(payload)) token = tokenOfEvents(payload);
  else if (!isRecord(payload))
    throw new ParseError("failed to parse request: expected a JSON object or list");
  else {
    token = stringField(payload, "api_key", "token");
    if (token === undefined && Array.isArray(payload["batch"])) token = tokenOfEvents(payload["batch"]);
    token ??= tokenOf(payload);
  }
  token ??= query.get("token") ?? query.get("api_key") ?? undefined;
  if (!token) throw new AuthenticationError("event submitted without an api_key");
  return token;
}

/**
 * The project token of a request that carries it in a header, as OpenFeature's OFREP providers send
 * their credentials (open-feature/protocol `service/openapi.yaml` security schemes: `BearerAuth`, an
 * `Authorization: Bearer <token>`, and `ApiKeyAuth`, an `X-API-Key: <token>` header; the providers'
 * `headers` option sets either). `Authorization` wins when both are sent; the scheme is
 * case-insensitive (RFC 9110 §11.1).
 * @throws AuthenticationError `Authentication credentials were not provided.` (401) when neither
 *   header carries a token, or `Authorization` uses another scheme.
 */
export function headerToken(headers: Readonly<Record<string, string | string[] | undefined>>): string {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const authorization = first(headers["authorization"])?.trim();
  if (authorization) {
    const match = /^bearer\s+(\S+)$/i.exec(authorization);
    if (match) return match[1]!;
    throw new AuthenticationError();
  }
  const apiKey = first(headers["x-api-key"])?.trim();
  if (apiKey) return apiKey;
  throw new AuthenticationError();
}
