/**
 * The REST door's Server-Sent Events routes (WHATWG HTML §9.2 "Server-sent events"): a GET
 * authenticated exactly as the route table's (personal API key, key limits, scopes, the project
 * token of `projectFromToken` paths) whose answer is a `text/event-stream` that stays open. Errors
 * before the stream opens (authentication, scope, project, query) are the door's PostHog bodies
 * and statuses. Once open, the request's key and token are authenticated again whenever access
 * changes (`ServiceContext.renewal`, core/auth/access.ts `authorizeProjectStream`): a stream whose
 * caller is refused then, or that fails, ends with an `event: error` whose data is the PostHog
 * error body (`{type, code, detail, attr}`; an unexpected failure is logged and shown as the
 * generic server error). Otherwise it only ends (the client reconnects with `Last-Event-ID`).
 *
 * They are not in the route tables (rest/routes.ts): those answer one body per request, and the
 * tests that walk them (auth matrix, bad input) read whole bodies. Their own tests are in test/live/.
 * Heartbeats (`: heartbeat` comment lines) every `Limits.streamHeartbeatMs` keep idle connections
 * open through proxies; the server's socket timeout is lifted for the stream. After
 * `Limits.streamMaxLifetimeMs` (core/stream-lifetime.ts) the response ends cleanly, and the
 * `EventSource` reconnects with `Last-Event-ID`.
 */
import { PassThrough } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Scope } from "../core/auth/scopes.js";
import type { ContextRenewal, ServiceContext } from "../core/context.js";
import { errorBody, SERVER_ERROR_BODY } from "../core/error-body.js";
import { AuthenticationError, DomainError } from "../core/errors.js";
import type { Services } from "../core/services.js";
import { atStreamLifetimeEnd } from "../core/stream-lifetime.js";
import { checkPath, checkQuery, contextFor, type DoorDeps, type RequestParts } from "./request-context.js";
import type { ProjectFromToken, RestDeps } from "./route.js";
import { absoluteUrl } from "./routes.js";

/** One event: `id` (what `Last-Event-ID` resumes from) and `data` (one line: compact JSON). */
export interface ServerSentEvent {
  id?: string;
  /** The event type; absent: `message` (what `EventSource.onmessage` hears). */
  event?: string;
  /** The data, without line breaks (JSON as serialised has none). */
  data: Buffer | string;
}

/** What an event-stream route's `open` gets. */
export interface EventStreamRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The `Last-Event-ID` header (what an `EventSource` sends when it reconnects), if any. */
  lastEventId: string | undefined;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
  ctx: ServiceContext;
}

/** A domain's event-stream module: builds its routes from the services. */
export type EventStreamModule = (services: Services) => EventStreamRoute[];

/** One documented event-stream path. */
export interface EventStreamRoute {
  path: string;
  summary: string;
  /** The scopes a key needs (the service enforces them). */
  scopes: readonly Scope[];
  projectFromToken?: ProjectFromToken;
  /**
   * Authorises and opens the stream; rejects (before any byte is sent) with a DomainError, which the
   * door answers as every REST error. The iterable's end closes the response.
   */
  open(request: EventStreamRequest): Promise<AsyncIterable<ServerSentEvent>>;
}

/** The bytes of one event. */
function frame(event: ServerSentEvent): Buffer {
  const head = `${event.id === undefined ? "" : `id: ${event.id}\n`}${event.event === undefined ? "" : `event: ${event.event}\n`}data: `;
  return Buffer.concat([Buffer.from(head), Buffer.from(event.data), Buffer.from("\n\n")]);
}

/** The last event of a stream that ends with `error`: its PostHog error body (see the module comment). */
function errorEvent(error: unknown): ServerSentEvent {
  return {
    event: "error",
    data: JSON.stringify(error instanceof DomainError ? errorBody(error) : SERVER_ERROR_BODY),
  };
}

