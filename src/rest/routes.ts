import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { authorizeProject } from "../core/auth/access.js";
import { findCredential } from "../core/auth/authenticate.js";
import type { ServiceContext } from "../core/context.js";
import { DomainError, MethodNotAllowedError, ProjectNotFoundError } from "../core/errors.js";
import { checkStorableQuery } from "../core/json-input.js";
import { JSON_MEDIA_TYPE } from "../core/media-types.js";
import { ResponseCache } from "../core/response-cache.js";
import { parseIntegerId } from "../core/validation.js";
import { FORM_BODY_ROUTE_CONFIG } from "./body-parsers.js";
import { answerBeforeRead, CONDITIONAL_CACHE_CONTROL, projectEntityTag } from "./conditional.js";
import { admit, type DoorDeps, type RequestParts } from "./request-context.js";
import type { HttpMethod, RestDeps, RestRoute } from "./route.js";
import { responseSchemas } from "./route-responses.js";

const METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

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

/** A 200 body as fastify sends it, as UTF-8 bytes: text as given, else by the route's 200 schema, else `JSON.stringify`. */
function serializedBody(reply: FastifyReply, body: unknown, has200Schema: boolean): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === "string") return Buffer.from(body);
  return Buffer.from(
    has200Schema
      ? (reply.serializeInput(body as Record<string, unknown>, "200") as string)
      : JSON.stringify(body),
  );
}

/** What `admit` reads of a request: `body` is its parsed body, undefined before it is read. */
function partsOf(deps: DoorDeps, request: FastifyRequest, body: unknown): RequestParts {
  return {
    headers: request.headers,
    params: request.params as Record<string, string>,
    query: absoluteUrl(request, deps.publicUrl).searchParams,
    body,
  };
}

/** The contexts of requests admitted before their body was read (`admitBeforeBody`), by request. */
const admittedBeforeBody = new WeakMap<FastifyRequest, ServiceContext>();

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
      admittedBeforeBody.set(request, await admit(deps, partsOf(deps, request, undefined), route));
    }
    return payload;
  };
}

/** The request's context: admitted before its body was read, or now with its parsed body. */
async function admitted(deps: DoorDeps, request: FastifyRequest, route?: RestRoute): Promise<ServiceContext> {
  return admittedBeforeBody.get(request) ?? admit(deps, partsOf(deps, request, request.body), route);
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
 * methods of each of their paths.
 */
export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RestRoute[],
  restDeps: RestDeps,
): void {
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
    if (conditional && route.scopes.length !== 1) {
      throw new Error(`${route.path}: a conditional GET names the one scope its project is authorized with`);
    }
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
        const ctx = await admitted(deps, request, route);
        checkStorableQuery(url.searchParams);
        let etag: string | undefined;
        if (conditional) {
          // The door decides ETag and 304 from the project's revision before the handler runs.
          const project = await authorizeProject(ctx, pathId(params, "project_id"), route.scopes[0]!);
          etag = projectEntityTag({ project, url, actor: ctx.actor, now: deps.now?.() ?? new Date() });
          const early = answerBeforeRead(request.headers, etag, deps.responses);
          if (early) {
            reply.header("ETag", etag).header("Cache-Control", CONDITIONAL_CACHE_CONTROL);
            if (early.kind === "not-modified") return reply.status(304).send();
            return reply
              .status(200)
              .headers(early.answer.headers)
              .type(JSON_MEDIA_TYPE)
              .send(early.answer.body);
          }
        }
        const result = await route.handler({
          params,
          query: url.searchParams,
          body: request.body ?? {},
          url,
          headers: request.headers,
          ctx,
        });
        if (etag) reply.header("ETag", etag).header("Cache-Control", CONDITIONAL_CACHE_CONTROL);
        if (result.headers) reply.headers(result.headers);
        const status = result.status ?? 200;
        if (etag && deps.responses && status === 200) {
          // Serialised here, as fastify would (the route's 200 schema), to be kept for the tag.
          const body = serializedBody(reply, result.body, has200Schema);
          deps.responses.set(etag, { body, headers: result.headers ?? {} });
          return reply.status(200).type(JSON_MEDIA_TYPE).send(body);
        }
        // fastify sends a Buffer or a string as given, as text unless told: these are JSON texts.
        if (Buffer.isBuffer(result.body) || typeof result.body === "string") reply.type(JSON_MEDIA_TYPE);
        return reply.status(status).send(result.body);
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
}
