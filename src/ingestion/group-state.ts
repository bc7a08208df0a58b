/**
 * Group state of a capture request (issue 7 §3): the project's group types (index 0–4) for every
 * type its events name, and the groups its `$groupidentify` events create or update, following
 * PostHog's groups step (`nodejs/src/worker/ingestion/groups.ts`, `group-type-manager.ts`,
 * `groups/batch-writing-group-store.ts` in PostHog/posthog; rules in `rules/groups.ts`).
 *
 * Only events that keep a person profile take part (PostHog runs the groups step under
 * `processPerson`). Cost: nothing for a batch that names no group type; one statement to read the
 * mapping; three more (lock, re-read, insert) when a type is new; two for the groups of
 * `$groupidentify` events (load, write) plus one when both new and stored groups change.
 */

import {
  type GroupTypeMapping,
  insertGroupTypes,
  loadGroups,
  loadGroupTypes,
  lockGroupTypes,
  type WorkingGroup,
  type WrittenGroup,
  writeGroups,
} from "./group-store.js";
import type { IngestEvent, IngestTx } from "./ingest-event.js";
import {
  type GroupIdentify,
  groupIdentify,
  groupTypesNamed,
  MAX_GROUP_TYPES,
  nextFreeGroupTypeIndex,
  updateGroupProperties,
} from "./rules/groups.js";
import { processesPersonProfile } from "./rules/person-identity.js";

/** The mapping with every type in `names` that still fits added (in order); a sixth type is ignored. */
async function ensureGroupTypes(
  tx: IngestTx,
  projectId: number,
  names: readonly string[],
): Promise<GroupTypeMapping> {
  let mapping = await loadGroupTypes(tx, projectId);
  if (names.every((name) => mapping.has(name)) || mapping.size >= MAX_GROUP_TYPES) return mapping;
  mapping = await lockGroupTypes(tx, projectId);
  const used = new Set(mapping.values());
  const added: Array<{ groupType: string; index: number }> = [];
  for (const name of names) {
    if (mapping.has(name) || added.some((a) => a.groupType === name)) continue;
    const index = nextFreeGroupTypeIndex(used);
    if (index === null) break;
    used.add(index);
    added.push({ groupType: name, index });
  }
  if (added.length === 0) return mapping;
  await insertGroupTypes(tx, projectId, added);
  for (const { groupType, index } of added) mapping.set(groupType, index);
  return mapping;
}

function groupKeyOf(groupTypeIndex: number, groupKey: string): string {
  return `${groupTypeIndex}\u0000${groupKey}`;
}

/** The group types `profiled` (events that keep a person profile) name, each once. */
function groupTypesOf(profiled: readonly IngestEvent[]): string[] {
  return [...new Set(profiled.flatMap(groupTypesNamed))];
}

/** Whether group state has anything to do for `events` (some event keeping a profile names a group type). */
export function touchesGroups(events: readonly IngestEvent[]): boolean {
  return groupTypesOf(events.filter(processesPersonProfile)).length > 0;
}

/**
 * Applies the group side of `events` (one capture request, in order) to project `projectId` inside
 * the request's transaction `tx`: adds the group types they name, then creates or updates the groups
 * their `$groupidentify` events identify (a group of a type beyond the fifth is ignored), and returns
 * the groups as written (what the ClickHouse store mirrors). Throws only on a database error (the
 * caller's transaction then rolls back).
 */
export async function applyGroupState(
  tx: IngestTx,
  projectId: number,
  events: readonly IngestEvent[],
): Promise<WrittenGroup[]> {
  const profiled = events.filter(processesPersonProfile);
  const names = groupTypesOf(profiled);
  if (names.length === 0) return [];
  const mapping = await ensureGroupTypes(tx, projectId, names);

  const identifies: Array<{ identify: GroupIdentify; groupTypeIndex: number; timestamp: Date }> = [];
  for (const event of profiled) {
    const identify = groupIdentify(event);
    const groupTypeIndex = identify ? mapping.get(identify.groupType) : undefined;
    if (identify && groupTypeIndex !== undefined) {
      identifies.push({ identify, groupTypeIndex, timestamp: event.timestamp });
    }
  }
  if (identifies.length === 0) return [];

  const keys = identifies.map(({ identify, groupTypeIndex }) => ({
    groupTypeIndex,
    groupKey: identify.groupKey,
  }));
  const groups = new Map<string, WorkingGroup>();
  for (const group of await loadGroups(tx, projectId, keys)) {
    groups.set(groupKeyOf(group.groupTypeIndex, group.groupKey), group);
  }
  for (const { identify, groupTypeIndex, timestamp } of identifies) {
    const key = groupKeyOf(groupTypeIndex, identify.groupKey);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        groupTypeIndex,
        groupKey: identify.groupKey,
        properties: { ...identify.set },
        createdAt: timestamp,
        version: 0n,
        stored: false,
        changed: true,
      });
      continue;
    }
    const { properties, changed } = updateGroupProperties(group.properties, identify.set);
    if (!changed) continue;
    group.properties = properties;
    group.changed = true;
    if (timestamp < group.createdAt) group.createdAt = timestamp;
  }
  return writeGroups(tx, projectId, [...groups.values()]);
}
