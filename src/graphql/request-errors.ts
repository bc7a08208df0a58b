/**
 * Clear answers for GraphQL requests that carry no GraphQL request at all (GraphQL over HTTP,
 * graphql.github.io/graphql-over-http, "Request" and "Status codes"), where yoga alone answers a
 * bodiless POST and an unknown media type with an empty 415, and a missing `query` with 200 to
 * `application/json` clients:
 *
 * - a POST without a body, or any request without `query`: 400, "Must provide query string."
 *   (yoga's message), `extensions.code` `BAD_REQUEST`;
 * - a POST body in a media type no request parser reads: 415 with a JSON error body,
 *   `extensions.code` `unsupported_media_type` (the REST door's code for the same failure);
 * - parameters yoga's parsers fail on with a plain error (a GET or form `variables={`,
 *   `extensions=notjson`, a multipart `operations` that is not an object or a `map` that is not a
 *   map, which yoga answers 500): 400 `BAD_REQUEST`, "Request parameters are not valid JSON: ..."
 *   or "Malformed GraphQL request.", as the spec's "a request that does not comply" (it says 400).
 */
import { createGraphQLError, type Plugin } from "graphql-yoga";
import { UnsupportedMediaTypeError } from "../core/errors.js";
import { toGraphQLError } from "./errors.graphql.js";

/** Media types yoga's request parsers read in a POST body. */
const GRAPHQL_POST_MEDIA_TYPES = [
  "application/json",
  "application/graphql",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
] as const;

/** A 400 `BAD_REQUEST` GraphQL error saying `message`. */
function badRequest(message: string) {
  return createGraphQLError(message, {
    extensions: { code: "BAD_REQUEST", http: { status: 400, spec: false } },
  });
}

/** A yoga request parser: from the fetch `Request` to its GraphQL parameters. */
type RequestParser = NonNullable<Parameters<NonNullable<Plugin["onRequestParse"]>>[0]["requestParser"]>;

/**
 * Whether `error` is one yoga answers itself: a GraphQL error (its status is in its extensions), or
 * an abort (the client went away). Read by shape: see `originalOf` in server.ts.
 */
function isYogaAnswered(error: unknown): boolean {
  const name = error instanceof Error ? error.name : undefined;
  return name === "GraphQLError" || name === "AbortError";
}

/**
 * `parser` with any other failure answered 400: those come from the request's own parameters
 * (yoga's `JSON.parse` of `variables`/`extensions`, its walk of a multipart `map`), never from
 * the server.
 */
function refusingMalformed(parser: RequestParser): RequestParser {
  return async (request) => {
    try {
      return await parser(request);
    } catch (error) {
      if (isYogaAnswered(error)) throw error;
      const message =
        error instanceof SyntaxError
          ? `Request parameters are not valid JSON: ${error.message}`
          : "Malformed GraphQL request.";
      throw badRequest(message);
    }
  };
}

/** The yoga plugin (see the module comment); it must come after yoga's request parsers, as user plugins do. */
export function useRequestErrors(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, endResponse, fetchAPI }) {
      if (request.method === "POST" && request.body === null) setRequestParser(() => ({}));
      else if (requestParser) setRequestParser(refusingMalformed(requestParser));
      else {
        const mediaType = request.headers.get("content-type")?.split(";")[0]?.trim() || "none";
        const error = toGraphQLError(new UnsupportedMediaTypeError(mediaType));
        endResponse(
          fetchAPI.Response.json(
            { errors: [error.toJSON()] },
            { status: 415, headers: { "Accept-Post": GRAPHQL_POST_MEDIA_TYPES.join(", ") } },
          ),
        );
        return;
      }
      return {
        onRequestParseDone({ requestParserResult }) {
          if (!Array.isArray(requestParserResult) && requestParserResult.query == null)
            throw badRequest("Must provide query string.");
        },
      };
    },
  };
}
