/**
 * The hard delete PostHog refuses on the models it soft-deletes (flags, cohorts, experiments:
 * `posthog/api/forbid_destroy_model.py`, `ForbidDestroyModel`): soft delete is an update with
 * `deleted: true`. The project and the write scope are still checked first, as for any write.
 */
import { authorizeProject } from "./auth/access.js";
import type { Scope } from "./auth/scopes.js";
import type { ServiceContext } from "./context.js";
import { MethodNotAllowedError } from "./errors.js";

/**
 * A service's `destroy` for such a model, checking `scope` (e.g. `feature_flag:write`).
 * @throws MethodNotAllowedError always, after NotFoundError/PermissionDeniedError for the project or scope.
 */
export function forbidDestroy(scope: Scope): (ctx: ServiceContext, projectId: number) => Promise<never> {
  return async (ctx, projectId) => {
    await authorizeProject(ctx, projectId, scope);
    throw new MethodNotAllowedError("DELETE");
  };
}
