/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol of `graphql-ws`) at the GraphQL
 * endpoint, on the app's own HTTP server: for clients that prefer one socket for many subscriptions
 * (queries and mutations work too). Every operation runs through the same yoga instance as HTTP
 * (`yoga.getEnveloped`: the same schema, plugins, limits, error masking and context), so a
 * subscription is authorised exactly as over SSE. The key: `connectionParams.Authorization`
 * (`Bearer phx_…`, as graphql-ws clients send it), else the upgrade request's `Authorization` header.
 * Upgrades to any other path are refused. A socket lasts at most `streamMaxLifetimeMs`
 * (core/stream-lifetime.ts): it is then closed with 1000 (normal closure), and a graphql-ws client
 * with active subscriptions reconnects and subscribes again, authorised afresh.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { ExecutionArgs } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer } from "ws";
import { atStreamLifetimeEnd } from "../core/stream-lifetime.js";
import type { GraphQLServerContext } from "./server.js";

/** The `Authorization` value a client gave in `connectionParams` (any letter case), if a string. */
function connectionAuthorization(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  for (const [name, value] of Object.entries(params)) {
    if (name.toLowerCase() === "authorization" && typeof value === "string") return value;
  }
  return undefined;
}

/** The close reason of a socket whose lifetime is over. */
const LIFETIME_OVER = "Stream lifetime reached: reconnect";

/** What yoga's enveloped `execute`/`subscribe` are passed through as, per operation. */
interface EnvelopedRoot {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}

/**
 * Serves `yoga` over WebSocket on `server` at `yoga.graphqlEndpoint`, each socket for at most
 * `maxLifetimeMs`; returns the function that closes every socket (call it when the server closes).
 */
export function attachGraphQLWebSocket<C extends object>(
  server: Server,
  yoga: YogaServerInstance<GraphQLServerContext, C>,
  maxLifetimeMs: number,
): () => Promise<void> {
  const sockets = new WebSocketServer({ noServer: true });
  sockets.on("connection", (socket) => {
    const cancelLifetime = atStreamLifetimeEnd(maxLifetimeMs, () => socket.close(1000, LIFETIME_OVER));
    socket.once("close", cancelLifetime);
  });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== yoga.graphqlEndpoint && path !== `${yoga.graphqlEndpoint}/`) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
  };
  server.on("upgrade", onUpgrade);
  const disposable = useServer(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args) as never,
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args) as never,
      onSubscribe: async (ctx, _id, payload) => {
        const upgrade = ctx.extra.request;
        const authorization = connectionAuthorization(ctx.connectionParams) ?? upgrade.headers.authorization;
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          req: { headers: { ...upgrade.headers, authorization } },
          request: { url: `http://localhost${upgrade.url ?? yoga.graphqlEndpoint}` },
          params: payload,
        });
        const document = parse(payload.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return {
          schema,
          operationName: payload.operationName ?? null,
          document,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe } satisfies EnvelopedRoot,
        };
      },
    },
    sockets,
  );
  return async () => {
    server.off("upgrade", onUpgrade);
    for (const client of sockets.clients) client.terminate();
    await disposable.dispose();
  };
}
