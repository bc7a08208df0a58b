/**
 * How an event changes a person's properties: `$set`, `$set_once` and `$unset`, on creation, on an
 * update and on a merge, with the per-key bookkeeping (`properties_last_updated_at`,
 * `properties_last_operation`). PostHog's rules:
 * - where the operations come from: `nodejs/src/utils/event.ts` (`normalizeEvent`: top-level `$set` /
 *   `$set_once` are merged over the ones in `properties`, top-level winning; `$unset` is read from
 *   `properties` only, `normalizeProcessPerson` says so) and `persons/person-update.ts`
 *   (`$exception` and `$$heatmap` never update persons); `$groupidentify` carries no person update
 *   (`normalizeProcessPerson` strips it);
 * - how they apply: `persons/person-update.ts` (`computeEventPropertyUpdates`): in ingestion order,
 *   `$set_once` writes only absent keys, `$set` writes keys whose value differs (compared deeply here,
 *   so an equal object is no change), `$unset` removes keys present before the event;
 * - creation: `persons/person-create-service.ts` (`{...$set_once, ...$set, $creator_event_uuid}`);
 * - merge: `persons/person-merge-service.ts` (`mergePeople`: `{...other, ...mergeInto}`).
 * Bookkeeping: PostHog records it at creation; we keep it current on every write too (a key's entry
 * is the ISO timestamp of the event that last wrote it and `set` or `set_once`; an unset key loses it).
 */
import { isDeepStrictEqual } from "node:util";
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

function asObject(value: unknown): Properties {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Properties) : {};
}

function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((key): key is string => typeof key === "string");
  return Object.keys(asObject(value));
}

/** The `$set`, `$set_once` and `$unset` of `event`, top-level `$set`/`$set_once` keys winning. */
export function personPropertyOperations(event: IngestEvent): PropertyOperations {
  if (NO_PERSON_UPDATE_EVENTS.has(event.event)) return { set: {}, setOnce: {}, unset: [] };
  const props = event.properties;
  return {
    set: { ...asObject(props["$set"]), ...asObject(event.topLevel.$set) },
    setOnce: { ...asObject(props["$set_once"]), ...asObject(event.topLevel.$set_once) },
    unset: unsetKeys(props["$unset"]),
  };
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

/**
 * `ops` applied to `current` by an event at `timestampIso`: a new state, and whether anything
 * changed (no change means no write). `current` is not modified.
 */
export function applyPropertyOperations(
  current: PropertyState,
  ops: PropertyOperations,
  timestampIso: string,
): { state: PropertyState; changed: boolean } {
  const before = current.properties;
  const state: PropertyState = {
    properties: { ...before },
    lastUpdatedAt: { ...current.lastUpdatedAt },
    lastOperation: { ...current.lastOperation },
  };
  let changed = false;
  for (const [key, value] of Object.entries(ops.setOnce)) {
    if (Object.hasOwn(before, key) || Object.hasOwn(ops.set, key)) continue;
    write(state, key, value, "set_once", timestampIso);
    changed = true;
  }
  for (const [key, value] of Object.entries(ops.set)) {
    if (Object.hasOwn(before, key) && isDeepStrictEqual(before[key], value)) continue;
    write(state, key, value, "set", timestampIso);
    changed = true;
  }
  for (const key of ops.unset) {
    if (!Object.hasOwn(before, key)) continue;
    delete state.properties[key];
    delete state.lastUpdatedAt[key];
    delete state.lastOperation[key];
    changed = true;
  }
  return { state, changed };
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
