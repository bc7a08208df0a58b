/**
 * The flag evaluation engine (posthog-behavior.md §3; issue 8): `compileDefinitions` once per project
 * revision, then `evaluateFlags` per subject. Pure: no I/O, no clock (`options.now`), no exceptions
 * for odd stored filters. Server-side semantics: every property of the subject is known, so nothing
 * is "inconclusive" (see `./operators.ts` for missing properties and where posthog-node and the Rust
 * service differ).
 *
 * Per flag, in this order (Rust `rust/feature-flags/src/flags/flag_matching.rs` `get_match`, newest):
 * 1. inactive → `false`, `flag_disabled`; a missing or cyclic dependency → `false`,
 *    `missing_dependency` (condition index null for both);
 * 2. early-access enrolment (`feature_enrollment`, legacy `super_groups`) → its value,
 *    `super_condition_value`, index 0 (a boolean even on a multivariate flag);
 * 3. holdout → the holdout variant, `holdout_condition_value`, index null;
 * 4. conditions in stored order; the first that matches wins (`condition_match`, its index; the
 *    variant override if it names a variant, else the hashed variant, else `true`). A condition that
 *    cannot run is skipped with a reason: a group condition without the subject's group
 *    (`no_group_type`), a person condition of a `device_id` flag without a device id
 *    (`out_of_rollout_bound`). Without a match the reason is the highest-ranked one seen (Rust
 *    `flag_match_reason.rs` scores: condition_match 4 > out_of_rollout_bound 3 > no_condition_match 2
 *    > no_group_type 1), ties to the later condition; it starts at `no_group_type` with index null,
 *    which is what a flag without conditions answers.
 * The payload is `filters.payloads[variant ?? "true"]` as stored, only for a `true` or variant value.
 *
 * Identifiers (§3.2): a person condition hashes the device id for `device_id` flags, else the
 * subject's hash-key override when the flag has experience continuity, else the distinct id; a group
 * condition hashes the key of the subject's group of that type. The holdout hashes the flag-level
 * subject without the hash-key override (Rust `get_holdout_hash`).
 */

import { ownValue } from "../../../core/own-keys.js";
import { CohortMembership } from "./cohorts.js";
import type { CompiledDefinitions, CompiledFlag } from "./compile.js";
import { type ConditionContext, filtersMatch, inRollout } from "./conditions.js";
import { holdoutHash } from "./hash.js";
import type {
  EvaluationOptions,
  EvaluationReason,
  EvaluationSubject,
  FlagEvaluation,
  FlagValue,
} from "./types.js";
import { hasProperty, type Properties } from "./values.js";
import { pickVariant } from "./variants.js";

export type { CompiledDefinitions } from "./compile.js";
export { compileDefinitions } from "./compile.js";

/** Rust `FeatureFlagMatchReason::score` for the reasons a condition reports. */
const SCORE: Readonly<Record<EvaluationReason, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1,
};

const EMPTY: Properties = Object.freeze({});

/** What one flag's evaluation reads besides the flag. */
interface FlagContext extends ConditionContext {
  subject: EvaluationSubject;
  groupTypes: ReadonlyMap<number, string>;
}

function payloadOf(flag: CompiledFlag, value: FlagValue): unknown {
  if (value === false || flag.payloads === null) return null;
  const key = value === true ? "true" : value;
  return Object.hasOwn(flag.payloads, key) ? flag.payloads[key] : null;
}

function result(
  flag: CompiledFlag,
  value: FlagValue,
  reason: EvaluationReason,
  conditionIndex: number | null,
): FlagEvaluation {
  return {
    key: flag.key,
    value,
    variant: typeof value === "string" ? value : null,
    reason,
    conditionIndex,
    payload: payloadOf(flag, value),
  };
}

/** The person identifier a flag hashes (see the header); `withOverride` false for holdouts. */
function personIdentifier(flag: CompiledFlag, subject: EvaluationSubject, withOverride: boolean): string {
  if (flag.byDevice && subject.deviceId) return subject.deviceId;
  const override = withOverride && flag.continuity ? ownValue(subject.hashKeyOverrides, flag.key) : undefined;
  return override ?? subject.distinctId;
}

/** The key of the subject's group of type `index`, or null when it has none (or the type is unknown). */
function groupKey(index: number, context: FlagContext): string | null {
  const name = context.groupTypes.get(index);
  const key = name === undefined ? undefined : ownValue(context.subject.groups, name);
  return key === undefined || key === null || String(key) === "" ? null : String(key);
}

