/**
 * The REST door's route table machinery. A domain declares its documented paths as `RestRoute`s;
 * this module authenticates each request once (personal API key → ServiceContext), parses the
 * query (refusing NUL characters in it, which PostgreSQL cannot take; a path parameter holding one
 * names nothing, 404), hands the handler plain
 * values (no body is `{}`, as DRF's empty `request.data`), writes the answer with the route's
 * response schema (src/rest/route-responses.ts), and answers every other method on a known path with 405.
 * Paths are written with their trailing slash; the server answers with and without it.
 * A request whose `Authorization` header carries its key is authenticated, throttled and its path
 * checked before its body is read (`admitBeforeBody`), as DRF's `APIView.initial` runs before a
 * view reads the lazily parsed `request.data`: a bad key or a throttled one costs no parsing.
 * Every GET on a path with `:project_id` is conditional (`ETag`, `If-None-Match` → 304) unless its
 * route says `conditional: false`: see conditional.ts.
 * A route whose path names no project may take it from the public project token in the query
 * (`projectFromToken`, PostHog's SDK polling paths `/flags/definitions` and
 * `/api/feature_flag/local_evaluation`): the door resolves the token to the project's id and hands
 * the handler `params.project_id` as if the path had named it, so the project is authorised exactly
 * as on a project path (key limits, scope, membership), and read along with the key.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Limits } from "../config.js";
import { findCredential } from "../core/auth/authenticate.js";
import type { Scope } from "../core/auth/scopes.js";
import type { DataAccess, ServiceContext } from "../core/context.js";
import { DomainError, MethodNotAllowedError, ProjectNotFoundError } from "../core/errors.js";
import { type ProjectRateScope, type RateLimits, throwIfThrottled } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";
import { parseIntegerId } from "../core/validation.js";
import { FORM_BODY_ROUTE_CONFIG } from "./body-parsers.js";
import { AnsweredFromCache, conditionalRead, NotModified } from "./conditional.js";
import { JSON_TYPE, KnownAnswers } from "./known-answers.js";
import { checkPath, checkQuery, contextFor, type DoorDeps, rateWait } from "./request-context.js";
import { ResponseCache } from "./response-cache.js";
import { responseSchemas } from "./route-responses.js";

/** Methods the REST door routes. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

const METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

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

/** An answer given from memory (rest/known-answers.ts): serialised JSON bytes, or no body (a 304). */
export interface KnownReply {
  status?: number;
  body: Buffer | undefined;
  headers?: Record<string, string>;
}

/**
 * Where a route takes its project from when its path names none: the query's `token` (a project's
 * public `phc_…` token). `whenMissing`: what a request without a token gets, `required` a 400
 * (`token` is required, as PostHog's Rust `/flags/definitions` requires it) or `current_project`
 * the key's user's current project (PostHog's legacy `/api/feature_flag/` paths, §2 of
 * posthog-behavior.md). An unknown token is a 401 `authentication_failed`, after the key was
 * checked (DRF authenticates first; posthog/api/routing.py `_get_team_from_request`).
 */
export interface ProjectFromToken {
  whenMissing: "required" | "current_project";
}

/** One documented path and method. */
export interface RestRoute {
  method: HttpMethod;
  path: string;
  /** One line on what the route does (the OpenAPI summary). */
  summary: string;
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
  rateScope?: ProjectRateScope;
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
  handler: (request: RestRequest) => Promise<RestReply>;
  /**
   * False for a GET whose body reads data tables (events, persons, groups, cohort members), which
   * do not bump the project's revision: it answers no ETag and never 304. Default: true.
   */
  conditional?: boolean;
  /** Errors PostHog answers on this route with an empty body (e.g. 405 on flag DELETE). */
  emptyBodyOn?: (error: DomainError) => boolean;
  /** For a path without `:project_id`: take the project from the query's public token (see `ProjectFromToken`). */
  projectFromToken?: ProjectFromToken;
  /**
   * PostHog's own body for some errors of this route, instead of `{type, code, detail, attr}`
   * (`bulk_keys`' `{"error": ...}`, `status`'s `{"status": "unknown", ...}`), with the error's
   * status; undefined keeps the standard body. `responses` must admit it for that status.
   */
  errorBody?: (error: DomainError) => unknown;
  /**
   * The route's answer from what the process holds, without a statement or a wait, or undefined
   * when it would need either (then `handler` answers): taken before routing, for the hottest
   * polling paths (rest/known-answers.ts). Must give what `handler` gives for the same request;
   * a GET with `conditional: false` only. Errors it throws are answered by `handler`'s path.
   */
  answerKnown?: (
    request: Pick<RestRequest, "params" | "query" | "headers" | "ctx">,
  ) => KnownReply | undefined;
}

