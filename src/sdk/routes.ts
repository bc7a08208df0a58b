/**
 * The SDK door: the paths PostHog's SDKs call, beside the REST and GraphQL doors. A domain declares
 * its SDK paths as `SdkRoute`s (./route.ts: capture's `/e/`, `/batch/`, ...; `/flags/`, OFREP, the
 * flag definitions), the composition root lists them, and this module serves them, each with and
 * without its trailing slash. Most take a project's public token (`phc_…`); the flag definitions
 * server SDKs poll take a personal API key (`personalKey`: ./personal-key.ts), are answered from
 * memory before routing when the process holds everything (./known-answers.ts), and may be event
 * streams (`eventStream`: core/event-stream.ts; renewed when access changes). For every path:
 * - CORS on every answer and preflight (./cors.ts, as rust/capture/src/router.rs);
 * - the body read as bytes whatever its type (JSON, `text/plain` from `sendBeacon`, forms, gzip),
 *   up to the route's `bodyLimitBytes` (413 beyond), then decoded (./payload.ts);
 * - the project found by the token in the payload or the query (./token.ts), or, for a route that
 *   says `tokenIn: "path"` (`/array/:token/config`), in its `:token` path segment, with no payload
 *   read, or for `tokenIn: "header"` (OpenFeature's OFREP) in `Authorization: Bearer <token>` or
 *   `X-API-Key` (./token.ts `headerToken`); one indexed lookup the first time a process sees the
 *   token (core/auth/project-token.ts: forgotten once the token rotates or its project is deleted,
 *   on every process); no token or an unknown one in a payload or a header is a
 *   401 (an unknown one in a path a 404, as PostHog's `RemoteConfig.DoesNotExist`), and so is a
 *   request that fails because its project was deleted since;
 * - a route may answer a request that carries no payload at all (an empty GET of `/flags/`) itself,
 *   before any token is looked for (`answerWithoutPayload`);
 * - errors in PostHog's JSON error body `{type, code, detail, attr}` (core/error-body.ts; the
 *   `detail` is capture's message, rust/capture/src/api.rs `CaptureError`), never an HTML page, unless
 *   the route renders its own (`renderError`: OFREP's `{errorCode, errorDetails}`);
 * - a handler's reply headers (an `ETag`) are sent, and exposed to cross-origin pages (./cors.ts).
 * The handler gets the project, the decoded payload (and on a personal-key path the caller's
 * `ctx`); the domain service does the rest.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorBody, errorHeaders, httpLayerError, SERVER_ERROR_BODY } from "../core/error-body.js";
import { AuthenticationError, DomainError, MethodNotAllowedError, NotFoundError } from "../core/errors.js";
import { EVENT_STREAM_HEADERS, eventStreamBody } from "../core/event-stream.js";
import { throwIfThrottled } from "../core/rate-limit.js";
import { answerHeaders } from "./answer-headers.js";
import { isPreflight, setCorsHeaders, setPreflightHeaders } from "./cors.js";
import { KnownAnswers } from "./known-answers.js";
import { decodePayload } from "./payload.js";
import { answerByKey, type KeyRoute } from "./personal-key.js";
import type { SdkDeps, SdkReply, SdkRoute } from "./route.js";
import { findProjectToken, headerToken } from "./token.js";

/** The methods the SDK door routes; those a path does not take are answered 405. */
const ROUTED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The door's dependencies with its clock. */
type Door = SdkDeps & { now: () => Date };

/**
 * Answers `error` in PostHog's JSON error body, or as the route's `renderError` says, with the CORS
 * headers; unexpected errors are logged.
 */
async function answerError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  route?: Pick<SdkRoute, "renderError" | "personalKey">,
) {
  setCorsHeaders(request, reply);
  const known = httpLayerError(error, request.routeOptions.bodyLimit ?? 0);
  if (!known) request.log.error({ err: error }, "unexpected error");
  // A personal-key path answers a 401 with the challenge DRF's authenticators send (`Bearer`).
  if (known) reply.headers(errorHeaders(known, route?.personalKey !== undefined));
  const renderError = route?.renderError;
  if (renderError) return send(request, reply, renderError(known, paramsOf(request)));
  if (known) return reply.status(known.httpStatus).send(errorBody(known));
  return reply.status(500).send(SERVER_ERROR_BODY);
}

/** The request's path parameters. */
function paramsOf(request: FastifyRequest): Record<string, string> {
  return (request.params as Record<string, string> | undefined) ?? {};
}

function invalidTokenError(): AuthenticationError {
  return new AuthenticationError(
    "Project API key invalid. You can find your project API key in PostHog project settings.",
    "authentication_failed",
  );
}

/** The request's query string. */
function queryOf(request: FastifyRequest): URLSearchParams {
  return new URL(request.url, "http://sdk.invalid").searchParams;
}

/** The request's body bytes (empty without one). */
function bodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/**
 * A personal-key route's answer (./personal-key.ts): the outcome begun before routing when there is
 * one (./known-answers.ts), else admission and the handler now; an event stream's events are sent
 * as they come (core/event-stream.ts), ended when the server closes (`closing`).
 */
