/** Requests that stay in flight until the test finishes sending them (graceful-stop tests). */
import http from "node:http";

/** The answer to a half-sent request. */
export interface HalfSentAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A JSON POST whose headers and first bytes are sent now, through `agent`, and the rest on
 * `finish()`, which resolves with the answer: a request in flight for as long as the test wants.
 */
export function halfSentRequest(
  port: number,
  agent: http.Agent,
  options: { path: string; key: string; requestId: string; body: unknown },
): { finish(): Promise<HalfSentAnswer> } {
  const body = JSON.stringify(options.body);
  const request = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: options.path,
    agent,
    headers: {
      authorization: `Bearer ${options.key}`,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": options.requestId,
    },
  });
  const answer = new Promise<HalfSentAnswer>((resolve, reject) => {
    request.on("error", reject);
    request.on("response", (response) => {
      let text = "";
      response.on("data", (chunk) => {
        text += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text }),
      );
      response.on("error", reject);
    });
  });
  answer.catch(() => {});
  request.write(body.slice(0, 8));
  return {
    finish() {
      request.end(body.slice(8));
      return answer;
    },
  };
}
