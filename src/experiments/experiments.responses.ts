/**
 * Experiments, holdouts and saved metrics as the REST door answers them (PostHog's
 * `ExperimentSerializer`, `ExperimentHoldoutSerializer`, `ExperimentSavedMetricSerializer`,
 * `ExperimentToSavedMetricSerializer`; posthog-behavior.md §5.1), written once as zod schemas:
 * the serialisers return their types, fastify writes bodies with them, OpenAPI names them.
 */
import { z } from "zod";
import { scopeSatisfied } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { minimalFlagSchema } from "../feature-flags/feature-flags.responses.js";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { paginatedListSchema } from "../rest/pagination.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";
import type { ExperimentRecord, HoldoutRecord, SavedMetricRecord } from "./experiments.queries.js";
import { type ExperimentStats, experimentStatus } from "./experiments.service.js";

const json = (what: string) => z.unknown().describe(what);

/** A holdout (`ExperimentHoldoutSerializer`). */
export const holdoutSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string().nullable(),
    filters: json('Groups `{properties, rollout_percentage, variant: "holdout-<id>"}`.'),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "ExperimentHoldout" });

/** A saved metric (`ExperimentSavedMetricSerializer`). */
export const savedMetricSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string().nullable(),
    query: z.record(z.string(), z.unknown()),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "ExperimentSavedMetric" });

/** An experiment's use of a saved metric (`ExperimentToSavedMetricSerializer`). */
export const experimentSavedMetricSchema = z
  .object({
    id: z.int(),
    experiment: z.int(),
    saved_metric: z.int(),
    metadata: json('`{type: "primary"|"secondary"}` or null.'),
    created_at: z.iso.datetime(),
    query: z.record(z.string(), z.unknown()),
    name: z.string(),
  })
  .meta({ id: "ExperimentToSavedMetric" });

/** An experiment in PostHog's response shape (§5.1). */
export const experimentSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string().nullable(),
    start_date: z.iso.datetime().nullable(),
    end_date: z.iso.datetime().nullable(),
    feature_flag_key: z.string(),
    feature_flag: minimalFlagSchema,
    holdout: holdoutSchema.nullable(),
    holdout_id: z.int().nullable(),
    exposure_cohort: z.int().nullable(),
    parameters: json("feature_flag_variants, minimum_detectable_effect, aggregation_group_type_index, ..."),
    secondary_metrics: json("Legacy secondary metrics."),
    saved_metrics: z.array(experimentSavedMetricSchema),
    saved_metrics_ids: z
      .null()
      .describe(
        "Always null in answers: PostHog's ExperimentSerializer lists this write field (ListField, allow_null), and the model has no such attribute to read back. The links are in `saved_metrics`.",
      ),
    filters: json("Legacy insight filters."),
    archived: z.boolean(),
    deleted: z.boolean(),
    created_by: userBasicSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    type: z.string().nullable(),
    exposure_criteria: json("filterTestAccounts, exposure_config, multiple_variant_handling."),
    metrics: json("ExperimentMetric objects, each with its server-computed `fingerprint`."),
    metrics_secondary: json("Secondary ExperimentMetric objects, with fingerprints."),
    stats_config: json("`{method: bayesian|frequentist, ...}`."),
    conclusion: z.string().nullable(),
    conclusion_comment: z.string().nullable(),
    primary_metrics_ordered_uuids: json("Display order of the primary metrics' uuids."),
    secondary_metrics_ordered_uuids: json("Display order of the secondary metrics' uuids."),
    status: z
      .enum(["draft", "running", "stopped"])
      .describe("draft: no start; running: no end; stopped: ended."),
    user_access_level: z.enum(["viewer", "editor"]),
  })
  .meta({ id: "Experiment" });

/** DRF pages. */
export const experimentPageSchema = paginatedListSchema(experimentSchema, "PaginatedExperimentList");
export const holdoutPageSchema = paginatedListSchema(holdoutSchema, "PaginatedExperimentHoldoutList");
export const savedMetricPageSchema = paginatedListSchema(
  savedMetricSchema,
  "PaginatedExperimentSavedMetricList",
);

/** `GET stats` (§5.5). */
export const experimentStatsSchema = z
  .object({
    launched_last_30d: z.int(),
    launched_previous_30d: z.int(),
    percent_change: z.number(),
    active_experiments: z.int(),
    completed_last_30d: z.int(),
  })
  .meta({ id: "ExperimentStats" });

