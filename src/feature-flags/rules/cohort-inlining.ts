/**
 * How the local-evaluation payload names cohorts (posthog-behavior.md §2.10, §3.6), ported from
 * PostHog so that SDKs read exactly what PostHog sends them:
 * - `cohortDict`: a cohort's criteria as PostHog serialises them (`PropertyGroup.to_dict`,
 *   `Property.to_dict` in `posthog/models/property/property.py`): an empty group is `{}`, a filter
 *   keeps PostHog's `Property` attributes that are not null, `type` defaults to `event`, and a
 *   valueless `is_set`/`is_not_set` gets the operator as its value.
 * - `flagCohortIds`: the cohorts a flag reaches, directly and through the cohorts they name
 *   (`FeatureFlag.get_cohort_ids` with `get_all_cohort_dependencies`).
 * - `inlineCohort`: without `send_cohorts`, a flag whose only cohort is a simple person-property
 *   cohort gets that cohort's criteria as condition groups instead
 *   (`FeatureFlag.transform_cohort_filters_for_easy_evaluation`, `posthog/models/feature_flag/feature_flag.py`,
 *   with `clear_excess_levels` from `posthog/models/property/util.py`), quirks included: the groups
 *   without the cohort keep their place and the inlined ones come last, each with the
 *   `rollout_percentage` of the LAST condition of the flag.
 * Pure, and tolerant of stored filters: where PostHog's code would raise on a malformed filter (and
 * its caller then sends the flag unchanged), these functions say so instead of throwing.
 */
import type { PropertyGroup, PropertyNode } from "../../lib/property-filters/property-filters.js";
import { isPropertyGroup } from "../../lib/property-filters/property-filters.js";
import { conditionGroups, isJsonObject, parseId } from "./stored-filters.js";

/** A cohort as these rules read it: its parsed criteria, or null for a static cohort or unreadable criteria. */
export interface InliningCohort {
  isStatic: boolean;
  /** The criteria tree (`filters.properties` or legacy `groups`); `{type: "AND", values: []}` when none. */
  criteria: PropertyGroup | null;
}

/** PostHog's `Property` attributes, in the order `Property.to_dict` writes them (`vars(self)`). */
const PROPERTY_ATTRIBUTES = [
  "key",
  "operator",
  "type",
  "group_type_index",
  "event_type",
  "operator_value",
  "time_value",
  "time_interval",
  "total_periods",
  "min_periods",
  "seq_event_type",
  "seq_event",
  "seq_time_value",
  "seq_time_interval",
  "negation",
] as const;

/** One filter as `Property.to_dict` writes it (see the module comment). */
function propertyDict(filter: Exclude<PropertyNode, PropertyGroup>): Record<string, unknown> {
  const source = filter as Record<string, unknown>;
  const dict: Record<string, unknown> = {};
  for (const name of PROPERTY_ATTRIBUTES) {
    const value = name === "type" ? (source["type"] ?? "event") : source[name];
    if (value !== null && value !== undefined) dict[name] = value;
  }
  const operator = source["operator"];
  const value = source["value"];
  if (value !== null && value !== undefined) dict["value"] = value;
  else if (operator === "is_set" || operator === "is_not_set") dict["value"] = operator;
  return dict;
}

/** A node of a criteria tree as PostHog serialises it: `PropertyGroup.to_dict` or `Property.to_dict`. */
export function cohortDict(node: PropertyNode): Record<string, unknown> {
  if (!isPropertyGroup(node)) return propertyDict(node);
  if (node.values.length === 0) return {};
  return { type: node.type, values: node.values.map(cohortDict) };
}

/** Every filter (leaf) of a tree, in order (`PropertyGroup.flat`). */
function flat(node: PropertyNode): PropertyNode[] {
  return isPropertyGroup(node) ? node.values.flatMap(flat) : [node];
}

/** `clear_excess_levels`: single-child groups collapse into their child, except directly under a wider group. */
function clearExcessLevels(node: PropertyNode, skip = false): PropertyNode {
  if (!isPropertyGroup(node)) return node;
  if (node.values.length === 1) {
    if (!skip) return clearExcessLevels(node.values[0]!);
    return { type: node.type, values: node.values.map((child) => clearExcessLevels(child)) };
  }
  return { type: node.type, values: node.values.map((child) => clearExcessLevels(child, true)) };
}

/** Thrown where PostHog's code raises on a malformed stored filter; callers send the flag unchanged. */
export class UnreadableFlagError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "UnreadableFlagError";
  }
}

/** Python's `int(value)` on a cohort filter's value, as PostHog reads it. @throws UnreadableFlagError. */
function cohortIdOf(value: unknown): number {
  const id = typeof value === "boolean" ? Number(value) : parseId(value);
  if (id === null) throw new UnreadableFlagError(`cohort filter value ${JSON.stringify(value)} is not an id`);
  return id;
}

