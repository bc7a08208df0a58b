/**
 * PostHog's REST error body `{type, code, detail, attr}` (drf-exceptions-hog `exceptions_hog/handler.py`,
 * posthog-behavior.md §1.3), from our error hierarchy and from the HTTP layer's own failures.
 */
import { z } from "zod";
import {
  DomainError,
  NotFoundError,
  ParseError,
  PayloadTooLargeError,
  POSTHOG_ERROR_TYPES,
  SERVER_ERROR_DETAIL,
  TooManyRequestsError,
  ValidationError,
} from "./errors.js";
import { unstorableTextError } from "./json-input.js";

/** The body PostHog answers every error with: the route table's error response and its OpenAPI `Error`. */
export const errorBodySchema = z
  .object({
    type: z.enum(POSTHOG_ERROR_TYPES),
    code: z
      .string()
      .describe("Machine-readable: `invalid_input`, `required`, `not_found`, `permission_denied`, ..."),
    detail: z.string().describe("A message for people."),
    attr: z.string().nullable().describe("The offending field, nested paths joined by `__`; null when none."),
  })
  .meta({ id: "Error", description: "PostHog's error body (drf-exceptions-hog)." });

/** The body PostHog answers every error with. */
export type PostHogErrorBody = z.output<typeof errorBodySchema>;

/** The REST body of a domain error: its own (`DomainError.restBody`), else PostHog's standard one. */
export function errorBody(error: DomainError): PostHogErrorBody | Record<string, unknown> {
  return error.restBody() ?? { type: error.type, code: error.code, detail: error.detail, attr: error.attr };
}

/**
 * The headers an error's answer carries beside its body: `WWW-Authenticate: Bearer` on a 401 (REST
 * door only: `withAuthenticate`), `Retry-After` (seconds) on a 429 whose wait is known (DRF's
 * exception handler sets it from `Throttled.wait`).
 */
export function errorHeaders(error: DomainError, withAuthenticate: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (withAuthenticate && error.httpStatus === 401) headers["WWW-Authenticate"] = "Bearer";
  if (error instanceof TooManyRequestsError && error.retryAfterSeconds !== undefined) {
    headers["Retry-After"] = String(error.retryAfterSeconds);
  }
  return headers;
}

/** What an unexpected error shows: nothing of its cause (DRF's generic 500). */
export const SERVER_ERROR_BODY: PostHogErrorBody = {
  type: "server_error",
  code: "error",
  detail: SERVER_ERROR_DETAIL,
  attr: null,
};

/**
 * Turns a failure of the HTTP layer (fastify's body reading and routing errors, which carry a
 * `code` such as `FST_ERR_CTP_BODY_TOO_LARGE`), or the database's refusal of a NUL in a value
 * (`unstorableTextError`), into a domain error; returns null for anything else.
 */
export function httpLayerError(error: unknown, bodyLimitBytes: number): DomainError | null {
  if (error instanceof DomainError) return error;
  const unstorable = unstorableTextError(error);
  if (unstorable) return unstorable;
  const { code, message, statusCode } = error as { code?: string; message?: string; statusCode?: number };
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new PayloadTooLargeError(bodyLimitBytes);
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ParseError("Request body size did not match Content-Length");
    case "FST_ERR_NOT_FOUND":
      return new NotFoundError();
  }
  if (statusCode === 400 && message) return new ValidationError(message);
  return null;
}
