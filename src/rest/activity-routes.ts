/**
 * The two activity routes PostHog's activity mixin gives a model's viewset
 * (posthog/api/utils.py `ActivityLogViewSetMixin`, posthog-behavior.md §2.9): `<base>activity/`, the
 * entries of all the project's objects of the model, and `<base>:id/activity/`, those of one object;
 * newest first, `page`/`limit` paging, scope `activity_log:read`. A missing object is a bare 404; an
 * unknown project keeps its body.
 */
import type { ActivityPage } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ProjectNotFoundError } from "../core/errors.js";
import { activityPageSchema, serializeActivityPage } from "./activity.js";
import { activityPageQuerySchema, parseActivityPage } from "./pagination.js";
import type { RestRoute } from "./route.js";
import { pathId } from "./routes.js";

/** A domain service's activity read: the entries of object `id` of the project, or of all (null). */
export type ActivityRead = (
  ctx: ServiceContext,
  projectId: number,
  id: number | null,
  paging: { limit: number; page: number },
) => Promise<ActivityPage>;

/**
 * The routes under `base` (ending in `/`); `noun` names the model in summaries (`flag`, `flags`).
 * Pages hold at most `maxPageSize` entries.
 */
export function activityRoutes(
  base: string,
  noun: { one: string; many: string },
  read: ActivityRead,
  maxPageSize: number,
): RestRoute[] {
  const route = (path: string, summary: string, id: (params: Record<string, string>) => number | null) => ({
    method: "GET" as const,
    path,
    summary,
    scopes: ["activity_log:read" as const],
    request: { query: activityPageQuerySchema },
    responses: { 200: activityPageSchema },
    emptyBodyOn: (error: Error) => error instanceof NotFoundError && !(error instanceof ProjectNotFoundError),
    handler: async ({ params, query, url, ctx }: Parameters<RestRoute["handler"]>[0]) => {
      const paging = parseActivityPage(query, maxPageSize);
      const page = await read(ctx, pathId(params, "project_id"), id(params), paging);
      return { body: serializeActivityPage(page, url, paging) };
    },
  });
  return [
    route(
      `${base}activity/`,
      `The activity log of all the project's ${noun.many}, newest first.`,
      () => null,
    ),
    route(`${base}:id/activity/`, `The activity log of one ${noun.one}, newest first.`, (params) =>
      pathId(params, "id"),
    ),
  ];
}
