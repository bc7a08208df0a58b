/**
 * Every error the HTTP server answers, in PostHog's `{type, code, detail, attr}` body: failures of
 * a route (domain errors, fastify's body and routing errors), unknown paths, and requests Node's
 * HTTP parser refuses before any route sees them (a request line or headers over the size limit,
 * malformed HTTP). Anything unexpected is logged and answered with DRF's generic 500. A domain
 * error's `detail` is never text of the ORM, the driver, a stack or SQL (core/errors.ts): one whose
 * message held some is answered with DRF's generic message and logged at error level.
 */
import { type ServerOptions, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Limits } from "../config.js";
import { errorBody, errorHeaders, httpLayerError, SERVER_ERROR_BODY } from "../core/error-body.js";
import {
  type DomainError,
  NotFoundError,
  ParseError,
  RequestHeaderFieldsTooLargeError,
  RequestTimeoutError,
  UriTooLongError,
} from "../core/errors.js";
import { JSON_MEDIA_TYPE } from "../core/media-types.js";
import { EmptyBodyError } from "./routes.js";

/** The end of a request line: ` HTTP/1.1` and its line break. */
const REQUEST_LINE_END = /^[^\n]* HTTP\/\d\.\d\r?\n/;

/**
 * Whether a header overflow fell in the request line rather than in a header, judged from the bytes
 * Node read last (`rawPacket`, the network read in which the limit was crossed, which may start
 * anywhere in the request): a line break before the point of failure means headers had begun; else
 * the line the failure is in ends with ` HTTP/x.y` for the request line and otherwise for a header.
 * A read with no line break at all is taken as an oversized request line, the usual cause (a long
 * query string); a single header larger than a whole read would be taken for one too.
 */
function overflowInRequestLine(error: ConnectionError): boolean {
  const packet: unknown = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  if (packet.subarray(0, error.bytesParsed).includes("\n")) return false;
  const rest = packet.subarray(error.bytesParsed).toString("latin1");
  return !rest.includes("\n") || REQUEST_LINE_END.test(rest);
}

/** The domain error for a request Node's HTTP parser refused. */
function connectionError(error: ConnectionError, limits: Limits): DomainError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return overflowInRequestLine(error)
        ? new UriTooLongError(limits.maxHeaderBytes)
        : new RequestHeaderFieldsTooLargeError(limits.maxHeaderBytes);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RequestTimeoutError();
    default:
      return new ParseError("Malformed HTTP request.");
  }
}

/**
 * Server options for requests refused before routing: Node's `maxHeaderSize` from
 * `limits.maxHeaderBytes` (request line plus headers; Node's default is 16 KiB), and a
 * `clientErrorHandler` that answers those refusals in PostHog's shape (414 for an oversized request
 * line, 431 for oversized headers, 408, or 400 for malformed HTTP) and closes the connection, as
 * fastify's own handler does. A path the router cannot decode (`%FF`, a lone `%`) names nothing:
 * 404 in PostHog's body (`frameworkErrors`), as Django answers a path no pattern resolves, rather
 * than fastify's own 400 body. A path parameter may be as long as the request line (fastify's
 * default of 100 characters would refuse a 128-character endpoint name with a 414).
 */
export function httpServerOptions(limits: Limits): {
  http: ServerOptions;
  clientErrorHandler: (error: ConnectionError, socket: Socket) => void;
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
  routerOptions: { maxParamLength: number };
} {
  return {
    http: { maxHeaderSize: limits.maxHeaderBytes },
    routerOptions: { maxParamLength: limits.maxHeaderBytes },
    frameworkErrors(error, request, reply) {
      request.log.debug({ err: error }, "path not routed");
      void reply.status(404).send(errorBody(new NotFoundError()));
    },
    clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket) {
      // A reset connection has nobody left to answer.
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      const known = connectionError(error, limits);
      this.log.debug({ err: error }, "client error");
      if (socket.writable) {
        const body = JSON.stringify(errorBody(known));
        socket.write(
          `HTTP/1.1 ${known.httpStatus} ${STATUS_CODES[known.httpStatus]}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n` +
            `Connection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}

/**
 * Sets the server's error and not-found handlers: a DomainError (or a fastify failure that maps to
 * one, see `httpLayerError`) becomes its PostHog body and status (401s with `WWW-Authenticate:
 * Bearer`); an `EmptyBodyError` its status with no body; an unknown path 404 `not_found`; anything
 * else is logged at error level and answered with DRF's generic 500 body.
 */
export function registerErrorHandlers(app: FastifyInstance, limits: Limits): void {
  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof EmptyBodyError) return reply.status(error.status).send();
    const known = httpLayerError(error, limits.bodyLimitBytes);
    if (known) {
      if (known.detail !== known.message) {
        request.log.error({ err: known }, "an error's message held internal text: answered without it");
      }
      void reply.status(known.httpStatus).headers(errorHeaders(known, true));
      const own = known.restBody();
      // An error's own body (an approval gate's 409) is not the route's error schema: sent as
      // written, past the route's response serializer.
      if (own !== undefined) return reply.type(JSON_MEDIA_TYPE).send(JSON.stringify(own));
      return reply.send(errorBody(known));
    }
    request.log.error({ err: error }, "unexpected error");
    return reply.status(500).send(SERVER_ERROR_BODY);
  });
  app.setNotFoundHandler(async (_request, reply) => reply.status(404).send(errorBody(new NotFoundError())));
}
