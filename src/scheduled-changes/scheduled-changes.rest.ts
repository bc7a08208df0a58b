/**
 * Scheduled changes on REST (`/api/projects/:project_id/scheduled_changes/`, each path with and
 * without its trailing slash): PostHog's `ScheduledChangeViewSet` (products/feature_flags/backend/api/scheduled_change.py),
 * a DRF `ModelViewSet`: list (limit/offset pages, `model_name` and `record_id` filters), create,
 * retrieve, PATCH/PUT, delete. Request parsing and shapes only; behaviour lives in
 * scheduled-changes.service.ts.
 */
import { z } from "zod";
import { approvalHeldSchema } from "../approvals/approvals.responses.js";
import { errorBodySchema } from "../core/error-body.js";
import { crudRoutes } from "../rest/crud-routes.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
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
  return [
    offsetListRoute(limits, {
      path: BASE,
      summary:
        "List the project's scheduled changes in creation order; `model_name` and `record_id` filter exactly; limit/offset pages.",
      scopes: ["feature_flag:read"],
      query: offsetPageQuerySchema.extend(scheduledChangeListQuerySchema.shape),
      pageSchema: scheduledChangePageSchema,
      load: ({ ctx, projectId, query }, page) =>
        changes.list(
          ctx,
          projectId,
          { modelName: query.get("model_name") ?? undefined, recordId: query.get("record_id") ?? undefined },
          page,
        ),
      serialize: serializeScheduledChange,
    }),
    ...crudRoutes({
      base: BASE,
      read: "feature_flag:read",
      write: "feature_flag:write",
      service: changes,
      record: { schema: scheduledChangeSchema, serialize: serializeScheduledChange },
      bodies: {
        create: createScheduledChangeSchema,
        patch: updateScheduledChangeSchema,
        put: createScheduledChangeSchema,
      },
      // A change an approval policy gates is refused while another request of its action is open.
      writeErrors: { 409: z.union([errorBodySchema, approvalHeldSchema]) },
      summaries: {
        create:
          "Schedule a change to a feature flag: `record_id`, `model_name` (`FeatureFlag`), `payload` ({operation, value}), `scheduled_at`; optionally recurring (`recurrence_interval` or `cron_expression`, `end_date`).",
        get: "One scheduled change.",
        patch:
          "Change a scheduled change (fields optional); `is_recurring: false` pauses a recurring one, keeping its recurrence.",
        put: "Replace a scheduled change's fields (`record_id`, `model_name`, `payload`, `scheduled_at` required).",
        remove: "Delete a scheduled change; it no longer runs.",
      },
    }),
  ];
};
