/**
 * The GraphQL front door: a yoga server over the Pothos schema at `/graphql`, with GraphiQL served
 * from the bundled `@graphql-yoga/render-graphiql` as a small page and cacheable files (no CDN, so
 * it works offline; graphiql.ts). It does not listen: route.ts mounts it on fastify and passes the
 * Node request as server context. Documents are bounded by the configured limits (limits.ts);
 * requests without a GraphQL request get a clear 400 or 415 (request-errors.ts).
 *
 * Execution: each document is compiled once and then run as JavaScript (compiled-execution.ts).
 *
 * Errors: a DomainError a field does not return as a typed result becomes a GraphQL error with
 * PostHog's code (errors.graphql.ts); anything else is masked by yoga ("Unexpected error.") and
 * logged at error level. Expected failures are logged at debug level only. No message reaches a
 * client with text of the ORM, the driver, a stack or SQL (core/errors.ts `holdsInternalText`): a
 * DomainError answers its `detail`, and any other error that would pass unmasked but holds such
 * text is masked too; both are logged at error level, as the bug they are.
 */
import type { IncomingHttpHeaders } from "node:http";
import { format } from "node:util";
import type { GraphQLError, GraphQLSchema } from "graphql";
import { createGraphQLError, createYoga, maskError, type YogaServerInstance } from "graphql-yoga";
import type { Logger } from "pino";
import type { Limits } from "../config.js";
import { type Credential, findCredential } from "../core/auth/authenticate.js";
import type { DataAccess } from "../core/context.js";
import { DomainError, holdsInternalText } from "../core/errors.js";
import { unstorableTextError } from "../core/json-input.js";
import type { RateLimits } from "../core/rate-limit.js";
import type { Services } from "../core/services.js";
import { tracingGraphQLPlugins } from "../core/tracing.js";
import { useCompiledExecution } from "./compiled-execution.js";
import { createGraphQLContext, type GraphQLContext } from "./context.js";
import { toGraphQLError } from "./errors.graphql.js";
import { graphiqlAssetsPath, graphiqlPageRenderer } from "./graphiql.js";
import { graphqlLimitPlugins } from "./limits.js";
import { useRequestErrors } from "./request-errors.js";
import { type ResultRecording, useResultRecording } from "./result-cache.js";
import { useSubscriptionErrorsOverSse } from "./subscription-errors.js";

/** Where the GraphQL door answers; GraphiQL's files are below it (graphiql.ts). */
const GRAPHQL_ENDPOINT = "/graphql";

/**
 * What the HTTP layer passes with each request: the Node request it came in on, the key it found in
 * it (route.ts; absent on the WebSocket, whose key the context finds in `req`), and the recording of
 * its reads when its result may be kept (./result-cache.ts).
 */
export interface GraphQLServerContext {
  req: { headers: IncomingHttpHeaders };
  credential?: Credential | null;
  reads?: ResultRecording | undefined;
}

/** What the server is built from: the schema the composition root assembled, and the same objects the REST door uses. */
export interface GraphQLServerDeps {
  schema: GraphQLSchema;
  data: DataAccess;
  services: Services;
  limits: Limits;
  /** The process's rate limits: a request that uses its key counts against the key's (core/rate-limit.ts). */
  rateLimits: RateLimits;
  logger: Logger;
}

const DEFAULT_QUERY = `# Signalbox GraphQL: PostHog's configuration API with camelCase names.
#
# Every field that reads or writes data needs a personal API key. Open the
# "Headers" tab below and enter:
#
#   {"Authorization": "Bearer <personal API key>"}
#
# (\`signalbox bootstrap\` prints a key.) Introspection and autocompletion work
# without one; the Docs pane lists every type, with the scope each field needs.
#
# \`id\` is a global id: \`node(id: "...")\` refetches any object by it.
# \`databaseId\` is PostHog's integer id, the one REST paths and SDKs use.

query Viewer {
  viewer {
    user { email }
    apiKey { label scopes }
    team {
      id
      databaseId
      name
      featureFlags(first: 10) {
        totalCount
        edges { node { id databaseId key active status } }
      }
    }
  }
}
`;

/**
 * The error a GraphQL error wraps (`originalError`), or the error itself. Read by shape, not with
 * `instanceof GraphQLError`: a test runner may load a second copy of `graphql` beside the one
 * Pothos and yoga use, and its GraphQLError class would not match theirs.
 */
function originalOf(error: unknown): unknown {
  const wrapped = typeof error === "object" && error !== null ? (error as { originalError?: unknown }) : null;
  return wrapped?.originalError ?? error;
}

/**
 * The expected failure behind `error`: a DomainError, or the database's refusal of a NUL in a value
 * (`unstorableTextError`, a 400 over REST); null for anything unexpected.
 */
function expectedErrorOf(error: unknown): DomainError | null {
  const original = originalOf(error);
  return original instanceof DomainError ? original : unstorableTextError(original);
}

/** yoga's logger on top of pino: errors become `err` fields; expected failures are debug noise, not errors. */
function yogaLogger(logger: Logger) {
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      const effective = level === "error" && expectedErrorOf(first) ? "debug" : level;
      if (first instanceof Error)
        logger[effective]({ err: first }, rest.length > 0 ? format(...rest) : first.message);
      else logger[effective](format(...args));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Creates the yoga server; the caller routes `yoga.graphqlEndpoint` to it. */
export function createGraphQLServer(
  deps: GraphQLServerDeps,
): YogaServerInstance<GraphQLServerContext, GraphQLContext> {
  const { schema, data, services, limits, rateLimits, logger } = deps;
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    logging: yogaLogger(logger),
    graphiql: { title: "Signalbox GraphQL", defaultQuery: DEFAULT_QUERY },
    renderGraphiQL: graphiqlPageRenderer(graphiqlAssetsPath(GRAPHQL_ENDPOINT)),
    // The body is read and bounded by fastify (`Limits.bodyLimitBytes`, route.ts) before yoga sees it;
    // yoga's own bound would pipe every body through a stream that counts its bytes again.
    maxRequestBodySize: false,
    plugins: [
      useRequestErrors(),
      ...graphqlLimitPlugins(limits),
      ...useCompiledExecution(),
      useSubscriptionErrorsOverSse(),
      useResultRecording(),
      // Last, so that it wraps the compiled execution: a span per operation when traces are on.
      ...tracingGraphQLPlugins(),
    ],
    maskedErrors: {
      // Never yoga's development mode (NODE_ENV=development), which adds causes and stacks.
      isDev: false,
      maskError: (error, message) => {
        const expected = expectedErrorOf(error);
        if (expected) {
          if (expected.detail !== expected.message) {
            logger.error({ err: expected }, "an error's message held internal text: answered without it");
          }
          return toGraphQLError(expected, expected === error ? undefined : (error as GraphQLError));
        }
        const masked = maskError(error, message, false) as GraphQLError;
        // An error of GraphQL's own passes unmasked: the last check that it quotes nothing internal.
        if (!holdsInternalText(masked.message)) return masked;
        logger.error({ err: masked }, "a GraphQL error held internal text: masked");
        return createGraphQLError(message, {
          nodes: masked.nodes,
          source: masked.source,
          positions: masked.positions,
          path: masked.path,
          extensions: { code: "INTERNAL_SERVER_ERROR", unexpected: true },
        });
      },
    },
    context: ({ req, request, credential, reads }) =>
      createGraphQLContext({
        data,
        services,
        limits,
        rateLimits,
        reads,
        credential:
          credential !== undefined
            ? credential
            : findCredential({
                authorization: req.headers.authorization,
                query: new URL(request.url).searchParams,
              }),
      }),
  });
}
