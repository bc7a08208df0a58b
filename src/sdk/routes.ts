/**
 * The SDK door: the paths PostHog's SDKs call with a project's public token (`phc_…`) rather than a
 * personal API key, beside the REST and GraphQL doors. A domain declares its SDK paths as
 * `SdkRoute`s (capture's `/e/`, `/batch/`, ...; the flag paths of issue 8 next), the composition root
 * lists them, and this module serves them, each with and without its trailing slash:
 * - CORS on every answer and preflight (./cors.ts, as rust/capture/src/router.rs);
 * - the body read as bytes whatever its type (JSON, `text/plain` from `sendBeacon`, forms, gzip),
 *   up to the route's `bodyLimitBytes` (413 beyond), then decoded (./payload.ts);
 * - the project found by the token in the payload or the query (./token.ts), with one indexed
 *   lookup the first time a process sees the token (core/auth/project-token.ts); no token or an
 *   unknown one is a 401, and so is a request that fails because its project was deleted since;
 * - errors in PostHog's JSON error body `{type, code, detail, attr}` (rest/error-body.ts; the
 *   `detail` is capture's message, rust/capture/src/api.rs `CaptureError`), never an HTML page.
 * The handler gets the project and the decoded payload; the domain service does the rest.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Limits } from "../config.js";
import { ProjectTokenCache } from "../core/auth/project-token.js";
import { AuthenticationError, DomainError, MethodNotAllowedError } from "../core/errors.js";
import type { Services } from "../core/services.js";
import type { RunSqlTransaction, SqlStatements } from "../db/sql-transaction.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import { errorBody, httpLayerError, SERVER_ERROR_BODY } from "../rest/error-body.js";
import { isPreflight, setCorsHeaders, setPreflightHeaders } from "./cors.js";
import { decodePayload } from "./payload.js";
import { findProjectToken } from "./token.js";

/** Methods an SDK path takes (OPTIONS is answered for every path). */
export type SdkMethod = "GET" | "POST";

/** The methods the SDK door routes; those a path does not take are answered 405. */
const ROUTED_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** What an SDK handler gets. */
export interface SdkRequest {
  /** The id of the project the request's token names (only the id: see `ProjectTokenCache`). */
  projectId: number;
  /** The decoded JSON payload (an event, an array of events, a batch, a flags body...). */
  payload: unknown;
  query: URLSearchParams;
  /** The route's path as declared (with its trailing slash), e.g. `/engage/`. */
  path: string;
  /** Runs hand-written write transactions on the driver (db/sql-transaction.ts). */
  transaction: RunSqlTransaction;
  /** Runs single hand-written statements outside any transaction (db/sql-transaction.ts). */
  autocommit: SqlStatements;
}

/** A handler's answer: a JSON body with a status (200 unless given). */
export interface SdkReply {
  status?: number;
  body: unknown;
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
  handler: (request: SdkRequest) => Promise<SdkReply>;
}

/** A domain's SDK module: builds its routes from the services. */
export type SdkModule = (services: Services, limits: Limits) => SdkRoute[];

/** What the SDK door needs from the composition root. */
export interface SdkDeps {
  /** Finds a token's project. */
  db: PrismaClient;
  transaction: RunSqlTransaction;
  autocommit: SqlStatements;
}

/** Answers `error` in PostHog's JSON error body, with the CORS headers; unexpected errors are logged. */
async function answerError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  setCorsHeaders(request, reply);
  const known = httpLayerError(error, request.routeOptions.bodyLimit ?? 0);
  if (known) return reply.status(known.httpStatus).send(errorBody(known));
  request.log.error({ err: error }, "unexpected error");
  return reply.status(500).send(SERVER_ERROR_BODY);
}

function invalidTokenError(): AuthenticationError {
  return new AuthenticationError(
    "Project API key invalid. You can find your project API key in PostHog project settings.",
    "authentication_failed",
  );
}

async function handle(
  route: SdkRoute,
  deps: SdkDeps,
  tokens: ProjectTokenCache,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  setCorsHeaders(request, reply);
  const query = new URL(request.url, "http://sdk.invalid").searchParams;
  const payload = decodePayload({
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    query,
    contentType: request.headers["content-type"],
    contentEncoding: request.headers["content-encoding"],
    limitBytes: route.bodyLimitBytes,
  });
  const token = findProjectToken(payload, query);
  const projectId = await tokens.projectIdOf(token);
  if (projectId === null) throw invalidTokenError();
  let result: SdkReply;
  try {
    result = await route.handler({
      projectId,
      payload,
      query,
      path: route.path,
      transaction: deps.transaction,
      autocommit: deps.autocommit,
    });
  } catch (error) {
    // A database error may mean the remembered project was deleted meanwhile (its rows' foreign
    // keys refuse the writes): that is an unknown token now, as it would have been on lookup.
    if (!(error instanceof DomainError) && !(await tokens.confirm(token))) throw invalidTokenError();
    throw error;
  }
  return reply.status(result.status ?? 200).send(result.body);
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
  const tokens = new ProjectTokenCache(deps.db);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer" },
      async (_request: FastifyRequest, body: Buffer) => body,
    );
    scope.setErrorHandler((error, request, reply) => answerError(error, request, reply));
    for (const route of routes) {
      scope.route({
        method: [...route.methods],
        url: route.path,
        bodyLimit: route.bodyLimitBytes,
        handler: (request, reply) => handle(route, deps, tokens, request, reply),
      });
      const others = ROUTED_METHODS.filter(
        (method) => !(route.methods as readonly string[]).includes(method),
      );
      if (others.length > 0) {
        scope.route({
          method: others,
          url: route.path,
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
