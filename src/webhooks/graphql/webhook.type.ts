/**
 * The `Webhook` object type, its delivery log (a Relay connection), and the one-time view of a new
 * or rotated secret. Field names are camelCase versions of REST's; no field of `Webhook` holds the secret.
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { parseIntegerId } from "../../core/validation.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { parseIntegerObjectId, projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { UserRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { DeliveryRecord, WebhookRecord, WebhookWithSecret } from "../webhooks.queries.js";

/** One delivery attempt. */
export const WebhookDeliveryRef = builder.objectRef<DeliveryRecord>("WebhookDelivery").implement({
  description: "One attempt to deliver one change to a webhook (a row of its delivery log).",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The attempt's UUID." }),
    eventId: t.exposeString("eventId", {
      description: "The activity-log entry delivered (the `webhook-id` header).",
    }),
    kind: t.exposeString("kind", { description: "The change kind, e.g. `feature_flag.updated`." }),
    attempt: t.exposeInt("attempt", { description: "1 for the first try, counting retries." }),
    status: t.exposeString("status", { description: "`succeeded` (a 2xx answer) or `failed`." }),
    statusCode: t.exposeInt("statusCode", {
      nullable: true,
      description:
        "The receiver's HTTP status; null when none came (refused target, network error, time-out).",
    }),
    responseTimeMs: t.exposeInt("responseTimeMs", {
      nullable: true,
      description: "From the attempt's start to the answer or the failure, in ms.",
    }),
    error: t.exposeString("error", { nullable: true, description: "Why it failed; null when it succeeded." }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the attempt ended.",
      resolve: (d) => d.createdAt,
    }),
  }),
});

/** The `Webhook` object type. */
export const WebhookRef = builder.objectRef<WebhookRecord>("Webhook").implement({
  description:
    "A project's webhook: where signed deliveries of the subscribed change kinds go (Standard Webhooks headers).",
  extensions: requiresScopes("webhook:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", {
      description: "The webhook's integer id (REST's `:id`); `id` is its global id.",
    }),
    url: t.exposeString("url", { description: "The http(s) URL deliveries are POSTed to." }),
    kinds: t.exposeStringList("kinds", {
      description: "Change kinds delivered: `<object>.<action>` or `<object>.*`.",
    }),
    enabled: t.exposeBoolean("enabled", { description: "Whether changes are delivered." }),
    description: t.exposeString("description", { description: "Its description." }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who created it; null when that user was deleted.",
      resolve: (w) => w.createdBy,
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (w) => w.createdAt,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When it last changed.",
      resolve: (w) => w.updatedAt,
    }),
    deliveries: t.connection(
      {
        type: WebhookDeliveryRef,
        nullable: true,
        description: `Its delivery log, newest first, one row per attempt (${DEFAULT_PAGE_SIZE} per page by default). Scope \`webhook:read\`.`,
        extensions: requiresScopes("webhook:read"),
        resolve: async (webhook, args, ctx) => {
          const serviceContext = await ctx.serviceContext();
          return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
            ctx.services.webhooks.listDeliveries(serviceContext, webhook.projectId, webhook.id, page),
          );
        },
      },
      {
        name: "WebhookDeliveryConnection",
        description: "A page of a webhook's delivery log.",
        fields: (c) => ({
          totalCount: c.int({ description: "Attempts on all pages.", resolve: connectionTotalCount }),
        }),
      },
      { name: "WebhookDeliveryEdge", description: "An attempt in a page of a delivery log." },
    ),
  }),
});

implementNode(WebhookRef, {
  localId: (webhook) => projectOwnedLocalId(webhook.projectId, webhook.id),
  // Scope `webhook:read` and the project check, as `Project.webhook`.
  load: projectOwnedLoader(parseIntegerId, (ctx, serviceContext, projectId, ids) =>
    ctx.services.webhooks.getMany(serviceContext, projectId, ids),
  ),
});

/** The integer id of a webhook-id input: its integer or the webhook's global id; null for anything else. */
export function parseWebhookId(raw: string | number): number | null {
  return parseIntegerObjectId(raw, "Webhook", "project");
}

/** A webhook with the secret it was just given: what creation and rotation answer, once. */
export const WebhookWithSecretRef = builder.objectRef<WebhookWithSecret>("WebhookWithSecret").implement({
  description: "A webhook and its new signing secret, shown in this answer only.",
  fields: (t) => ({
    id: t.id({
      description: "The webhook's global id (the same as `webhook.id`).",
      resolve: (w) => encodeGlobalID("Webhook", projectOwnedLocalId(w.projectId, w.id)),
    }),
    webhook: t.field({ type: WebhookRef, description: "The webhook.", resolve: (w) => w }),
    secret: t.exposeString("revealedSecret", {
      description: "`whsec_<base64>`: the Standard Webhooks signing secret. Not readable later.",
    }),
  }),
});
