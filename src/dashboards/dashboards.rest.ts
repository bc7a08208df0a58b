/**
 * Dashboards on PostHog's REST paths (spec rows 8 and 9, issue 10 part 5): the list and one dashboard
 * with each tile's Trends result. The flag actions that write usage dashboards (`feature_flags/:id/dashboard/`,
 * `enrich_usage_dashboard/`) live with the flag routes (feature-flags.rest.ts) and call this domain's service.
 *
 * Dashboard writes (POST, PATCH, PUT, DELETE on `dashboards/`) are not built: they answer 501 with the reason.
 */
import { errorBodySchema } from "../core/error-body.js";
import { offsetListRoute } from "../rest/list-route.js";
import { type NotBuiltOperation, notBuiltRoutes } from "../rest/not-built.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import {
  dashboardPageSchema,
  dashboardSchema,
  serializeDashboard,
  serializeDashboardBasic,
} from "./dashboards.responses.js";

const BASE = "/api/projects/:project_id/dashboards/";

const WRITES_REASON =
  "dashboards are written only as feature-flag usage dashboards (feature_flags/:id/dashboard/) so far";

/** Dashboard writes this service does not offer yet (scope `dashboard:write`). */
const NOT_BUILT: readonly NotBuiltOperation[] = [
  { method: "POST", path: "", scopes: ["dashboard:write"], reason: WRITES_REASON },
  { method: "PATCH", path: ":id/", scopes: ["dashboard:write"], reason: WRITES_REASON },
  { method: "PUT", path: ":id/", scopes: ["dashboard:write"], reason: WRITES_REASON },
  { method: "DELETE", path: ":id/", scopes: ["dashboard:write"], reason: WRITES_REASON },
];

/** The dashboard routes. */
export const dashboardRoutes: RestModule = (services, limits) => {
  const dashboards = services.dashboards;
  return [
    offsetListRoute(limits, {
      path: BASE,
      summary: "List the project's dashboards without soft-deleted ones, oldest first: limit/offset pages.",
      scopes: ["dashboard:read"],
      query: offsetPageQuerySchema,
      pageSchema: dashboardPageSchema,
      load: ({ ctx, projectId }, page) => dashboards.list(ctx, projectId, page),
      serialize: serializeDashboardBasic,
    }),
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary:
        "One dashboard with its tiles, each insight's Trends result computed now with the dashboard's date filters; 404 when soft-deleted.",
      scopes: ["dashboard:read"],
      responses: { 200: dashboardSchema, 400: errorBodySchema },
      // The results read events, which do not move the project's revision.
      conditional: false,
      handler: async ({ params, ctx }) => ({
        body: serializeDashboard(
          await dashboards.get(ctx, pathId(params, "project_id"), pathId(params, "id")),
        ),
      }),
    },
    ...notBuiltRoutes(BASE, NOT_BUILT),
  ];
};
