/**
 * The one error hierarchy of the service core. Every expected failure is a `DomainError`; it knows
 * its HTTP status, PostHog's error `type` and `code`, a safe message (`detail`) and, for validation,
 * the offending field (`attr`, nested paths joined with `__`).
 *
 * REST renders these as PostHog's `{type, code, detail, attr}` body
 * (PostHog/drf-exceptions-hog `exceptions_hog/handler.py`, posthog-behavior.md §1.3);
 * GraphQL turns them into typed error results (src/graphql/errors.graphql.ts).
 * Anything that is not a DomainError is unexpected: logged, and masked to the caller.
 */

/** PostHog's error `type` values (drf-exceptions-hog). */
export const POSTHOG_ERROR_TYPES = [
  "validation_error",
  "authentication_error",
  "invalid_request",
  "throttled_error",
  "server_error",
] as const;

/** One of `POSTHOG_ERROR_TYPES`. */
export type PostHogErrorType = (typeof POSTHOG_ERROR_TYPES)[number];

/** DRF's message for a failure whose cause is not the caller's to see. */
export const SERVER_ERROR_DETAIL = "A server error occurred.";

/**
 * What the ORM and the database driver write about themselves, which no answer may carry: Prisma's
 * invocation banner (``Invalid `prisma.$queryRawUnsafe()` invocation``), its calls (`prisma.$…(`),
 * its ``Code: `22003` `` lines and error class names, the driver adapter's, stack frames, and SQL
 * with its bound parameters (`$1::bigint`).
 */
const INTERNAL_TEXT =
  /Invalid `prisma\.|\bprisma\.\$?\w+\(|Code: `|PrismaClient\w*Error|DriverAdapterError|^\s*at \S.*:\d+:\d+\)?$|\$\d+::/m;

/** Whether `text` holds text of the ORM, the driver, a stack or SQL (see `INTERNAL_TEXT`). */
export function holdsInternalText(text: string): boolean {
  return INTERNAL_TEXT.test(text);
}

/**
 * What a caller may read of any failure, for messages stored and shown later (a refresh's or a
 * computation's error): a DomainError's `detail`, else `SERVER_ERROR_DETAIL`.
 */
export function publicMessage(error: unknown): string {
  return error instanceof DomainError ? error.detail : SERVER_ERROR_DETAIL;
}

/**
 * Base class of expected failures. `detail` is safe to show to the caller: the message, unless it
 * holds internal text (a cause wrapped carelessly), which every door then answers as
 * `SERVER_ERROR_DETAIL` instead; `message` keeps the original for the log.
 */
export abstract class DomainError extends Error {
  abstract readonly httpStatus: number;
  abstract readonly type: PostHogErrorType;
  readonly code: string;
  readonly attr: string | null;

  constructor(detail: string, code: string, attr: string | null = null) {
    super(detail);
    this.name = new.target.name;
    this.code = code;
    this.attr = attr;
  }

  /** The caller-facing message (PostHog's `detail`): never internal text. */
  get detail(): string {
    return holdsInternalText(this.message) ? SERVER_ERROR_DETAIL : this.message;
  }

  /**
   * PostHog's own REST body for this error where it is not `{type, code, detail, attr}` (an
   * approval gate's 409 with its change request, a vote's `{"error": ...}`); undefined keeps the
   * standard body (core/error-body.ts `errorBody`).
   */
  restBody(): Record<string, unknown> | undefined {
    return undefined;
  }
}

/** 400: bad input. `code` defaults to PostHog's `invalid_input`; `attr` names the field. */
export class ValidationError extends DomainError {
  readonly httpStatus = 400;
  readonly type = "validation_error" as const;
  constructor(detail: string, options: { attr?: string | null; code?: string } = {}) {
    super(detail, options.code ?? "invalid_input", options.attr ?? null);
  }
}

/** 400: the request body could not be parsed (malformed JSON). */
export class ParseError extends DomainError {
  readonly httpStatus = 400;
  readonly type = "invalid_request" as const;
  constructor(detail = "JSON parse error") {
    super(detail, "parse_error");
  }
}

/** 401: no credential, or a credential that matches no active key. */
export class AuthenticationError extends DomainError {
  readonly httpStatus = 401;
  readonly type = "authentication_error" as const;
  constructor(
    detail = "Authentication credentials were not provided.",
    code: "not_authenticated" | "authentication_failed" = "not_authenticated",
  ) {
    super(detail, code);
  }
}

/** 403: authenticated, but the key lacks a scope or may not touch this project. */
export class PermissionDeniedError extends DomainError {
  readonly httpStatus = 403;
  readonly type = "authentication_error" as const;
  constructor(detail: string) {
    super(detail, "permission_denied");
  }
}

