/**
 * Webhooks on REST (`/api/projects/:project_id/webhooks/`, each path with and without its trailing
 * slash): list (limit/offset pages), create (the secret in this answer only), read, PATCH/PUT,
 * delete, `rotate_secret`, and the delivery log. Request parsing and shapes only; behaviour lives in
 * webhooks.service.ts. Not a PostHog path: PostHog has no per-project change webhooks (issue 12).
 */
import { crudRoutes } from "../rest/crud-routes.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import {
  deliveryPageSchema,
  serializeDelivery,
  serializeWebhook,
  serializeWebhookWithSecret,
  webhookPageSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from "./webhooks.responses.js";
import { createWebhookSchema, rotateSecretSchema, updateWebhookSchema } from "./webhooks.schemas.js";

const BASE = "/api/projects/:project_id/webhooks/";

/** The routes. */
export const webhookRoutes: RestModule = (services, limits) => {
  const webhooks = services.webhooks;
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const id = (params: Record<string, string>) => pathId(params, "id");
  return [
    offsetListRoute(limits, {
      path: BASE,
      summary: "List the project's webhooks, newest first; limit/offset pages. Secrets are never listed.",
      scopes: ["webhook:read"],
      query: offsetPageQuerySchema,
      pageSchema: webhookPageSchema,
      load: ({ ctx, projectId }, page) => webhooks.list(ctx, projectId, page),
      serialize: serializeWebhook,
    }),
    ...crudRoutes({
      base: BASE,
      read: "webhook:read",
      write: "webhook:write",
      service: webhooks,
      record: { schema: webhookSchema, serialize: serializeWebhook },
      created: { schema: webhookWithSecretSchema, serialize: serializeWebhookWithSecret },
      bodies: { create: createWebhookSchema, patch: updateWebhookSchema, put: createWebhookSchema },
      summaries: {
        create:
          "Create a webhook: an http(s) URL without credentials and the change kinds it gets. The answer holds its `secret`, shown this once.",
        get: "One webhook (without its secret).",
        patch: "Change a webhook (fields optional): url, kinds, enabled, description.",
        put: "Replace a webhook's fields (url and kinds required).",
        remove: "Delete a webhook and its delivery log; its queued deliveries are dropped.",
      },
    }),
    {
      method: "POST",
      path: `${BASE}:id/rotate_secret/`,
      summary: "Give a webhook a new secret, shown in this answer only; the old one stops signing at once.",
      scopes: ["webhook:write"],
      request: { body: rotateSecretSchema },
      responses: { 200: webhookWithSecretSchema },
      handler: async ({ params, body, ctx }) => ({
        body: serializeWebhookWithSecret(await webhooks.rotateSecret(ctx, project(params), id(params), body)),
      }),
    },
    offsetListRoute(limits, {
      path: `${BASE}:id/deliveries/`,
      summary:
        "A webhook's delivery log, newest first, one row per attempt: status, status code, response time, error; limit/offset pages.",
      scopes: ["webhook:read"],
      query: offsetPageQuerySchema,
      pageSchema: deliveryPageSchema,
      // Deliveries are written by the job queue and do not move the project's revision: no ETag.
      conditional: false,
      load: ({ ctx, projectId, params }, page) => webhooks.listDeliveries(ctx, projectId, id(params), page),
      serialize: serializeDelivery,
    }),
  ];
};
