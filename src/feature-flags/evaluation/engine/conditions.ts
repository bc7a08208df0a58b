/**
 * One condition set (`filters.groups[i]`, posthog-behavior.md §3.4) compiled and matched: every filter
 * must match (AND), then the rollout. Filters read the bag their type names, as the Rust service's
 * `PropertyContext::resolve_for_filter` (`flag_matching.rs`): `person` filters the person's
 * properties, `group` filters the properties of group type `group_type_index` (else the condition's
 * aggregation), cohorts the person, `flag` filters the results of flags evaluated before; any other
 * type reads the condition's own subject (the person, or its group), as posthog-node reads every
 * filter of a condition.
 */

import { cohortIdOf } from "../../../lib/property-filters/property-filters.js";
import type { CohortMembership } from "./cohorts.js";
import { dependencyId } from "./dependencies.js";
import { rolloutHash } from "./hash.js";
import { compilePropertyTest, type PropertyTest } from "./operators.js";
import type { FlagValue } from "./types.js";
import type { Properties } from "./values.js";

/** A compiled filter of a condition. */
export type CompiledFilter =
  | { kind: "person"; test: PropertyTest }
  | { kind: "group"; groupTypeIndex: number | null; test: PropertyTest }
  | { kind: "subject"; test: PropertyTest }
  | { kind: "cohort"; cohortId: number | null; notIn: boolean }
  | { kind: "flag"; flagId: number; expected: unknown }
  | { kind: "never" };

/** A compiled condition set. */
export interface CompiledCondition {
  /** Its index in `filters.groups` (what `condition_index` reports). */
  index: number;
  /** Group type index whose group the condition targets and hashes; null for the person. */
  aggregation: number | null;
  filters: CompiledFilter[];
  /** `rollout_percentage / 100`; null when absent or null (everyone). */
  threshold: number | null;
  /** The `variant` override, only when it names an existing variant (§3.3 step 6). */
  variantOverride: string | null;
}

/** What matching a condition reads besides the condition. */
export interface ConditionContext {
  person: Properties;
  /** The properties of the subject's group of type `index` (empty when none). */
  groupProperties(index: number): Properties;
  cohorts: CohortMembership;
  /** The value of a flag evaluated earlier in this evaluation, by id. */
  flagValue(id: number): FlagValue | undefined;
  now: Date;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One raw filter of a condition, compiled; never throws. */
export function compileFilter(raw: unknown): CompiledFilter {
  if (!isRecord(raw)) return { kind: "never" };
  switch (raw["type"]) {
    case "cohort":
      return { kind: "cohort", cohortId: cohortIdOf(raw["value"]), notIn: raw["operator"] === "not_in" };
    case "flag": {
      const flagId = dependencyId(raw["key"]);
      // The Rust service matches flag filters only with their own operator (`match_flag_value_to_flag_filter`).
      return flagId === null || raw["operator"] !== "flag_evaluates_to"
        ? { kind: "never" }
        : { kind: "flag", flagId, expected: raw["value"] };
    }
    case "person":
      return { kind: "person", test: compilePropertyTest(raw) };
    case "group": {
      const index = raw["group_type_index"];
      return {
        kind: "group",
        groupTypeIndex: typeof index === "number" ? index : null,
        test: compilePropertyTest(raw),
      };
    }
    default:
      return { kind: "subject", test: compilePropertyTest(raw) };
  }
}

/**
 * A `flag_evaluates_to` value against the dependency's result (§2.6): `true` matches any value but
 * `false` (a variant counts), `false` matches `false`, a string matches that variant only.
 */
export function flagEvaluatesTo(expected: unknown, value: FlagValue | undefined): boolean {
  if (value === undefined) return false;
  if (expected === true) return value !== false;
  if (expected === false) return value === false;
  return typeof expected === "string" && value === expected;
}

/** One raw condition set, compiled; `flagAggregation` is the flag's `aggregation_group_type_index`. */
export function compileCondition(
  raw: unknown,
  index: number,
  flagAggregation: number | null,
  variantKeys: ReadonlySet<string>,
): CompiledCondition {
  // A condition that is not an object (posthog-node fails on it and defers) never matches.
  const group = isRecord(raw) ? raw : { properties: [null] };
  const ownAggregation = group["aggregation_group_type_index"];
  const aggregation =
    ownAggregation === undefined
      ? flagAggregation
      : typeof ownAggregation === "number"
        ? ownAggregation
        : null;
  const properties = Array.isArray(group["properties"]) ? group["properties"] : [];
  const rollout = group["rollout_percentage"];
  const variant = group["variant"];
  return {
    index,
    aggregation,
    filters: properties.map(compileFilter),
    threshold: rollout === undefined || rollout === null ? null : Number(rollout) / 100,
    variantOverride: typeof variant === "string" && variantKeys.has(variant) ? variant : null,
  };
}

function filterMatches(
  filter: CompiledFilter,
  aggregation: number | null,
  context: ConditionContext,
): boolean {
  switch (filter.kind) {
    case "person":
      return filter.test(context.person, context.now);
    case "group": {
      const index = filter.groupTypeIndex ?? aggregation;
      return filter.test(index === null ? {} : context.groupProperties(index), context.now);
    }
    case "subject":
      return filter.test(
        aggregation === null ? context.person : context.groupProperties(aggregation),
        context.now,
      );
    case "cohort": {
      const member = filter.cohortId === null ? null : context.cohorts.isMember(filter.cohortId);
      return member !== null && member !== filter.notIn;
    }
    case "flag":
      return flagEvaluatesTo(filter.expected, context.flagValue(filter.flagId));
    default:
      return false;
  }
}

/** True when every filter of the condition matches. */
export function filtersMatch(condition: CompiledCondition, context: ConditionContext): boolean {
  for (const filter of condition.filters)
    if (!filterMatches(filter, condition.aggregation, context)) return false;
  return true;
}

/**
 * True when `identifier` is inside the condition's rollout: no percentage, or
 * `hash <= percentage / 100` (inclusive at the boundary; `NaN` from an odd stored value lets
 * everyone in, as posthog-node's `hash > NaN` does).
 */
export function inRollout(flagKey: string, condition: CompiledCondition, identifier: string): boolean {
  return condition.threshold === null || !(rolloutHash(flagKey, identifier) > condition.threshold);
}