/** `{"error": ...}`: eligible_feature_flags' own refusal body. */
export const eligibleFlagsErrorSchema = z.object({ error: z.string() }).meta({ id: "EligibleFlagsError" });

/** A holdout in PostHog's shape. */
export function serializeHoldout(holdout: HoldoutRecord): z.output<typeof holdoutSchema> {
  return {
    id: holdout.id,
    name: holdout.name,
    description: holdout.description,
    filters: holdout.filters,
    created_by: holdout.createdBy ? serializeUserBasic(holdout.createdBy) : null,
    created_at: drfDateTime(holdout.createdAt),
    updated_at: drfDateTime(holdout.updatedAt),
  };
}

/** A saved metric in PostHog's shape. */
export function serializeSavedMetric(metric: SavedMetricRecord): z.output<typeof savedMetricSchema> {
  return {
    id: metric.id,
    name: metric.name,
    description: metric.description,
    query: metric.query as Record<string, unknown>,
    created_by: metric.createdBy ? serializeUserBasic(metric.createdBy) : null,
    created_at: drfDateTime(metric.createdAt),
    updated_at: drfDateTime(metric.updatedAt),
  };
}

/** An experiment in PostHog's shape (§5.1). */
export function serializeExperiment(
  x: ExperimentRecord,
  ctx: ServiceContext,
): z.output<typeof experimentSchema> {
  const flag = x.featureFlag;
  const canEdit = scopeSatisfied(ctx.actor.apiKey.scopes, "experiment:write");
  return {
    id: x.id,
    name: x.name,
    description: x.description,
    start_date: drfDateTimeOrNull(x.startDate),
    end_date: drfDateTimeOrNull(x.endDate),
    feature_flag_key: flag.key,
    feature_flag: {
      id: flag.id,
      team_id: flag.projectId,
      name: flag.name,
      key: flag.key,
      filters: (flag.filters ?? {}) as Record<string, unknown>,
      deleted: flag.deleted,
      active: flag.active,
      ensure_experience_continuity: flag.ensureExperienceContinuity,
      has_encrypted_payloads: flag.hasEncryptedPayloads,
      version: flag.version,
      evaluation_runtime: flag.evaluationRuntime,
      bucketing_identifier: flag.bucketingIdentifier,
      evaluation_tags: flag.evaluationTags.map((t) => t.tag.name).sort(),
    },
    holdout: x.holdout ? serializeHoldout(x.holdout) : null,
    holdout_id: x.holdoutId,
    exposure_cohort: x.exposureCohortId,
    parameters: x.parameters,
    secondary_metrics: x.secondaryMetrics,
    saved_metrics: x.savedMetricLinks.map((link) => ({
      id: link.id,
      experiment: x.id,
      saved_metric: link.savedMetricId,
      metadata: link.metadata,
      created_at: drfDateTime(link.createdAt),
      query: link.savedMetric.query as Record<string, unknown>,
      name: link.savedMetric.name,
    })),
    saved_metrics_ids: null,
    filters: x.filters,
    archived: x.archived,
    deleted: x.deleted,
    created_by: x.createdBy ? serializeUserBasic(x.createdBy) : null,
    created_at: drfDateTime(x.createdAt),
    updated_at: drfDateTime(x.updatedAt),
    type: x.type,
    exposure_criteria: x.exposureCriteria,
    metrics: x.metrics ?? [],
    metrics_secondary: x.metricsSecondary ?? [],
    stats_config: x.statsConfig,
    conclusion: x.conclusion,
    conclusion_comment: x.conclusionComment,
    primary_metrics_ordered_uuids: x.primaryMetricsOrderedUuids,
    secondary_metrics_ordered_uuids: x.secondaryMetricsOrderedUuids,
    status: experimentStatus(x) as "draft" | "running" | "stopped",
    user_access_level: canEdit ? "editor" : "viewer",
  };
}

/** `GET stats` in PostHog's names. */
export function serializeStats(stats: ExperimentStats): z.output<typeof experimentStatsSchema> {
  return {
    launched_last_30d: stats.launchedLast30d,
    launched_previous_30d: stats.launchedPrevious30d,
    percent_change: stats.percentChange,
    active_experiments: stats.activeExperiments,
    completed_last_30d: stats.completedLast30d,
  };
}
