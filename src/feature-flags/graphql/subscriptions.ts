/**
 * `Subscription.featureFlagChanged`: the committed changes of some flags of a project, each with the
 * flag as it is now, read through the same service read as `Project.featureFlag`.
 */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { projectSubscriptionField } from "../../graphql/project-subscription.js";
import { byChange, type ChangeEvent, ConfigurationChangeRef } from "../../graphql/subscriptions.js";
import { FeatureFlagRef } from "./feature-flag.type.js";

const FeatureFlagChangeRef = builder.objectRef<ChangeEvent>("FeatureFlagChange").implement({
  description: "A committed change of a feature flag (one activity-log entry), or a `reset`.",
  interfaces: [ConfigurationChangeRef],
  fields: (t) => ({
    key: t.string({
      nullable: true,
      description: "The flag's key as committed; null for a `reset`.",
      resolve: ({ change }) => (change.kind === "change" ? change.flagKey : null),
    }),
    featureFlag: t.field({
      type: FeatureFlagRef,
      nullable: true,
      description:
        "The flag as it is now (not as of the change: a later change may already show), soft-deleted ones included; " +
        "null when it no longer exists, and for a `reset`. Scope `feature_flag:read`.",
      resolve: async ({ projectId, change }, _args, ctx) => {
        if (change.kind !== "change" || change.itemId === null) return null;
        try {
          return await ctx.services.featureFlags.get(await ctx.serviceContext(), projectId, {
            id: Number(change.itemId),
          });
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
  }),
});

projectSubscriptionField("featureFlagChanged", {
  type: FeatureFlagChangeRef,
  description:
    "Each committed change (create, update, delete, ...) of the project's flags with one of `keys`, from now on. " +
    "Scope `feature_flag:read` on the project, checked when the subscription begins and whenever access changes.",
  scope: "feature_flag:read",
  args: (arg) => ({
    keys: arg.stringList({ required: true, description: "The flag keys to hear of (at least one)." }),
  }),
  open: (ctx, serviceContext, projectId, args, signal) =>
    ctx.services.featureFlags.changes(serviceContext, projectId, args.keys, signal),
  event: (projectId, change): ChangeEvent => ({ projectId, change }),
  sharedBy: byChange,
});
