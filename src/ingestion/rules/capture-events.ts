/**
 * A capture request's decoded payload → its validated events, as PostHog's capture service reads
 * them (rust/capture/src/v0_request.rs `RawRequest`, rust/common/types/src/event.rs `RawEvent`,
 * rust/capture/src/events/analytics.rs `process_single_event`):
 * - shapes: an array of events (posthog-js), `{batch: [...], api_key, sent_at}` (server SDKs), or
 *   one event; on `/engage/` an event without a name is an `$identify` (`RawEngageEvent`);
 * - each event: `event` a non-empty string; `properties` an object (absent: `{}`); the distinct id
 *   from `distinct_id`, `$distinct_id` or `properties.distinct_id`, a non-string stringified, NUL
 *   replaced by U+FFFD, cut to 200 characters, required; `uuid` the client's (an empty string counts
 *   as none) or a new UUIDv7; `timestamp` a string and `offset` an integer when given; top-level
 *   `$set`/`$set_once` objects (and `$unset`) kept apart for person state;
 * - ONE BAD EVENT REFUSES THE WHOLE REQUEST: capture processes a batch with `collect::<Result<...>>`
 *   (the first error ends it and nothing is sent on), so nothing of the request is stored;
 * - strings are made storable: NUL and lone surrogates become U+FFFD (PostgreSQL refuses both in
 *   jsonb; capture replaces invalid surrogates too, rust/capture/src/passes/invalid_surrogates.rs).
 */
import { ParseError, PayloadTooLargeError, ValidationError } from "../../core/errors.js";
import { checkNestingDepth } from "../../core/json-input.js";
import { eventUuids } from "../event-uuids.js";
import type { IngestEvent } from "../ingest-event.js";
import { parseEventTimestamp, requestSentAt } from "./timestamp.js";

/** The longest distinct id kept, in characters (`extract_distinct_id`). */
const MAX_DISTINCT_ID_CHARS = 200;
/** The longest event name the events table holds (`events.event` is VARCHAR(400)). */
const MAX_EVENT_NAME_CHARS = 400;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** NUL, or a surrogate half without its partner (code units, hence no `u` flag). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this pattern finds
const UNSTORABLE = /\x00|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The same pattern, to test for a match (a global pattern's `test` keeps state between calls). */
const HAS_UNSTORABLE = new RegExp(UNSTORABLE.source);

/** What the events of one request are read with. */
export interface CaptureContext {
  /** The SDK path, e.g. `/engage/`. */
  path: string;
  query: URLSearchParams;
  /** When the server received the request. */
  now: Date;
  /** Deepest nesting accepted in `properties`, `$set`, `$set_once` (400 `max_depth` beyond). */
  maxJsonDepth: number;
  /** Most events one request may hold (`Limits.captureMaxEventsPerRequest`; 413 beyond). */
  maxEvents: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function parsingError(reason: string): ParseError {
  return new ParseError(`failed to parse request: ${reason}`);
}

function storable(text: string): string {
  return text.replace(UNSTORABLE, "\ufffd");
}

/** Whether any string of `value` (keys included) holds something `storable` replaces; walks iteratively. */
function needsRepair(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "string") {
      if (HAS_UNSTORABLE.test(current)) return true;
    } else if (current !== null && typeof current === "object") {
      const record = current as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (HAS_UNSTORABLE.test(key)) return true;
        stack.push(record[key]);
      }
    }
  }
  return false;
}

/**
 * `value` with every string (keys included) made storable: `value` itself when nothing needs it
 * (the common case, no copy), else a copy; walks iteratively.
 */
function storableJson(value: unknown): unknown {
  if (typeof value === "string") return storable(value);
  if (value === null || typeof value !== "object" || !needsRepair(value)) return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: Array<[unknown, Record<string, unknown> | unknown[]]> = [[value, root as never]];
  while (stack.length > 0) {
    const [source, target] = stack.pop()!;
    for (const [key, item] of Object.entries(source as object)) {
      let copy: unknown = item;
      if (typeof item === "string") copy = storable(item);
      else if (item !== null && typeof item === "object") {
        copy = Array.isArray(item) ? [] : {};
        stack.push([item, copy as never]);
      }
      if (Array.isArray(target)) target.push(copy);
      else target[storable(key)] = copy;
    }
  }
  return root;
}

/** The payload's events and the request's own `sent_at` (see the module comment for the shapes). */
function eventsOf(payload: unknown): { events: unknown[]; sentAt: unknown } {
  if (Array.isArray(payload)) return { events: payload, sentAt: undefined };
  if (isRecord(payload) && "batch" in payload) {
    if (!Array.isArray(payload["batch"])) throw parsingError("`batch` must be a list of events");
    return { events: payload["batch"], sentAt: payload["sent_at"] };
  }
  if (isRecord(payload)) return { events: [payload], sentAt: undefined };
  throw parsingError("expected an event, a list of events or a batch");
}

