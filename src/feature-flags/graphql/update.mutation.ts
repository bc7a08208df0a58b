/** `updateFeatureFlag`: REST's `PATCH feature_flags/:id/` for GraphQL, with a strict `expectedVersion`. */
import { APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { ConflictError, NotImplementedError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { BucketingIdentifierEnum, EvaluationRuntimeEnum } from "./enums.js";
import { FeatureFlagRef } from "./feature-flag.type.js";
import { FeatureFlagFiltersInput, filtersBody } from "./filters.input.js";
import {
  EXPECTED_VERSION_DESCRIPTION,
  FLAG_ID_DESCRIPTION,
  flagResult,
  mutationFlagId,
  PATCH_FIELD_NAMES,
  PROJECT_ID_DESCRIPTION,
} from "./mutations.shared.js";

const UpdateFeatureFlagInput = builder.inputType("UpdateFeatureFlagInput", {
  description:
    "Changes to a flag (REST `PATCH feature_flags/:id/`): an absent field keeps its value, null clears it, a value sets it.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: FLAG_ID_DESCRIPTION }),
    expectedVersion: t.int({ description: EXPECTED_VERSION_DESCRIPTION }),
    key: t.string({ description: "A new key." }),
    name: t.string({ description: "A new description." }),
    filters: t.field({
      type: FeatureFlagFiltersInput,
      description: "New release conditions (ignored without `groups`).",
    }),
    active: t.boolean({ description: "Enable or disable the flag (refused while dependencies forbid it)." }),
    tags: t.stringList({ description: "The new tags, replacing the old ones." }),
    evaluationTags: t.stringList({ description: "The new evaluation contexts, a subset of the tags." }),
    ensureExperienceContinuity: t.boolean({ description: "Keep a user's value across identity changes." }),
    rollbackConditions: t.field({
      type: "JSON",
      description: "Automatic rollback conditions; null clears them.",
    }),
    performedRollback: t.boolean({ description: "Whether a rollback was performed." }),
    hasEnrichedAnalytics: t.boolean({ description: "Collect enriched analytics." }),
    isRemoteConfiguration: t.boolean({ description: "Make the flag a remote configuration." }),
    hasEncryptedPayloads: t.boolean({
      description: "Encrypt payloads (not supported yet: true is refused).",
    }),
    evaluationRuntime: t.field({ type: EvaluationRuntimeEnum, description: "Where the flag is evaluated." }),
    bucketingIdentifier: t.field({ type: BucketingIdentifierEnum, description: "Bucketing identifier." }),
    analyticsDashboards: t.intList({
      description:
        "Dashboard ids to link: an id that is no dashboard of the project is refused; linking existing ones is not supported yet (NotImplementedError).",
    }),
  }),
});

builder.mutationField("updateFeatureFlag", (t) =>
  t.field({
    type: FeatureFlagRef,
    nullable: true,
    description:
      "Changes a flag (REST `PATCH feature_flags/:id/`). Scope `feature_flag:write`. With `expectedVersion`, " +
      "any change since that version is a ConflictError.",
    extensions: requiresScopes("feature_flag:write"),
    args: { input: t.arg({ type: UpdateFeatureFlagInput, required: true, description: "The changes." }) },
    errors: flagResult("UpdateFeatureFlag", "updated", [
      ...WRITE_ERRORS,
      ConflictError,
      NotImplementedError,
      ...APPROVAL_ERRORS,
    ]),
    resolve: async (_root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, id, expectedVersion, ...fields } = input;
      const body = postHogFields(fields, PATCH_FIELD_NAMES, { filters: filtersBody });
      return ctx.services.featureFlags.updateExpecting(
        serviceContext,
        parseProjectId(projectId),
        mutationFlagId(id),
        body,
        expectedVersion ?? null,
      );
    },
  }),
);
