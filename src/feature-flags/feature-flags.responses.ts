/**
 * The feature-flag record as the REST door answers it (spec "Feature flag record", posthog-behavior.md
 * §2.2; PostHog's `FeatureFlagSerializer`), written once as a zod schema: `serializeFlag` returns its
 * type, fastify writes flag bodies with it, and the OpenAPI document names it `FeatureFlag`.
 * Stored JSON (`filters`, `rollback_conditions`) is free-form here, so every stored key is answered.
 */
import { z } from "zod";
import { cohortSchema } from "../cohorts/cohorts.responses.js";
import { scopeSatisfied } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import { BUCKETING_IDENTIFIERS, CREATION_CONTEXTS, EVALUATION_RUNTIMES } from "./feature-flags.schemas.js";
import {
  FLAG_STATUS_NAMES,
  type FlagStatusName,
  type FlagStatusResult,
  isSimpleFlag,
  simpleRolloutPercentage,
} from "./rules/status.js";
import { effectiveFilters } from "./rules/stored-filters.js";

/**
 * A flag in PostHog's `MinimalFeatureFlagSerializer` shape: the local-evaluation payload's flags,
 * `my_flags`' items and an experiment's `feature_flag`.
 */
export const minimalFlagSchema = z
  .object({
    id: z.int(),
    team_id: z.int(),
    name: z.string(),
    key: z.string(),
    filters: z.record(z.string(), z.unknown()),
    deleted: z.boolean(),
    active: z.boolean(),
    ensure_experience_continuity: z.boolean(),
    has_encrypted_payloads: z.boolean(),
    version: z.int(),
    evaluation_runtime: z.string(),
    bucketing_identifier: z.string(),
    evaluation_tags: z.array(z.string()),
  })
  .meta({ id: "MinimalFeatureFlag" });

/**
 * `create_static_cohort_for_flag`'s answer (§2.10): the new static cohort, as the cohort routes
 * serialise it, already complete (`is_calculating` false, `count` its members).
 */
export const flagStaticCohortSchema = z
  .object({ cohort: cohortSchema })
  .meta({ id: "FeatureFlagStaticCohort" });

/** A flag in PostHog's response shape. */
export const featureFlagSchema = z
  .object({
    id: z.int(),
    name: z.string().describe("The flag's description (named `name` for backwards compatibility)."),
    key: z.string(),
    filters: z
      .record(z.string(), z.unknown())
      .describe(
        "Release conditions: `groups`, `multivariate`, `payloads`, `aggregation_group_type_index`, ... (free-form JSON).",
      ),
    deleted: z.boolean(),
    active: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    version: z
      .int()
      .describe("Raised by every change; send it back on PATCH/PUT to detect concurrent edits."),
    last_modified_by: userBasicSchema.nullable(),
    is_simple_flag: z.boolean(),
    rollout_percentage: z.number().nullable(),
    ensure_experience_continuity: z.boolean(),
    experiment_set: z.array(z.int()),
    surveys: z.array(z.record(z.string(), z.unknown())),
    features: z.array(z.record(z.string(), z.unknown())),
    rollback_conditions: z.unknown().describe("Free-form JSON, or null."),
    performed_rollback: z.boolean().nullable(),
    can_edit: z.boolean(),
    tags: z.array(z.string()),
    evaluation_tags: z.array(z.string()),
    usage_dashboard: z.int().nullable(),
    analytics_dashboards: z.array(z.int()),
    has_enriched_analytics: z.boolean(),
    user_access_level: z.enum(["viewer", "editor"]),
    creation_context: z.enum(CREATION_CONTEXTS),
    is_remote_configuration: z.boolean(),
    has_encrypted_payloads: z.boolean(),
    status: z.enum(FLAG_STATUS_NAMES),
    evaluation_runtime: z.enum(EVALUATION_RUNTIMES),
    bucketing_identifier: z.enum(BUCKETING_IDENTIFIERS),
    last_called_at: z.iso.datetime().nullable(),
    _create_in_folder: z.string().nullable(),
    _should_create_usage_dashboard: z.boolean(),
  })
  .meta({ id: "FeatureFlag" });

/** A flag in PostHog's response shape (the output of `featureFlagSchema`). */
export type FeatureFlagResponse = z.output<typeof featureFlagSchema>;

/** A DRF offset page of flags. */
export const featureFlagPageSchema = paginatedListSchema(featureFlagSchema, "PaginatedFeatureFlagList");

