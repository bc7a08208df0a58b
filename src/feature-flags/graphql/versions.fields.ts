/**
 * A flag's version history in GraphQL (issue 27): `FeatureFlag.versions` (REST `versions/`) and
 * `restoreFeatureFlagVersion` (REST `versions/:version/restore/`), over the flag service's version
 * operations (core/object-versions.ts).
 */
import { APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { ConflictError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { restoreVersionMutation, versionsField } from "../../graphql/object-versions.graphql.js";
import { FeatureFlagRef } from "./feature-flag.type.js";
import { mutationFlagId } from "./mutations.shared.js";

builder.objectField(FeatureFlagRef, "versions", (t) =>
  versionsField(
    t,
    "The flag's kept versions (one per create and update that changed it), highest first, each with its diff to the one before. Scope `feature_flag:read`.",
    (ctx, serviceContext, flag, page) =>
      ctx.services.featureFlags.versions(serviceContext, flag.projectId, flag.id, page),
  ),
);

const restore = restoreVersionMutation({
  name: "RestoreFeatureFlagVersion",
  field: "featureFlag",
  what: "The flag",
  rest: "feature_flags",
  scope: "feature_flag:write",
  errors: [ConflictError, ...APPROVAL_ERRORS],
});

builder.mutationField("restoreFeatureFlagVersion", (t) =>
  t.field({
    type: FeatureFlagRef,
    nullable: true,
    description: restore.description,
    extensions: restore.extensions,
    args: { input: t.arg({ type: restore.Input, required: true, description: "The flag and version." }) },
    errors: restore.errors,
    resolve: async (_root, { input }, ctx) =>
      ctx.services.featureFlags.restoreVersion(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationFlagId(input.id),
        input.version,
      ),
  }),
);
