/**
 * A stream's maximum lifetime (`STREAM_MAX_LIFETIME_MS`, core/stream-lifetime.ts), on PGlite and
 * PostgreSQL through the real server started with a short one: each kind of stream ends cleanly
 * then, in the way that makes its client reconnect (the definitions stream's response ends, and
 * resumes from `Last-Event-ID`; a GraphQL SSE answer ends without `complete`; a GraphQL WebSocket
 * closes with 1000 and graphql-ws subscribes again), heartbeats running meanwhile. And nothing a
 * stream does brings the process down: writes racing a client that went away are dropped.
 */
import { createClient } from "graphql-ws";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { projectToken } from "../support/capture.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { openSse, type SseEvent, type SseStream, subscribeSse } from "../support/sse.js";

const LIFETIME_MS = 800;
/** The lifetime and a margin: every stream has ended before it. */
const ENDED_BY_MS = LIFETIME_MS + 1_500;

const REVISIONS = `subscription ($project: ID!) { configurationRevision(projectId: $project) { revision } }`;

/** Every event `stream` sends until it ends, which must be within `ms`. */
async function untilEnd(stream: SseStream, ms: number): Promise<SseEvent[]> {
  const deadline = Date.now() + ms;
  const events: SseEvent[] = [];
  for (;;) {
    try {
      events.push(await stream.next(Math.max(1, deadline - Date.now())));
    } catch (error) {
      if ((error as Error).message === "the stream ended") return events;
      throw error;
    }
  }
}

/** Moves the project's revision (a write every stream hears of). */
async function write(s: TestServer): Promise<void> {
  const created = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
    body: { key: `write-${Math.random().toString(36).slice(2)}` },
  });
  expect(created.status, created.text).toBe(201);
}

describeEachBackend(
  "stream lifetime",
  (server) => {
    it("ends a definitions stream cleanly after its lifetime, with heartbeats until then, and it resumes", async () => {
      const s = server();
      const url = `${s.baseUrl}/flags/definitions/stream?token=${await projectToken(s)}`;
      const headers = { authorization: `Bearer ${s.key}` };
      const opening = Date.now();
      const stream = await openSse(url, { headers });
      const first = await stream.next();
      expect(await untilEnd(stream, ENDED_BY_MS)).toEqual([]);
      // Not before the lifetime less a tenth (timers may round a millisecond down).
      expect(Date.now() - opening).toBeGreaterThanOrEqual(LIFETIME_MS * 0.9 - 2);
      expect(stream.comments.filter((comment) => comment === "heartbeat").length).toBeGreaterThan(0);
      // What an EventSource does next: reconnect with the last id; nothing moved, nothing is resent.
      const resumed = await openSse(url, { headers: { ...headers, "last-event-id": first.id! } });
      await write(s);
      expect(BigInt((await resumed.next()).id!)).toBeGreaterThan(BigInt(first.id!));
      resumed.close();
    });

    it("ends a GraphQL subscription over SSE after its lifetime without `complete`", async () => {
      const s = server();
      const stream = await subscribeSse(s.baseUrl, s.key, REVISIONS, { project: String(s.projectId) });
      expect((await stream.next()).event).toBe("next");
      const rest = await untilEnd(stream, ENDED_BY_MS);
      expect(rest.filter((event) => event.event === "complete")).toEqual([]);
    });

    it("closes a GraphQL WebSocket after its lifetime with 1000, and graphql-ws subscribes again", async () => {
      const s = server();
      const closes: number[] = [];
      let connections = 0;
      const client = createClient({
        url: `${s.baseUrl.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${s.key}` },
        retryAttempts: 3,
        retryWait: async () => {},
        on: {
          connected: () => connections++,
          closed: (event) => closes.push((event as { code: number }).code),
        },
      });
      try {
        const results = client.iterate({ query: REVISIONS, variables: { project: String(s.projectId) } });
        expect((await results.next()).done).toBe(false);
        // The new socket's subscription sends the revision now, as every new subscription does.
        expect((await results.next()).done).toBe(false);
        expect(closes).toEqual([1000]);
        expect(connections).toBe(2);
        await write(s);
        expect((await results.next()).done).toBe(false);
        await results.return?.();
      } finally {
        await client.dispose();
      }
    });

    it("survives clients that go away while heartbeats and events are being written", async () => {
      const s = server();
      const token = await projectToken(s);
      for (let round = 0; round < 5; round++) {
        const streams = await Promise.all([
          openSse(`${s.baseUrl}/flags/definitions/stream?token=${token}`, {
            headers: { authorization: `Bearer ${s.key}` },
          }),
          subscribeSse(s.baseUrl, s.key, REVISIONS, { project: String(s.projectId) }),
        ]);
        await Promise.all(streams.map((stream) => stream.next()));
        const writing = write(s);
        for (const stream of streams) stream.close();
        await writing;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await s.request("GET", "/healthz")).status).toBe(200);
      expect(s.errorLogs).toEqual([]);
    });
  },
  { env: { STREAM_MAX_LIFETIME_MS: String(LIFETIME_MS), STREAM_HEARTBEAT_MS: "10" } },
);
