/**
 * The REST door's Server-Sent Events routes (core/event-stream.ts): a GET authenticated exactly as
 * the route table's (personal API key, key limits, scopes) whose answer is a `text/event-stream`
 * that stays open. Errors before the stream opens (authentication, scope, project, query) are the
 * door's PostHog bodies and statuses. Once open, the request's key is authenticated again whenever
 * access changes (`ServiceContext.renewal`, core/auth/access.ts `authorizeProjectStream`): a stream
 * whose caller is refused then, or that fails, ends with an `event: error` whose data is the PostHog
 * error body. Otherwise it only ends (the client reconnects with `Last-Event-ID`).
 *
 * They are not in the route tables (rest/routes.ts): those answer one body per request, and the
 * tests that walk them (auth matrix, bad input) read whole bodies. Their own tests are in test/live/.
 * The SDK door streams the token-named paths itself (sdk/routes.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Scope } from "../core/auth/scopes.js";
import type { ContextRenewal, ServiceContext } from "../core/context.js";
import { EVENT_STREAM_HEADERS, eventStreamBody, type ServerSentEvent } from "../core/event-stream.js";
import { checkStorableQuery } from "../core/json-input.js";
import type { Services } from "../core/services.js";
import { checkPath, contextFor, type DoorDeps, type RequestParts } from "./request-context.js";
import type { RestDeps } from "./route.js";
import { absoluteUrl } from "./routes.js";

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
  /**
   * Authorises and opens the stream; rejects (before any byte is sent) with a DomainError, which the
   * door answers as every REST error. The iterable's end closes the response.
   */
  open(request: EventStreamRequest): Promise<AsyncIterable<ServerSentEvent>>;
}

/**
 * How the door authenticates a stream's request again: `contextFor` on the same headers, path
 * parameters and query. `keyId`: the key it opened with.
 */
function renewalOf(
  deps: DoorDeps,
  route: EventStreamRoute,
  request: RequestParts,
  keyId: string,
): ContextRenewal {
  return {
    id: `rest ${route.path} ${keyId} ${request.params["project_id"] ?? ""}`,
    renew: () => Promise.resolve(contextFor(deps, request)),
  };
}

/** Registers `routes` on `app` (see the module comment); the app's error handler answers their errors. */
export function registerEventStreamRoutes(
  app: FastifyInstance,
  routes: readonly EventStreamRoute[],
  restDeps: RestDeps,
): void {
  const deps: DoorDeps = { ...restDeps, responses: undefined };
  const closing = new AbortController();
  app.addHook("preClose", async () => closing.abort());
  for (const route of routes) {
    app.route({
      method: "GET",
      url: route.path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const query = absoluteUrl(request, deps.publicUrl).searchParams;
        const params = { ...(request.params as Record<string, string>) };
        const parts = { headers: request.headers, params, query };
        const authenticated = await contextFor(deps, parts);
        checkPath(params);
        checkStorableQuery(query);
        const ctx: ServiceContext = {
          ...authenticated,
          renewal: renewalOf(deps, route, parts, authenticated.actor.apiKey.id),
        };
        const gone = new AbortController();
        const lastEventId = request.headers["last-event-id"];
        const events = await route.open({
          params,
          query,
          lastEventId: typeof lastEventId === "string" ? lastEventId : undefined,
          signal: AbortSignal.any([gone.signal, closing.signal]),
          ctx,
        });
        const body = eventStreamBody({
          events,
          request: request.raw,
          response: reply.raw,
          closing: closing.signal,
          limits: deps.limits,
          log: request.log,
          gone,
        });
        return reply.status(200).headers(EVENT_STREAM_HEADERS).send(body);
      },
    });
  }
}
