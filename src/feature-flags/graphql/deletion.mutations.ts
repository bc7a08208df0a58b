/**
 * `deleteFeatureFlag` and `restoreFeatureFlag`: soft delete and restore (REST's `PATCH {deleted}`;
 * PostHog never hard-deletes flags), with a strict `expectedVersion`.
 */
import { ConflictError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { FeatureFlagRef } from "./feature-flag.type.js";
import {
  EXPECTED_VERSION_DESCRIPTION,
  FLAG_ID_DESCRIPTION,
  flagResult,
  mutationFlagId,
  PROJECT_ID_DESCRIPTION,
} from "./mutations.shared.js";

/** A mutation that sets `deleted` on a flag, with its own input type. */
function deletionMutation(options: {
  field: string;
  name: string;
  verb: string;
  deleted: boolean;
  inputDescription: string;
  description: string;
}) {
  const input = builder.inputType(`${options.name}Input`, {
    description: options.inputDescription,
    fields: (t) => ({
      projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
      id: t.id({ required: true, description: FLAG_ID_DESCRIPTION }),
      expectedVersion: t.int({ description: EXPECTED_VERSION_DESCRIPTION }),
    }),
  });
  builder.mutationField(options.field, (t) =>
    t.field({
      type: FeatureFlagRef,
      nullable: true,
      description: options.description,
      extensions: requiresScopes("feature_flag:write"),
      args: { input: t.arg({ type: input, required: true, description: "Which flag." }) },
      errors: flagResult(options.name, options.verb, [...WRITE_ERRORS, ConflictError]),
      resolve: async (_root, args, ctx) => {
        const { projectId, id, expectedVersion } = args.input;
        return ctx.services.featureFlags.updateExpecting(
          await ctx.serviceContext(),
          parseProjectId(projectId),
          mutationFlagId(id),
          { deleted: options.deleted },
          expectedVersion ?? null,
        );
      },
    }),
  );
}

deletionMutation({
  field: "deleteFeatureFlag",
  name: "DeleteFeatureFlag",
  verb: "deleted",
  deleted: true,
  inputDescription: "A flag to soft-delete (REST `PATCH {deleted: true}`; PostHog never hard-deletes flags).",
  description:
    "Soft-deletes a flag: it leaves lists and its key becomes free (refused while other flags depend on it). " +
    "Scope `feature_flag:write`.",
});
deletionMutation({
  field: "restoreFeatureFlag",
  name: "RestoreFeatureFlag",
  verb: "restored",
  deleted: false,
  inputDescription: "A soft-deleted flag to restore (REST `PATCH {deleted: false}`).",
  description: "Restores a soft-deleted flag. Scope `feature_flag:write`.",
});
