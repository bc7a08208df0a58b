/**
 * How an event changes a person's properties: `$set`, `$set_once` and `$unset`, on creation, on an
 * update and on a merge, with the per-key bookkeeping (`properties_last_updated_at`,
 * `properties_last_operation`). PostHog's rules (PostHog/posthog, `nodejs/src/...`):
 * - where the operations come from: `utils/event.ts` (`normalizeEvent`: top-level `$set` / `$set_once`
 *   are merged over the ones in `properties`, top-level winning; `$unset` is read from `properties`
 *   only, as `normalizeProcessPerson` says), `utils/db/utils.ts` (`personInitialAndUTMProperties`:
 *   browser, device, URL and campaign properties of the event are `$set` on the person, and their
 *   first non-null value `$set_once` as `$initial_*`, unless the event sets those keys itself) and
 *   `worker/ingestion/persons/person-update.ts` (`survey shown` sets `$survey_last_seen_date`;
 *   `$exception` and `$$heatmap` never update persons; `$groupidentify` carries no person update);
 * - how they apply: `persons/person-update.ts` (`computeEventPropertyUpdates`): in ingestion order,
 *   `$set_once` writes only absent keys, `$set` writes keys whose value differs (compared deeply here,
 *   so an equal object is no change), `$unset` removes keys present before the event. A change only
 *   to frequently changing keys (`$current_url`, `$browser`, ... PostHog's
 *   `FILTERED_PERSON_UPDATE_PROPERTIES`, `persons/person-property-utils.ts`) of a key the person
 *   already has does not by itself cause a write, except on `$identify`, `$create_alias`,
 *   `$merge_dangerously` and `$set` events; it is written with the person's next write;
 * - creation: `persons/person-create-service.ts` (`{...$set_once, ...$set, $creator_event_uuid}`);
 * - merge: `persons/person-merge-service.ts` (`mergePeople`: `{...other, ...mergeInto}`).
 * Bookkeeping: PostHog records it at creation; we keep it current on every write too (a key's entry
 * is the ISO timestamp of the event that last wrote it and `set` or `set_once`; an unset key loses it).
 */
import { isDeepStrictEqual } from "node:util";
import {
  DEVICE_PROPERTIES,
  EVENT_TO_PERSON_PROPERTIES,
  initialPropertyKey,
  PAGE_PROPERTIES,
} from "../../lib/property-filters/event-person-properties.js";
import type { IngestEvent } from "../ingest-event.js";

/** A JSON object of properties. */
export type Properties = Record<string, unknown>;

/** `set` or `set_once`: the operation that last wrote a key (PostHog's `PropertyUpdateOperation`). */
export type PropertyOperation = "set" | "set_once";

/** The property operations one event carries. */
export interface PropertyOperations {
  set: Properties;
  setOnce: Properties;
  /** Keys to remove. */
  unset: string[];
  /** A person event (PostHog's `PERSON_EVENTS`): any change is written, filtered keys included. */
  alwaysWrites: boolean;
}

/** A person's properties with their bookkeeping, as stored. */
export interface PropertyState {
  properties: Properties;
  /** Per key: ISO 8601 timestamp of the event that last wrote it. */
  lastUpdatedAt: Record<string, string>;
  /** Per key: the operation that last wrote it. */
  lastOperation: Record<string, PropertyOperation>;
}

/** Events whose properties never update a person (PostHog's `NO_PERSON_UPDATE_EVENTS`, plus `$groupidentify`). */
const NO_PERSON_UPDATE_EVENTS = new Set(["$exception", "$$heatmap", "$groupidentify"]);

/** Events any of whose changes is written (PostHog's `PERSON_EVENTS`). */
const PERSON_EVENTS = new Set(["$identify", "$create_alias", "$merge_dangerously", "$set"]);

/** Events whose own properties are not lifted onto the person (`normalizeEvent`). */
const NO_DERIVED_PROPERTIES_EVENTS = new Set(["$snapshot", "$performance_event"]);

