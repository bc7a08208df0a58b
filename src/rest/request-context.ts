/**
 * Who a REST request is from and which project it names: the personal API key (posthog/auth.py)
 * turned into the request's `ServiceContext`, once per request, by one function for the door and
 * for answers given from memory before routing (known-answers.ts): it looks up what the process
 * does not hold (the key, a project token), and answers at once when it holds both.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Actor } from "../core/auth/actor.js";
import { authenticate, findCredential } from "../core/auth/authenticate.js";
import { createServiceContext, type ServiceContext } from "../core/context.js";
import { AuthenticationError, NotFoundError, ProjectNotFoundError, ValidationError } from "../core/errors.js";
import { checkStorableString } from "../core/json-input.js";
import { andThen, type MaybePromise } from "../core/maybe-promise.js";
import { type RateLimits, throwIfThrottled } from "../core/rate-limit.js";
import { parseIntegerId } from "../core/validation.js";
import type { ResponseCache } from "./response-cache.js";
import type { ProjectFromToken, RestDeps, RestRoute } from "./route.js";

/** The door's per-process state beside its dependencies. */
export interface DoorDeps extends RestDeps {
  /** 200 answers of conditional GETs by ETag (./response-cache.ts); absent when turned off. */
  responses: ResponseCache | undefined;
}

/** What a request carries that names its caller and its project. */
export interface RequestParts {
  headers: IncomingHttpHeaders;
  /** Path parameters; a `projectFromToken` route's `project_id` is set here from the token. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed body (a `personal_api_key` field is a credential); undefined without one. */
  body?: unknown;
}

/**
 * Refuses a query string holding a NUL character (e.g. `?search=%00`), which no database query can
 * carry: 400 `null_characters_not_allowed`, `attr` the parameter's name.
 */
export function checkQuery(query: URLSearchParams): void {
  for (const [name, value] of query) {
    checkStorableString(name, name);
    checkStorableString(value, name);
  }
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
 * The project id of a `projectFromToken` route's request, once the key is known.
 * @throws ValidationError (400) without a token where one is required; AuthenticationError (401)
 *   for an unknown token; ProjectNotFoundError (404) when the user has no current project.
 */
function projectOfToken(
  option: ProjectFromToken,
  token: string | null,
  projectId: number | null,
  actor: Actor,
): number {
  if (token) {
    if (projectId === null) {
      throw new AuthenticationError("Incorrect authentication credentials.", "authentication_failed");
    }
    return projectId;
  }
  if (option.whenMissing === "required") {
    throw new ValidationError("This query parameter is required: the project's API token (phc_…).", {
      attr: "token",
      code: "required",
    });
  }
  if (actor.user.currentProjectId === null) throw new ProjectNotFoundError();
  return actor.user.currentProjectId;
}

/** The token a `projectFromToken` route's request names its project with (null: none, or not such a route). */
function tokenOf(parts: RequestParts, route: Pick<RestRoute, "projectFromToken"> | undefined): string | null {
  return route?.projectFromToken ? parts.query.get("token") : null;
}

/** The request's context once its actor is known; sets `params.project_id` from the token (see `contextFor`). */
function contextOf(
  deps: DoorDeps,
  parts: RequestParts,
  route: Pick<RestRoute, "projectFromToken"> | undefined,
  actor: Actor,
  projectId: number | null,
): ServiceContext {
  const fromToken = route?.projectFromToken;
  if (fromToken) {
    parts.params["project_id"] = String(projectOfToken(fromToken, tokenOf(parts, route), projectId, actor));
  }
  return createServiceContext(deps.data, actor, deps.limits);
}

/**
 * The request's service context. For a `projectFromToken` route, also sets `params.project_id`
 * from the token (see rest/routes.ts). The project a path (or a known token) names comes with the
 * key lookup (a malformed id names none). At once (no promise, no statement) when the process holds
 * the key and the token, as answers given from memory need (./known-answers.ts); else read.
 * @throws AuthenticationError (401) without a valid key or with an unknown token; as `projectOfToken`.
 */
export function contextFor(
  deps: DoorDeps,
  parts: RequestParts,
  route?: Pick<RestRoute, "projectFromToken">,
): MaybePromise<ServiceContext> {
  const credential = findCredential({
    authorization: parts.headers.authorization,
    body: parts.body,
    query: parts.query,
  });
  const token = tokenOf(parts, route);
  const projectId = route?.projectFromToken
    ? token && credential
      ? deps.data.tokens.projectIdOf(token)
      : null
    : parseIntegerId(parts.params["project_id"] ?? "");
  return andThen(projectId, (id) =>
    andThen(authenticate(deps.data, credential, id), (actor) => contextOf(deps, parts, route, actor, id)),
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
  return andThen(contextFor(deps, parts, route), (ctx) => {
    if (route) {
      throwIfThrottled(rateWait(deps.rateLimits, route, ctx, parts.params));
      checkPath(parts.params);
    }
    return ctx;
  });
}
