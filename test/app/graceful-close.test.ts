/**
 * Closing the app (what SIGTERM does, src/main.ts) with a request in flight on a keep-alive
 * connection: the request gets its answer, marked `Connection: close`, and the close completes
 * without waiting for the connection's keep-alive timeout (72 s, past any grace period); a connection
 * that has sent nothing yet is ended too, not left to its header timeout. The whole
 * SIGTERM path with real processes is in test/faults/sigterm-drain.faults.ts (`npm run test:faults`).
 */
import http from "node:http";
import net from "node:net";
import { expect, it } from "vitest";
import { halfSentRequest } from "../support/half-sent-request.js";
import { startTestServer } from "../support/server.js";

it("answers a request in flight at close with Connection: close, and the close does not wait for its keep-alive", async () => {
  const server = await startTestServer("pglite");
  const agent = new http.Agent({ keepAlive: true });
  try {
    const arrived = new Promise<void>((resolve) => server.app.server.once("request", () => resolve()));
    const request = halfSentRequest(Number(new URL(server.baseUrl).port), agent, {
      path: `/api/projects/${server.projectId}/feature_flags/`,
      key: server.key,
      requestId: "in-flight-at-close",
      body: { key: "in-flight-at-close" },
    });
    await arrived;
    const closed = server.close();
    const answer = await request.finish();
    expect(answer.status, answer.body).toBe(201);
    expect(answer.headers.connection).toBe("close");
    await closed;
  } finally {
    agent.destroy();
  }
});

it("ends at close a connection that has sent nothing yet, instead of waiting for its header timeout", async () => {
  const server = await startTestServer("pglite");
  // As the spare connection fetch opens: connected, not a byte sent.
  const accepted = new Promise<void>((resolve) => server.app.server.once("connection", () => resolve()));
  const idle = net.connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
  await accepted;
  const ended = new Promise<void>((resolve) => idle.once("close", () => resolve()));
  // Node's own close() would wait for the connection's 60 s header timeout (past the test's timeout).
  await server.close();
  await ended;
  expect(idle.destroyed).toBe(true);
});
