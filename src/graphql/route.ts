/**
 * Mounts the yoga server on fastify: `GET|POST|OPTIONS <endpoint>` and GraphiQL's files under
 * `<endpoint>/assets/` (graphiql.ts). In its own encapsulated fastify context, every request body
 * is read as bytes whatever its media type (within the app's body limit) and handed to yoga
 * unparsed, so yoga alone decides what a GraphQL request is (request-errors.ts) and every answer,
 * errors included, is a GraphQL response body `{"errors": [...]}`, never the REST door's PostHog
 * body.
 *
 * A subscription's SSE answer lasts at most `streamMaxLifetimeMs` (core/stream-lifetime.ts): it then
 * ends cleanly, without `complete` (which would tell the client the operation is over), so that the
 * client reconnects and subscribes again, authorised afresh (graphql-sse's client retries a stream
 * that closed while its operation was active).
 *
 * Speed (issue 6 §4): the body reaches yoga as the bytes fastify already read and bounded, and a
 * single result (every answer but an incremental or subscription stream) goes back as one string,
 * not through a web stream piped into the socket, which cost a page of 100 flags ~7% of its CPU.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import type { GraphQLError } from "graphql";
import { createGraphQLError, type YogaServerInstance } from "graphql-yoga";
import { type Credential, findCredential } from "../core/auth/authenticate.js";
import { PayloadTooLargeError } from "../core/errors.js";
import { atStreamLifetimeEnd } from "../core/stream-lifetime.js";
import { toGraphQLError } from "./errors.graphql.js";
import { graphiqlAssetsPath, registerGraphiQLAssets } from "./graphiql.js";
import type { GraphQLResultCache, KeptResult, ResultRecording } from "./result-cache.js";
import type { GraphQLServerContext } from "./server.js";

/** The HTTP side of a yoga server, whatever its GraphQL context. */
type YogaHttp = Pick<YogaServerInstance<GraphQLServerContext, object>, "fetchAPI">;

/** The fetch `Request` yoga reads: the same method, URL and headers, and the body bytes if any. */
function toFetchRequest(yoga: YogaHttp, request: FastifyRequest, signal?: AbortSignal): Request {
  const headers = new yoga.fetchAPI.Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const body = request.body instanceof Buffer && request.body.length > 0 ? request.body : undefined;
  // yoga reads only the path and query of the URL; the Host header is the client's to spoof.
  return new yoga.fetchAPI.Request(`http://localhost${request.url}`, {
    method: request.method,
    headers,
    body,
    ...(signal ? { signal } : {}),
  });
}

/** A failure of the HTTP layer before yoga runs (body too large, broken framing) as a GraphQL error. */
function httpLayerGraphQLError(error: FastifyError, bodyLimitBytes: number): GraphQLError | null {
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE")
    return toGraphQLError(new PayloadTooLargeError(bodyLimitBytes));
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return createGraphQLError(error.message, { extensions: { code: "BAD_REQUEST" } });
  return null;
}

/** Media types of yoga's streamed answers (incremental delivery, subscriptions): sent as a stream. */
const STREAMED_MEDIA_TYPES = ["multipart/mixed", "text/event-stream"];

/** Whether yoga's `response` is streamed (see `STREAMED_MEDIA_TYPES`) rather than one body. */
function isStreamed(response: Response): boolean {
  const mediaType = response.headers.get("content-type") ?? "";
  return STREAMED_MEDIA_TYPES.some((streamed) => mediaType.startsWith(streamed));
}

/**
 * `body`, an SSE answer, ended cleanly once its lifetime (at most `maxLifetimeMs`) is over, `body`
 * then cancelled (yoga returns the subscription); cancelled itself (the client went away), it cancels
 * `body` at once.
 */
function withLifetime(body: ReadableStream<Uint8Array>, maxLifetimeMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  let cancelLifetime = () => {};
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (ended) return;
    ended = true;
    cancelLifetime();
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      cancelLifetime = atStreamLifetimeEnd(maxLifetimeMs, () => {
        end(controller);
        reader.cancel().catch(() => {});
      });
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (ended) return;
      if (done) end(controller);
      else controller.enqueue(value);
    },
    cancel(reason) {
      ended = true;
      cancelLifetime();
      return reader.cancel(reason);
    },
  });
}