async function handleByKey(
  route: KeyRoute,
  deps: Door,
  known: KnownAnswers,
  closing: AbortSignal,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  setCorsHeaders(request, reply);
  const handed = known.takeOver(request.raw);
  if (handed) return send(request, reply, await handed);
  const query = queryOf(request);
  const body = bodyOf(request);
  // Only an event stream has a life to end.
  const gone = route.eventStream ? new AbortController() : undefined;
  const result = await answerByKey(deps, route, {
    // A body may carry the key (`personal_api_key`), as DRF's `request.data` does.
    payload:
      body.length === 0
        ? undefined
        : decodePayload({
            body,
            query: new URLSearchParams(),
            contentType: request.headers["content-type"],
            contentEncoding: request.headers["content-encoding"],
            limitBytes: route.bodyLimitBytes,
          }),
    params: paramsOf(request),
    query,
    headers: request.headers,
    requestId: request.id,
    path: route.path,
    log: request.log,
    ...(gone ? { signal: AbortSignal.any([gone.signal, closing]) } : {}),
  });
  if (!result.events || !gone) return send(request, reply, result);
  const stream = eventStreamBody({
    events: result.events,
    request: request.raw,
    response: reply.raw,
    closing,
    limits: deps.limits,
    log: request.log,
    gone,
  });
  return reply.status(200).headers(EVENT_STREAM_HEADERS).send(stream);
}

async function handle(route: SdkRoute, deps: Door, request: FastifyRequest, reply: FastifyReply) {
  setCorsHeaders(request, reply);
  const query = queryOf(request);
  const body = bodyOf(request);
  if (route.answerWithoutPayload && request.method === "GET" && body.length === 0 && !query.get("data")) {
    return send(request, reply, route.answerWithoutPayload(query, deps.now));
  }
  const params = paramsOf(request);
  const inPath = route.tokenIn === "path";
  const unknownToken = inPath ? () => new NotFoundError() : invalidTokenError;
  // A header token is looked for before the body is read: no key, no parsing.
  const fromHeader = route.tokenIn === "header" ? headerToken(request.headers) : null;
  const payload =
    inPath || (route.allowEmptyBody && body.length === 0 && !query.get("data"))
      ? undefined
      : decodePayload({
          body,
          query,
          contentType: request.headers["content-type"],
          contentEncoding: request.headers["content-encoding"],
          limitBytes: route.bodyLimitBytes,
        });
  const token = inPath ? (params["token"] ?? "") : (fromHeader ?? findProjectToken(payload, query));
  const projectId = await deps.tokens.projectIdOf(token);
  if (projectId === null) throw unknownToken();
  if (route.rateScope) throwIfThrottled(deps.rateLimits.waitForScope(route.rateScope, token));
  let result: SdkReply;
  try {
    result = await route.handler({
      projectId,
      token,
      payload,
      params,
      query,
      headers: request.headers,
      requestId: request.id,
      path: route.path,
      log: request.log,
      now: deps.now,
    });
  } catch (error) {
    // A database error may mean the remembered project was deleted meanwhile (its rows' foreign
    // keys refuse the writes): that is an unknown token now, as it would have been on lookup.
    if (!(error instanceof DomainError) && !(await deps.tokens.confirm(token))) throw unknownToken();
    throw error;
  }
  return send(request, reply, result);
}

/** Sends a handler's answer: JSON, or the body as given with its `contentType`, and its headers. */
function send(request: FastifyRequest, reply: FastifyReply, result: SdkReply) {
  return reply
    .status(result.status ?? 200)
    .headers(answerHeaders(request.headers, result))
    .send(result.body);
}

/**
 * Serves `routes` in a scope of their own (their body parsing and error answers are the door's,
 * not the REST door's): each path answers its methods, 405 to the others (as capture's router
 * does), and OPTIONS (a preflight gets its CORS headers and an empty 200; a plain OPTIONS
 * capture's `{"status": "Ok"}`). Returns the answers from memory of the routes that declare
 * `answersFromMemory`, for the HTTP server to offer each request to before fastify (src/app.ts).
 */
export async function registerSdkRoutes(
  app: FastifyInstance,
  routes: readonly SdkRoute[],
  deps: SdkDeps,
): Promise<KnownAnswers> {
  const door: Door = { ...deps, now: deps.now ?? (() => new Date()) };
  const known = new KnownAnswers(door, routes, app.log);
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer" },
      async (_request: FastifyRequest, body: Buffer) => body,
    );
    scope.setErrorHandler((error, request, reply) => answerError(error, request, reply));
    for (const route of routes) {
      const errorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) =>
        answerError(error, request, reply, route);
      scope.route({
        method: [...route.methods],
        url: route.path,
        bodyLimit: route.bodyLimitBytes,
        errorHandler,
        handler: route.personalKey
          ? (request, reply) => handleByKey(route as KeyRoute, door, known, closing.signal, request, reply)
          : (request, reply) => handle(route, door, request, reply),
      });
      const others = ROUTED_METHODS.filter(
        (method) => !(route.methods as readonly string[]).includes(method),
      );
      if (others.length > 0) {
        scope.route({
          method: others,
          url: route.path,
          errorHandler,
          handler: async (request) => {
            throw new MethodNotAllowedError(request.method);
          },
        });
      }
      scope.route({
        method: "OPTIONS",
        url: route.path,
        handler: async (request, reply) => {
          setCorsHeaders(request, reply);
          if (!isPreflight(request)) return reply.send({ status: "Ok" });
          setPreflightHeaders(request, reply);
          return reply.status(200).send();
        },
      });
    }
  });
  return known;
}
