/**
 * Requests built to crash the process or reach a 500 through the request edge (issue 24 §3), on
 * PGlite and PostgreSQL, each followed by the checks of test/support/still-serving.ts (no error
 * logged, nothing raised outside a request, `/healthz` and a normal request answered):
 * - multipart bodies cut short in a file part, in a field, in a part's headers, headers that never
 *   end, no boundary: 400 `Multipart form parse error - …` (the first used to end the process:
 *   busboy's file stream had no `error` listener);
 * - a REST request whose `Authorization` key is bad: 401 before its body is read, so a hostile body
 *   costs no parsing (DRF authenticates before the view reads `request.data`);
 * - clients that disconnect mid-body on every door, and headers Node's parser refuses;
 * - event-stream, GraphQL SSE and WebSocket writes after the client went away.
 * Compressed and encoded capture bodies (gzip, base64, lz64 bombs) are in
 * test/ingestion/capture.bad-input.test.ts, beside capture's limits.
 */
import type net from "node:net";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { projectToken } from "../support/capture.js";
import { createFlag } from "../support/flags.js";
import { rawExchange } from "../support/raw-request.js";
import { describeEachBackend, readResponse, type TestResponse, type TestServer } from "../support/server.js";
import { expectStillServing, sendHostile, watchProcessFailures } from "../support/still-serving.js";

const BOUNDARY = "zz";
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const HEARTBEAT_MS = 20;

/** A multipart body's raw text: the parts given, each as its header lines and content, closed or not. */
function multipart(parts: Array<[string, string]>, closed = true): string {
  const body = parts.map(([head, content]) => `--${BOUNDARY}\r\n${head}\r\n\r\n${content}\r\n`).join("");
  return closed ? `${body}--${BOUNDARY}--\r\n` : body;
}