/**
 * The personal API key a GraphQL request carries (its `Authorization` header, else the query's
 * `personal_api_key`), found once: the GraphQL context authenticates it, and a kept answer is keyed by it.
 */
function credentialOf(request: FastifyRequest): Credential | null {
  const mark = request.url.indexOf("?");
  return findCredential({
    authorization: request.headers.authorization,
    query: new URLSearchParams(mark === -1 ? "" : request.url.slice(mark + 1)),
  });
}

/**
 * For a request with a key: the answer kept for it (./result-cache.ts), else the recording of its
 * reads, its statements included, under its key. Null without a key (nothing is kept for no one).
 */
async function keptOrRecording(
  results: GraphQLResultCache,
  request: FastifyRequest,
  credential: Credential | null,
): Promise<{ kept: KeptResult } | { key: string; recording: ResultRecording } | null> {
  if (request.method === "OPTIONS" || !credential) return null;
  const body = request.body instanceof Buffer ? request.body : undefined;
  const key = results.keyOf(
    { method: request.method, url: request.url, headers: request.headers, body },
    credential,
  );
  const kept = await results.find(key, credential);
  if (kept) return { kept };
  const recording = results.record();
  request.sqlStats.observe = recording.statement;
  return { key, recording };
}

/**
 * Registers the GraphQL routes of `yoga` on `app` (see the module comment); with `results`, query
 * results are kept and served again while what they were read from is unchanged (./result-cache.ts).
 */
export function registerGraphQLRoutes<C extends object>(
  app: FastifyInstance,
  yoga: YogaServerInstance<GraphQLServerContext, C>,
  options: { bodyLimitBytes: number; streamMaxLifetimeMs: number; results?: GraphQLResultCache | undefined },
): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      const known = httpLayerGraphQLError(error, options.bodyLimitBytes);
      if (!known) request.log.error({ err: error }, "unexpected error");
      const body =
        known ?? createGraphQLError("Unexpected error.", { extensions: { code: "INTERNAL_SERVER_ERROR" } });
      return reply.status(known ? (error.statusCode ?? 400) : 500).send({ errors: [body.toJSON()] });
    });

    scope.route({
      url: yoga.graphqlEndpoint,
      method: ["GET", "POST", "OPTIONS"],
      handler: async (request, reply) => {
        const credential = credentialOf(request);
        const keeping = options.results ? await keptOrRecording(options.results, request, credential) : null;
        if (keeping && "kept" in keeping) {
          for (const [name, value] of keeping.kept.headers) reply.header(name, value);
          return reply.status(keeping.kept.status).send(keeping.kept.body);
        }
        // Aborted when the response closes (finished, or the client went away), which ends a
        // subscription's stream and its listeners.
        const closed = new AbortController();
        reply.raw.once("close", () => closed.abort());
        const response = await yoga.fetch(toFetchRequest(yoga, request, closed.signal), {
          req: request.raw,
          credential,
          reads: keeping?.recording,
        });
        const headers: Array<[string, string]> = [];
        response.headers.forEach((value: string, key: string) => {
          reply.header(key, value);
          headers.push([key, value]);
        });
        reply.status(response.status);
        if (!isStreamed(response) || !response.body) {
          const text = await response.text();
          if (keeping?.recording.keepable) {
            const answer = { status: response.status, headers, body: Buffer.from(text) };
            options.results!.keep(keeping.key, keeping.recording, answer);
          }
          return reply.send(text);
        }
        const subscription = response.headers.get("content-type")?.startsWith("text/event-stream");
        return reply.send(
          subscription ? withLifetime(response.body, options.streamMaxLifetimeMs) : response.body,
        );
      },
    });
    registerGraphiQLAssets(scope, graphiqlAssetsPath(yoga.graphqlEndpoint));
  });
}
