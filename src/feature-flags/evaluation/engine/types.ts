/**
 * The flag evaluation engine's inputs and outputs (posthog-behavior.md §3). Types only; the engine is
 * `./evaluate.ts`: `compileDefinitions(definitions): CompiledDefinitions` (once per project revision,
 * cacheable) and `evaluateFlags(compiled, subject, options): Map<key, FlagEvaluation>`. It is pure:
 * no I/O, no clock of its own (`now` is given), no exceptions for odd stored filters. The data it reads is loaded by its callers (remote `/flags`, `evaluation_reasons`, OFREP,
 * static cohorts for a flag), each in a bounded number of statements.
 */
import type { PropertyGroup } from "../../../lib/property-filters/property-filters.js";

/** A flag as the engine sees it: the stored row's fields that evaluation reads. */
export interface EvaluationFlag {
  id: number;
  key: string;
  active: boolean;
  /** The stored `filters` JSON, read tolerantly (PostHog stores some odd filters; §3, issue 8). */
  filters: unknown;
  /** When true, the person's hash-key override for this flag (if any) replaces the distinct id (§3.2). */
  ensureExperienceContinuity: boolean;
  /** `device_id` buckets by the subject's `deviceId` (§3.2, newer PostHog); null means `distinct_id`. */
  bucketingIdentifier: string | null;
}

/** A cohort a flag may name: static ones are membership lists, others a property tree (§3.5–3.6). */
export interface EvaluationCohort {
  id: number;
  isStatic: boolean;
  /** The cohort's criteria (`filters.properties`), null for static cohorts or cohorts without criteria. */
  criteria: PropertyGroup | null;
}

/** The project's definitions: what `local_evaluation` sends SDKs, in the engine's form. */
export interface EvaluationDefinitions {
  /** Non-deleted flags of the project, inactive ones included, in any order. */
  flags: readonly EvaluationFlag[];
  /** Group type index (as a string, "0"–"4") → group type name, as `local_evaluation` sends it. */
  groupTypeMapping: Readonly<Record<string, string>>;
  /** Cohorts by id: every cohort a flag names, and those they name in turn. */
  cohorts: ReadonlyMap<number, EvaluationCohort>;
}

/** Who a flag is evaluated for, with every property the engine may read. */
export interface EvaluationSubject {
  distinctId: string;
  /** `$device_id`, for flags with `bucketing_identifier: "device_id"`; null when unknown. */
  deviceId: string | null;
  /** The person's properties (stored ones overlaid with the request's `person_properties`). */
  personProperties: Readonly<Record<string, unknown>>;
  /** Group type name → group key, as SDKs send `groups`. */
  groups: Readonly<Record<string, string>>;
  /** Group type name → that group's properties (stored ones overlaid with `group_properties`). */
  groupProperties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Ids of the static cohorts the person is a member of. */
  staticCohortIds: ReadonlySet<number>;
  /** Flag key → hash key, the person's experience-continuity overrides (§3.2). */
  hashKeyOverrides: Readonly<Record<string, string>>;
}

/** A flag's value: `false`, `true`, or the variant key. */
export type FlagValue = boolean | string;

/**
 * Why a flag has its value: PostHog's reason codes (§3.4, Rust `flag_match_reason.rs`); `disabled`
 * is what `evaluation_reasons` reports for an inactive flag (§2.10), `flag_disabled` the Rust
 * service's name for it.
 */
export type EvaluationReason =
  | "condition_match"
  | "no_condition_match"
  | "out_of_rollout_bound"
  | "no_group_type"
  | "super_condition_value"
  | "holdout_condition_value"
  | "flag_disabled"
  | "missing_dependency";

/** One flag's result. */
export interface FlagEvaluation {
  key: string;
  value: FlagValue;
  /** The variant key, or null for a boolean result. */
  variant: string | null;
  reason: EvaluationReason;
  /** The index in `filters.groups` of the deciding condition (§3.4), null when none decided. */
  conditionIndex: number | null;
  /** `filters.payloads[variant ?? "true"]` as stored (usually a JSON string) when the flag matched; else null. */
  payload: unknown;
}

/** Options of one evaluation. */
export interface EvaluationOptions {
  /** The time relative dates (`-7d`) are measured from. */
  now: Date;
  /** Evaluate only these keys (and, silently, the flags they depend on); all flags when absent. */
  keys?: readonly string[];
}
