/**
 * The REST route of a hard delete PostHog refuses (core/forbid-destroy.ts): `DELETE <path>` answers
 * 405 with an empty body, as DRF does for `ForbidDestroyModel`, after the project and scope checks.
 */
import type { Scope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { MethodNotAllowedError } from "../core/errors.js";
import type { RestRoute } from "./route.js";
import { pathId } from "./routes.js";

/** The `DELETE` route at `path` (with `:project_id`), answered by the service's `destroy`. */
export function forbiddenDestroyRoute(
  path: string,
  scope: Scope,
  destroy: (ctx: ServiceContext, projectId: number) => Promise<never>,
): RestRoute {
  return {
    method: "DELETE",
    path,
    summary: "Refused with 405 and an empty body, as PostHog does: soft delete is PATCH `deleted: true`.",
    scopes: [scope],
    responses: { 405: null },
    emptyBodyOn: (error) => error instanceof MethodNotAllowedError,
    handler: ({ params, ctx }) => destroy(ctx, pathId(params, "project_id")),
  };
}
