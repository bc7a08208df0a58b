/**
 * `compileDefinitions`: a project's flags and cohorts read once per project revision into the form
 * `evaluateFlags` runs on: stored filters read tolerantly (anything odd compiles to "does not
 * match", never an exception), values parsed up front (numbers, dates, versions, re2js regexes),
 * variants as cumulative slices, variant overrides checked against the variants, flag dependencies
 * resolved by id and ordered (dependencies first), cycles and missing dependencies found, cohort
 * trees compiled and their cycles found. Callers cache the result per (project, revision).
 *
 * Conditions keep their stored order. posthog-behavior.md §3.3 step 5 describes the older rule that
 * moved conditions with a variant override first; PostHog dropped it (issue PostHog/posthog#37854):
 * the Rust service's `get_match` and posthog-node's `matchFeatureFlagProperties` walk
 * `filters.groups` in stored order, and SDKs must agree with us.
 */
import { type CohortTable, compileCohorts } from "./cohorts.js";
import { type CompiledCondition, compileCondition } from "./conditions.js";
import { planDependencies } from "./dependencies.js";
import type { EvaluationDefinitions, EvaluationFlag } from "./types.js";
import { compileVariants, type VariantSlice } from "./variants.js";

/** Early-access enrolment (§3.3 step 3): the new `feature_enrollment` or the first legacy super group. */
export type CompiledEnrollment =
  | { kind: "property"; key: string }
  | { kind: "condition"; condition: CompiledCondition; keys: string[] };

/** A holdout (§3.3 step 4): identifiers whose holdout hash is within `threshold` are held out. */
export interface CompiledHoldout {
  /** `exclusion / 100` (1 holds out everyone); null when a legacy group has no rollout (everyone). */
  threshold: number | null;
  /** The variant held-out identifiers get; null means the flag's own variant (legacy groups without one). */
  variant: string | null;
}

/** A flag as `evaluateFlags` runs it. */
export interface CompiledFlag {
  id: number;
  key: string;
  active: boolean;
  /** `filters.aggregation_group_type_index`: null for a person flag. */
  aggregation: number | null;
  /** `bucketing_identifier: "device_id"`: person conditions hash `subject.deviceId`. */
  byDevice: boolean;
  /** `ensure_experience_continuity`: the subject's hash-key override replaces its distinct id. */
  continuity: boolean;
  conditions: CompiledCondition[];
  variants: VariantSlice[];
  payloads: Readonly<Record<string, unknown>> | null;
  enrollment: CompiledEnrollment | null;
  holdout: CompiledHoldout | null;
  /** Ids of the flags its conditions depend on. */
  dependsOn: number[];
  /** A dependency is missing or cyclic, directly or further down (§2.6). */
  missingDependency: boolean;
}

