/**
 * HTTP requests written byte by byte on a socket, for what `fetch` will not send: a body cut short
 * by a client that goes away, a header holding a NUL, a request that stops mid-headers.
 */
import net from "node:net";

/**
 * Opens a connection to `baseUrl`, writes `head` (a request line and headers, as given) and `body`,
 * then either closes the connection at once (`"abort"`: the client went away) or waits for the
 * answer (`"answer"`, up to two seconds); resolves with what the server wrote back (possibly nothing).
 */
export function rawExchange(
  baseUrl: string,
  head: string,
  body: Buffer | string,
  then: "abort" | "answer",
): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.write(head);
    socket.write(body);
    if (then === "abort") setTimeout(() => socket.destroy(), 20);
    else setTimeout(() => socket.end(), 2_000);
  });
}

/**
 * Sends `method path` with `headers` declaring all of `body` (`Content-Length`), writes only its
 * first `cutAfter` bytes, and goes away.
 */
export function sendCutShort(
  baseUrl: string,
  request: { method: string; path: string; headers: Record<string, string>; body: Buffer; cutAfter: number },
): Promise<string> {
  const lines = Object.entries({
    host: "signalbox.test",
    ...request.headers,
    "content-length": String(request.body.length),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${lines}\r\n`;
  return rawExchange(baseUrl, head, request.body.subarray(0, request.cutAfter), "abort");
}