/** A condition's `properties` as PostHog iterates them (`condition.get("properties", [])`). @throws UnreadableFlagError. */
function conditionProperties(condition: Record<string, unknown>): Record<string, unknown>[] {
  const properties = condition["properties"] ?? [];
  if (!Array.isArray(properties)) throw new UnreadableFlagError("a condition's properties are not a list");
  return properties.map((property) => (isJsonObject(property) ? property : {}));
}

/** The cohorts `start` names, directly or through others, among `cohorts` (the project's non-deleted ones). */
function dependencies(start: InliningCohort, cohorts: ReadonlyMap<number, InliningCohort>): Set<number> {
  const found = new Set<number>();
  const pending = [start];
  while (pending.length > 0) {
    const cohort = pending.pop()!;
    if (!cohort.criteria) continue;
    for (const leaf of flat(cohort.criteria)) {
      if (leaf.type !== "cohort") continue;
      const id = parseId((leaf as Record<string, unknown>)["value"]);
      const next = id === null ? undefined : cohorts.get(id);
      if (id === null || !next || found.has(id)) continue;
      found.add(id);
      pending.push(next);
    }
  }
  return found;
}

/**
 * The ids of the cohorts a flag's conditions reach: each cohort a condition names that exists (not
 * deleted, in the project: a key of `cohorts`), and the cohorts those name in turn, each once, in
 * first-reached order (`FeatureFlag.get_cohort_ids`).
 * @throws UnreadableFlagError for a cohort filter whose value is not an id (PostHog's `int()` raises).
 */
export function flagCohortIds(filters: unknown, cohorts: ReadonlyMap<number, InliningCohort>): number[] {
  const ids = new Set<number>();
  for (const condition of conditionGroups(filters)) {
    for (const property of conditionProperties(condition)) {
      if (property["type"] !== "cohort") continue;
      const id = cohortIdOf(property["value"]);
      const cohort = cohorts.get(id);
      if (!cohort) continue;
      ids.add(id);
      for (const dependency of dependencies(cohort, cohorts)) ids.add(dependency);
    }
  }
  return [...ids];
}

/**
 * The condition groups of `filters` with its one cohort inlined as person-property groups, or null
 * when PostHog keeps the flag's conditions as they are: not exactly one cohort reached, a variant
 * override, a cohort sharing its condition with other filters, a missing cohort, a cohort with no
 * criteria or with other than person properties, a negated criterion, or nesting deeper than an OR
 * of ANDs.
 * @throws UnreadableFlagError where PostHog's code raises (a cohort value that is not an id, a
 *   condition's `properties` that is not a list).
 */
export function inlineCohort(
  filters: Record<string, unknown>,
  cohorts: ReadonlyMap<number, InliningCohort>,
): Record<string, unknown>[] | null {
  if (flagCohortIds(filters, cohorts).length !== 1) return null;
  const conditions = conditionGroups(filters);
  const parsed: Record<string, unknown>[] = [];
  let rollout: unknown = null;
  let cohort: InliningCohort | undefined;
  for (const condition of conditions) {
    if (condition["variant"]) return null;
    let hasCohort = false;
    const properties = conditionProperties(condition);
    rollout = condition["rollout_percentage"] ?? null;
    for (const property of properties) {
      if (property["type"] !== "cohort") continue;
      hasCohort = true;
      const id = cohortIdOf(property["value"]);
      if (id === 0) continue;
      if (properties.length > 1) return null;
      cohort = cohorts.get(id);
      if (!cohort) return null;
    }
    if (!hasCohort) parsed.push(condition);
  }
  const criteria = cohort?.criteria;
  if (!criteria) return null;
  const leaves = flat(criteria);
  if (leaves.length === 0) return null;
  if (!leaves.every((leaf) => leaf.type === "person")) return null;
  if (leaves.some((leaf) => Boolean((leaf as Record<string, unknown>)["negation"]))) return null;

  const group = (nodes: readonly PropertyNode[]) => ({
    properties: nodes.map(cohortDict),
    rollout_percentage: rollout,
  });
  const target = clearExcessLevels(criteria);
  if (!isPropertyGroup(target)) return [...parsed, group([target])];
  if (!isPropertyGroup(target.values[0]!)) {
    if (target.type === "AND") return [...parsed, group(target.values)];
    return [...parsed, ...target.values.map((node) => group([node]))];
  }
  if (target.type === "AND") return null;
  for (const node of target.values) {
    if (!isPropertyGroup(node)) throw new UnreadableFlagError("a property where a group was expected");
    if (node.values.length === 0 || isPropertyGroup(node.values[0]!)) return null;
    if (node.type === "OR" && node.values.length > 1) return null;
    parsed.push(group(node.values));
  }
  return parsed;
}
