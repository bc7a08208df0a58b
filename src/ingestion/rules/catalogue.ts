/**
 * What a request's events add to the project's event catalogue (issue 7 §5): each event name, each
 * property name with its inferred type, and which properties appear on which event, as PostHog's
 * property-defs-rs derives them (rust/property-defs-rs/src/types.rs `Event::into_updates`):
 * - event properties are type 1, except `$set`, `$set_once`, `$unset`, `$group_0..4`, `$groups`;
 *   the keys of `properties.$set` and `properties.$set_once` are person properties, type 2;
 * - a `$groupidentify` records only its `$group_set` keys, as group properties (type 3) of the group
 *   type `$group_type` names (skipped while that type has no index);
 * - `$$plugin_metrics` events record nothing; names longer than 200 bytes are skipped;
 * - every recorded property (whatever its type) is also an `event_properties` pair with its event.
 * Entries are deduplicated; `inLockOrder` sorts them, so concurrent requests lock catalogue rows in
 * one order.
 */
import type { IngestEvent } from "../ingest-event.js";
import { detectPropertyType, type PropertyType } from "./property-types.js";

/** PostHog's `PropertyDefinition.Type`: 1 event, 2 person, 3 group. */
export type PropertyOwner = 1 | 2 | 3;

/** A property definition to record. `groupTypeIndex` is -1 unless `type` is 3. */
export interface PropertyEntry {
  name: string;
  type: PropertyOwner;
  groupTypeIndex: number;
  propertyType: PropertyType | null;
}

/** A request's catalogue entries. */
export interface CatalogueEntries {
  eventNames: string[];
  properties: PropertyEntry[];
  eventProperties: Array<{ event: string; property: string }>;
}

const EVENTS_WITHOUT_PROPERTIES = new Set(["$$plugin_metrics"]);
const SKIP_EVENT_PROPERTIES = new Set([
  "$set",
  "$set_once",
  "$unset",
  "$group_0",
  "$group_1",
  "$group_2",
  "$group_3",
  "$group_4",
  "$groups",
]);
/** `will_fit_in_postgres_column`: half of Django's 400-character CharField, in bytes. */
const MAX_NAME_BYTES = 200;

/** Whether `name` fits; a UTF-16 code unit is at most 3 UTF-8 bytes, so short names are not measured. */
const fits = (name: string) => name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name) <= MAX_NAME_BYTES;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The group type names `$groupidentify` events of `events` set properties for. */
export function groupTypesToResolve(events: readonly IngestEvent[]): string[] {
  const names = new Set<string>();
  for (const event of events) {
    const type = event.properties["$group_type"];
    if (
      event.event === "$groupidentify" &&
      typeof type === "string" &&
      isRecord(event.properties["$group_set"])
    ) {
      names.add(type);
    }
  }
  return [...names].sort();
}

/**
 * The catalogue entries of `events`, deduplicated, in no particular order (`inLockOrder` sorts them
 * for writing: a steady request, whose entries are all written already, never pays for the sort).
 * `groupTypeIndexes` maps group type names to their index (for `$groupidentify`); `now` dates
 * Unix-timestamp detection.
 */
export function catalogueEntries(
  events: readonly IngestEvent[],
  groupTypeIndexes: ReadonlyMap<string, number>,
  now: Date,
): CatalogueEntries {
  const eventNames = new Set<string>();
  // Each property once per event (pairs) and once per owner, keyed without building a string per
  // property of every event: a request's events mostly repeat the same few names.
  const pairs = new Map<string, Set<string>>();
  const owners = new Map<string, Map<string, PropertyEntry>>();
  const record = (
    event: string,
    owner: Record<string, unknown>,
    type: PropertyOwner,
    groupTypeIndex: number,
  ) => {
    const names = pairs.get(event) ?? new Set<string>();
    pairs.set(event, names);
    const ownerKey = `${type}\u0000${groupTypeIndex}`;
    const entries = owners.get(ownerKey) ?? new Map<string, PropertyEntry>();
    owners.set(ownerKey, entries);
    for (const name of Object.keys(owner)) {
      if (type === 1 && SKIP_EVENT_PROPERTIES.has(name)) continue;
      if (!fits(name)) continue;
      names.add(name);
      if (!entries.has(name)) {
        entries.set(name, {
          name,
          type,
          groupTypeIndex,
          propertyType: detectPropertyType(name, owner[name], now),
        });
      }
    }
  };
  for (const { event, properties: props } of events) {
    if (EVENTS_WITHOUT_PROPERTIES.has(event) || !fits(event)) continue;
    eventNames.add(event);
    if (event === "$groupidentify") {
      const index =
        typeof props["$group_type"] === "string" ? groupTypeIndexes.get(props["$group_type"]) : undefined;
      const groupSet = props["$group_set"];
      if (index !== undefined && isRecord(groupSet)) record(event, groupSet, 3, index);
      continue;
    }
    record(event, props, 1, -1);
    if (isRecord(props["$set"])) record(event, props["$set"], 2, -1);
    if (isRecord(props["$set_once"])) record(event, props["$set_once"], 2, -1);
  }
  return {
    eventNames: [...eventNames],
    properties: [...owners.values()].flatMap((entries) => [...entries.values()]),
    eventProperties: [...pairs].flatMap(([event, names]) =>
      [...names].map((property) => ({ event, property })),
    ),
  };
}

/** Compares texts by UTF-16 code units, as `<` does (not `localeCompare`). */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `entries` sorted, so that concurrent requests lock catalogue rows in one order: event names; then
 * properties by type, group type index and name; then pairs by event and property.
 */
export function inLockOrder(entries: CatalogueEntries): CatalogueEntries {
  return {
    eventNames: [...entries.eventNames].sort(byText),
    properties: [...entries.properties].sort(
      (a, b) => a.type - b.type || a.groupTypeIndex - b.groupTypeIndex || byText(a.name, b.name),
    ),
    eventProperties: [...entries.eventProperties].sort(
      (a, b) => byText(a.event, b.event) || byText(a.property, b.property),
    ),
  };
}
