/**
 * Who a REST request is from and which project it names: the personal API key (posthog/auth.py)
 * turned into the request's `ServiceContext`, once per request, then counted against its rate limit
 * and its path checked, as DRF's `APIView.initial` does.
 */
import type { IncomingHttpHeaders } from "node:http";
import { authenticate, findCredential } from "../core/auth/authenticate.js";
import { createServiceContext, type ServiceContext } from "../core/context.js";
import { NotFoundError, ProjectNotFoundError } from "../core/errors.js";
import { andThen, type MaybePromise } from "../core/maybe-promise.js";
import { type RateLimits, throwIfThrottled } from "../core/rate-limit.js";
import type { ResponseCache } from "../core/response-cache.js";
import { parseIntegerId } from "../core/validation.js";
import type { RestDeps, RestRoute } from "./route.js";

/** The door's per-process state beside its dependencies. */
export interface DoorDeps extends RestDeps {
  /** 200 answers of conditional GETs by ETag (./response-cache.ts); absent when turned off. */
  responses: ResponseCache | undefined;
}

/** What a request carries that names its caller and its project. */
export interface RequestParts {
  headers: IncomingHttpHeaders;
  /** Path parameters. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed body (a `personal_api_key` field is a credential); undefined without one. */
  body?: unknown;
}

/**
 * Refuses a path parameter holding a NUL character (`/endpoints/a%00b/`), which no database lookup
 * can carry: it names no object, so 404 (`Project not found.` for `project_id`), as DRF answers a
 * lookup value its database driver refuses (`get_object_or_404` in rest_framework/generics.py turns
 * psycopg's `ValueError` into `Http404`). Called once the caller is authenticated, as DRF looks the
 * object up after `perform_authentication`.
 * @throws NotFoundError (404).
 */
export function checkPath(params: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(params)) {
    if (value.includes("\u0000"))
      throw name === "project_id" ? new ProjectNotFoundError() : new NotFoundError();
  }
}

/**
 * The request's service context: the personal API key's actor, with the project the path names
 * (a malformed id names none) looked up with it. At once (no promise, no statement) when the
 * process holds the key.
 * @throws AuthenticationError (401) without a valid key.
 */
export function contextFor(deps: DoorDeps, parts: RequestParts): MaybePromise<ServiceContext> {
  const credential = findCredential({
    authorization: parts.headers.authorization,
    body: parts.body,
    query: parts.query,
  });
  const projectId = parseIntegerId(parts.params["project_id"] ?? "");
  return andThen(authenticate(deps.data, credential, projectId), (actor) =>
    createServiceContext(deps.data, actor, deps.limits),
  );
}

/**
 * Counts an authenticated request against its rate limit: the route's per-project one (its
 * `rateScope`, for the project `params.project_id` names once the context is made), else the key's
 * burst and sustained ones (core/rate-limit.ts). After authentication, as DRF throttles after
 * `perform_authentication`. Answers the wait in ms, 0 when allowed.
 */
export function rateWait(
  rateLimits: RateLimits,
  route: Pick<RestRoute, "rateScope">,
  ctx: ServiceContext,
  params: Record<string, string>,
): number {
  const projectId = route.rateScope ? parseIntegerId(params["project_id"] ?? "") : null;
  return route.rateScope && projectId !== null
    ? rateLimits.waitForScope(route.rateScope, projectId)
    : rateLimits.waitForKey(ctx.actor.apiKey.id);
}

/**
 * What DRF's `APIView.initial` does before a view reads the body: authenticates the request (its
 * `ServiceContext`; `parts.body` is the parsed body, undefined before it is read), counts it against
 * its rate limit and checks its path parameters. Without `route` (the 405 answers), authentication
 * only. At once when `contextFor` is.
 * @throws AuthenticationError (401) and the rest of `contextFor`; TooManyRequestsError (429);
 *   NotFoundError (404) for a path parameter holding a NUL.
 */
export function admit(deps: DoorDeps, parts: RequestParts, route?: RestRoute): MaybePromise<ServiceContext> {
  return andThen(contextFor(deps, parts), (ctx) => {
    if (route) {
      throwIfThrottled(rateWait(deps.rateLimits, route, ctx, parts.params));
      checkPath(parts.params);
    }
    return ctx;
  });
}
