/**
 * Feature flags on PostHog's REST paths (spec rows 1–15, 17 and 18, and the newer
 * `:id/dependent_flags/`): request parsing and PostHog's shapes. Behaviour lives in
 * feature-flags.service.ts and, for evaluation (`evaluation_reasons`, `my_flags`, the persons of
 * `create_static_cohort_for_flag`), evaluation/evaluation.service.ts.
 */

import { z } from "zod";
import { approvalHeldSchema } from "../approvals/approvals.responses.js";
import { serializeCohort } from "../cohorts/cohorts.responses.js";
import type { ServiceContext } from "../core/context.js";
import { errorBodySchema } from "../core/error-body.js";
import { type DomainError, NotFoundError, ProjectNotFoundError, ValidationError } from "../core/errors.js";
import { USAGE_DASHBOARD_ERROR } from "../dashboards/dashboards.service.js";
import { activityRoutes } from "../rest/activity-routes.js";
import { forbiddenDestroyRoute } from "../rest/forbidden-destroy.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import { versionRoutes } from "../rest/version-routes.js";
import { minimalFlag } from "./delivery/local-evaluation.js";
import type { FlagRecord } from "./feature-flags.queries.js";
import {
  activeDependentsSchema,
  blastRadiusSchema,
  dependentFlagSchema,
  evaluationReasonsSchema,
  featureFlagPageSchema,
  featureFlagSchema,
  flagKeysErrorSchema,
  flagKeysSchema,
  flagStaticCohortSchema,
  flagStatusBodySchema,
  flagValueSchema,
  minimalFlagSchema,
  serializeFlag,
} from "./feature-flags.responses.js";
import {
  createFlagSchema,
  flagListFiltersSchema,
  replaceFlagSchema,
  updateFlagSchema,
} from "./feature-flags.schemas.js";
import { blastRadiusBodySchema } from "./rules/blast-radius.js";
import { bulkKeysBodySchema, INVALID_FLAG_IDS } from "./rules/bulk-keys.js";
import { type FlagStatusResult, flagStatusValue, UNKNOWN_FLAG_STATUS } from "./rules/status.js";

const BASE = "/api/projects/:project_id/feature_flags/";

/**
 * `:id/dashboard` and `:id/enrich_usage_dashboard`'s answer (§2.10): `{"success": true}`, or on a
 * refusal 400 `{"success": false, "error": <PostHog's message>}`.
 */
const usageDashboardAnswerSchema = z
  .object({ success: z.boolean(), error: z.string().optional() })
  .meta({ id: "FlagUsageDashboardAnswer" });

/** PostHog's body for a usage-dashboard refusal (`{"success": false, "error": ...}`); other errors keep theirs. */
function usageDashboardErrorBody(error: DomainError): unknown {
  return error instanceof ValidationError && error.code === USAGE_DASHBOARD_ERROR
    ? { success: false, error: error.detail }
    : undefined;
}

/**
 * The list's query parameters as the REST door receives them: paging, and the filters of
 * `flagListFiltersSchema`, whose list-valued filters arrive as JSON text.
 */
const flagListQuerySchema = offsetPageQuerySchema.extend({
  ...flagListFiltersSchema.in.shape,
  excluded_properties: z.string().optional().describe('Flag keys to leave out, as a JSON list: `["a","b"]`.'),
  tags: z.string().optional().describe('Only flags with any of these tags, as a JSON list: `["a","b"]`.'),
});

/** `my_flags`' answer (§2.10): every non-deleted flag with its value, newest first. */
const myFlagsSchema = z
  .array(z.object({ feature_flag: minimalFlagSchema, value: flagValueSchema }))
  .meta({ id: "MyFeatureFlags" });

/** The query of the evaluation routes: the groups to evaluate group flags for. */
const evaluationQuerySchema = z.object({
  groups: z.string().optional().describe('Group type → group key, as a JSON object: `{"company": "acme"}`.'),
});

/** A flag (not its project) was not found: the answer some flag actions give in PostHog's own way. */
function isFlagNotFound(error: unknown): boolean {
  return error instanceof NotFoundError && !(error instanceof ProjectNotFoundError);
}

/** A status as `GET :id/status` answers it (§2.8): the enum value, lower case. */
function statusBody(result: FlagStatusResult) {
  return { status: flagStatusValue(result.status), reason: result.reason };
}

