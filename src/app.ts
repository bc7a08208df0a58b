/**
 * The HTTP app: from a configuration and an open database it takes what the composition root
 * (src/composition.ts) assembles, the services, the REST route tables and the GraphQL schema, and
 * serves the front doors, REST (PostHog's paths), GraphQL (/graphql) and the SDK paths (capture's
 * `/e/`, `/batch/`, ..., src/sdk/), on one fastify server.
 * It also runs the domains' jobs on the job queue (src/core/jobs/), and stops the queue (waiting
 * for the jobs in progress) when it closes.
 * Cross-cutting HTTP concerns live here: request ids and pino request logs, body limits, the
 * `Server-Timing` header with per-request SQL figures, health probes. Body parsing
 * (rest/body-parsers.ts) and PostHog error bodies (rest/error-handlers.ts) are registered from here.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { Socket } from "node:net";
import fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import type { Logger } from "pino";
import {
  attachJobQueue,
  closeServices,
  createServices,
  EVENT_STREAM_MODULES,
  JOB_MODULES,
  REST_MODULES,
  rateLimitSettings,
  SDK_MODULES,
  schema,
} from "./composition.js";
import type { Config, Limits } from "./config.js";
import { dataAccessOf } from "./core/context.js";
import { countedJob, watchQueueDepth } from "./core/jobs/job-metrics.js";
import type { JobDeps, JobQueue } from "./core/jobs/jobs.js";
import { startJobQueue } from "./core/jobs/start.js";
import { watchPool } from "./core/pool-metrics.js";
import { RateLimits } from "./core/rate-limit.js";
import type { Services } from "./core/services.js";
import type { Database } from "./db/database.js";
import { checkReadiness, migrationNamesOnDisk } from "./db/readiness.js";
import { runWithSqlStats, type SqlStats, serverTiming } from "./db/sql-stats.js";
import { GraphQLResultCache } from "./graphql/result-cache.js";
import { registerGraphQLRoutes } from "./graphql/route.js";
import { createGraphQLServer } from "./graphql/server.js";
import { attachGraphQLWebSocket } from "./graphql/websocket.js";
import { serveMetrics } from "./metrics-endpoint.js";
import { registerApiDocsRoutes } from "./rest/api-docs.js";
import { registerBodyParsers } from "./rest/body-parsers.js";
import { httpServerOptions, registerErrorHandlers } from "./rest/error-handlers.js";
import { registerEventStreamRoutes } from "./rest/event-streams.js";
import { buildOpenApiDocument, type DocumentedRoute, registerOpenApiRoute } from "./rest/openapi.js";
import type { RestRoute } from "./rest/route.js";
import { registerRestRoutes } from "./rest/routes.js";
import type { KnownAnswers } from "./sdk/known-answers.js";
import type { SdkRoute } from "./sdk/route.js";
import { registerSdkRoutes } from "./sdk/routes.js";
import { trackServedRoutes } from "./served-routes.js";
import { buildInfo } from "./version.js";

declare module "fastify" {
  interface FastifyRequest {
    /** SQL statements and time spent on them for this request. */
    sqlStats: SqlStats;
  }
  interface FastifyInstance {
    /** The SDK door's answers from memory, offered each request before routing (sdk/known-answers.ts). */
    knownAnswers: KnownAnswers;
    /** The server's job queue (src/core/jobs/): `enqueue`, `runNow`; stopped when the server closes. */
    jobs: JobQueue;
  }
}

/** What the app is built from. */
export interface AppOptions {
  config: Config;
  database: Database;
  logger: Logger;
  /** Services to use instead of the default ones (tests inject a clock through them). */
  services?: Services;
  /**
   * The services' clock as the doors use it (the REST door's ETag time slots, the SDK answers'
   * `evaluated_at`); pass it when it is not the system's.
   */
  now?: () => Date;
}

/** Every domain's REST routes, in registration order. */
export function restRoutes(services: Services, limits: Limits): RestRoute[] {
  return REST_MODULES.flatMap((module) => module(services, limits));
}

/** Every domain's SDK routes (src/sdk/), in registration order. */
function sdkRoutes(services: Services, limits: Limits): SdkRoute[] {
  return SDK_MODULES.flatMap((module) => module(services, limits));
}

/** The SDK paths PostHog's API schema documents (`SdkRoute.documented`), as the OpenAPI document reads them. */
function documentedSdkRoutes(routes: readonly SdkRoute[]): DocumentedRoute[] {
  return routes.flatMap((route) =>
    route.documented
      ? [
          {
            method: route.methods[0]!,
            path: route.path,
            summary: route.summary,
            scopes: route.personalKey?.scopes ?? [],
            request: { query: route.documented.query },
            responses: route.documented.responses,
            tag: route.documented.tag,
          },
        ]
      : [],
  );
}

/** Every route the OpenAPI document holds: the REST door's, then the SDK paths it documents. */
export function documentedRoutes(services: Services, limits: Limits): DocumentedRoute[] {
  return [...restRoutes(services, limits), ...documentedSdkRoutes(sdkRoutes(services, limits))];
}

