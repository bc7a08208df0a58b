/**
 * The baseline of the local-evaluation figures and of the list's "node:http bytes": a plain
 * `node:http` server that answers the same bytes as ours (our payload or list, fetched once from our
 * server, with the headers ours sent beside it: ETag, Cache-Control, Server-Timing, ..., and a fresh
 * `x-request-id` per request, as ours makes one),
 * and the same 304 when `If-None-Match` names that tag. No authentication, no routing, no database:
 * the ceiling of serving the same answer from this process, against which our door's cost (key
 * lookup, project authorisation, routing) is measured.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";

/** The answer to serve: body bytes, their ETag, and the headers ours sent with the 200 and the 304. */
export interface StaticAnswer {
  body: Buffer;
  etag: string;
  /** Our 200's headers (without `date`, `connection`, `keep-alive`, which node writes, and `x-request-id`). */
  headers200: Record<string, string>;
  /** Our 304's headers, the same way. */
  headers304: Record<string, string>;
}

/** Starts the server on a free port of 127.0.0.1; its `url` ends in `path` (it answers any path). */
export async function startStaticBytes(
  answer: StaticAnswer,
  path = "/flags/definitions",
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const requestId = (request.headers["x-request-id"] as string | undefined) || randomUUID();
    if (request.headers["if-none-match"] === answer.etag) {
      response.writeHead(304, { ...answer.headers304, "x-request-id": requestId }).end();
      return;
    }
    response.writeHead(200, { ...answer.headers200, "x-request-id": requestId }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