/** 404: the object does not exist in this project (or at all). */
export class NotFoundError extends DomainError {
  readonly httpStatus = 404;
  readonly type = "invalid_request" as const;
  constructor(detail = "Not found.") {
    super(detail, "not_found");
  }
}

/**
 * 404 for the project in the path: unknown, or not an integer (posthog/api/routing.py). Shown as a
 * plain NotFoundError everywhere; the subclass only lets a route tell a missing project from a
 * missing object (PostHog answers some missing objects with an empty body, never a missing project).
 */
export class ProjectNotFoundError extends NotFoundError {
  constructor() {
    super("Project not found.");
    this.name = "NotFoundError";
  }
}

/** 405: the method is not allowed on this path. */
export class MethodNotAllowedError extends DomainError {
  readonly httpStatus = 405;
  readonly type = "invalid_request" as const;
  constructor(method: string) {
    super(`Method "${method}" not allowed.`, "method_not_allowed");
  }
}

/**
 * 409: the object changed since the caller read it (optimistic concurrency, posthog-behavior.md §2.7).
 * PostHog's `Conflict` has no type override, so its type is `server_error`.
 */
export class ConflictError extends DomainError {
  readonly httpStatus = 409;
  readonly type = "server_error" as const;
  constructor(detail: string) {
    super(detail, "conflict");
  }
}

/**
 * 413: the request is larger than a configured limit: its body in `bytes`, or the `events` of a
 * capture request (PostHog's SDKs answer a 413 by halving the batch and sending it again).
 */
export class PayloadTooLargeError extends DomainError {
  readonly httpStatus = 413;
  readonly type = "invalid_request" as const;
  constructor(limit: number, unit: "bytes" | "events" = "bytes") {
    super(
      unit === "bytes"
        ? `Request body is larger than the limit of ${limit} bytes.`
        : `Request holds more events than the limit of ${limit}.`,
      "payload_too_large",
    );
  }
}

/** 408: the client did not send a whole request in time (Node's `requestTimeout`). */
export class RequestTimeoutError extends DomainError {
  readonly httpStatus = 408;
  readonly type = "invalid_request" as const;
  constructor() {
    super("The request was not received in time.", "request_timeout");
  }
}

/** 414: the request line (path and query string) is larger than the configured header limit. */
export class UriTooLongError extends DomainError {
  readonly httpStatus = 414;
  readonly type = "invalid_request" as const;
  constructor(limitBytes: number) {
    super(`Request URI is longer than the limit of ${limitBytes} bytes.`, "uri_too_long");
  }
}

/** 431: the request's headers are larger than the configured header limit. */
export class RequestHeaderFieldsTooLargeError extends DomainError {
  readonly httpStatus = 431;
  readonly type = "invalid_request" as const;
  constructor(limitBytes: number) {
    super(
      `Request headers are larger than the limit of ${limitBytes} bytes.`,
      "request_header_fields_too_large",
    );
  }
}

/** 415: the body is of a media type no parser takes (JSON, form, multipart: DRF's default parsers). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly httpStatus = 415;
  readonly type = "invalid_request" as const;
  constructor(mediaType: string) {
    super(`Unsupported media type "${mediaType}" in request.`, "unsupported_media_type");
  }
}

/** 501: a documented operation this service does not provide yet; `detail` says why. */
export class NotImplementedError extends DomainError {
  readonly httpStatus = 501;
  readonly type = "server_error" as const;
  constructor(detail: string) {
    super(detail, "not_implemented");
  }
}

/** 503: a dependency (the database) is not ready. */
export class ServiceUnavailableError extends DomainError {
  readonly httpStatus = 503;
  readonly type = "server_error" as const;
  constructor(detail: string) {
    super(detail, "service_unavailable");
  }
}

/**
 * 429: too many requests at once, e.g. more concurrent query runs for a project than configured
 * (PostHog's endpoint run answers `Too many concurrent requests. Please try again later.`,
 * posthog-behavior.md §4.7).
 */
export class TooManyRequestsError extends DomainError {
  readonly httpStatus = 429;
  readonly type = "throttled_error" as const;
  /**
   * @param retryAfterSeconds when the caller may try again, in whole seconds: sent as `Retry-After`
   *   (a rate limit's wait, core/rate-limit.ts); undefined when unknown (a concurrency cap).
   */
  constructor(
    detail = "Too many concurrent requests. Please try again later.",
    readonly retryAfterSeconds?: number,
  ) {
    super(detail, "throttled");
  }
}
