/**
 * `Project.featureFlagBlastRadius`: how many persons (or groups of a type) a release condition
 * selects, REST's `POST user_blast_radius/` (posthog-behavior.md §2.10), through the same service
 * method and rules; the condition's rollout is not applied.
 */
import { builder } from "../../graphql/builder.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { BlastRadius } from "../flag-audience.service.js";
import { ConditionGroupInput, groupBody } from "./filters.input.js";

const BlastRadiusRef = builder.objectRef<BlastRadius>("FeatureFlagBlastRadius").implement({
  description:
    "How many persons (or groups of one type) a release condition selects, of all the project has.",
  fields: (t) => ({
    usersAffected: t.exposeInt("usersAffected", {
      description:
        "Persons (or groups of the type) the condition's properties select; the rollout is not applied.",
    }),
    totalUsers: t.exposeInt("totalUsers", {
      description: "All the project's persons (or groups of the type).",
    }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  featureFlagBlastRadius: t.field({
    type: BlastRadiusRef,
    nullable: true,
    description:
      "How many persons a release condition's properties select, of all the project's persons; with " +
      "`groupTypeIndex`, groups of that type (every filter must then be a group filter of that type, or " +
      "`$group_key`). Counted in the database; the rollout is not applied. Scope `feature_flag:read`.",
    extensions: requiresScopes("feature_flag:read"),
    args: {
      condition: t.arg({ type: ConditionGroupInput, required: true, description: "The release condition." }),
      groupTypeIndex: t.arg.int({ description: "Count groups of this type (0–4) instead of persons." }),
    },
    resolve: async (project, args, ctx) =>
      ctx.services.featureFlags.blastRadius(await ctx.serviceContext(), project.id, {
        condition: groupBody(args.condition),
        group_type_index: args.groupTypeIndex ?? null,
      }),
  }),
}));
