/**
 * A webhook receiver on loopback for the delivery tests: records every request (headers, body, time)
 * and answers by path: `/ok` 200, `/fail` 500, `/redirect` 302 to `/redirected` (which would answer 200).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** `Date.now()` when it arrived. */
  at: number;
}

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  port: number;
  received: Received[];
  /** Waits until `count` requests to `path` arrived (or `timeoutMs` passed: then throws). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      received.push({
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      if (path.startsWith("/fail")) response.writeHead(500).end("no");
      else if (path.startsWith("/redirect")) {
        response.writeHead(302, { location: "/redirected" }).end();
      } else response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    received,
    async waitFor(path, count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`${path}: ${at(path).length} of ${count} requests arrived`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return at(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` every 50 ms until it returns a value other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A receiver for the calling file's tests: started before them, closed after them; the getter reads it. */
export function useReceiver(): () => Receiver {
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return () => {
    if (!receiver) throw new Error("the receiver is not started");
    return receiver;
  };
}