/** GeoIP properties whose change alone does not cause a write. */
const VOLATILE_GEOIP_PROPERTIES = [
  "$geoip_postal_code",
  "$geoip_time_zone",
  "$geoip_latitude",
  "$geoip_longitude",
  "$geoip_accuracy_radius",
  "$geoip_subdivision_1_code",
  "$geoip_subdivision_1_name",
  "$geoip_subdivision_2_code",
  "$geoip_subdivision_2_name",
  "$geoip_subdivision_3_code",
  "$geoip_subdivision_3_name",
  "$geoip_city_confidence",
  "$geoip_country_confidence",
  "$geoip_postal_code_confidence",
  "$geoip_subdivision_1_confidence",
  "$geoip_subdivision_2_confidence",
];

/** Keys whose change alone does not cause a write (PostHog's `FILTERED_PERSON_UPDATE_PROPERTIES`). */
const FILTERED_PERSON_UPDATE_PROPERTIES = new Set([
  ...PAGE_PROPERTIES,
  ...DEVICE_PROPERTIES,
  ...VOLATILE_GEOIP_PROPERTIES,
]);

function asObject(value: unknown): Properties {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Properties) : {};
}

function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((key): key is string => typeof key === "string");
  return Object.keys(asObject(value));
}

/**
 * Adds to `set` and `setOnce` what PostHog's `personInitialAndUTMProperties` derives from the event's
 * own properties: each listed key the event has is `$set` (unless already), and its non-null value
 * `$set_once` as `$initial_<key without $>` (unless already); a server SDK's (`$is_server: true`) host
 * `$os`/`$os_version` are left out; `$os_name` only stands in for `$initial_os` and is not kept itself.
 */
function addEventDerivedProperties(props: Properties, set: Properties, setOnce: Properties): void {
  const skipServerHostOs = props["$is_server"] === true;
  let found = false;
  for (const key of EVENT_TO_PERSON_PROPERTIES) {
    if (!Object.hasOwn(props, key)) continue;
    if (skipServerHostOs && (key === "$os" || key === "$os_version")) continue;
    found = true;
    const value = props[key];
    if (!Object.hasOwn(set, key)) set[key] = value;
    const initialKey = initialPropertyKey(key);
    if (value != null && !Object.hasOwn(setOnce, initialKey)) setOnce[initialKey] = value;
  }
  const osName = props["$os_name"];
  if (!found || osName === undefined || skipServerHostOs) return;
  if (osName !== null && !Object.hasOwn(setOnce, "$initial_os")) setOnce["$initial_os"] = osName;
  delete set["$os_name"];
  delete setOnce["$initial_os_name"];
}

/** The `$set`, `$set_once` and `$unset` of `event`, with what PostHog derives from it (module header). */
export function personPropertyOperations(event: IngestEvent): PropertyOperations {
  const alwaysWrites = PERSON_EVENTS.has(event.event);
  if (NO_PERSON_UPDATE_EVENTS.has(event.event)) return { set: {}, setOnce: {}, unset: [], alwaysWrites };
  const props = event.properties;
  // Event-based first, so the event's own `$set` wins over it.
  const set: Properties =
    event.event === "survey shown" ? { $survey_last_seen_date: event.timestamp.toISOString() } : {};
  Object.assign(set, asObject(props["$set"]), asObject(event.topLevel.$set));
  const setOnce = Object.assign({}, asObject(props["$set_once"]), asObject(event.topLevel.$set_once));
  if (!NO_DERIVED_PROPERTIES_EVENTS.has(event.event)) addEventDerivedProperties(props, set, setOnce);
  return { set, setOnce, unset: unsetKeys(props["$unset"]), alwaysWrites };
}

/**
 * The properties of a person created by `event` (uuid `creatorEventUuid`) at `timestampIso`:
 * `$set_once`, then `$set` over it, then `$creator_event_uuid`; `$unset` has nothing to remove.
 */
