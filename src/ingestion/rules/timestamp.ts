/**
 * When an event happened, from what the client said and when the server received it: PostHog's
 * `parse_event_timestamp` (rust/common/types/src/timestamp.rs, which capture now applies for the
 * ingestion pipeline; nodejs/src/worker/ingestion/timestamps.ts says so and only re-parses):
 * - with `timestamp` and `sent_at` (the client's clock when it sent the request), the client's clock
 *   skew is removed: `now + (timestamp - sent_at)`; with `timestamp` alone it is taken as is;
 * - `offset` (milliseconds before sending, older SDKs) wins over both: `now - offset`;
 * - `$ignore_sent_at: true` in the properties turns the skew correction off;
 * - a result more than 23 hours in the future becomes `now`; a year outside 0–9999 the epoch;
 * - an unparseable timestamp is ignored (as if absent).
 */

const FUTURE_CUTOFF_MS = 23 * 3600 * 1000;
/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, the years a timestamp may fall in. */
const MIN_TIME_MS = Date.parse("0000-01-01T00:00:00Z");
const MAX_TIME_MS = Date.parse("9999-12-31T23:59:59.999Z");

/** `+03` at the end of an ISO date-time becomes `+03:00` (normalize_timezone_format). */
const SHORT_ZONE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?[+-]\d{2})$/;
/** A date, or a civil date-time, with no zone: read as UTC. */
const CIVIL = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?$/;
/** A zone at the end: `Z`, `+hh:mm`, `+hhmm`. */
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const DIGITS = /^\d+$/;

/** The instant a client's date string names, or null (rust/common/types/src/timestamp.rs `parse_date`). */
function parseDate(text: string): Date | null {
  let value = text.trim();
  if (SHORT_ZONE.test(value)) value = `${value}:00`;
  if (DIGITS.test(value)) {
    // A numeric timestamp: seconds up to 10 digits, milliseconds beyond (dateparser's rule).
    const date = new Date(value.length > 10 ? Number(value) : Number(value) * 1000);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  if (CIVIL.test(value) && !HAS_ZONE.test(value)) {
    value = value.length === 10 ? `${value}T00:00:00Z` : `${value.replace(" ", "T")}Z`;
  }
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : new Date(parsed);
}

/** What the timestamp of one event is computed from. */
export interface TimestampInput {
  /** The event's `timestamp` as sent. */
  timestamp: string | undefined;
  /** The event's `offset` in milliseconds, as sent. */
  offset: number | undefined;
  /** When the client sent the request, by its clock (the batch's `sent_at`, or the query's `_`). */
  sentAt: Date | null;
  /** The event's `$ignore_sent_at` property is true. */
  ignoreSentAt: boolean;
  /** When the server received the request. */
  now: Date;
}

/** When the event happened, after clock-skew correction and bounds (see the module comment). */
export function parseEventTimestamp(input: TimestampInput): Date {
  const now = input.now.getTime();
  const sentAt = input.ignoreSentAt ? null : input.sentAt;
  let at = now;
  if (input.timestamp !== undefined) {
    const timestamp = parseDate(input.timestamp);
    if (timestamp && sentAt) at = now + (timestamp.getTime() - sentAt.getTime());
    else if (timestamp) at = timestamp.getTime();
  }
  if (input.offset !== undefined) at = now - input.offset;
  if (at - now > FUTURE_CUTOFF_MS) at = now;
  if (!(at >= MIN_TIME_MS && at <= MAX_TIME_MS)) at = 0;
  return new Date(at);
}

/**
 * The request's `sent_at`: the batch's ISO `sent_at`, else the query's `_` in milliseconds (recent
 * posthog-js), which counts only when it falls after 2020 (seconds from older SDKs are ignored):
 * rust/capture/src/v0_request.rs `EventQuery::sent_at` and `RawRequest::sent_at`.
 */
export function requestSentAt(batchSentAt: unknown, queryUnderscore: string | null): Date | null {
  if (typeof batchSentAt === "string") {
    const parsed = parseDate(batchSentAt);
    if (parsed) return parsed;
  }
  if (queryUnderscore && DIGITS.test(queryUnderscore)) {
    const parsed = new Date(Number(queryUnderscore));
    if (parsed.getUTCFullYear() > 2020) return parsed;
  }
  return null;
}
