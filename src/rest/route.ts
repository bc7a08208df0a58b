/**
 * What a REST route is: the table entry a domain declares (`RestRoute`), what its handler gets and
 * answers (`RestRequest`, `RestReply`), and what the door needs from the composition root
 * (`RestDeps`). Types only, so that the door's machinery (routes.ts, request-context.ts,
 * route-responses.ts) and every domain share them without a cycle.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { Limits } from "../config.js";
import type { Scope } from "../core/auth/scopes.js";
import type { DataAccess, ServiceContext } from "../core/context.js";
import type { DomainError } from "../core/errors.js";
import type { MaybePromise } from "../core/maybe-promise.js";
import type { RateLimits, RateScope } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";

/** Methods the REST door routes. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler gets: path parameters, the query, the parsed body, the absolute URL, the context. */
export interface RestRequest {
  params: Record<string, string>;
  /** The query string; no name or value holds a NUL character. */
  query: URLSearchParams;
  /** Parsed JSON, a `FormBody` for form bodies, or `{}` when the request has no body. */
  body: unknown;
  /** The absolute request URL (for `next`/`previous` links). */
  url: URL;
  /** The request's headers (e.g. `If-None-Match` for routes that answer conditionally themselves). */
  headers: IncomingHttpHeaders;
  ctx: ServiceContext;
}

/**
 * A handler's answer: a body with a status (200 unless given). A JSON value is written with the
 * route's response schema; a `Buffer` is sent as it is, as JSON already serialised (the
 * local-evaluation payload, serialised once per revision).
 */
export interface RestReply {
  status?: number;
  /**
   * The value fastify serialises with the route's response schema. A string is sent as it is (fastify
   * serialises no strings): a route answering a JSON string value sends `JSON.stringify` of it.
   */
  body: unknown;
  /** Headers to add (e.g. `ETag`, `Cache-Control`). */
  headers?: Record<string, string>;
}

/** One documented path and method. */
export interface RestRoute {
  method: HttpMethod;
  path: string;
  /**
   * What the route does: its first sentence is the OpenAPI summary, the whole text (with the scopes
   * it needs) the operation's description (rest/openapi.ts).
   */
  summary: string;
  /**
   * The resource the route belongs to (its OpenAPI tag) where its path does not say it: the default
   * is the path's first segment after `/api/projects/{project_id}/` or `/api/environments/{project_id}/`.
   */
  tag?: string;
  /**
   * The scopes a personal API key needs here (PostHog's `required_scopes`, posthog-behavior.md §1.7
   * and decision 2); empty: any valid key. Documentation for clients and the auth-matrix test: the
   * service enforces them, and that test proves it does for every route.
   */
  scopes: readonly Scope[];
  /**
   * The per-project rate limit the route counts against instead of the key's burst and sustained
   * ones (PostHog's `LocalEvaluationThrottle`, `RemoteConfigThrottle`; core/rate-limit.ts).
   */
  rateScope?: RateScope;
  /**
   * The request's shapes, for the OpenAPI document only: the service validates body and query with
   * these same zod schemas (`parseInput`, DRF's messages), fastify does not. `query` and `params`
   * have one property per parameter; a path parameter not in `params` is an integer id.
   */
  request?: { body?: z.ZodType; query?: z.ZodObject; params?: z.ZodObject };
  /**
   * The route's own answers by status: the body's zod schema, which fastify writes the body with
   * (fast-json-stringify: exactly the schema's properties), or null for an empty body. The errors
   * the door gives every route of a kind (401, 403, ...) are added by `routeResponses`.
   */
  responses: Readonly<Partial<Record<number, z.ZodType | null>>>;
  /** The route's answer (at once, not a promise, when every step of it is held by the process). */
  handler: (request: RestRequest) => MaybePromise<RestReply>;
  /**
   * False for a GET whose body reads data tables (events, persons, groups, cohort members), which
   * do not bump the project's revision: it answers no ETag and never 304. Default: true.
   */
  conditional?: boolean;
  /** Errors PostHog answers on this route with an empty body (e.g. 405 on flag DELETE). */
  emptyBodyOn?: (error: DomainError) => boolean;
  /**
   * PostHog's own body for some errors of this route, instead of `{type, code, detail, attr}`
   * (`bulk_keys`' `{"error": ...}`, `status`'s `{"status": "unknown", ...}`), with the error's
   * status; undefined keeps the standard body. `responses` must admit it for that status.
   */
  errorBody?: (error: DomainError) => unknown;
}

/** What the REST door needs from the composition root. */
export interface RestDeps {
  data: DataAccess;
  limits: Limits;
  /** The process's rate limits: every request counts against its key's, or its route's `rateScope`. */
  rateLimits: RateLimits;
  /** Base URL for absolute links; otherwise the request's own scheme and host. */
  publicUrl: string | undefined;
  /** The clock of ETags' time slots (the services' clock; tests fix it). Default: the system clock. */
  now?: () => Date;
}

/** A domain's REST module: builds its routes from the services. */
export type RestModule = (services: Services, limits: Limits) => RestRoute[];