/** Hostile multipart bodies: a label, the content type and the raw body. */
const MULTIPART_BODIES: Array<[string, string, string]> = [
  [
    "a file part cut short (issue 24's request)",
    MULTIPART_TYPE,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nx`,
  ],
  [
    "a field part cut short",
    MULTIPART_TYPE,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nx`,
  ],
  ["a part's headers cut short", MULTIPART_TYPE, `--${BOUNDARY}\r\nContent-Disposition: form-da`],
  [
    "part headers that never end",
    MULTIPART_TYPE,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a"\r\nX-Long: ${"h".repeat(200_000)}`,
  ],
  ["no boundary", "multipart/form-data", multipart([['Content-Disposition: form-data; name="key"', "x"]])],
  ["an empty boundary", "multipart/form-data; boundary=", "--\r\n"],
  ["a preamble only", MULTIPART_TYPE, "no parts at all"],
  [
    "a file then a cut one",
    MULTIPART_TYPE,
    multipart([['Content-Disposition: form-data; name="a"; filename="a.csv"', "x"]], false) +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="b"; filename="b.csv"\r\n\r\ny`,
  ],
];

describeEachBackend(
  "hostile requests",
  (server) => {
    watchProcessFailures();

    /** Sends one request, checks the server still serves after it, and returns the answer. */
    const hostile = (label: string, send: (s: TestServer) => Promise<TestResponse>) =>
      sendHostile(server(), label, send);
    const flagsPath = (s: TestServer) => `/api/projects/${s.projectId}/feature_flags/`;
    const sendMultipart = (type: string, body: string, key?: string | null) => (s: TestServer) =>
      s.request("POST", flagsPath(s), { rawBody: body, headers: { "content-type": type }, key });

    it("answers multipart bodies cut short or malformed with 400, anonymous or not", async () => {
      for (const [label, type, body] of MULTIPART_BODIES) {
        for (const key of [null, undefined]) {
          const who = key === null ? "anonymous" : "with a key";
          const answer = await hostile(`${label} (${who})`, sendMultipart(type, body, key));
          expect(answer.status, `${label} (${who}): ${answer.text}`).toBe(400);
          expect(answer.body.code, label).toBe("parse_error");
          expect(answer.body.detail, label).toMatch(/^Multipart form parse error - /);
        }
      }
    });

    it("still reads a well-formed multipart body: its fields and its files", async () => {
      const body = multipart([
        ['Content-Disposition: form-data; name="key"', "multipart-flag"],
        ['Content-Disposition: form-data; name="name"', "From a form"],
        [
          'Content-Disposition: form-data; name="ignored"; filename="a.txt"\r\nContent-Type: text/plain',
          "file",
        ],
      ]);
      const answer = await hostile("well-formed", sendMultipart(MULTIPART_TYPE, body));
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body).toMatchObject({ key: "multipart-flag", name: "From a form" });
    });

    it("answers a bad key with 401 before reading the body, whatever the body", async () => {
      const bodies: Array<[string, string, string]> = [
        ...MULTIPART_BODIES,
        ["malformed JSON", "application/json", '{"key": '],
        ["an unknown media type", "text/xml", "<a/>"],
        ["a body over the limit", "application/json", JSON.stringify({ name: "x".repeat(3_000_000) })],
      ];
      for (const [label, type, body] of bodies) {
        const answer = await hostile(`bad key, ${label}`, sendMultipart(type, body, "phx_not_a_key"));
        expect(answer.status, `${label}: ${answer.text}`).toBe(401);
        expect(answer.body.code, label).toBe("authentication_failed");
      }
      // And on the methods a path does not take (405 once authenticated).
      const s = server();
      const other = await hostile("bad key, PUT", () =>
        s.request("PUT", flagsPath(s), { rawBody: '{"key": ', key: "phx_not_a_key" }),
      );
      expect(other.status).toBe(401);
    });

    it("survives clients that go away mid-body or mid-headers, on every door", async () => {
      const s = server();
      const token = await projectToken(s);
      const gzip = gzipSync(JSON.stringify({ event: "x", distinct_id: "u", token }));
      const requests: Array<[string, string, Buffer | string]> = [
        [
          "REST JSON",
          `POST ${flagsPath(s)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
          '{"key": "half',
        ],
        [
          "REST multipart",
          `POST ${flagsPath(s)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: ${MULTIPART_TYPE}\r\nContent-Length: 100000\r\n\r\n`,
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nx`,
        ],
        [
          "REST anonymous, chunked",
          `POST ${flagsPath(s)} HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART_TYPE}\r\nTransfer-Encoding: chunked\r\n\r\n`,
          `10\r\n--${BOUNDARY}\r\nContent-Dis`,
        ],
        [
          "capture gzip",
          "POST /e/ HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 100000\r\n\r\n",
          gzip.subarray(0, 10),
        ],
        [
          "flags",
          "POST /flags/?v=2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
          `{"token": "${token}", "distinct_id": `,
        ],
        [
          "GraphQL",
          "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
          '{"query": "{ __typename',
        ],
        ["mid-headers", `POST ${flagsPath(s)} HTTP/1.1\r\nHost: x\r\nAuthoriz`, ""],
      ];
      for (const [label, head, body] of requests) {
        const logged = s.errorLogs.length;
        await rawExchange(s.baseUrl, head, body, "abort");
        await expectStillServing(s, `gone mid-body: ${label}`, logged);
      }
    });

    it("answers a header holding a NUL with 400 and goes on serving", async () => {
      const s = server();
      const logged = s.errorLogs.length;
      const answer = await rawExchange(
        s.baseUrl,
        "POST /ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: x\r\nX-API-Key: phc_\u0000x\r\nContent-Length: 2\r\n\r\n",
        "{}",
        "answer",
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      await expectStillServing(s, "NUL in a header", logged);
    });

    it("stops writing an event stream whose client went away: heartbeats and revisions", async () => {
      const s = server();
      const paths = [
        `/api/projects/${s.projectId}/feature_flags/local_evaluation/stream`,
        `/flags/definitions/stream?token=${await projectToken(s)}`,
      ];
      for (const path of paths) {
        const logged = s.errorLogs.length;
        const client = new AbortController();
        const response = await fetch(`${s.baseUrl}${path}`, {
          headers: { authorization: `Bearer ${s.key}` },
          signal: client.signal,
        });
        expect(response.status, path).toBe(200);
        const reader = response.body!.getReader();
        await reader.read();
        client.abort();
        // A revision and several heartbeats fall due after the client left.
        await createFlag(s, { key: `after-close-${paths.indexOf(path)}` });
        await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 5));
        await expectStillServing(s, `event stream closed: ${path}`, logged);
      }
    });

    it("stops writing a GraphQL subscription whose client went away: over WebSocket and over SSE", async () => {
      const s = server();
      const subscription = {
        query: "subscription ($p: ID!) { configurationRevision(projectId: $p) { revision } }",
        variables: { p: String(s.projectId) },
      };
      // WebSocket (graphql-transport-ws): the socket is cut, with no close frame, once the first event came.
      let logged = s.errorLogs.length;
      const ws = new WebSocket(`${s.baseUrl.replace("http", "ws")}/graphql`, "graphql-transport-ws");
      const firstEvent = new Promise<void>((resolve, reject) => {
        ws.on("open", () =>
          ws.send(JSON.stringify({ type: "connection_init", payload: { Authorization: `Bearer ${s.key}` } })),
        );
        ws.on("message", (data) => {
          const message = JSON.parse(String(data));
          if (message.type === "connection_ack")
            ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: subscription }));
          else if (message.type === "next") resolve();
          else if (message.type === "error") reject(new Error(String(data)));
        });
        ws.on("error", reject);
      });
      await firstEvent;
      (ws as unknown as { _socket: net.Socket })._socket.destroy();
      await createFlag(s, { key: "after-ws-cut" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expectStillServing(s, "WebSocket cut", logged);
      // SSE: the request is aborted once the first event came.
      logged = s.errorLogs.length;
      const client = new AbortController();
      const response = await fetch(`${s.baseUrl}/graphql`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${s.key}`,
          "content-type": "application/json",
          accept: "text/event-stream",
        },
        body: JSON.stringify(subscription),
        signal: client.signal,
      });
      expect(response.status).toBe(200);
      await response.body!.getReader().read();
      client.abort();
      await createFlag(s, { key: "after-sse-cut" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expectStillServing(s, "GraphQL SSE cut", logged);
    });

    it("answers a GraphQL multipart body cut short with 400", async () => {
      const s = server();
      const body = multipart(
        [['Content-Disposition: form-data; name="operations"', '{"query": "{ __typename }"}']],
        false,
      );
      const answer = await hostile("GraphQL multipart", async () =>
        readResponse(
          await fetch(`${s.baseUrl}/graphql`, {
            method: "POST",
            body: `${body}--${BOUNDARY}\r\nContent-Disposition: form-data; name="0"; filename="a"\r\n\r\nx`,
            headers: { "content-type": MULTIPART_TYPE },
          }),
        ),
      );
      expect(answer.status, answer.text).toBe(400);
    });
  },
  { env: { STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) } },
);
