/**
 * `GET /metrics`, the Prometheus exposition of src/core/metrics.ts, where the configuration puts it
 * (`Config.metrics`): on a port of its own (`METRICS_PORT`: a plain `node:http` server that answers
 * that one path, opened when the app listens and closed with it, so it stays private to whoever can
 * reach that port), and/or on the service's port behind `Authorization: Bearer <METRICS_TOKEN>`
 * (401 otherwise, in PostHog's error body; the token compared in constant time). Neither set: no
 * `/metrics` at all (404). Either way every request fastify answers is counted by its route template
 * (`onResponse`); those answered before routing count themselves (sdk/known-answers.ts).
 */
import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";
import {
  METRICS_CONTENT_TYPE,
  metricsText,
  observeHttpRequest,
  startProcessMetrics,
  UNMATCHED_ROUTE,
} from "./core/metrics.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The port of `/metrics`'s own server once the app listens (`METRICS_PORT`), else null. */
    metricsPort: () => number | null;
  }
}

/** The path of the exposition. */
export const METRICS_PATH = "/metrics";

/** Whether `header` is `Bearer <token>` (constant time in the token's length). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7).trim() : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A server of its own answering `GET /metrics` (404 for any other path, 405 for other methods). */
function metricsServer(): http.Server {
  return http.createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== METRICS_PATH) {
      response
        .writeHead(404, { "content-type": "text/plain" })
        .end("Not found: the only path here is /metrics.");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    metricsText().then(
      (text) => response.writeHead(200, { "content-type": METRICS_CONTENT_TYPE }).end(text),
      () =>
        response.writeHead(500, { "content-type": "text/plain" }).end("The metrics could not be collected."),
    );
  });
}

/**
 * Counts `app`'s requests and serves the exposition as `settings` says (see the module comment).
 * Call before the app's other routes are registered.
 */
export function serveMetrics(app: FastifyInstance, settings: Config["metrics"], host: string): void {
  startProcessMetrics();
  app.addHook("onResponse", (request, reply, done) => {
    observeHttpRequest(
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      request.method,
      reply.statusCode,
      reply.elapsedTime,
    );
    done();
  });

  const token = settings.token;
  if (token) {
    app.get(METRICS_PATH, async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) {
        return reply.status(401).header("WWW-Authenticate", "Bearer").send({
          type: "authentication_error",
          code: "not_authenticated",
          detail: "The metrics need Authorization: Bearer with the configured METRICS_TOKEN.",
          attr: null,
        });
      }
      return reply.header("content-type", METRICS_CONTENT_TYPE).send(await metricsText());
    });
  }

  let own: http.Server | null = null;
  app.decorate("metricsPort", () => (own ? (own.address() as AddressInfo).port : null));
  if (settings.port === undefined) return;
  const port = settings.port;
  app.addHook("onListen", (done) => {
    own = metricsServer();
    own.once("error", (error) => {
      app.log.error(
        { err: error, port },
        "metrics: METRICS_PORT could not be opened; /metrics is not served there",
      );
      done();
    });
    own.listen(port, host, () => done());
  });
  app.addHook("onClose", (_instance, done) => {
    if (!own) return done();
    own.close(() => done());
    own.closeAllConnections();
  });
}