export function initialPropertyState(
  ops: PropertyOperations,
  creatorEventUuid: string,
  timestampIso: string,
): PropertyState {
  const state: PropertyState = { properties: {}, lastUpdatedAt: {}, lastOperation: {} };
  for (const [key, value] of Object.entries(ops.setOnce)) write(state, key, value, "set_once", timestampIso);
  for (const [key, value] of Object.entries(ops.set)) write(state, key, value, "set", timestampIso);
  state.properties["$creator_event_uuid"] = creatorEventUuid;
  return state;
}

function write(
  state: PropertyState,
  key: string,
  value: unknown,
  operation: PropertyOperation,
  timestampIso: string,
): void {
  state.properties[key] = value;
  state.lastUpdatedAt[key] = timestampIso;
  state.lastOperation[key] = operation;
}

/** What applying an event's operations gives. */
export interface PropertyUpdate {
  state: PropertyState;
  /** Whether any property changed. */
  changed: boolean;
  /** Whether the change is to be written now (false: only frequently changing keys changed). */
  writes: boolean;
}

/** A copy of `state` to change. */
function copyOf(state: PropertyState): PropertyState {
  return {
    properties: { ...state.properties },
    lastUpdatedAt: { ...state.lastUpdatedAt },
    lastOperation: { ...state.lastOperation },
  };
}

/** Whether changing `key` alone makes the event write the person (module header). */
function triggersWrite(ops: PropertyOperations, key: string): boolean {
  return ops.alwaysWrites || !FILTERED_PERSON_UPDATE_PROPERTIES.has(key);
}

/**
 * `ops` applied to `current` by an event that happened `at` (module header); `current` is not
 * modified (and is the answer's `state` when nothing changed). Runs for every event of a known
 * person, so it allocates nothing until something changes (capture's steady state changes nothing).
 */
export function applyPropertyOperations(
  current: PropertyState,
  ops: PropertyOperations,
  at: Date,
): PropertyUpdate {
  const before = current.properties;
  let state: PropertyState | null = null;
  let atIso = "";
  let writes = false;
  for (const key in ops.setOnce) {
    if (Object.hasOwn(before, key) || Object.hasOwn(ops.set, key)) continue;
    state ??= copyOf(current);
    atIso ||= at.toISOString();
    write(state, key, ops.setOnce[key], "set_once", atIso);
    writes ||= triggersWrite(ops, key);
  }
  for (const key in ops.set) {
    const value = ops.set[key];
    const present = Object.hasOwn(before, key);
    if (present && isDeepStrictEqual(before[key], value)) continue;
    state ??= copyOf(current);
    atIso ||= at.toISOString();
    write(state, key, value, "set", atIso);
    writes ||= !present || triggersWrite(ops, key);
  }
  for (const key of ops.unset) {
    if (!Object.hasOwn(before, key)) continue;
    state ??= copyOf(current);
    delete state.properties[key];
    delete state.lastUpdatedAt[key];
    delete state.lastOperation[key];
    writes = true;
  }
  return { state: state ?? current, changed: state !== null, writes };
}

/**
 * The properties of a merged person: the other person's, overwritten by the surviving person's on
 * every key both have; each key keeps the bookkeeping of the person its value came from.
 */
export function mergePropertyStates(mergeInto: PropertyState, other: PropertyState): PropertyState {
  const merged: PropertyState = { properties: {}, lastUpdatedAt: {}, lastOperation: {} };
  for (const source of [other, mergeInto]) {
    for (const [key, value] of Object.entries(source.properties)) {
      merged.properties[key] = value;
      delete merged.lastUpdatedAt[key];
      delete merged.lastOperation[key];
      const updatedAt = source.lastUpdatedAt[key];
      const operation = source.lastOperation[key];
      if (updatedAt !== undefined) merged.lastUpdatedAt[key] = updatedAt;
      if (operation !== undefined) merged.lastOperation[key] = operation;
    }
  }
  return merged;
}