/**
 * The OpenAPI document of `routes`, as `GET /api/schema/` serves it and `schema/openapi.json` holds
 * it (`npm run openapi` writes the file; test/rest/openapi.test.ts fails when it is stale).
 */
export function openApiDocument(routes: readonly DocumentedRoute[]): OpenAPIObject {
  return buildOpenApiDocument(
    routes,
    {
      title: "Signalbox",
      version: buildInfo().version,
      description:
        "PostHog's REST paths for feature flags, experiments, cohorts, endpoints, event and property definitions, projects and identity, with PostHog's fields, paging and error bodies. GraphQL is at /graphql; the SDK paths (capture, /flags, OFREP) are PostHog's and OpenFeature's.",
    },
    [
      { url: "/", description: "The server that serves this document (GET /api/schema/)" },
      { url: "http://127.0.0.1:8000", description: "A local `npm start` (PORT 8000)" },
    ],
  );
}

/**
 * Starts the job queue with every domain's jobs, exposes it as `app.jobs`, and stops it (waiting for
 * the jobs in progress) when the app closes, then releases the services (the query worker threads,
 * which those jobs may use), before its owner closes the database.
 */
async function startJobs(app: FastifyInstance, database: Database, config: Config, deps: JobDeps) {
  const definitions = JOB_MODULES.flatMap((module) => module(deps)).map(countedJob);
  const jobs = await startJobQueue(database, definitions, config.jobs, app.log.child({ component: "jobs" }));
  const unwatch = watchQueueDepth(jobs);
  app.log.info(
    { runner: jobs.kind, jobs: definitions.map((definition) => definition.name) },
    "job queue started",
  );
  app.decorate("jobs", jobs);
  app.addHook("onClose", async () => {
    unwatch();
    await jobs.stop();
    await closeServices(deps.services);
  });
  await attachJobQueue(deps.services, jobs);
}

/**
 * The HTTP server fastify would make for `options` (fastify/lib/server.js `getServerInstance`:
 * Node's server options, keep-alive, request and connection timeouts), with `listener` in front of
 * fastify's own handler.
 */
function httpServer(
  nodeOptions: http.ServerOptions,
  options: FastifyServerOptions,
  listener: http.RequestListener,
): http.Server {
  const server = http.createServer(nodeOptions, listener);
  server.keepAliveTimeout = options.keepAliveTimeout!;
  server.requestTimeout = options.requestTimeout!;
  server.setTimeout(options.connectionTimeout!);
  if ((options.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
  return server;
}

/** How often a closing server ends the connections that carry no request (ms). */
const IDLE_SWEEP_INTERVAL_MS = 100;

/**
 * Tracks which of `server`'s connections carry a request, and returns the function a close calls:
 * it ends every connection that carries none, now and then every `IDLE_SWEEP_INTERVAL_MS` until the
 * server has closed (a request that finishes later leaves its connection idle, and it goes too).
 * Node's own `closeIdleConnections` misses a connection that has not sent a byte yet. A connection
 * carries a request while its latest response is unfinished (answers leave a connection in order);
 * no listener is added per request, on the path SDKs poll tens of thousands of times a second.
 */
function idleConnectionSweeper(server: http.Server): () => void {
  const latest = new Map<Socket, http.ServerResponse | undefined>();
  server.on("connection", (socket: Socket) => {
    latest.set(socket, undefined);
    socket.once("close", () => latest.delete(socket));
  });
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    latest.set(request.socket, response);
  });
  const sweep = () => {
    for (const [socket, response] of latest) if (!response || response.writableFinished) socket.destroy();
  };
  return () => {
    sweep();
    const timer = setInterval(sweep, IDLE_SWEEP_INTERVAL_MS);
    timer.unref();
    server.once("close", () => clearInterval(timer));
  };
}

/** Paths whose requests are logged at `debug`: probes and scrapes, which come every few seconds. */
const QUIET_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * fastify's request log lines, one a request at `info`: "request received" when it arrives only at
 * `debug` (to follow a request that never finishes), and when it is answered "request completed" with the request (core/logger.ts's `req` serializer: the URL's credentials
 * redacted), its status and its time in ms, at `info` (`QUIET_PATHS` at `debug`), or "request
 * errored" at `error` when its answer failed. Requests answered before routing log the same line
 * themselves (sdk/known-answers.ts).
 */
class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "request received");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) request.log.error({ ...line, err: error }, "request errored");
    else if (QUIET_PATHS.has(request.routeOptions.url ?? "")) request.log.debug(line, "request completed");
    else request.log.info(line, "request completed");
  }
}

