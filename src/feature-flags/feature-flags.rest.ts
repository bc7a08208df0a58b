/**
 * Feature flags on PostHog's REST paths (spec rows 1–6 and 13): request parsing and the PostHog
 * record shape. Behaviour lives in feature-flags.service.ts.
 */

import { z } from "zod";
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { scopeSatisfied } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { MethodNotAllowedError } from "../core/errors.js";
import { activityRoutes } from "../rest/activity-routes.js";
import { errorBodySchema } from "../rest/error-body.js";
import { type NotBuiltOperation, notBuiltRoutes } from "../rest/not-built.js";
import { offsetPageLinks, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import { pathId, type RestModule } from "../rest/routes.js";
import { serializeUserBasic } from "../rest/serializers.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import {
  type FeatureFlagResponse,
  featureFlagPageSchema,
  featureFlagSchema,
} from "./feature-flags.responses.js";
import {
  createFlagSchema,
  flagListFiltersSchema,
  replaceFlagSchema,
  updateFlagSchema,
} from "./feature-flags.schemas.js";
import { type FlagStatusResult, isSimpleFlag, simpleRolloutPercentage } from "./rules/status.js";
import { effectiveFilters } from "./rules/stored-filters.js";

const BASE = "/api/projects/:project_id/feature_flags/";

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
    created_at: flag.createdAt.toISOString(),
    updated_at: flag.updatedAt.toISOString(),
    version: flag.version,
    last_modified_by: flag.lastModifiedBy ? serializeUserBasic(flag.lastModifiedBy) : null,
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: [],
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
    last_called_at: flag.lastCalledAt?.toISOString() ?? null,
    _create_in_folder: flag.createInFolder,
    _should_create_usage_dashboard: flag.shouldCreateUsageDashboard,
  };
}

/**
 * Flag operations of the spec (rows 7-12, 14-18) that this service does not provide yet, each with
 * its scopes (posthog-behavior.md §1.7 and decision 2) and the reason. They authorize like the built
 * ones (project, key limits, scopes, membership) and then answer 501, instead of being mistaken for
 * `:id/` routes.
 */
const NOT_BUILT: readonly NotBuiltOperation[] = [
  {
    method: "POST",
    path: ":id/create_static_cohort_for_flag/",
    scopes: ["feature_flag:read", "cohort:write"],
    reason: "it needs flag evaluation over persons (conditions and rollout hashing), which is not built yet",
  },
  {
    method: "POST",
    path: ":id/dashboard/",
    scopes: ["dashboard:write"],
    reason: "dashboards are not part of this service yet",
  },
  {
    method: "POST",
    path: ":id/enrich_usage_dashboard/",
    scopes: ["dashboard:write"],
    reason: "dashboards are not part of this service yet",
  },
  {
    method: "POST",
    path: ":id/has_active_dependents/",
    scopes: ["feature_flag:read"],
    reason: "dependency reports arrive with flag evaluation",
  },
  {
    method: "GET",
    path: ":id/remote_config/",
    scopes: ["feature_flag:read"],
    reason: "remote configuration arrives with flag evaluation",
  },
  {
    method: "GET",
    path: ":id/status/",
    scopes: ["feature_flag:read"],
    reason: "the status action arrives with flag evaluation",
  },
  {
    method: "POST",
    path: "bulk_keys/",
    scopes: ["feature_flag:read"],
    reason: "bulk key lookup arrives with flag evaluation",
  },
  {
    method: "GET",
    path: "evaluation_reasons/",
    scopes: ["feature_flag:read"],
    reason: "flag evaluation is not built yet",
  },
  {
    method: "GET",
    path: "my_flags/",
    scopes: ["feature_flag:read"],
    reason: "flag evaluation is not built yet",
  },
  {
    method: "POST",
    path: "user_blast_radius/",
    scopes: ["feature_flag:read"],
    reason: "persons and events are not part of this service yet",
  },
];

/**
 * The list's query parameters as the REST door receives them: paging, and the filters of
 * `flagListFiltersSchema`, whose list-valued filters arrive as JSON text.
 */
const flagListQuerySchema = offsetPageQuerySchema.extend({
  ...flagListFiltersSchema.in.shape,
  excluded_properties: z.string().optional().describe('Flag keys to leave out, as a JSON list: `["a","b"]`.'),
  tags: z.string().optional().describe('Only flags with any of these tags, as a JSON list: `["a","b"]`.'),
});

/** The feature-flag routes. */
export const featureFlagRoutes: RestModule = (services, limits) => {
  const flags = services.featureFlags;
  const record = (flag: FlagRecord, ctx: ServiceContext) => serializeFlag(flag, ctx, flags.status(flag));
  return [
    {
      method: "GET",
      path: BASE,
      summary: "List the project's flags without soft-deleted ones: filters, order, limit/offset pages.",
      scopes: ["feature_flag:read"],
      request: { query: flagListQuerySchema },
      responses: { 200: featureFlagPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, {
          defaultLimit: DEFAULT_PAGE_SIZE,
          maxLimit: limits.maxPageSize,
        });
        const { count, results } = await flags.list(
          ctx,
          pathId(params, "project_id"),
          Object.fromEntries(query),
          page,
        );
        return {
          body: {
            count,
            ...offsetPageLinks(url, page, count),
            results: results.map((f) => record(f, ctx)),
          },
        };
      },
    },
    {
      method: "POST",
      path: BASE,
      summary: "Create a flag.",
      scopes: ["feature_flag:write"],
      request: { body: createFlagSchema },
      responses: { 201: featureFlagSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: record(await flags.create(ctx, pathId(params, "project_id"), body), ctx),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One flag, soft-deleted ones included.",
      scopes: ["feature_flag:read"],
      responses: { 200: featureFlagSchema },
      handler: async ({ params, ctx }) => ({
        body: record(await flags.get(ctx, pathId(params, "project_id"), { id: pathId(params, "id") }), ctx),
      }),
    },
    {
      method: "PATCH",
      path: `${BASE}:id/`,
      summary: "Change a flag (absent fields keep their value); `deleted` soft-deletes or restores it.",
      scopes: ["feature_flag:write"],
      request: { body: updateFlagSchema },
      responses: { 200: featureFlagSchema, 409: errorBodySchema },
      handler: async ({ params, body, ctx }) => ({
        body: record(await flags.update(ctx, pathId(params, "project_id"), pathId(params, "id"), body), ctx),
      }),
    },
    {
      method: "PUT",
      path: `${BASE}:id/`,
      summary: "Change a flag with DRF's full update: `key` required.",
      scopes: ["feature_flag:write"],
      request: { body: replaceFlagSchema },
      responses: { 200: featureFlagSchema, 409: errorBodySchema },
      handler: async ({ params, body, ctx }) => ({
        body: record(await flags.replace(ctx, pathId(params, "project_id"), pathId(params, "id"), body), ctx),
      }),
    },
    {
      method: "DELETE",
      path: `${BASE}:id/`,
      summary: "Refused with 405 and an empty body, as PostHog does: soft delete is PATCH `deleted: true`.",
      scopes: ["feature_flag:write"],
      responses: { 405: null },
      emptyBodyOn: (error) => error instanceof MethodNotAllowedError,
      handler: ({ params, ctx }) => flags.destroy(ctx, pathId(params, "project_id")),
    },
    ...activityRoutes(
      BASE,
      { one: "flag", many: "flags" },
      (...args) => flags.activity(...args),
      limits.maxPageSize,
    ),
    ...notBuiltRoutes(BASE, NOT_BUILT),
  ];
};
