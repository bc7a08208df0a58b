/** The webhook fields of `Project`: one webhook by id, and the page of webhooks, through the REST door's service reads. */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { parseWebhookId, WebhookRef } from "./webhook.type.js";

builder.objectFields(ProjectRef, (t) => ({
  webhook: t.field({
    type: WebhookRef,
    nullable: true,
    description:
      "One webhook of the project by `id` (its integer id or global id); null when none. Scope `webhook:read`.",
    extensions: requiresScopes("webhook:read"),
    args: { id: t.arg.id({ required: true, description: "The webhook's integer id or global `id`." }) },
    resolve: async (project, args, ctx) => {
      try {
        return await ctx.services.webhooks.get(
          await ctx.serviceContext(),
          project.id,
          parseWebhookId(String(args.id)) ?? 0,
        );
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  webhooks: t.connection(
    {
      type: WebhookRef,
      nullable: true,
      description: "The project's webhooks, newest first. Scope `webhook:read`.",
      extensions: requiresScopes("webhook:read"),
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.webhooks.list(serviceContext, project.id, page),
        );
      },
    },
    {
      name: "WebhookConnection",
      description: "A page of webhooks.",
      fields: (c) => ({
        totalCount: c.int({ description: "Webhooks on all pages.", resolve: connectionTotalCount }),
      }),
    },
    { name: "WebhookEdge", description: "A webhook in a page of webhooks." },
  ),
}));
