/**
 * A failed run as PostHog records and shows it: the classification (posthog/tasks/process_scheduled_changes.py
 * `is_unrecoverable_error`), the failure context stored as JSON text in `failure_reason` (the
 * `except` of `process_scheduled_changes`), and the message clients read
 * (products/feature_flags/backend/models/scheduled_change.py `formatted_failure_reason`). Pure.
 *
 * Unrecoverable failures end the schedule at once (`executed_at` set, the change never applied);
 * recoverable ones are tried again by the next sweep, until `MAX_RETRY_ATTEMPTS` failures in all.
 */
import {
  ConflictError,
  DomainError,
  holdsInternalText,
  NotFoundError,
  SERVER_ERROR_DETAIL,
  ValidationError,
} from "../../core/errors.js";

/** Failures in all before a schedule is given up (PostHog's `MAX_RETRY_ATTEMPTS`). */
export const MAX_RETRY_ATTEMPTS = 5;

/**
 * A failure of the change itself, raised by the dispatcher's checks (rules/operations.ts) with
 * PostHog's message and the Python exception type PostHog raises it as (`Exception`, `ValueError`,
 * `TypeError`, `DoesNotExist`).
 */
export class ScheduledChangeError extends Error {
  constructor(
    message: string,
    /** The Python exception type PostHog raises for it, stored as `error_type`. */
    readonly pythonType: "Exception" | "ValueError" | "TypeError" | "DoesNotExist",
  ) {
    super(message);
    this.name = "ScheduledChangeError";
  }
}

/** Python's exception types `is_unrecoverable_error` lists (Django's ValidationError, ObjectDoesNotExist, IntegrityError; ValueError, KeyError, TypeError). */
const UNRECOVERABLE_TYPES = new Set([
  "ValidationError",
  "DoesNotExist",
  "IntegrityError",
  "ValueError",
  "KeyError",
  "TypeError",
]);

/** Messages `is_unrecoverable_error` takes as permanent, whatever the type (lower-cased substrings). */
const PERMANENT_ERROR_INDICATORS = [
  "invalid payload",
  "unrecognized operation",
  "does not exist",
  "constraint",
  "foreign key",
  "unique constraint",
];

/** A failure as the failure context names it: its message and its (Python-named) type. */
export interface DescribedFailure {
  /** What `str(e)` shows: safe to show (never ORM, driver or SQL text). */
  error: string;
  /** The exception's type name (`error_type`). */
  errorType: string;
}

/** Whether `error` is a Prisma unique or foreign-key violation (Django's IntegrityError). */
function isIntegrityError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    error.name === "PrismaClientKnownRequestError" &&
    (code === "P2002" || code === "P2003")
  );
}

/**
 * `error` as the failure context records it: a DomainError by its detail (a validation error with
 * its field first: `active: Must be a valid boolean.`) and PostHog's type (`ValidationError`,
 * `DoesNotExist` for a missing object), the dispatcher's errors as raised, a database constraint as
 * `IntegrityError`, and anything else by its message unless that holds internal text.
 */
export function describeFailure(error: unknown): DescribedFailure {
  if (error instanceof ScheduledChangeError) return { error: error.message, errorType: error.pythonType };
  if (error instanceof ValidationError) {
    return {
      error: error.attr ? `${error.attr}: ${error.detail}` : error.detail,
      errorType: "ValidationError",
    };
  }
  if (error instanceof NotFoundError) return { error: error.detail, errorType: "DoesNotExist" };
  if (error instanceof ConflictError) return { error: error.detail, errorType: "Conflict" };
  if (error instanceof DomainError) return { error: error.detail, errorType: error.name };
  if (isIntegrityError(error))
    return { error: "A database constraint was violated.", errorType: "IntegrityError" };
  const message = error instanceof Error ? error.message : String(error);
  return {
    error: holdsInternalText(message) || message === "" ? SERVER_ERROR_DETAIL : message,
    errorType: error instanceof Error ? error.name : "Exception",
  };
}

/**
 * Whether a failure is permanent (`is_unrecoverable_error`): a type PostHog lists, or a message
 * holding one of its indicators. A DomainError refusing the change (4xx, or 501: not built) is
 * permanent too: trying again would be refused again. Conflicts (409) and everything else (a lost
 * connection, a time-out) are recoverable.
 */
