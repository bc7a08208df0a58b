/**
 * The SDK paths PostHog authenticates with a personal API key rather than the project token: the
 * flag definitions server SDKs poll for local evaluation (`/flags/definitions`, PostHog's Rust
 * `rust/feature-flags/src/api/flag_definitions.rs`; `/api/feature_flag/local_evaluation`, its legacy
 * Django path; posthog-behavior.md §2.10) and their event streams. The key (`Authorization: Bearer
 * phx_…`, else `personal_api_key` in the body or the query: posthog/auth.py) is checked as on every
 * other path that takes one (core/auth/authenticate.ts: key limits and scoped projects; the service
 * checks the scopes); the query's `token` (`phc_…`) only names the project. Answers at once (no
 * promise, no statement) when the process holds the key and the token, as answers given from memory
 * need (./known-answers.ts).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Limits } from "../config.js";
import type { Actor } from "../core/auth/actor.js";
import { authenticate, findCredential } from "../core/auth/authenticate.js";
import {
  type ContextRenewal,
  createServiceContext,
  type DataAccess,
  type ServiceContext,
} from "../core/context.js";
import { AuthenticationError, ProjectNotFoundError, ValidationError } from "../core/errors.js";
import { checkStorableQuery } from "../core/json-input.js";
import { andThen, type MaybePromise } from "../core/maybe-promise.js";
import { type RateLimits, type RateScope, throwIfThrottled } from "../core/rate-limit.js";
import type { PersonalKeyAccess, SdkDeps, SdkReply, SdkRequest, SdkRoute } from "./route.js";

/** What admission needs from the composition root. */
export interface KeyAdmissionDeps {
  data: DataAccess;
  limits: Limits;
  rateLimits: RateLimits;
}

/** What a request carries that names its caller and its project. */
export interface KeyRequestParts {
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  /** The decoded body (a `personal_api_key` field is a credential); undefined without one. */
  body?: unknown;
}

/** A request admitted by its personal API key. */
export interface KeyAdmission {
  ctx: ServiceContext;
  /** The project the token names (or the user's current one). */
  projectId: number;
}

/** The error PostHog's DRF answers an unknown project token with (posthog/api/routing.py). */
function unknownTokenError(): AuthenticationError {
  return new AuthenticationError("Incorrect authentication credentials.", "authentication_failed");
}

/**
 * The project of a request once its key is known: the token's, else as `whenNoToken` says.
 * @throws ValidationError (400) without a token where one is required; AuthenticationError (401)
 *   for an unknown token; ProjectNotFoundError (404) when the user has no current project.
 */
function projectOf(
  access: PersonalKeyAccess,
  token: string | null,
  projectId: number | null,
  actor: Actor,
): number {
  if (token) {
    if (projectId === null) throw unknownTokenError();
    return projectId;
  }
  if (access.whenNoToken === "required") {
    throw new ValidationError("This query parameter is required: the project's API token (phc_…).", {
      attr: "token",
      code: "required",
    });
  }
  if (actor.user.currentProjectId === null) throw new ProjectNotFoundError();
  return actor.user.currentProjectId;
}

/**
 * Authenticates the key and finds the project, without counting the request (a stream's renewal).
 * @throws as `admitByKey`, but no TooManyRequestsError.
 */
function authenticateByKey(
  deps: KeyAdmissionDeps,
  access: PersonalKeyAccess,
  parts: KeyRequestParts,
): MaybePromise<KeyAdmission> {
  const credential = findCredential({
    authorization: parts.headers.authorization,
    body: parts.body,
    query: parts.query,
  });
  // A token is looked up only once there is a key to check (DRF authenticates first).
  const token = parts.query.get("token") || null;
  const tokenProject = token && credential ? deps.data.tokens.projectIdOf(token) : null;
  return andThen(tokenProject, (id) =>
    andThen(authenticate(deps.data, credential, id), (actor) => ({
      ctx: createServiceContext(deps.data, actor, deps.limits),
      projectId: projectOf(access, token, id, actor),
    })),
  );
}

/**
 * Admits a request to a personal-key SDK path, as DRF's `APIView.initial` does: authenticates it
 * (its `ServiceContext` and project), counts it against the route's per-project rate limit
 * (`rateScope`; PostHog's `LocalEvaluationThrottle`), and refuses a query holding a NUL character.
 * @throws AuthenticationError (401) without a valid key or with an unknown token; ValidationError
 *   (400) without a required token or with a NUL in the query; ProjectNotFoundError (404);
 *   TooManyRequestsError (429).
 */
export function admitByKey(
  deps: KeyAdmissionDeps,
  route: { personalKey: PersonalKeyAccess; rateScope?: RateScope | undefined },
  parts: KeyRequestParts,
): MaybePromise<KeyAdmission> {
  return andThen(authenticateByKey(deps, route.personalKey, parts), (admitted) => {
    if (route.rateScope) throwIfThrottled(deps.rateLimits.waitForScope(route.rateScope, admitted.projectId));
    checkStorableQuery(parts.query);
    return admitted;
  });
}

/**
 * How the door authenticates a stream's request again (`ServiceContext.renewal`): the same key and
 * query, whose token, if any, must still name the project the stream opened on (a rotated token
 * names none).
 */
export function keyRenewal(
  deps: KeyAdmissionDeps,
  route: { path: string; personalKey: PersonalKeyAccess },
  parts: KeyRequestParts,
  opened: KeyAdmission,
): ContextRenewal {
  const token = parts.query.get("token") || null;
  return {
    id: `sdk ${route.path} ${opened.ctx.actor.apiKey.id} ${token ?? ""} ${opened.projectId}`,
    renew: async () => {
      const fresh = await authenticateByKey(deps, route.personalKey, parts);
      if (token !== null && fresh.projectId !== opened.projectId) throw unknownTokenError();
      return fresh.ctx;
    },
  };
}

/** A route that takes a personal API key. */
export type KeyRoute = SdkRoute & { personalKey: PersonalKeyAccess };

/**
 * A personal-key route's answer to `request`: admission (`admitByKey`; the decoded body, if any, may
 * carry the key), then the route's handler with the caller's context (with its renewal on an
 * event stream). At once when both are, as answers given from memory need (./known-answers.ts).
 * @throws as `admitByKey` and the handler.
 */
export function answerByKey(
  deps: SdkDeps & { now: () => Date },
  route: KeyRoute,
  request: Omit<SdkRequest, "projectId" | "token" | "ctx" | "now">,
): MaybePromise<SdkReply> {
  const parts = { headers: request.headers, query: request.query, body: request.payload };
  return andThen(admitByKey(deps, route, parts), (admitted) =>
    route.handler({
      ...request,
      projectId: admitted.projectId,
      token: request.query.get("token") ?? "",
      ctx: route.eventStream
        ? { ...admitted.ctx, renewal: keyRenewal(deps, route, parts, admitted) }
        : admitted.ctx,
      now: deps.now,
    }),
  );
}
