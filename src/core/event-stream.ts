/**
 * A Server-Sent Events response body (WHATWG HTML §9.2 "Server-sent events"), for every door that
 * streams events over plain HTTP (the REST door's and the SDK door's definitions streams): the
 * opening `retry:` line, each event framed, `: heartbeat` comment lines every
 * `Limits.streamHeartbeatMs` (idle connections stay open through proxies), the end at
 * `Limits.streamMaxLifetimeMs` (./stream-lifetime.ts; the `EventSource` reconnects with
 * `Last-Event-ID`), and a failure as a last `event: error` whose data is PostHog's error body
 * (`{type, code, detail, attr}`; an unexpected failure is logged and shown as the generic server
 * error). The door sends the headers (`EVENT_STREAM_HEADERS`) and the returned body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import { errorBody, SERVER_ERROR_BODY } from "./error-body.js";
import { DomainError } from "./errors.js";
import { atStreamLifetimeEnd } from "./stream-lifetime.js";

/** One event: `id` (what `Last-Event-ID` resumes from) and `data` (one line: compact JSON). */
export interface ServerSentEvent {
  id?: string;
  /** The event type; absent: `message` (what `EventSource.onmessage` hears). */
  event?: string;
  /** The data, without line breaks (JSON as serialised has none). */
  data: Buffer | string;
}

/** The headers of an event stream's 200 answer (no proxy may buffer or transform it). */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/** The bytes of one event. */
function frame(event: ServerSentEvent): Buffer {
  const head = `${event.id === undefined ? "" : `id: ${event.id}\n`}${event.event === undefined ? "" : `event: ${event.event}\n`}data: `;
  return Buffer.concat([Buffer.from(head), Buffer.from(event.data), Buffer.from("\n\n")]);
}

/** The last event of a stream that ends with `error`: its PostHog error body. */
function errorEvent(error: unknown): ServerSentEvent {
  return {
    event: "error",
    data: JSON.stringify(error instanceof DomainError ? errorBody(error) : SERVER_ERROR_BODY),
  };
}

const HEARTBEAT = Buffer.from(": heartbeat\n\n");
/** The first bytes: the reconnection delay a client should wait (ms), and the headers go out at once. */
const OPENING = Buffer.from("retry: 1000\n\n");

/** What an event stream's body is written from. */
export interface EventStreamSource {
  /** The events; the iterable's end ends the response. */
  events: AsyncIterable<ServerSentEvent>;
  /** The request (its socket's timeout is lifted for the stream). */
  request: IncomingMessage;
  /** The response the body is sent on: its `close` (the client went away) ends the stream. */
  response: ServerResponse;
  /** Aborted to end the stream from outside (the server closing). */
  closing: AbortSignal;
  /** Heartbeat interval and maximum lifetime, ms. */
  limits: { streamHeartbeatMs: number; streamMaxLifetimeMs: number };
  /** Where an unexpected failure of the events is logged. */
  log: { debug(obj: object, message: string): void; error(obj: object, message: string): void };
  /** Aborted when the stream ends, however it ends (the events' producer stops on it). */
  gone: AbortController;
}

/** The body of an event stream that writes `source.events` as they come (see the module comment). */
export function eventStreamBody(source: EventStreamSource): PassThrough {
  const { events, request, response, gone, log, limits } = source;
  const body = new PassThrough();
  // Nothing is written after the end (a heartbeat racing the close would be an 'error' event).
  const write = (chunk: Buffer) => {
    if (body.writable) body.write(chunk);
  };
  body.on("error", (error) => log.debug({ err: error }, "event stream body failed"));
  write(OPENING);
  const heartbeat = setInterval(() => write(HEARTBEAT), limits.streamHeartbeatMs);
  heartbeat.unref();
  const stop = () => {
    clearInterval(heartbeat);
    cancelLifetime();
    gone.abort();
  };
  const cancelLifetime = atStreamLifetimeEnd(limits.streamMaxLifetimeMs, stop);
  request.socket.setTimeout(0);
  // The response closes when the stream ends or the client goes away (the request's own `close`
  // comes as soon as its empty body is read).
  response.on("close", stop);
  body.on("close", stop);
  const ended = AbortSignal.any([gone.signal, source.closing]);
  ended.addEventListener("abort", () => body.end(), { once: true });
  void (async () => {
    try {
      for await (const event of events) {
        if (!body.writable) break;
        write(frame(event));
      }
    } catch (error) {
      if (!(error instanceof DomainError)) log.error({ err: error }, "event stream failed");
      write(frame(errorEvent(error)));
    } finally {
      stop();
      body.end();
    }
  })();
  return body;
}