/** The event's distinct id (`RawEvent::extract_distinct_id`), or null when it has none. */
function distinctIdOf(event: Record<string, unknown>, properties: Record<string, unknown>): string | null {
  let value = event["distinct_id"] ?? event["$distinct_id"];
  if (value === undefined || value === null) value = properties["distinct_id"];
  if (value === undefined || value === null) return null;
  const text = storable(typeof value === "string" ? value : JSON.stringify(value));
  if (text.length === 0) return null;
  const chars = Array.from(text);
  return chars.length > MAX_DISTINCT_ID_CHARS ? chars.slice(0, MAX_DISTINCT_ID_CHARS).join("") : text;
}

function optionalObject(event: Record<string, unknown>, field: string): Record<string, unknown> | undefined {
  const value = event[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw parsingError(`invalid type: \`${field}\` must be an object`);
  return storableJson(value) as Record<string, unknown>;
}

function uuidOf(event: Record<string, unknown>, newUuid: () => string): string {
  const value = event["uuid"];
  if (value === undefined || value === null || value === "") return newUuid();
  if (typeof value !== "string" || !UUID.test(value)) throw parsingError("invalid `uuid`: not a UUID");
  const hex = value.replaceAll("-", "").toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function eventNameOf(event: Record<string, unknown>, path: string): string {
  let name = event["event"];
  if ((name === undefined || name === null) && path.startsWith("/engage")) name = "$identify";
  if (name === undefined || name === null) throw parsingError("missing field `event`");
  if (typeof name !== "string") throw parsingError("invalid type: `event` must be a string");
  if (name.length === 0) {
    throw new ValidationError("event submitted with an empty event name", { code: "no_event_name" });
  }
  if (name.length > MAX_EVENT_NAME_CHARS) {
    throw new ValidationError(`event name longer than ${MAX_EVENT_NAME_CHARS} characters`, {
      code: "event_name_too_long",
    });
  }
  return storable(name);
}

function readEvent(
  raw: unknown,
  context: CaptureContext,
  sentAt: Date | null,
  newUuid: () => string,
): IngestEvent {
  if (!isRecord(raw)) throw parsingError("each event must be an object");
  const event = eventNameOf(raw, context.path);
  const properties = optionalObject(raw, "properties") ?? {};
  const $set = optionalObject(raw, "$set");
  const $set_once = optionalObject(raw, "$set_once");
  checkNestingDepth({ properties, $set, $set_once }, context.maxJsonDepth);
  const distinctId = distinctIdOf(raw, properties);
  if (distinctId === null) {
    throw new ValidationError("event submitted without a distinct_id", { code: "no_distinct_id" });
  }
  const timestamp = raw["timestamp"];
  if (timestamp !== undefined && timestamp !== null && typeof timestamp !== "string") {
    throw parsingError("invalid type: `timestamp` must be a string");
  }
  const offset = raw["offset"];
  if (offset !== undefined && offset !== null && !Number.isSafeInteger(offset)) {
    throw parsingError("invalid type: `offset` must be an integer");
  }
  const topLevel: IngestEvent["topLevel"] = {};
  if ($set) topLevel.$set = $set;
  if ($set_once) topLevel.$set_once = $set_once;
  if (raw["$unset"] !== undefined) topLevel.$unset = storableJson(raw["$unset"]);
  return {
    uuid: uuidOf(raw, newUuid),
    event,
    distinctId,
    properties,
    topLevel,
    timestamp: parseEventTimestamp({
      timestamp: (timestamp as string | null) ?? undefined,
      offset: (offset as number | null) ?? undefined,
      sentAt,
      ignoreSentAt: properties["$ignore_sent_at"] === true,
      now: context.now,
    }),
  };
}

/**
 * The events of a capture payload, validated (see the module comment).
 * @throws ParseError `failed to parse request: ...` (400) for a payload or event of the wrong shape.
 * @throws ValidationError (400) `request holds no event`, `event submitted with an empty event name`,
 *   `event submitted without a distinct_id`, or `max_depth` for properties nested too deep.
 * @throws PayloadTooLargeError (413) when the request holds more than `context.maxEvents` events.
 */
export function readCaptureEvents(payload: unknown, context: CaptureContext): IngestEvent[] {
  const { events, sentAt } = eventsOf(payload);
  if (events.length === 0) throw new ValidationError("request holds no event", { code: "empty_batch" });
  if (events.length > context.maxEvents) throw new PayloadTooLargeError(context.maxEvents, "events");
  const requestSent = requestSentAt(sentAt, context.query.get("_"));
  const newUuid = eventUuids(events.length);
  return events.map((event) => readEvent(event, context, requestSent, newUuid));
}