/** A project's definitions compiled once per revision; opaque to callers. */
export interface CompiledDefinitions {
  /** Flags in evaluation order: every flag after the flags it depends on. */
  order: readonly CompiledFlag[];
  /** Flags in the order the definitions listed them (the order results are returned in). */
  listed: readonly CompiledFlag[];
  byKey: ReadonlyMap<string, CompiledFlag>;
  /** Group type index → group type name. */
  groupTypes: ReadonlyMap<number, string>;
  cohorts: CohortTable;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The holdout: `filters.holdout = {id, exclusion_percentage}` (newer; read as posthog-node's
 * `getHoldoutVariant`: clamped to 0–100, absent or non-numeric values mean none), else the first of
 * the older `holdout_groups` (`[{properties: [], rollout_percentage, variant: "holdout-<id>"}]`, as
 * the Rust service read it before the migration: a group with properties is not a holdout).
 */
function compileHoldout(filters: Record<string, unknown>): CompiledHoldout | null {
  const holdout = filters["holdout"];
  if (isRecord(holdout)) {
    const { id, exclusion_percentage: exclusion } = holdout;
    if (id === null || id === undefined || exclusion === null || exclusion === undefined) return null;
    const percentage = Number(exclusion);
    if (!Number.isFinite(percentage)) return null;
    // 100% is a threshold of 1, above every hash (hashes are in [0, 1)): everyone is held out.
    const clamped = Math.min(Math.max(percentage, 0), 100);
    return { threshold: clamped / 100, variant: `holdout-${String(id)}` };
  }
  const legacy = Array.isArray(filters["holdout_groups"]) ? filters["holdout_groups"][0] : undefined;
  if (!isRecord(legacy)) return null;
  if (Array.isArray(legacy["properties"]) && legacy["properties"].length > 0) return null;
  const rollout = legacy["rollout_percentage"];
  return {
    threshold: rollout === null || rollout === undefined ? null : Number(rollout) / 100,
    variant: typeof legacy["variant"] === "string" ? legacy["variant"] : null,
  };
}

/**
 * Enrolment in an early-access feature: `feature_enrollment: true` reads the person property
 * `$feature_enrollment/<key>`; otherwise the first `super_groups` entry with properties is a
 * condition that decides the flag when the person has any of its properties (Rust `get_match`).
 */
function compileEnrollment(flagKey: string, filters: Record<string, unknown>): CompiledEnrollment | null {
  if (filters["feature_enrollment"] === true)
    return { kind: "property", key: `$feature_enrollment/${flagKey}` };
  const first = Array.isArray(filters["super_groups"]) ? filters["super_groups"][0] : undefined;
  if (!isRecord(first) || !Array.isArray(first["properties"]) || first["properties"].length === 0)
    return null;
  const keys = first["properties"].flatMap((property) =>
    isRecord(property) && (typeof property["key"] === "string" || typeof property["key"] === "number")
      ? [String(property["key"])]
      : [],
  );
  return { kind: "condition", condition: compileCondition(first, 0, null, new Set()), keys };
}

function compileFlag(flag: EvaluationFlag): CompiledFlag {
  const filters = isRecord(flag.filters) ? flag.filters : {};
  const aggregationRaw = filters["aggregation_group_type_index"];
  const aggregation = typeof aggregationRaw === "number" ? aggregationRaw : null;
  const variants = compileVariants(filters["multivariate"]);
  const variantKeys = new Set(variants.flatMap((slice) => (slice.key === null ? [] : [slice.key])));
  const groups = Array.isArray(filters["groups"]) ? filters["groups"] : [];
  const conditions = groups.map((group, index) => compileCondition(group, index, aggregation, variantKeys));
  const dependsOn = new Set<number>();
  for (const condition of conditions) {
    for (const filter of condition.filters) if (filter.kind === "flag") dependsOn.add(filter.flagId);
  }
  return {
    id: flag.id,
    key: flag.key,
    active: flag.active,
    aggregation,
    byDevice: flag.bucketingIdentifier === "device_id",
    continuity: flag.ensureExperienceContinuity,
    conditions,
    variants,
    payloads: isRecord(filters["payloads"]) ? filters["payloads"] : null,
    enrollment: compileEnrollment(flag.key, filters),
    holdout: compileHoldout(filters),
    dependsOn: [...dependsOn],
    missingDependency: false,
  };
}

/** Compiles a project's definitions (see the module header). Never throws for odd stored filters. */
export function compileDefinitions(definitions: EvaluationDefinitions): CompiledDefinitions {
  const listed = definitions.flags.map(compileFlag);
  const byId = new Map(listed.map((flag) => [flag.id, flag]));
  const plan = planDependencies(listed.map((flag) => ({ id: flag.id, dependsOn: flag.dependsOn })));
  for (const id of plan.broken) byId.get(id)!.missingDependency = true;
  const groupTypes = new Map<number, string>();
  for (const [index, name] of Object.entries(definitions.groupTypeMapping)) {
    if (/^\d+$/.test(index)) groupTypes.set(Number(index), name);
  }
  return {
    order: plan.order.map((id) => byId.get(id)!),
    listed,
    byKey: new Map(listed.map((flag) => [flag.key, flag])),
    groupTypes,
    cohorts: compileCohorts(definitions.cohorts),
  };
}
