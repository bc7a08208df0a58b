/**
 * The local-evaluation figure's baseline: a plain `node:http` server that answers fixed bytes (our
 * payload, fetched once from our server) with their `ETag` and `Cache-Control`, and 304 when
 * `If-None-Match` names that tag. No authentication, no database: the ceiling of serving the same
 * answer from this process, against which our door's cost (key lookup, project authorisation,
 * routing, headers) is measured.
 */
import http from "node:http";

/** The answer to serve: body bytes and the headers that go with them. */
export interface StaticAnswer {
  body: Buffer;
  etag: string;
  cacheControl: string;
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startStaticBytes(
  answer: StaticAnswer,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const headers = { ETag: answer.etag, "Cache-Control": answer.cacheControl };
    if (request.headers["if-none-match"] === answer.etag) {
      response.writeHead(304, headers).end();
      return;
    }
    response
      .writeHead(200, {
        ...headers,
        "content-type": "application/json; charset=utf-8",
        "content-length": answer.body.length,
      })
      .end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}/flags/definitions`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
