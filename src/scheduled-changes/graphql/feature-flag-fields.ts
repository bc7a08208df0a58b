/** The scheduled-change field of `FeatureFlag`: the flag's scheduled changes, a Relay connection over the service's page. */

import { FeatureFlagRef } from "../../feature-flags/graphql/refs.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { ScheduledChangeRef } from "./scheduled-change.type.js";

builder.objectFields(FeatureFlagRef, (t) => ({
  scheduledChanges: t.connection(
    {
      type: ScheduledChangeRef,
      nullable: true,
      description:
        "The changes scheduled on this flag, executed ones included, in creation order (REST `scheduled_changes/?model_name=FeatureFlag&record_id=<id>`). Scope `feature_flag:read`.",
      extensions: requiresScopes("feature_flag:read"),
      resolve: async (flag, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.scheduledChanges.listForFlag(serviceContext, flag.projectId, flag.id, page),
        );
      },
    },
    {
      name: "ScheduledChangeConnection",
      description: "A page of scheduled changes.",
      fields: (c) => ({
        totalCount: c.int({ description: "Scheduled changes on all pages.", resolve: connectionTotalCount }),
      }),
    },
    { name: "ScheduledChangeEdge", description: "A scheduled change in a page of them." },
  ),
}));
