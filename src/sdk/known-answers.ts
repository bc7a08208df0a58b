/**
 * Answers given from memory before routing, for the SDK routes that declare `answersFromMemory` (the
 * local-evaluation payload server SDKs poll every 30 s: issue 8's goal of ≥ 80% of a plain
 * `node:http` server sending the same bytes). Each such request runs the door's own pipeline here,
 * the one fastify's handler runs (`answerByKey`: admission, then the route's `handler`), whose steps
 * answer at once when the process holds what they need: the key's actor (core/auth/actor-cache.ts),
 * the project token, the project's revision (core/project-revisions.ts) and the payload at that
 * revision. When every step did, the answer costs no statement, no promise and none of fastify's
 * per-request work (request and reply objects, hooks, the SQL accounting context), and is written
 * here with the headers the door would write, in the same order (`answerHeaders`).
 *
 * Otherwise (a step had to read, or refused) the request goes on to fastify with the outcome begun
 * here handed over (`takeOver`): the door's handler answers it, errors in PostHog's shape included,
 * and nothing runs twice (no second key lookup, rate-limit count or load). A request with a body
 * is left to fastify untouched (its `personal_api_key` field would be a credential).
 * Logged as the app logs a request (one "request completed" line at `info`: src/app.ts), with the
 * socket's peer as `remoteAddress` (fastify's `trustProxy` resolution is not repeated here).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import FindMyWay from "find-my-way";
import { levels } from "pino";
import type { MaybePromise } from "../core/maybe-promise.js";
import { observeHttpRequest } from "../core/metrics.js";
import { traceRoute } from "../core/tracing.js";
import { runWithSqlStats, type SqlStats, serverTiming } from "../db/sql-stats.js";
import { answerHeaders } from "./answer-headers.js";
import { answerByKey, type KeyRoute } from "./personal-key.js";
import type { SdkDeps, SdkReply, SdkRoute } from "./route.js";

/** `Server-Timing` of an answer that ran no statement, as the door writes it. */
const NO_STATEMENTS = serverTiming({ statements: 0, durationMs: 0 });

/** The routes answered from memory, and the requests they took. */
export class KnownAnswers {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  /**
   * Outcomes begun here and handed over to fastify, by request (see `takeOver`), with the SQL
   * accounting of the statements they run (the request's `Server-Timing`: `sqlStatsOf`).
   */
  private readonly handedOver = new WeakMap<
    IncomingMessage,
    { outcome: Promise<SdkReply>; stats: SqlStats; requestId: string }
  >();
  /** Requests answered here since the server started (the others went through fastify). */
  answered = 0;

  /** @throws Error for a route with `answersFromMemory` that is not a personal-key GET. */
  constructor(
    private readonly deps: SdkDeps & { now: () => Date },
    routes: readonly SdkRoute[],
    private readonly log: FastifyBaseLogger,
  ) {
    for (const route of routes) {
      if (!route.answersFromMemory) continue;
      if (!route.personalKey || route.methods.join() !== "GET" || route.eventStream) {
        throw new Error(`${route.path}: only a personal-key GET may answer from memory`);
      }
      this.router.on("GET", route.path, () => undefined, route);
    }
  }

  /**
   * Answers `request` on `response` when every step answered at once, and says whether it did;
   * false leaves both untouched for fastify, with the outcome begun here handed over when there is one.
   */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== "GET" || hasBody(request)) return false;
    const started = performance.now();
    const url = request.url ?? "/";
    const mark = url.indexOf("?");
    const found = this.router.find("GET", mark === -1 ? url : url.slice(0, mark));
    if (!found) return false;
    const route = found.store as KeyRoute;
    // Answered here, before fastify's routing: the request's trace is named by its route (no-op without traces).
    traceRoute(route.path);
    let outcome: MaybePromise<SdkReply>;
    const stats: SqlStats = { statements: 0, durationMs: 0 };
    const requestId = (request.headers["x-request-id"] as string | undefined) || randomUUID();
    try {
      outcome = runWithSqlStats(stats, () =>
        answerByKey(this.deps, route, {
          payload: undefined,
          params: found.params as Record<string, string>,
          query: new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1)),
          headers: request.headers,
          requestId,
          path: route.path,
          log: this.log,
        }),
      );
    } catch (error) {
      outcome = Promise.reject(error);
    }
    if (!(outcome instanceof Promise) && (outcome.body === undefined || Buffer.isBuffer(outcome.body))) {
      this.answered++;
      this.write(
        request,
        response,
        route,
        requestId,
        outcome as SdkReply & { body: Buffer | undefined },
        started,
      );
      return true;
    }
    const handed = Promise.resolve(outcome);
    // Awaited by fastify's handler; until then a rejection is not unhandled.
    handed.catch(() => undefined);
    this.handedOver.set(request, { outcome: handed, stats, requestId });
    return false;
  }

  /**
   * The request id the outcome begun for `request` was given, if it was handed over: fastify's
   * `genReqId` takes it, so that the request has one id (its `x-request-id`, its log lines).
   */
  requestIdOf(request: IncomingMessage): string | undefined {
    return this.handedOver.get(request)?.requestId;
  }

  /** The SQL accounting of `request`'s outcome begun here, if it was handed over (its `Server-Timing`). */
  sqlStatsOf(request: IncomingMessage): SqlStats | undefined {
    return this.handedOver.get(request)?.stats;
  }

  /**
   * The outcome begun for `request` before routing (its admission and handler), once: fastify's
   * handler answers with it instead of running them again. Undefined for any other request.
   */
  takeOver(request: IncomingMessage): Promise<SdkReply> | undefined {
    const handed = this.handedOver.get(request);
    this.handedOver.delete(request);
    return handed?.outcome;
  }

  /** Writes `reply` with the door's headers in fastify's order, and logs it as fastify would. */
  private write(
    request: IncomingMessage,
    response: ServerResponse,
    route: KeyRoute,
    requestId: string,
    reply: SdkReply & { body: Buffer | undefined },
    started: number,
  ): void {
    const status = reply.status ?? 200;
    const headers: Record<string, string | number> = { "x-request-id": requestId };
    const answer = answerHeaders(request.headers, reply);
    for (const name in answer) headers[name.toLowerCase()] = answer[name]!;
    headers["server-timing"] = NO_STATEMENTS;
    if (reply.body) headers["content-length"] = reply.body.length;
    response.writeHead(status, headers).end(reply.body);
    observeHttpRequest(route.path, "GET", status, performance.now() - started);
    if ((levels.values[this.log.level] ?? Number.POSITIVE_INFINITY) <= levels.values["info"]!) {
      this.log.child({ reqId: requestId }).info(
        {
          req: {
            method: request.method,
            url: request.url,
            host: request.headers.host,
            ip: request.socket.remoteAddress,
            socket: request.socket,
          },
          res: { statusCode: status },
          responseTime: performance.now() - started,
        },
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
