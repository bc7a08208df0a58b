/**
 * `Subscription.changeRequestChanged`: each committed transition of a project's change requests
 * (created, approved, applied, failed, rejected, canceled, expired), with the request as it is now.
 */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { projectSubscriptionField } from "../../graphql/project-subscription.js";
import { byChange, type ChangeEvent, ConfigurationChangeRef } from "../../graphql/subscriptions.js";
import { ChangeRequestRef } from "./types.js";

const ChangeRequestChangeRef = builder.objectRef<ChangeEvent>("ChangeRequestChange").implement({
  description: "A committed transition of a change request (one activity-log entry), or a `reset`.",
  interfaces: [ConfigurationChangeRef],
  fields: (t) => ({
    changeRequest: t.field({
      type: ChangeRequestRef,
      nullable: true,
      description: "The change request as it is now; null for a `reset`. Scope `approvals:read`.",
      resolve: async ({ projectId, change }, _args, ctx) => {
        if (change.kind !== "change" || change.itemId === null) return null;
        try {
          return await ctx.services.approvals.getChangeRequest(
            await ctx.serviceContext(),
            projectId,
            change.itemId,
          );
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
    }),
  }),
});

projectSubscriptionField("changeRequestChanged", {
  type: ChangeRequestChangeRef,
  description:
    "Each committed transition of the project's change requests, from now on. Scope `approvals:read` on the project, " +
    "checked when the subscription begins and whenever access changes.",
  scope: "approvals:read",
  open: (ctx, serviceContext, projectId, _args, signal) =>
    ctx.services.approvals.changes(serviceContext, projectId, signal),
  event: (projectId, change): ChangeEvent => ({ projectId, change }),
  sharedBy: byChange,
});
