/**
 * Who a flag is evaluated for, assembled from what is stored and what the request says, with the
 * flags service's precedence (rust/feature-flags/src/flags/flag_matching.rs `get_person_properties`,
 * `get_group_properties`, `hashed_identifier`; flag_matching_utils.rs
 * `fetch_and_locally_cache_all_relevant_properties`, `get_feature_flag_hash_key_overrides`;
 * handler/properties.rs `get_group_property_overrides`). Pure.
 */
import { ownValue } from "../../../core/own-keys.js";
import {
  EVENT_TO_PERSON_PROPERTIES,
  initialPropertyKey,
} from "../../../lib/property-filters/event-person-properties.js";
import type { EvaluationDefinitions, EvaluationFlag, EvaluationSubject } from "../engine/types.js";
import type { EvaluationInput } from "../evaluation.schemas.js";

/** What the subject's one statement read (../subject.queries.ts). */
export interface StoredSubject {
  /** The stored properties of the person the distinct id belongs to; null when none does. */
  personProperties: Record<string, unknown> | null;
  /** Of the static cohorts asked about, those the person is a member of. */
  staticCohortIds: readonly number[];
  /** Stored properties of the requested groups that exist. */
  groups: ReadonlyArray<{ groupTypeIndex: number; groupKey: string; properties: Record<string, unknown> }>;
  /**
   * Hash keys of the persons of the distinct id and of `$anon_distinct_id`; `primary` marks the
   * distinct id's person, whose keys win.
   */
  hashKeys: ReadonlyArray<{ flagKey: string; hashKey: string; primary: boolean }>;
}

/** A group the request names that the project's group types know: what to read for it. */
export interface GroupToLoad {
  groupTypeIndex: number;
  groupKey: string;
}

/**
 * Person properties PostHog derives `$initial_*` twins from at ingestion; evaluation fills a missing
 * twin from the current value, so a condition on `$initial_browser` works before ingestion wrote it
 * (flag_matching_utils.rs `populate_missing_initial_properties`).
 */
const INITIAL_TWINS: ReadonlyMap<string, string> = new Map(
  EVENT_TO_PERSON_PROPERTIES.map((name) => [name, initialPropertyKey(name)]),
);

/** `properties` with each missing `$initial_*` twin filled from its current value (see `INITIAL_TWINS`). */
function withInitialTwins(properties: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...properties };
  for (const [name, twin] of INITIAL_TWINS) {
    if (name in properties && !(twin in properties)) filled[twin] = properties[name];
  }
  return filled;
}

/** Group type name → index, from the definitions' `group_type_mapping` (index as text → name). */
function groupTypeIndexes(mapping: Readonly<Record<string, string>>): Map<string, number> {
  return new Map(Object.entries(mapping).map(([index, name]) => [name, Number(index)]));
}

/** The stored groups a request's `groups` names, by the project's group types (unknown types are skipped). */
export function groupsToLoad(
  groups: Readonly<Record<string, string>>,
  mapping: Readonly<Record<string, string>>,
): GroupToLoad[] {
  const indexes = groupTypeIndexes(mapping);
  return Object.entries(groups).flatMap(([name, groupKey]) => {
    const groupTypeIndex = indexes.get(name);
    return groupTypeIndex === undefined ? [] : [{ groupTypeIndex, groupKey }];
  });
}

/** Ids of the static cohorts the flags reach: the person's memberships that evaluation may read. */
export function staticCohortIds(definitions: EvaluationDefinitions): number[] {
  return [...definitions.cohorts.values()].filter((cohort) => cohort.isStatic).map((cohort) => cohort.id);
}

/**
 * Whether `flag` takes part in experience continuity: it asks for it and buckets persons by distinct
 * id (a `device_id` flag needs no hash key; flag_models.rs `has_experience_continuity`).
 */
