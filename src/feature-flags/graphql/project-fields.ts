/**
 * The flag fields of `Project`: one flag by id or key, the filtered and ordered page of flags, and the
 * activity of all the project's flags. Each goes through the same service read as REST: a page of
 * flags, their creators, modifiers and tags and the total count are one SQL statement, which reads
 * only the parts of the flags (filters, users, tags) that the selection shows.
 */
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { NotFoundError, ProjectNotFoundError, ValidationError } from "../../core/errors.js";
import { activityPageField } from "../../graphql/activity-log.graphql.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { parseIntegerObjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { selectedFieldNames } from "../../graphql/selection.js";
import {
  EvaluationRuntimeEnum,
  FeatureFlagActiveFilterEnum,
  FeatureFlagOrderEnum,
  FeatureFlagTypeFilterEnum,
} from "./enums.js";
import { FeatureFlagRef, flagPartsFor, parseFlagId } from "./feature-flag.type.js";

const FeatureFlagFilterInput = builder.inputType("FeatureFlagFilterInput", {
  description:
    "Narrows a flag list, as REST's list query parameters do (posthog-behavior.md §2.3). Unset fields do not filter.",
  fields: (t) => ({
    active: t.field({ type: FeatureFlagActiveFilterEnum, description: "Enabled, disabled or stale flags." }),
    createdById: t.id({
      description: "Flags created by this user: PostHog's integer id or the `User`'s global id.",
    }),
    evaluationRuntime: t.field({
      type: EvaluationRuntimeEnum,
      description: "Flags with this evaluation runtime.",
    }),
    excludedKeys: t.stringList({ description: "Leave out flags with these keys." }),
    hasEvaluationTags: t.boolean({
      description: "true: flags with an evaluation tag; false: flags without any.",
    }),
    search: t.string({ description: "Case-insensitive substring of the key or the name." }),
    tags: t.stringList({ description: "Flags having any of these tags." }),
    type: t.field({
      type: FeatureFlagTypeFilterEnum,
      description: "Boolean, multivariate, experiment or remote-config flags.",
    }),
  }),
});

/** The list query of the service (PostHog's names, as REST's query string has them). */
function listQuery(
  filter: typeof FeatureFlagFilterInput.$inferInput | null | undefined,
  order: string | null | undefined,
): Record<string, unknown> {
  const query = postHogFields(
    filter ?? {},
    {
      active: "active",
      createdById: "created_by_id",
      evaluationRuntime: "evaluation_runtime",
      excludedKeys: "excluded_properties",
      hasEvaluationTags: "has_evaluation_tags",
      search: "search",
      tags: "tags",
      type: "type",
    },
    {
      // Anything but a user id passes through as given, for the service to ignore as REST does.
      createdById: (raw) => parseIntegerObjectId(raw, "User") ?? raw,
    },
  );
  return order ? { ...query, order } : query;
}

builder.objectFields(ProjectRef, (t) => ({
  featureFlag: t.field({
    type: FeatureFlagRef,
    nullable: true,
    description:
      "One flag of the project by `id` or by `key` (exactly one), soft-deleted ones included; null when there is " +
      "none. Scope `feature_flag:read`.",
    extensions: requiresScopes("feature_flag:read"),
    args: {
      id: t.arg.id({ description: "The flag's id: PostHog's integer or its global `id`." }),
      key: t.arg.string({ description: "The flag's key." }),
    },
    resolve: async (project, args, ctx) => {
      const hasId = args.id !== null && args.id !== undefined;
      const hasKey = args.key !== null && args.key !== undefined;
      if (hasId === hasKey) throw new ValidationError("Pass exactly one of `id` and `key`.");
      const id = hasId ? parseFlagId(args.id as string) : null;
      // An id that is neither an integer nor a flag's global id names no flag.
      if (hasId && id === null) return null;
      const by = id === null ? { key: args.key as string } : { id };
      try {
        return await ctx.services.featureFlags.get(await ctx.serviceContext(), project.id, by);
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  featureFlags: t.connection(
    {
      type: FeatureFlagRef,
      nullable: true,
      description:
        `The project's flags without soft-deleted ones, ${DEFAULT_PAGE_SIZE} per page unless \`first\`/\`last\` ` +
        "say otherwise (clamped to the configured page size). Scope `feature_flag:read`. A page with its " +
        "creators, modifiers, tags and total count is one SQL statement.",
      extensions: requiresScopes("feature_flag:read"),
      args: {
        filter: t.arg({ type: FeatureFlagFilterInput, description: "Which flags to list." }),
        orderBy: t.arg({ type: FeatureFlagOrderEnum, description: "The order; newest first when unset." }),
      },
      resolve: async (project, args, ctx, info) => {
        const serviceContext = await ctx.serviceContext();
        const query = listQuery(args.filter, args.orderBy);
        // The page reads only the parts of each flag that the selected fields show.
        const parts = flagPartsFor(selectedFieldNames(info, ["edges", "node"]));
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.featureFlags.list(serviceContext, project.id, query, page, parts),
        );
      },
    },
    {
      name: "FeatureFlagConnection",
      description: "A page of feature flags.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Flags matching the filter, on all pages together (counted in the page's statement).",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "FeatureFlagEdge", description: "A feature flag in a page of flags." },
  ),
  featureFlagActivity: activityPageField(
    t,
    "The activity log of all the project's flags, newest first.",
    (ctx, serviceContext, project, paging) =>
      ctx.services.featureFlags.activity(serviceContext, project.id, null, paging),
  ),
}));