/** An id that no row has (ids start at 1): what a malformed object id in a path becomes. */
const NO_SUCH_ID = 0;

/**
 * The integer id in path parameter `name`, parsed at the door so services take numbers.
 * Anything but a positive integer that fits PostgreSQL's `integer` names no object: for `project_id`
 * that is PostHog's 404 `Project not found.` at once; any other id becomes 0, an id no row has, so
 * the service still checks scope and project first (DRF checks permissions before it looks the
 * object up) and then answers its own 404.
 * @throws ProjectNotFoundError for a malformed `project_id`.
 */
export function pathId(params: Record<string, string>, name: string): number {
  const id = parseIntegerId(params[name] ?? "");
  if (id !== null) return id;
  if (name === "project_id") throw new ProjectNotFoundError();
  return NO_SUCH_ID;
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

/** Marks an error so the error handler answers it with an empty body. */
export class EmptyBodyError extends Error {
  constructor(readonly status: number) {
    super(`empty ${status}`);
  }
}

/** The absolute URL of a request. */
export function absoluteUrl(request: FastifyRequest, publicUrl: string | undefined): URL {
  return new URL(request.url, publicUrl ?? `${request.protocol}://${request.host}`);
}

/** A 200 body as fastify sends it: text as given, else by the route's 200 schema, else `JSON.stringify`. */
function serializedBody(reply: FastifyReply, body: unknown, has200Schema: boolean): string {
  if (typeof body === "string") return body;
  if (Buffer.isBuffer(body)) return body.toString("utf8");
  return has200Schema
    ? (reply.serializeInput(body as Record<string, unknown>, "200") as string)
    : JSON.stringify(body);
}

/** The contexts of requests admitted before their body was read (`admitBeforeBody`), by request. */
const admittedBeforeBody = new WeakMap<FastifyRequest, ServiceContext>();

/**
 * What DRF's `APIView.initial` does before a view reads the body: authenticates the request (its
 * `ServiceContext`; `body` is the parsed body, undefined before it is read), counts it against its
 * rate limit and checks its path parameters. Without `route` (the 405 answers), authentication only.
 * @throws AuthenticationError (401) and the rest of `contextFor`; TooManyRequestsError (429);
 *   NotFoundError (404) for a path parameter holding a NUL.
 */
async function admit(
  deps: DoorDeps,
  request: FastifyRequest,
  body: unknown,
  route?: RestRoute,
): Promise<ServiceContext> {
  const params = request.params as Record<string, string>;
  const parts = {
    headers: request.headers,
    params,
    query: absoluteUrl(request, deps.publicUrl).searchParams,
    body,
  };
  const ctx = await contextFor(deps, parts, route);
  if (route) {
    throwIfThrottled(rateWait(deps.rateLimits, route, ctx, params));
    checkPath(params);
  }
  return ctx;
}

/**
 * A `preParsing` hook: a request whose `Authorization` header names its key (`findCredential`) is
 * admitted (`admit`) before its body is read, so that a bad key costs no body parsing; a refusal
 * ends the request there. Any other request may carry its key in the body (`personal_api_key`, as
 * PostHog's `PersonalAPIKeyAuthentication` reads `request.data`, which parses it), so it is admitted
 * once the body is parsed, as DRF does.
 */
function admitBeforeBody(deps: DoorDeps, route?: RestRoute) {
  return async (request: FastifyRequest, _reply: FastifyReply, payload: NodeJS.ReadableStream) => {
    if (findCredential({ authorization: request.headers.authorization })) {
      admittedBeforeBody.set(request, await admit(deps, request, undefined, route));
    }
    return payload;
  };
}

/** The request's context: admitted before its body was read, or now with its parsed body. */
async function admitted(deps: DoorDeps, request: FastifyRequest, route?: RestRoute): Promise<ServiceContext> {
  return admittedBeforeBody.get(request) ?? admit(deps, request, request.body, route);
}

/**
 * The route's own answers to its errors, wherever in the request they arise (before the body or in
 * the handler): an empty body (`emptyBodyOn`) or PostHog's own body for it (`errorBody`); any other
 * error goes on to the server's error handler (rest/error-handlers.ts).
 */
function routeErrorHandler(route: RestRoute) {
  return (error: Error, _request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError && route.emptyBodyOn?.(error))
      throw new EmptyBodyError(error.httpStatus);
    const own = error instanceof DomainError ? route.errorBody?.(error) : undefined;
    if (own === undefined) throw error;
    return reply.status((error as DomainError).httpStatus).send(own);
  };
}