function enrollmentResult(flag: CompiledFlag, context: FlagContext): FlagEvaluation | null {
  const enrollment = flag.enrollment;
  const person = context.person;
  if (enrollment === null) return null;
  if (enrollment.kind === "property") {
    if (!hasProperty(person, enrollment.key)) return null;
    const value = person[enrollment.key];
    return result(flag, value === true || value === "true", "super_condition_value", 0);
  }
  if (!enrollment.keys.some((key) => hasProperty(person, key))) return null;
  const matched =
    filtersMatch(enrollment.condition, context) &&
    inRollout(flag.key, enrollment.condition, personIdentifier(flag, context.subject, true));
  return result(flag, matched, "super_condition_value", 0);
}

function holdoutResult(flag: CompiledFlag, context: FlagContext): FlagEvaluation | null {
  const holdout = flag.holdout;
  if (holdout === null) return null;
  const identifier =
    flag.aggregation === null
      ? personIdentifier(flag, context.subject, false)
      : (groupKey(flag.aggregation, context) ?? "");
  if (holdout.threshold !== null && holdoutHash(identifier) > holdout.threshold) return null;
  const variant = holdout.variant ?? pickVariant(flag.key, flag.variants, identifier);
  return result(flag, variant ?? true, "holdout_condition_value", null);
}

/** One flag for one subject (see the header for the order of the rules). */
function evaluateFlag(flag: CompiledFlag, context: FlagContext): FlagEvaluation {
  if (!flag.active) return result(flag, false, "flag_disabled", null);
  if (flag.missingDependency) return result(flag, false, "missing_dependency", null);
  const early = enrollmentResult(flag, context) ?? holdoutResult(flag, context);
  if (early) return early;
  let reason: EvaluationReason = "no_group_type";
  let index: number | null = null;
  for (const condition of flag.conditions) {
    let seen: EvaluationReason;
    if (condition.aggregation === null && flag.byDevice && !context.subject.deviceId) {
      seen = "out_of_rollout_bound";
    } else {
      const identifier =
        condition.aggregation === null
          ? personIdentifier(flag, context.subject, true)
          : groupKey(condition.aggregation, context);
      if (identifier === null) seen = "no_group_type";
      else if (!filtersMatch(condition, context)) seen = "no_condition_match";
      else if (!inRollout(flag.key, condition, identifier)) seen = "out_of_rollout_bound";
      else {
        const variant = condition.variantOverride ?? pickVariant(flag.key, flag.variants, identifier);
        return result(flag, variant ?? true, "condition_match", condition.index);
      }
    }
    // The highest-ranked reason seen so far, ties to the later condition.
    if (SCORE[reason] <= SCORE[seen]) {
      reason = seen;
      index = condition.index;
    }
  }
  return result(flag, false, reason, index);
}

/** The ids of the flags `keys` name and of every flag they depend on, at any depth. */
function withDependencies(compiled: CompiledDefinitions, keys: readonly string[]): Set<number> {
  const byId = new Map(compiled.listed.map((flag) => [flag.id, flag]));
  const needed = new Set<number>();
  const stack = keys.flatMap((key) => {
    const flag = compiled.byKey.get(key);
    return flag ? [flag] : [];
  });
  while (stack.length > 0) {
    const flag = stack.pop()!;
    if (needed.has(flag.id)) continue;
    needed.add(flag.id);
    for (const id of flag.dependsOn) {
      const dependency = byId.get(id);
      if (dependency) stack.push(dependency);
    }
  }
  return needed;
}

/**
 * Evaluates the project's flags for one subject: every flag, or only `options.keys` (unknown keys are
 * left out; the flags they depend on are evaluated but not returned). Results are keyed by flag key,
 * in the order the definitions listed the flags.
 */
export function evaluateFlags(
  compiled: CompiledDefinitions,
  subject: EvaluationSubject,
  options: EvaluationOptions,
): Map<string, FlagEvaluation> {
  const needed = options.keys ? withDependencies(compiled, options.keys) : null;
  const values = new Map<number, FlagValue>();
  const results = new Map<number, FlagEvaluation>();
  const context: FlagContext = {
    subject,
    groupTypes: compiled.groupTypes,
    person: subject.personProperties,
    groupProperties: (index) => {
      const name = compiled.groupTypes.get(index);
      return (name === undefined ? undefined : ownValue(subject.groupProperties, name)) ?? EMPTY;
    },
    cohorts: new CohortMembership(
      compiled.cohorts,
      subject.personProperties,
      subject.staticCohortIds,
      options.now,
    ),
    flagValue: (id) => values.get(id),
    now: options.now,
  };
  for (const flag of compiled.order) {
    if (needed && !needed.has(flag.id)) continue;
    const evaluation = evaluateFlag(flag, context);
    values.set(flag.id, evaluation.value);
    results.set(flag.id, evaluation);
  }
  const requested = options.keys ? new Set(options.keys) : null;
  const out = new Map<string, FlagEvaluation>();
  for (const flag of compiled.listed) {
    const evaluation = results.get(flag.id);
    if (evaluation && (requested === null || requested.has(flag.key))) out.set(flag.key, evaluation);
  }
  return out;
}
