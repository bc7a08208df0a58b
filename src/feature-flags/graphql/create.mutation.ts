/** `createFeatureFlag`: REST's `POST feature_flags/` for GraphQL, through the same service method. */
import { APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { NotImplementedError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { BucketingIdentifierEnum, CreationContextEnum, EvaluationRuntimeEnum } from "./enums.js";
import { FeatureFlagRef } from "./feature-flag.type.js";
import { FeatureFlagFiltersInput, filtersBody } from "./filters.input.js";
import { flagResult, PATCH_FIELD_NAMES, PROJECT_ID_DESCRIPTION } from "./mutations.shared.js";

const CreateFeatureFlagInput = builder.inputType("CreateFeatureFlagInput", {
  description: "A new flag (REST `POST feature_flags/`). Only `projectId` and `key` are required.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    key: t.string({
      required: true,
      description: "Unique among the project's flags; letters, digits, `-`, `_`.",
    }),
    name: t.string({ description: "The flag's description; empty when absent." }),
    filters: t.field({ type: FeatureFlagFiltersInput, description: "Release conditions; `{}` when absent." }),
    active: t.boolean({ description: "Whether the flag is enabled; true when absent." }),
    tags: t.stringList({ description: "Tags; normalised to trimmed lower case." }),
    evaluationTags: t.stringList({ description: "Evaluation contexts; each must also be in `tags`." }),
    ensureExperienceContinuity: t.boolean({ description: "Keep a user's value across identity changes." }),
    rollbackConditions: t.field({
      type: "JSON",
      description: "Automatic rollback conditions, PostHog's JSON.",
    }),
    performedRollback: t.boolean({ description: "Whether a rollback was performed." }),
    hasEnrichedAnalytics: t.boolean({ description: "Collect enriched analytics." }),
    isRemoteConfiguration: t.boolean({ description: "Make the flag a remote configuration." }),
    hasEncryptedPayloads: t.boolean({
      description: "Encrypt payloads (not supported yet: true is refused).",
    }),
    evaluationRuntime: t.field({
      type: EvaluationRuntimeEnum,
      description: "Where the flag is evaluated; ALL when absent.",
    }),
    bucketingIdentifier: t.field({
      type: BucketingIdentifierEnum,
      description: "Bucketing identifier; DISTINCT_ID when absent.",
    }),
    analyticsDashboards: t.intList({
      description:
        "Dashboard ids to link: an id that is no dashboard of the project is refused; linking existing ones is not supported yet (NotImplementedError).",
    }),
    creationContext: t.field({ type: CreationContextEnum, description: "The product creating the flag." }),
    createInFolder: t.string({
      description: "Folder path to file the flag under (PostHog `_create_in_folder`).",
    }),
    shouldCreateUsageDashboard: t.boolean({
      description:
        "Whether a usage dashboard is wanted (PostHog `_should_create_usage_dashboard`, default true).",
    }),
  }),
});

builder.mutationField("createFeatureFlag", (t) =>
  t.field({
    type: FeatureFlagRef,
    nullable: true,
    description: "Creates a flag (REST `POST feature_flags/`). Scope `feature_flag:write`.",
    extensions: requiresScopes("feature_flag:write"),
    args: { input: t.arg({ type: CreateFeatureFlagInput, required: true, description: "The new flag." }) },
    errors: flagResult("CreateFeatureFlag", "created", [
      ...WRITE_ERRORS,
      NotImplementedError,
      ...APPROVAL_ERRORS,
    ]),
    resolve: async (_root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, ...fields } = input;
      const body = postHogFields(
        fields,
        {
          ...PATCH_FIELD_NAMES,
          creationContext: "creation_context",
          createInFolder: "_create_in_folder",
          shouldCreateUsageDashboard: "_should_create_usage_dashboard",
        },
        { filters: filtersBody },
      );
      return ctx.services.featureFlags.create(serviceContext, parseProjectId(projectId), body);
    },
  }),
);