export function isUnrecoverable(
  error: unknown,
  described: DescribedFailure = describeFailure(error),
): boolean {
  const message = described.error.toLowerCase();
  if (PERMANENT_ERROR_INDICATORS.some((indicator) => message.includes(indicator))) return true;
  if (UNRECOVERABLE_TYPES.has(described.errorType)) return true;
  if (error instanceof ConflictError) return false;
  return error instanceof DomainError && (error.httpStatus < 500 || error.httpStatus === 501);
}

/** PostHog's failure context, in its key order: what `failure_reason` stores as JSON text. */
export interface FailureContext {
  error: string;
  error_type: string;
  hostname: string;
  will_retry: boolean;
  retry_count: number;
  max_retries: number;
  retry_exhausted?: true;
  error_classification: "unrecoverable" | "recoverable";
}

/**
 * The failure context of a run that failed with `failure`, the schedule's `failureCount`-th failure
 * (counting this one), on host `hostname`: it is retried unless unrecoverable or out of attempts.
 */
export function failureContext(
  failure: DescribedFailure,
  unrecoverable: boolean,
  failureCount: number,
  hostname: string,
): FailureContext {
  const exhausted = failureCount >= MAX_RETRY_ATTEMPTS;
  return {
    error: failure.error,
    error_type: failure.errorType,
    hostname,
    will_retry: !unrecoverable && !exhausted,
    retry_count: failureCount,
    max_retries: MAX_RETRY_ATTEMPTS,
    ...(exhausted ? { retry_exhausted: true as const } : {}),
    error_classification: unrecoverable ? "unrecoverable" : "recoverable",
  };
}

/**
 * A failed run of a schedule that had failed `previousFailures` times before, with `error`, on host
 * `hostname` (the `except` of `process_scheduled_changes`): its failure count, its context (stored
 * as JSON text in `failure_reason`) and whether the schedule ends (`executed_at` set: unrecoverable,
 * or the `MAX_RETRY_ATTEMPTS`-th failure).
 */
export function failedRun(
  previousFailures: number,
  error: unknown,
  hostname: string,
): { failureCount: number; context: FailureContext; ends: boolean } {
  const described = describeFailure(error);
  const failureCount = previousFailures + 1;
  const context = failureContext(described, isUnrecoverable(error, described), failureCount, hostname);
  return { failureCount, context, ends: !context.will_retry };
}

/**
 * `failure_reason` as clients read it (`formatted_failure_reason`): the stored context's `error` with
 * its retry status (`(failed after 5 out of 5 attempts)`, `(permanent error)`, `(will retry
 * automatically, 3 attempts remaining)`), or the stored text as it is when it is not such a context;
 * null when none is stored.
 */
export function formatFailureReason(stored: string | null): string | null {
  if (!stored) return null;
  let context: unknown;
  try {
    context = JSON.parse(stored);
  } catch {
    return stored;
  }
  if (context === null || typeof context !== "object" || Array.isArray(context) || !("error" in context)) {
    return stored;
  }
  const c = context as Record<string, unknown>;
  const willRetry = c["will_retry"];
  const retryCount = c["retry_count"] ?? 0;
  const maxRetries = c["max_retries"];
  let message = pythonStr(c["error"] ?? "Unknown error");
  if (willRetry === false && c["retry_exhausted"]) {
    message +=
      maxRetries !== undefined && maxRetries !== null
        ? ` (failed after ${pythonStr(retryCount)} out of ${pythonStr(maxRetries)} attempts)`
        : ` (failed after ${pythonStr(retryCount)} attempts)`;
  } else if (willRetry === false && c["error_classification"] === "unrecoverable") {
    message += " (permanent error)";
  } else if (willRetry) {
    if (maxRetries !== undefined && maxRetries !== null) {
      const remaining = Number(maxRetries) - Number(retryCount);
      message += ` (will retry automatically, ${remaining} ${remaining === 1 ? "attempt" : "attempts"} remaining)`;
    } else {
      message += " (will retry automatically)";
    }
  }
  return message;
}

/** Python's `str()` of a JSON value, for the parts of a message (`True`, `None`, numbers as written). */
export function pythonStr(value: unknown): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return typeof value === "string" ? value : JSON.stringify(value);
}
