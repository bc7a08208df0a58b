/**
 * Scheduled changes on REST (`/api/projects/:project_id/scheduled_changes/`, each path with and
 * without its trailing slash): PostHog's `ScheduledChangeViewSet` (products/feature_flags/backend/api/scheduled_change.py),
 * a DRF `ModelViewSet`: list (limit/offset pages, `model_name` and `record_id` filters), create,
 * retrieve, PATCH/PUT, delete. Request parsing and shapes only; behaviour lives in
 * scheduled-changes.service.ts.
 */
import { offsetPageBody, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import {
  scheduledChangePageSchema,
  scheduledChangeSchema,
  serializeScheduledChange,
} from "./scheduled-changes.responses.js";
import {
  createScheduledChangeSchema,
  scheduledChangeListQuerySchema,
  updateScheduledChangeSchema,
} from "./scheduled-changes.schemas.js";

const BASE = "/api/projects/:project_id/scheduled_changes/";

/** The routes. */
export const scheduledChangeRoutes: RestModule = (services, limits) => {
  const changes = services.scheduledChanges;
  const project = (params: Record<string, string>) => pathId(params, "project_id");
  const id = (params: Record<string, string>) => pathId(params, "id");
  return [
    {
      method: "GET",
      path: BASE,
      summary:
        "List the project's scheduled changes in creation order; `model_name` and `record_id` filter exactly; limit/offset pages.",
      scopes: ["feature_flag:read"],
      request: { query: offsetPageQuerySchema.extend(scheduledChangeListQuerySchema.shape) },
      responses: { 200: scheduledChangePageSchema },
      handler: async ({ params, url, query, ctx }) => {
        const page = parseOffsetPage(url.searchParams, limits);
        const filters = {
          modelName: query.get("model_name") ?? undefined,
          recordId: query.get("record_id") ?? undefined,
        };
        return {
          body: offsetPageBody(
            url,
            page,
            await changes.list(ctx, project(params), filters, page),
            serializeScheduledChange,
          ),
        };
      },
    },
    {
      method: "POST",
      path: BASE,
      summary:
        "Schedule a change to a feature flag: `record_id`, `model_name` (`FeatureFlag`), `payload` ({operation, value}), `scheduled_at`; optionally recurring (`recurrence_interval` or `cron_expression`, `end_date`).",
      scopes: ["feature_flag:write"],
      request: { body: createScheduledChangeSchema },
      responses: { 201: scheduledChangeSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeScheduledChange(await changes.create(ctx, project(params), body)),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One scheduled change.",
      scopes: ["feature_flag:read"],
      responses: { 200: scheduledChangeSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeScheduledChange(await changes.get(ctx, project(params), id(params))),
      }),
    },
    ...(["PATCH", "PUT"] as const).map(
      (method): RestRoute => ({
        method,
        path: `${BASE}:id/`,
        summary:
          method === "PATCH"
            ? "Change a scheduled change (fields optional); `is_recurring: false` pauses a recurring one, keeping its recurrence."
            : "Replace a scheduled change's fields (`record_id`, `model_name`, `payload`, `scheduled_at` required).",
        scopes: ["feature_flag:write"],
        request: { body: method === "PATCH" ? updateScheduledChangeSchema : createScheduledChangeSchema },
        responses: { 200: scheduledChangeSchema },
        handler: async ({ params, body, ctx }) => ({
          body: serializeScheduledChange(
            await changes.update(ctx, project(params), id(params), body, method === "PATCH"),
          ),
        }),
      }),
    ),
    {
      method: "DELETE",
      path: `${BASE}:id/`,
      summary: "Delete a scheduled change; it no longer runs.",
      scopes: ["feature_flag:write"],
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await changes.remove(ctx, project(params), id(params));
        return { status: 204, body: undefined };
      },
    },
  ];
};
