/**
 * The SDK door: the paths PostHog's SDKs call with a project's public token (`phc_…`) rather than a
 * personal API key, beside the REST and GraphQL doors. A domain declares its SDK paths as
 * `SdkRoute`s (capture's `/e/`, `/batch/`, ...; the flag paths of issue 8 next), the composition root
 * lists them, and this module serves them, each with and without its trailing slash:
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
 * The handler gets the project and the decoded payload; the domain service does the rest.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Limits } from "../config.js";
import type { ProjectTokenCache } from "../core/auth/project-token.js";
import { errorBody, errorHeaders, httpLayerError, SERVER_ERROR_BODY } from "../core/error-body.js";
import { AuthenticationError, DomainError, MethodNotAllowedError, NotFoundError } from "../core/errors.js";
import { type RateLimits, type RateScope, throwIfThrottled } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";
import { exposeHeaders, isPreflight, setCorsHeaders, setPreflightHeaders } from "./cors.js";
import { decodePayload } from "./payload.js";
import { findProjectToken, headerToken } from "./token.js";

/** Methods an SDK path takes (OPTIONS is answered for every path). */
export type SdkMethod = "GET" | "POST";

/** The methods the SDK door routes; those a path does not take are answered 405. */
const ROUTED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** What an SDK handler gets. */
export interface SdkRequest {
  /** The id of the project the request's token names (only the id: see `ProjectTokenCache`). */
  projectId: number;
  /** The token that named it. */
  token: string;
  /**
   * The decoded JSON payload (an event, an array of events, a batch, a flags body...); undefined for
   * `tokenIn: "path"`, and for an empty body on a route that `allowEmptyBody`.
   */
  payload: unknown;
  /** The route's path parameters (`:key` → its decoded value). */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The request's headers (lower-case names), e.g. for the runtime an SDK runs in. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request's id (its `X-Request-Id`, or a new UUID: src/app.ts). */
  requestId: string;
  /** The route's path as declared (with its trailing slash), e.g. `/engage/`. */
  path: string;
  /** The request's logger, for failures a handler answers without throwing. */
  log: FastifyBaseLogger;
  /** The services' clock (tests fix it): what a handler stamps its answers with (`evaluated_at`). */
  now: () => Date;
}

/**
 * A handler's answer: a body with a status (200 unless given), sent as JSON, or as given (a string)
 * with `contentType`.
 */
export interface SdkReply {
  status?: number;
  body: unknown;
  /** The body's media type when it is not JSON (e.g. `application/javascript`). */
  contentType?: string;
  /** Headers to send (e.g. `ETag`); a cross-origin page may read them (`Access-Control-Expose-Headers`). */
  headers?: Readonly<Record<string, string>>;
}

/** One token-authenticated SDK path. */
export interface SdkRoute {
  methods: readonly SdkMethod[];
  /** The path with its trailing slash; the server answers without it too. */
  path: string;
  /** One line on what the route does. */
  summary: string;
  /** Largest body, and largest decoded payload, in bytes (413 beyond). */
  bodyLimitBytes: number;
  /**
   * Where the project token is: in the payload or query (default); in the `:token` path segment, in
   * which case no payload is read (the handler gets `payload: undefined`); or in the request's
   * `Authorization: Bearer` or `X-API-Key` header (./token.ts `headerToken`).
   */
  tokenIn?: "payload" | "path" | "header";
  /** An empty body is no payload (`payload: undefined`) rather than capture's 400. Default false. */
  allowEmptyBody?: boolean;
  /**
   * The route's own error answers, instead of PostHog's body: `error` is the failure as a domain
   * error, or null for an unexpected one (logged by the door, its cause never shown).
   */
  renderError?: (error: DomainError | null, params: Readonly<Record<string, string>>) => SdkReply;
  /**
   * The answer to a GET with no payload at all (no body, no `data`), before any token is looked for;
   * `now` is the services' clock.
   */
  answerWithoutPayload?: (query: URLSearchParams, now: () => Date) => SdkReply;
  /**
   * The per-token rate limit the route counts against (core/rate-limit.ts: capture's and flag
   * evaluation's, each off unless configured); none when absent (the remote config, preflights).
   */
  rateScope?: RateScope;
  handler: (request: SdkRequest) => Promise<SdkReply>;
}

/** A domain's SDK module: builds its routes from the services. */
export type SdkModule = (services: Services, limits: Limits) => SdkRoute[];

/** What the SDK door needs from the composition root. */
export interface SdkDeps {
  /** The process's token → project cache (core/auth/project-token.ts): finds a token's project. */
  tokens: ProjectTokenCache;
  /** The process's rate limits (a route's `rateScope`). */
  rateLimits: RateLimits;
  /** The services' clock; default: the system clock. */
  now?: () => Date;
}

/**
 * Answers `error` in PostHog's JSON error body, or as the route's `renderError` says, with the CORS
 * headers; unexpected errors are logged.
 */
async function answerError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  renderError?: SdkRoute["renderError"],
) {
  setCorsHeaders(request, reply);
  const known = httpLayerError(error, request.routeOptions.bodyLimit ?? 0);
  if (!known) request.log.error({ err: error }, "unexpected error");
  if (known) reply.headers(errorHeaders(known, false));
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

async function handle(
  route: SdkRoute,
  deps: SdkDeps & { now: () => Date },
  request: FastifyRequest,
  reply: FastifyReply,
) {
  setCorsHeaders(request, reply);
  const query = new URL(request.url, "http://sdk.invalid").searchParams;
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
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
  reply.status(result.status ?? 200);
  if (result.contentType) reply.type(result.contentType);
  if (result.headers) {
    reply.headers(result.headers);
    exposeHeaders(request, reply, Object.keys(result.headers));
  }
  return reply.send(result.body);
}

/**
 * Serves `routes` in a scope of their own (their body parsing and error answers are the door's,
 * not the REST door's): each path answers its methods, 405 to the others (as capture's router
 * does), and OPTIONS (a preflight gets its CORS headers and an empty 200; a plain OPTIONS
 * capture's `{"status": "Ok"}`).
 */
export async function registerSdkRoutes(
  app: FastifyInstance,
  routes: readonly SdkRoute[],
  deps: SdkDeps,
): Promise<void> {
  const door = { ...deps, now: deps.now ?? (() => new Date()) };
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
        answerError(error, request, reply, route.renderError);
      scope.route({
        method: [...route.methods],
        url: route.path,
        bodyLimit: route.bodyLimitBytes,
        errorHandler,
        handler: (request, reply) => handle(route, door, request, reply),
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
}