export function hasExperienceContinuity(flag: EvaluationFlag): boolean {
  return flag.ensureExperienceContinuity && flag.bucketingIdentifier !== "device_id";
}

/**
 * The evaluation subject:
 * - person properties: the stored ones with `distinct_id` added (so conditions on it work), then
 *   the request's on top, then missing `$initial_*` twins filled;
 * - group properties: per group type, the stored group's, then the request's, then `$group_key`;
 * - hash keys: the stored ones, the distinct id's person's winning over the anonymous id's; a
 *   continuity flag without one hashes `$anon_distinct_id` when the request has it (first visit
 *   after identify, before the stored key is read back), else the distinct id.
 * `stored` null: nothing could be read (the caller evaluates only what needs nothing stored).
 */
export function buildSubject(
  input: EvaluationInput,
  stored: StoredSubject | null,
  definitions: EvaluationDefinitions,
): EvaluationSubject {
  const personProperties = withInitialTwins({
    ...(stored ? { ...stored.personProperties, distinct_id: input.distinctId } : {}),
    ...input.personProperties,
  });

  const names = new Map(Object.entries(definitions.groupTypeMapping).map(([i, name]) => [Number(i), name]));
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const group of stored?.groups ?? []) {
    const name = names.get(group.groupTypeIndex);
    if (name !== undefined && ownValue(input.groups, name) === group.groupKey)
      groupProperties[name] = group.properties;
  }
  for (const [name, properties] of Object.entries(input.groupProperties)) {
    groupProperties[name] = { ...groupProperties[name], ...properties };
  }
  for (const [name, groupKey] of Object.entries(input.groups)) {
    groupProperties[name] = { ...groupProperties[name], $group_key: groupKey };
  }

  const hashKeyOverrides: Record<string, string> = {};
  const byPriority = [...(stored?.hashKeys ?? [])].sort((a, b) => Number(a.primary) - Number(b.primary));
  for (const { flagKey, hashKey } of byPriority) hashKeyOverrides[flagKey] = hashKey;
  if (input.anonDistinctId !== null) {
    for (const flag of definitions.flags) {
      if (hasExperienceContinuity(flag) && !Object.hasOwn(hashKeyOverrides, flag.key))
        hashKeyOverrides[flag.key] = input.anonDistinctId;
    }
  }

  return {
    distinctId: input.distinctId,
    deviceId: input.deviceId,
    personProperties,
    groups: input.groups,
    groupProperties,
    staticCohortIds: new Set(stored?.staticCohortIds ?? []),
    hashKeyOverrides,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Whether `flag` cannot be decided from the request alone and needs stored data (person or group
 * properties, cohort memberships, a hash key): it aggregates by group, has an early-access
 * condition, takes part in experience continuity, or has a condition with a cohort or with a
 * person property the request does not give (flag_definitions FlagFilters
 * `requires_db_properties`). Read tolerantly: odd stored filters count as needing data.
 */
export function needsStoredData(
  flag: EvaluationFlag,
  personProperties: Readonly<Record<string, unknown>>,
): boolean {
  if (hasExperienceContinuity(flag)) return true;
  const filters = flag.filters;
  if (!isRecord(filters)) return false;
  if (filters["aggregation_group_type_index"] != null) return true;
  const superGroups = filters["super_groups"];
  if (Array.isArray(superGroups) && superGroups.length > 0) return true;
  if (filters["feature_enrollment"] === true) return true;
  const groups = Array.isArray(filters["groups"]) ? filters["groups"] : [];
  return groups.some((group) => {
    if (!isRecord(group)) return true;
    const properties = Array.isArray(group["properties"]) ? group["properties"] : [];
    return properties.some((property) => {
      if (!isRecord(property)) return true;
      if (property["type"] === "flag") return false;
      if (property["type"] === "cohort" || property["type"] === "group") return true;
      return typeof property["key"] !== "string" || !Object.hasOwn(personProperties, property["key"]);
    });
  });
}