/**
 * How the door authenticates a stream's request again: `contextFor` on the same headers, path
 * parameters and query; a token must still name the project the stream opened on (`projectId`; a
 * rotated token names none). `keyId`: the key it opened with.
 */
function renewalOf(
  deps: DoorDeps,
  route: EventStreamRoute,
  request: Omit<RequestParts, "body">,
  opened: { keyId: string; projectId: string | undefined },
): ContextRenewal {
  const token = route.projectFromToken ? request.query.get("token") : null;
  return {
    id: `rest ${route.path} ${opened.keyId} ${token ?? ""} ${opened.projectId ?? ""}`,
    renew: async () => {
      const params = { ...request.params };
      const fresh = await contextFor(deps, { ...request, params }, route);
      if (token !== null && params["project_id"] !== opened.projectId) {
        throw new AuthenticationError("Incorrect authentication credentials.", "authentication_failed");
      }
      return fresh;
    },
  };
}

const HEARTBEAT = Buffer.from(": heartbeat\n\n");
/** The first bytes: the reconnection delay a client should wait (ms), and the headers go out at once. */
const OPENING = Buffer.from("retry: 1000\n\n");

/** Registers `routes` on `app` (see the module comment); the app's error handler answers their errors. */
export function registerEventStreamRoutes(
  app: FastifyInstance,
  routes: readonly EventStreamRoute[],
  restDeps: RestDeps,
): void {
  const deps: DoorDeps = {
    ...restDeps,
    responses: undefined,
  };
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());
  for (const route of routes) {
    app.route({
      method: "GET",
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const url = absoluteUrl(request, deps.publicUrl);
        const pathParams = { ...(request.params as Record<string, string>) };
        const params = { ...pathParams };
        const parts = { headers: request.headers, params, query: url.searchParams };
        const authenticated = await contextFor(deps, parts, route);
        checkPath(params);
        checkQuery(url.searchParams);
        const ctx: ServiceContext = {
          ...authenticated,
          renewal: renewalOf(
            deps,
            route,
            { ...parts, params: pathParams },
            { keyId: authenticated.actor.apiKey.id, projectId: params["project_id"] },
          ),
        };
        const gone = new AbortController();
        const signal = AbortSignal.any([gone.signal, closing.signal]);
        const lastEventId = request.headers["last-event-id"];
        const events = await route.open({
          params,
          query: url.searchParams,
          lastEventId: typeof lastEventId === "string" ? lastEventId : undefined,
          signal,
          ctx,
        });
        const body = new PassThrough();
        // Nothing is written after the end (a heartbeat racing the close would be an 'error' event).
        const write = (chunk: Buffer) => {
          if (body.writable) body.write(chunk);
        };
        body.on("error", (error) => request.log.debug({ err: error }, "event stream body failed"));
        write(OPENING);
        const heartbeat = setInterval(() => write(HEARTBEAT), deps.limits.streamHeartbeatMs);
        heartbeat.unref();
        const stop = () => {
          clearInterval(heartbeat);
          cancelLifetime();
          gone.abort();
        };
        const cancelLifetime = atStreamLifetimeEnd(deps.limits.streamMaxLifetimeMs, stop);
        request.raw.socket.setTimeout(0);
        // The response closes when the stream ends or the client goes away (the request's own
        // `close` comes as soon as its empty body is read).
        reply.raw.on("close", stop);
        body.on("close", stop);
        signal.addEventListener("abort", () => body.end(), { once: true });
        void (async () => {
          try {
            for await (const event of events) {
              if (!body.writable) break;
              write(frame(event));
            }
          } catch (error) {
            if (!(error instanceof DomainError)) request.log.error({ err: error }, "event stream failed");
            write(frame(errorEvent(error)));
          } finally {
            stop();
            body.end();
          }
        })();
        return reply
          .status(200)
          .header("Content-Type", "text/event-stream; charset=utf-8")
          .header("Cache-Control", "no-cache, no-transform")
          .header("X-Accel-Buffering", "no")
          .send(body);
      },
    });
  }
}
