/**
 * Answers given from memory before routing, for the REST routes that declare `answerKnown` (the
 * local-evaluation payload SDKs poll every 30 s: issue 8's goal of ≥ 80% of a plain `node:http`
 * server sending the same bytes). A request is taken here only when everything it needs is already
 * held by the process: the key's actor (core/auth/actor-cache.ts), the project token, the project's
 * revision (core/project-revisions.ts) and the answer at that revision. Then it costs no statement,
 * no promise and none of fastify's per-request work (request and reply objects, hooks, the SQL
 * accounting context), and is written with the headers fastify would write, in the same order.
 *
 * Same rules as the door: the context comes from `knownContextFor` (the same credential, token
 * and key rules as `contextFor`) and the answer from the route's own service call. Anything else
 * (an unknown key, a key whose hourly use mark is due, a body, any error) is left untouched for
 * fastify, which answers it from the same facts: errors are never answered here.
 * Logged as fastify logs a request ("incoming request", "request completed" at `info`), with the
 * socket's peer as `remoteAddress` (fastify's `trustProxy` resolution is not repeated here).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import FindMyWay from "find-my-way";
import { levels } from "pino";
import { serverTiming } from "../db/sql-stats.js";
import { checkQuery, type DoorDeps, knownContextFor, rateWait } from "./request-context.js";
import type { KnownReply, RestRoute } from "./route.js";

/** The JSON type fastify gives the answers it serialises; the door's own answers are sent with the same. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** `Server-Timing` of an answer that ran no statement, as the door writes it. */
const NO_STATEMENTS = serverTiming({ statements: 0, durationMs: 0 });

/** The routes answered from memory, and the requests they took. */
export class KnownAnswers {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  /** Requests answered here since the server started (the others went through fastify). */
  answered = 0;

  /**
   * @throws Error for a route with `answerKnown` that is not a non-conditional GET (a conditional
   *   read's ETags are the door's own, rest/conditional.ts).
   */
  constructor(
    private readonly deps: DoorDeps,
    routes: readonly RestRoute[],
    private readonly log: FastifyBaseLogger,
  ) {
    for (const route of routes) {
      if (!route.answerKnown) continue;
      if (route.method !== "GET" || route.conditional !== false) {
        throw new Error(
          `${route.method} ${route.path}: only a GET with conditional: false may answer from memory`,
        );
      }
      this.router.on("GET", route.path, () => undefined, route);
    }
  }

  /**
   * Answers `request` on `response` when everything it needs is held, and says whether it did;
   * false leaves both untouched, for fastify.
   */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== "GET" || hasBody(request)) return false;
    const started = performance.now();
    const url = request.url ?? "/";
    const mark = url.indexOf("?");
    const found = this.router.find("GET", mark === -1 ? url : url.slice(0, mark));
    if (!found) return false;
    const route = found.store as RestRoute;
    let reply: KnownReply | undefined;
    try {
      const query = new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1));
      checkQuery(query);
      const parts = {
        headers: request.headers,
        params: { ...found.params } as Record<string, string>,
        query,
      };
      const ctx = knownContextFor(this.deps, parts, route);
      reply = ctx && route.answerKnown!({ params: parts.params, query, headers: request.headers, ctx });
      // Counted once the answer is held; a refused request is not counted, and the door, counting
      // it again, answers the 429.
      if (reply && rateWait(this.deps.rateLimits, route, ctx!, parts.params) > 0) return false;
    } catch {
      // The door answers it, from the same facts, in PostHog's shape.
      return false;
    }
    if (!reply) return false;
    this.answered++;
    this.write(request, response, reply, started);
    return true;
  }

  /** Writes `reply` with the door's headers in fastify's order, and logs it as fastify would. */
  private write(
    request: IncomingMessage,
    response: ServerResponse,
    reply: KnownReply,
    started: number,
  ): void {
    const requestId = (request.headers["x-request-id"] as string | undefined) || randomUUID();
    const status = reply.status ?? 200;
    const headers: Record<string, string | number> = { "x-request-id": requestId };
    for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value;
    if (reply.body) headers["content-type"] = JSON_TYPE;
    headers["server-timing"] = NO_STATEMENTS;
    if (reply.body) headers["content-length"] = reply.body.length;
    response.writeHead(status, headers).end(reply.body);
    if ((levels.values[this.log.level] ?? Number.POSITIVE_INFINITY) <= levels.values["info"]!) {
      const log = this.log.child({ reqId: requestId });
      log.info(
        {
          req: {
            method: request.method,
            url: request.url,
            headers: request.headers,
            host: request.headers.host,
            ip: request.socket.remoteAddress,
            socket: request.socket,
          },
        },
        "incoming request",
      );
      log.info(
        { res: { statusCode: status }, responseTime: performance.now() - started },
        "request completed",
      );
    }
  }
}

/**
 * Whether a request declares a body, even an empty one (a GET may; its `personal_api_key` field
 * would be a credential): the door reads it.
 */
function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined
  );
}
