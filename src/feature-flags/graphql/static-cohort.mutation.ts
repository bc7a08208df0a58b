/**
 * `createStaticCohortForFeatureFlag`: REST's `POST :id/create_static_cohort_for_flag`, through the
 * same service method; it answers the new cohort (the neutral `Cohort` ref, implemented by the
 * cohorts domain).
 */
import { CohortRef } from "../../cohorts/graphql/refs.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { FLAG_ID_DESCRIPTION, mutationFlagId, PROJECT_ID_DESCRIPTION } from "./mutations.shared.js";

const CreateStaticCohortForFeatureFlagInput = builder.inputType("CreateStaticCohortForFeatureFlagInput", {
  description:
    "The flag whose persons to copy into a new static cohort (REST `POST :id/create_static_cohort_for_flag/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: FLAG_ID_DESCRIPTION }),
  }),
});

builder.mutationField("createStaticCohortForFeatureFlag", (t) =>
  t.field({
    type: CohortRef,
    nullable: true,
    description:
      "Creates a static cohort `Users with feature flag <key> enabled at <YYYY-MM-DD HH:MM:SS>` (UTC) holding every " +
      "person for whom the flag is enabled now (true or a variant), evaluated as `/flags` would for the person's " +
      "first distinct id, without groups. Computed before answering: the cohort is complete (`isCalculating` " +
      "false, `count` right) or not created at all. Empty for a deleted, inactive or group-aggregated flag, as " +
      "PostHog. Scopes `feature_flag:read` and `cohort:write`.",
    extensions: requiresScopes("feature_flag:read", "cohort:write"),
    args: {
      input: t.arg({
        type: CreateStaticCohortForFeatureFlagInput,
        required: true,
        description: "Which flag.",
      }),
    },
    errors: mutationResult({
      name: "CreateStaticCohortForFeatureFlag",
      field: "cohort",
      what: "The cohort",
      verb: "created",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.featureFlags.createStaticCohort(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationFlagId(input.id),
        {},
      ),
  }),
);