/**
 * Registers `routes`, each answering with its response schemas, and a 405 answer for the other
 * methods of each of their paths. Returns the answers from memory of the routes that declare
 * `answerKnown`, for the HTTP server to offer each request to before fastify (src/app.ts).
 */
export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RestRoute[],
  restDeps: RestDeps,
): KnownAnswers {
  const deps: DoorDeps = {
    ...restDeps,
    responses:
      restDeps.limits.responseCacheBytes > 0
        ? new ResponseCache(restDeps.limits.responseCacheBytes)
        : undefined,
  };
  const methodsByPath = new Map<string, Set<HttpMethod>>();
  for (const route of routes) {
    const conditional =
      route.method === "GET" && route.path.includes(":project_id/") && route.conditional !== false;
    const schemas = responseSchemas(route);
    const has200Schema = schemas[200] !== undefined;
    app.route({
      method: route.method,
      url: route.path,
      config: FORM_BODY_ROUTE_CONFIG,
      schema: { response: schemas },
      preParsing: admitBeforeBody(deps, route),
      errorHandler: routeErrorHandler(route),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const url = absoluteUrl(request, deps.publicUrl);
        const params = request.params as Record<string, string>;
        try {
          const base = await admitted(deps, request, route);
          const read = conditional
            ? conditionalRead({
                headers: request.headers,
                rawProjectId: params["project_id"]!,
                url,
                actor: base.actor,
                now: deps.now?.() ?? new Date(),
                cache: deps.responses,
              })
            : undefined;
          const ctx = read ? { ...base, onProjectAuthorized: read.onProjectAuthorized } : base;
          checkQuery(url.searchParams);
          const result = await route.handler({
            params,
            query: url.searchParams,
            body: request.body ?? {},
            url,
            headers: request.headers,
            ctx,
          });
          const etag = read?.etag();
          if (etag) reply.header("ETag", etag).header("Cache-Control", "private, no-cache");
          if (result.headers) reply.headers(result.headers);
          const status = result.status ?? 200;
          if (etag && deps.responses && status === 200) {
            // Serialised here, as fastify would (the route's 200 schema), to be kept for the tag.
            const body = serializedBody(reply, result.body, has200Schema);
            deps.responses.set(etag, { body, headers: result.headers ?? {} });
            return reply.status(200).type(JSON_TYPE).send(body);
          }
          // fastify sends a Buffer or a string as given, as text unless told: these are JSON texts.
          if (Buffer.isBuffer(result.body) || typeof result.body === "string") reply.type(JSON_TYPE);
          return reply.status(status).send(result.body);
        } catch (error) {
          if (error instanceof AnsweredFromCache) {
            return reply
              .status(200)
              .header("ETag", error.etag)
              .header("Cache-Control", "private, no-cache")
              .headers(error.answer.headers)
              .type(JSON_TYPE)
              .send(error.answer.body);
          }
          if (error instanceof NotModified) {
            return reply
              .status(304)
              .header("ETag", error.etag)
              .header("Cache-Control", "private, no-cache")
              .send();
          }
          throw error;
        }
      },
    });
    const methods = methodsByPath.get(route.path) ?? new Set();
    methods.add(route.method);
    methodsByPath.set(route.path, methods);
  }
  for (const [path, allowed] of methodsByPath) {
    const others = METHODS.filter((m) => !allowed.has(m));
    if (others.length === 0) continue;
    app.route({
      method: others,
      url: path,
      config: FORM_BODY_ROUTE_CONFIG,
      preParsing: admitBeforeBody(deps),
      handler: async (request) => {
        // Authentication comes first, as in DRF: an anonymous caller gets 401, not 405.
        await admitted(deps, request);
        throw new MethodNotAllowedError(request.method);
      },
    });
  }
  return new KnownAnswers(deps, routes, app.log);
}