/** Builds the HTTP app (not yet listening). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database, logger } = options;
  const data = dataAccessOf(database);
  const services = options.services ?? createServices({ now: () => new Date(), config, data });
  const expectedMigrations = await migrationNamesOnDisk();
  // Filled once the REST routes are registered: answers from memory offered each request before fastify.
  let knownAnswers: KnownAnswers | undefined;
  const serverOptions = httpServerOptions(config.limits);
  const app = fastify({
    serverFactory: (handler, options) =>
      httpServer(serverOptions.http, options, (request, response) => {
        if (!knownAnswers?.answer(request, response)) handler(request, response);
      }),
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.limits.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestIdHeader: "x-request-id",
    // A request handed over by the answers from memory keeps the id they gave it.
    genReqId: (request) => knownAnswers?.requestIdOf(request) ?? randomUUID(),
    return503OnClosing: true,
    logController: new RequestLogController(),
    ...serverOptions,
    routerOptions: { ignoreTrailingSlash: true, ...serverOptions.routerOptions },
  });
  registerBodyParsers(app, config.limits);
  registerErrorHandlers(app, config.limits);
  serveMetrics(app, config.metrics, config.host);
  const unwatchPool = watchPool(database.pool);
  app.addHook("onClose", async () => unwatchPool());

  trackServedRoutes(app);
  app.decorateRequest("sqlStats", null as unknown as SqlStats);
  // Per-request hooks in callback form: fastify runs them without a promise each.
  app.addHook("onRequest", (request, reply, done) => {
    // A request whose admission began before routing counts from there (sdk/known-answers.ts).
    request.sqlStats = knownAnswers?.sqlStatsOf(request.raw) ?? { statements: 0, durationMs: 0 };
    reply.header("X-Request-Id", request.id);
    done();
  });
  // Every handler runs inside its request's SQL accounting context, and so does every route's
  // preParsing hook (the REST door authenticates there, before the body: rest/routes.ts).
  app.addHook("onRoute", (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply) {
      return runWithSqlStats(request.sqlStats, () => handler.call(this, request, reply));
    };
    if (route.preParsing) {
      route.preParsing = [route.preParsing].flat().map(
        (hook) =>
          function (this: FastifyInstance, request, reply, payload, done) {
            return runWithSqlStats(request.sqlStats, () => hook.call(this, request, reply, payload, done));
          },
      );
    }
  });
  // A graceful stop (SIGTERM) lets the requests in flight finish, then must let their connections
  // go: Node's close() ends only the connections idle at that moment, so a kept-alive connection
  // whose request finished after it would hold the close, and the process, until its keep-alive
  // timeout (72 s, past any grace period). Answers sent while closing therefore say Connection: close.
  // Connections that carry no request are ended too, as they become so, until the server has
  // closed (endIdleConnections): one accepted just before close() that never sends a request (the
  // spare connection fetch opens) is not idle to Node and held every close for its 60 s header timeout.
  let closing = false;
  const endIdleConnections = idleConnectionSweeper(app.server);
  app.addHook("preClose", (done) => {
    closing = true;
    endIdleConnections();
    done();
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("Server-Timing", serverTiming(request.sqlStats));
    if (closing) reply.header("Connection", "close");
    done(null, payload);
  });

  const { version, commit } = buildInfo();
  app.get("/healthz", async () => ({ status: "ok", version, commit }));
  app.get("/readyz", async (_request, reply) => {
    const readiness = await checkReadiness(database.prisma, expectedMigrations);
    return reply
      .status(readiness.ready ? 200 : 503)
      .send({ status: readiness.ready ? "ready" : "not_ready", ...readiness });
  });

  const rateLimits = new RateLimits(rateLimitSettings(config.rateLimits));
  const yoga = createGraphQLServer({ schema, data, services, limits: config.limits, rateLimits, logger });
  registerGraphQLRoutes(app, yoga, {
    bodyLimitBytes: config.limits.bodyLimitBytes,
    streamMaxLifetimeMs: config.limits.streamMaxLifetimeMs,
    results:
      config.limits.graphqlResultCacheBytes > 0
        ? new GraphQLResultCache(
            data,
            rateLimits,
            config.limits.graphqlResultCacheBytes,
            options.now ?? (() => new Date()),
          )
        : undefined,
  });
  const closeWebSockets = attachGraphQLWebSocket(app.server, yoga, config.limits.streamMaxLifetimeMs);
  app.addHook("preClose", closeWebSockets);

  const restDeps = {
    data,
    limits: config.limits,
    rateLimits,
    publicUrl: config.publicUrl,
    ...(options.now ? { now: options.now } : {}),
  };
  const routes = restRoutes(services, config.limits);
  registerRestRoutes(app, routes, restDeps);
  registerEventStreamRoutes(
    app,
    EVENT_STREAM_MODULES.flatMap((module) => module(services)),
    restDeps,
  );
  const sdk = sdkRoutes(services, config.limits);
  registerOpenApiRoute(app, openApiDocument([...routes, ...documentedSdkRoutes(sdk)]));
  registerApiDocsRoutes(app);
  knownAnswers = await registerSdkRoutes(app, sdk, {
    rateLimits,
    tokens: data.tokens,
    data,
    limits: config.limits,
    ...(options.now ? { now: options.now } : {}),
  });
  app.decorate("knownAnswers", knownAnswers);
  await startJobs(app, database, config, { services, transaction: database.transaction, config });
  return app;
}
