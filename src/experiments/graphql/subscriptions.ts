/**
 * `Subscription.experimentChanged`: the committed changes of a project's experiments, each with the
 * experiment as it is now, read through the same service read as `Project.experiment`.
 */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { projectSubscriptionField } from "../../graphql/project-subscription.js";
import { byChange, type ChangeEvent, ConfigurationChangeRef } from "../../graphql/subscriptions.js";
import { ExperimentRef, parseExperimentId } from "./experiment.type.js";

const ExperimentChangeRef = builder.objectRef<ChangeEvent>("ExperimentChange").implement({
  description: "A committed change of an experiment (one activity-log entry), or a `reset`.",
  interfaces: [ConfigurationChangeRef],
  fields: (t) => ({
    experiment: t.field({
      type: ExperimentRef,
      nullable: true,
      description:
        "The experiment as it is now (deleted ones included); null when it no longer exists, and for a `reset`. " +
        "Scope `experiment:read`.",
      resolve: async ({ projectId, change }, _args, ctx) => {
        if (change.kind !== "change" || change.itemId === null) return null;
        try {
          return await ctx.services.experiments.get(
            await ctx.serviceContext(),
            projectId,
            Number(change.itemId),
          );
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
  }),
});

projectSubscriptionField("experimentChanged", {
  type: ExperimentChangeRef,
  description:
    "Each committed change of the project's experiments (of `ids` only, when given), from now on. Scope " +
    "`experiment:read` on the project, checked when the subscription begins and whenever access changes.",
  scope: "experiment:read",
  args: (arg) => ({
    ids: arg.idList({
      description: "Only these experiments: PostHog's integer ids or their global `id`s. Unset: all of them.",
    }),
  }),
  open: (ctx, serviceContext, projectId, args, signal) => {
    // An id that names no experiment matches nothing (0 is no row's id).
    const ids = args.ids ? args.ids.map((id) => parseExperimentId(String(id)) ?? 0) : null;
    return ctx.services.experiments.changes(serviceContext, projectId, ids, signal);
  },
  event: (projectId, change): ChangeEvent => ({ projectId, change }),
  sharedBy: byChange,
});