/** `GET :id/status` (§2.8): the status as PostHog's enum value (lower case), and why. */
export const flagStatusBodySchema = z
  .object({
    status: z.enum(FLAG_STATUS_NAMES.map((name) => name.toLowerCase()) as Lowercase<FlagStatusName>[]),
    reason: z.string().describe('In PostHog\'s words, e.g. "Flag was called today".'),
  })
  .meta({ id: "FeatureFlagStatus" });

/** A flag that depends on another (§2.6), as `dependent_flags` lists it. */
export const dependentFlagSchema = z
  .object({
    id: z.int(),
    key: z.string(),
    name: z.string().describe("The flag's name, or its key when the name is blank."),
  })
  .meta({ id: "DependentFlag" });

/** `POST :id/has_active_dependents` (§2.6). */
export const activeDependentsSchema = z
  .object({
    has_active_dependents: z.boolean(),
    dependent_flags: z.array(dependentFlagSchema),
    warning: z.string().optional().describe("Present only when other active flags depend on the flag."),
  })
  .meta({ id: "FeatureFlagActiveDependents" });

/** `POST bulk_keys/` (§2.10). */
export const flagKeysSchema = z
  .object({
    keys: z.record(z.string(), z.string()).describe("The key of each flag found, by its id as text."),
    warning: z.string().optional().describe("Names the items of `ids` that were not ids, when some were."),
  })
  .meta({ id: "FeatureFlagKeys" });

/** `POST bulk_keys/`'s refusal when no item of `ids` is an id: PostHog's own body, not its error body. */
export const flagKeysErrorSchema = z.object({ error: z.string() }).meta({ id: "FeatureFlagKeysError" });

/** `POST user_blast_radius/` (§2.10). */
export const blastRadiusSchema = z
  .object({
    users_affected: z.int().describe("Persons (or groups of the type) the condition's properties select."),
    total_users: z.int().describe("All the project's persons (or groups of the type)."),
  })
  .meta({ id: "FeatureFlagBlastRadius" });
/** A flag's value as evaluation answers it: `false`, `true` or the variant key. */
export const flagValueSchema = z.union([z.boolean(), z.string()]);

/** `evaluation_reasons`' answer (posthog-behavior.md §2.10): per flag key, its value and why. */
export const evaluationReasonsSchema = z
  .record(
    z.string(),
    z.object({
      value: flagValueSchema,
      evaluation: z.object({
        reason: z
          .string()
          .describe(
            "`condition_match`, `no_condition_match`, `out_of_rollout_bound`, `no_group_type`, " +
              "`super_condition_value`, `holdout_condition_value`, `missing_dependency`, `disabled` (inactive flag), " +
              "`unknown` (not computed).",
          ),
        condition_index: z.int().nullable().describe("The deciding condition's index in `filters.groups`."),
      }),
    }),
  )
  .describe("Flag key → `{value, evaluation: {reason, condition_index}}`, every non-deleted flag.")
  .meta({ id: "FeatureFlagEvaluationReasons" });

/** A flag in PostHog's response shape (spec "Feature flag record", §2.2; schema: feature-flags.responses.ts). */
export function serializeFlag(
  flag: FlagRecord,
  ctx: ServiceContext,
  status: FlagStatusResult,
): FeatureFlagResponse {
  const filters = effectiveFilters(flag.filters, flag.rolloutPercentage);
  const canEdit = scopeSatisfied(ctx.actor.apiKey.scopes, "feature_flag:write");
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: flag.createdBy ? serializeUserBasic(flag.createdBy) : null,
    created_at: drfDateTime(flag.createdAt),
    updated_at: drfDateTime(flag.updatedAt),
    version: flag.version,
    last_modified_by: flag.lastModifiedBy ? serializeUserBasic(flag.lastModifiedBy) : null,
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: flag.experimentSet,
    surveys: [],
    features: [],
    rollback_conditions: flag.rollbackConditions,
    performed_rollback: flag.performedRollback,
    can_edit: canEdit,
    tags: flag.tags,
    evaluation_tags: flag.evaluationTags,
    usage_dashboard: flag.usageDashboardId,
    analytics_dashboards: [],
    has_enriched_analytics: flag.hasEnrichedAnalytics,
    user_access_level: canEdit ? "editor" : "viewer",
    creation_context: flag.creationContext,
    is_remote_configuration: flag.isRemoteConfiguration,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    status: status.status,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    last_called_at: drfDateTimeOrNull(flag.lastCalledAt),
    _create_in_folder: flag.createInFolder,
    _should_create_usage_dashboard: flag.shouldCreateUsageDashboard,
  };
}
