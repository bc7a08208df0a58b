/**
 * The group side of an event, as PostHog reads it (`nodejs/src/worker/ingestion/groups.ts`,
 * `extractGroupIdentify`, `addGroupProperties`; `group-type-manager.ts`; `groups/group-update.ts`,
 * `calculateUpdate`, in PostHog/posthog):
 * - the group types an event names, in the order PostHog's groups step meets them: `$group_type` of
 *   a `$groupidentify` with a `$group_set`, the keys of its `$groups` object, then the type of the
 *   group a `$groupidentify` identifies;
 * - a type's index is the lowest free one of 0–4; a project has at most five types, and a further
 *   type is ignored (PostHog's `MAX_GROUP_TYPES_PER_TEAM`);
 * - `$groupidentify` with a truthy `$group_type` and `$group_key` sets the group's properties to
 *   `$group_set`'s over the stored ones, in ingestion order; keys whose value is unchanged (compared
 *   deeply) are no change, and no change means no write.
 * Our additions: a type or key longer than the column (400 characters) is ignored rather than
 * failing the request, and NUL characters in keys become U+FFFD as PostHog's `sanitizeString` does.
 */
import { isDeepStrictEqual } from "node:util";
import type { IngestEvent } from "../ingest-event.js";
import type { Properties } from "./person-properties.js";

/** How many group types a project may have (indexes 0–4). */
export const MAX_GROUP_TYPES = 5;

/** Longest group type name or group key the tables hold (`VARCHAR(400)`). */
const MAX_GROUP_TEXT_LENGTH = 400;

function fits(text: string): boolean {
  return text.length > 0 && text.length <= MAX_GROUP_TEXT_LENGTH;
}

function isObject(value: unknown): value is Properties {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The group type names `event` uses, in PostHog's order, without repeats. */
export function groupTypesNamed(event: IngestEvent): string[] {
  const names = new Set<string>();
  const props = event.properties;
  const identified = event.event === "$groupidentify" ? props["$group_type"] : undefined;
  if (typeof identified === "string" && props["$group_set"] != null) names.add(identified);
  if (isObject(props["$groups"])) for (const name of Object.keys(props["$groups"])) names.add(name);
  const identify = groupIdentify(event);
  if (identify) names.add(identify.groupType);
  return [...names].filter(fits);
}

/** The lowest group type index not in `used`, or null when all five are taken. */
export function nextFreeGroupTypeIndex(used: ReadonlySet<number>): number | null {
  for (let index = 0; index < MAX_GROUP_TYPES; index++) if (!used.has(index)) return index;
  return null;
}

/** A `$groupidentify` event's group and the properties it sets. */
export interface GroupIdentify {
  groupType: string;
  groupKey: string;
  /** `$group_set`, or `{}` when absent or not an object. */
  set: Properties;
}

function groupKeyText(value: unknown): string | null {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return null;
  return String(value).replaceAll("\u0000", "\uFFFD");
}

/** The group a `$groupidentify` event identifies, or null (another event, or a falsy type or key). */
export function groupIdentify(event: IngestEvent): GroupIdentify | null {
  if (event.event !== "$groupidentify") return null;
  const props = event.properties;
  const groupType = props["$group_type"];
  if (!groupType || typeof groupType !== "string" || !fits(groupType) || !props["$group_key"]) return null;
  const groupKey = groupKeyText(props["$group_key"]);
  if (groupKey === null || !fits(groupKey)) return null;
  return { groupType, groupKey, set: isObject(props["$group_set"]) ? props["$group_set"] : {} };
}

/** `set` applied over `current`: the new properties and whether any key changed. */
export function updateGroupProperties(
  current: Properties,
  set: Properties,
): { properties: Properties; changed: boolean } {
  const properties = { ...current };
  let changed = false;
  for (const [key, value] of Object.entries(set)) {
    if (Object.hasOwn(current, key) && isDeepStrictEqual(current[key], value)) continue;
    properties[key] = value;
    changed = true;
  }
  return { properties, changed };
}
