/**
 * Webhooks on REST (`/api/projects/:project_id/webhooks/`, each path with and without its trailing
 * slash): list (limit/offset pages), create (the secret in this answer only), read, PATCH/PUT,
 * delete, `rotate_secret`, and the delivery log. Request parsing and shapes only; behaviour lives in
 * webhooks.service.ts. Not a PostHog path: PostHog has no per-project change webhooks (issue 12).
 */
import { offsetPageBody, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
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
    {
      method: "GET",
      path: BASE,
      summary: "List the project's webhooks, newest first; limit/offset pages. Secrets are never listed.",
      scopes: ["webhook:read"],
      request: { query: offsetPageQuerySchema },
      responses: { 200: webhookPageSchema },
      handler: async ({ params, url, ctx }) => {
        const page = parseOffsetPage(url.searchParams, limits);
        return {
          body: offsetPageBody(url, page, await webhooks.list(ctx, project(params), page), serializeWebhook),
        };
      },
    },
    {
      method: "POST",
      path: BASE,
      summary:
        "Create a webhook: an http(s) URL without credentials and the change kinds it gets. The answer holds its `secret`, shown this once.",
      scopes: ["webhook:write"],
      request: { body: createWebhookSchema },
      responses: { 201: webhookWithSecretSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeWebhookWithSecret(await webhooks.create(ctx, project(params), body)),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One webhook (without its secret).",
      scopes: ["webhook:read"],
      responses: { 200: webhookSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeWebhook(await webhooks.get(ctx, project(params), id(params))),
      }),
    },
    ...(["PATCH", "PUT"] as const).map(
      (method): RestRoute => ({
        method,
        path: `${BASE}:id/`,
        summary:
          method === "PATCH"
            ? "Change a webhook (fields optional): url, kinds, enabled, description."
            : "Replace a webhook's fields (url and kinds required).",
        scopes: ["webhook:write"],
        request: { body: method === "PATCH" ? updateWebhookSchema : createWebhookSchema },
        responses: { 200: webhookSchema },
        handler: async ({ params, body, ctx }) => ({
          body: serializeWebhook(
            await webhooks.update(ctx, project(params), id(params), body, method === "PATCH"),
          ),
        }),
      }),
    ),
    {
      method: "DELETE",
      path: `${BASE}:id/`,
      summary: "Delete a webhook and its delivery log; its queued deliveries are dropped.",
      scopes: ["webhook:write"],
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await webhooks.remove(ctx, project(params), id(params));
        return { status: 204, body: undefined };
      },
    },
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
    {
      method: "GET",
      path: `${BASE}:id/deliveries/`,
      summary:
        "A webhook's delivery log, newest first, one row per attempt: status, status code, response time, error; limit/offset pages.",
      scopes: ["webhook:read"],
      request: { query: offsetPageQuerySchema },
      responses: { 200: deliveryPageSchema },
      // Deliveries are written by the job queue and do not move the project's revision: no ETag.
      conditional: false,
      handler: async ({ params, url, ctx }) => {
        const page = parseOffsetPage(url.searchParams, limits);
        return {
          body: offsetPageBody(
            url,
            page,
            await webhooks.listDeliveries(ctx, project(params), id(params), page),
            serializeDelivery,
          ),
        };
      },
    },
  ];
};