/** The feature-flag routes. */
export const featureFlagRoutes: RestModule = (services, limits) => {
  const flags = services.featureFlags;
  const record = (flag: FlagRecord, ctx: ServiceContext) => serializeFlag(flag, ctx, flags.status(flag));
  return [
    offsetListRoute(limits, {
      path: BASE,
      summary: "List the project's flags without soft-deleted ones: filters, order, limit/offset pages.",
      scopes: ["feature_flag:read"],
      query: flagListQuerySchema,
      pageSchema: featureFlagPageSchema,
      load: ({ ctx, projectId, query }, page) => flags.list(ctx, projectId, Object.fromEntries(query), page),
      serialize: record,
    }),
    {
      method: "POST",
      path: BASE,
      summary: "Create a flag (held as a change request when an approval policy gates it: 409).",
      scopes: ["feature_flag:write"],
      request: { body: createFlagSchema },
      responses: { 201: featureFlagSchema, 409: z.union([errorBodySchema, approvalHeldSchema]) },
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
      responses: { 200: featureFlagSchema, 409: z.union([errorBodySchema, approvalHeldSchema]) },
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
      responses: { 200: featureFlagSchema, 409: z.union([errorBodySchema, approvalHeldSchema]) },
      handler: async ({ params, body, ctx }) => ({
        body: record(await flags.replace(ctx, pathId(params, "project_id"), pathId(params, "id"), body), ctx),
      }),
    },
    forbiddenDestroyRoute(`${BASE}:id/`, "feature_flag:write", flags.destroy),
    {
      method: "GET",
      path: `${BASE}:id/status/`,
      summary:
        "A flag's status and why (`active`, `stale`, `deleted`); 404 with status `unknown` when there is no such flag.",
      scopes: ["feature_flag:read"],
      responses: { 200: flagStatusBodySchema, 404: z.union([flagStatusBodySchema, errorBodySchema]) },
      errorBody: (error) => (isFlagNotFound(error) ? statusBody(UNKNOWN_FLAG_STATUS) : undefined),
      handler: async ({ params, ctx }) => ({
        body: statusBody(await flags.getStatus(ctx, pathId(params, "project_id"), pathId(params, "id"))),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/dependent_flags/`,
      summary: "The active flags that depend on this one (a `flag` condition on it), by key.",
      scopes: ["feature_flag:read"],
      responses: { 200: z.array(dependentFlagSchema) },
      handler: async ({ params, ctx }) => ({
        body: await flags.dependentFlags(ctx, pathId(params, "project_id"), pathId(params, "id")),
      }),
    },
    {
      method: "POST",
      path: `${BASE}:id/has_active_dependents/`,
      summary:
        "Whether active flags depend on this one, which, and a warning (writes nothing; older form of `dependent_flags`).",
      scopes: ["feature_flag:read"],
      responses: { 200: activeDependentsSchema },
      handler: async ({ params, body, ctx }) => {
        const found = await flags.activeDependents(
          ctx,
          pathId(params, "project_id"),
          pathId(params, "id"),
          body,
        );
        return {
          body: {
            has_active_dependents: found.hasActiveDependents,
            dependent_flags: found.dependentFlags,
            ...(found.warning === undefined ? {} : { warning: found.warning }),
          },
        };
      },
    },
    {
      method: "POST",
      path: `${BASE}:id/create_static_cohort_for_flag/`,
      summary:
        "A new static cohort of the persons for whom the flag is enabled now, computed before answering " +
        "(`is_calculating` false, `count` right); the body is not read.",
      scopes: ["feature_flag:read", "cohort:write"],
      responses: { 201: flagStaticCohortSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: {
          cohort: serializeCohort(
            await flags.createStaticCohort(ctx, pathId(params, "project_id"), pathId(params, "id"), body),
          ),
        },
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/remote_config/`,
      summary:
        "A remote-configuration flag's payload, as stored (`:id` its id or its key); empty 404 for any other flag.",
      scopes: ["feature_flag:read"],
      rateScope: "remote_config",
      request: {
        params: z.object({
          project_id: z.int(),
          id: z.string().describe("The flag's id (all digits) or its key."),
        }),
      },
      responses: {
        200: z.unknown().describe("The `true` payload as stored (JSON text of the value), or null."),
      },
      emptyBodyOn: isFlagNotFound,
      // The payload is a JSON value (usually the JSON text of an object, as stored): answered as JSON
      // itself, so a stored text arrives as a JSON string, as DRF renders it (SDKs decode it twice).
      handler: async ({ params, ctx }) => ({
        body: JSON.stringify(await flags.remoteConfig(ctx, pathId(params, "project_id"), params["id"] ?? "")),
      }),
    },
    {
      method: "POST",
      path: `${BASE}bulk_keys/`,
      summary: 'The keys of the flags with these ids (`{"ids": [...]}`), by id; unknown ids are left out.',
      scopes: ["feature_flag:read"],
      request: { body: bulkKeysBodySchema },
      responses: { 200: flagKeysSchema, 400: z.union([flagKeysErrorSchema, errorBodySchema]) },
      errorBody: (error) =>
        error instanceof ValidationError && error.code === INVALID_FLAG_IDS
          ? { error: error.detail }
          : undefined,
      handler: async ({ params, body, ctx }) => ({
        body: await flags.bulkKeys(ctx, pathId(params, "project_id"), body),
      }),
    },
    {
      method: "POST",
      path: `${BASE}user_blast_radius/`,
      summary:
        "How many persons (or groups of `group_type_index`) a release condition's properties select, of all; rollout not applied.",
      scopes: ["feature_flag:read"],
      request: { body: blastRadiusBodySchema },
      responses: { 200: blastRadiusSchema },
      handler: async ({ params, body, ctx }) => {
        const radius = await flags.blastRadius(ctx, pathId(params, "project_id"), body);
        return { body: { users_affected: radius.usersAffected, total_users: radius.totalUsers } };
      },
    },
    {
      method: "GET",
      path: `${BASE}evaluation_reasons/`,
      summary:
        "Each flag's value, reason and condition index for `distinct_id` (required) and `groups` (a JSON object); inactive flags `disabled`.",
      scopes: ["feature_flag:read"],
      request: { query: evaluationQuerySchema.extend({ distinct_id: z.string().describe("Whose flags.") }) },
      responses: { 200: evaluationReasonsSchema },
      // Reads persons, groups and cohort members, which do not move the project's revision.
      conditional: false,
      handler: async ({ params, query, ctx }) => ({
        body: await services.flagEvaluation.evaluationReasons(ctx, pathId(params, "project_id"), query),
      }),
    },
    {
      method: "GET",
      path: `${BASE}my_flags/`,
      summary:
        "Every flag, newest first, with its value for the key's user (its `distinct_id`) and `groups` (a JSON object).",
      scopes: ["feature_flag:read"],
      request: { query: evaluationQuerySchema },
      responses: { 200: myFlagsSchema },
      // Reads persons, groups and cohort members, which do not move the project's revision.
      conditional: false,
      handler: async ({ params, query, ctx }) => {
        const projectId = pathId(params, "project_id");
        const items = await services.flagEvaluation.myFlags(ctx, projectId, query.get("groups"));
        return {
          body: items.map(({ flag, value }) => ({ feature_flag: minimalFlag(flag, projectId), value })),
        };
      },
    },
    ...versionRoutes(limits, {
      base: BASE,
      noun: "flag",
      scopes: { read: "feature_flag:read", write: "feature_flag:write" },
      service: flags,
      serialize: record,
      objectSchema: featureFlagSchema,
      // A restore is an update: the approval gate may hold it.
      conflictSchema: z.union([errorBodySchema, approvalHeldSchema]),
    }),
    ...activityRoutes(
      BASE,
      { one: "flag", many: "flags" },
      (...args) => flags.activity(...args),
      limits.maxPageSize,
    ),
    {
      method: "POST",
      path: `${BASE}:id/dashboard/`,
      summary:
        "Create (another) usage dashboard for the flag and make it the flag's `usage_dashboard`; the body is not read (too deep a one is refused).",
      scopes: ["dashboard:write"],
      responses: {
        200: usageDashboardAnswerSchema,
        400: z.union([usageDashboardAnswerSchema, errorBodySchema]),
      },
      errorBody: usageDashboardErrorBody,
      handler: async ({ params, body, ctx }) => {
        await services.dashboards.createFlagUsageDashboard(
          ctx,
          pathId(params, "project_id"),
          pathId(params, "id"),
          body,
        );
        return { body: { success: true } };
      },
    },
    {
      method: "POST",
      path: `${BASE}:id/enrich_usage_dashboard/`,
      summary:
        "Add PostHog's `$feature_view`/`$feature_interaction` insights to the flag's usage dashboard; the body is not read (too deep a one is refused).",
      scopes: ["dashboard:write"],
      responses: {
        200: usageDashboardAnswerSchema,
        400: z.union([usageDashboardAnswerSchema, errorBodySchema]),
      },
      errorBody: usageDashboardErrorBody,
      handler: async ({ params, body, ctx }) => {
        await services.dashboards.enrichFlagUsageDashboard(
          ctx,
          pathId(params, "project_id"),
          pathId(params, "id"),
          body,
        );
        return { body: { success: true } };
      },
    },
  ];
};
