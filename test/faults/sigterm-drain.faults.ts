/**
 * A graceful stop (issue 13 item 2), on PGlite and PostgreSQL: a real `signalbox serve` gets
 * SIGTERM while two requests are in flight (their bodies half sent, on keep-alive connections as
 * clients keep them) and a job is in progress (a webhook delivery whose receiver has not answered
 * yet). New connections are refused at once; the two requests, finished after the signal, get
 * their 201s; the delivery completes and is logged; the process then exits 0 with the queue empty,
 * so the next start neither runs the delivery again nor misses it.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServeProcess } from "../support/cli.js";
import { halfSentRequest } from "../support/half-sent-request.js";
import type { Backend } from "../support/server.js";
import { postgresOrSkip, prepareSpawnedBackend, type SpawnedBackend } from "../support/spawned-backend.js";

/** A webhook receiver that holds every delivery unanswered until `release()`. */
interface HeldReceiver {
  url: string;
  /** Resolves with the first delivery's body once it arrived. */
  firstDelivery: Promise<string>;
  release(): void;
  close(): Promise<void>;
}

async function heldReceiver(): Promise<HeldReceiver> {
  let released = false;
  const held: http.ServerResponse[] = [];
  let arrived!: (body: string) => void;
  const firstDelivery = new Promise<string>((resolve) => {
    arrived = resolve;
  });
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      arrived(body);
      if (released) response.end("ok");
      else held.push(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    firstDelivery,
    release() {
      released = true;
      for (const response of held.splice(0)) response.end("ok");
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Resolves once `server` has printed a line containing `text`. */
async function printed(server: ServeProcess, text: string): Promise<void> {
  while (!server.output().includes(text)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Resolves once a TCP connection to `port` is refused. */
async function refusesConnections(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const withPostgres = await postgresOrSkip("the SIGTERM drain on PostgreSQL");

describe.each<Backend>(["pglite", "postgres"])("SIGTERM drains [%s]", (backendName) => {
  const skip = backendName === "postgres" && !withPostgres;
  let backend: SpawnedBackend | undefined;
  let receiver: HeldReceiver | undefined;
  let server: ServeProcess | undefined;
  beforeAll(async () => {
    if (skip) return;
    backend = await prepareSpawnedBackend(backendName, inject("faultsServerMain"));
    receiver = await heldReceiver();
  });
  afterAll(async () => {
    server?.child.kill("SIGKILL"); // when the test failed before it exited
    receiver?.release();
    await receiver?.close();
    await backend?.remove();
  });

  it.skipIf(skip)(
    "finishes in-flight requests and the job in progress, refuses new connections, exits 0",
    async () => {
      const { key, projectId } = backend!;
      // Loopback deliveries for the test's receiver; a grace period no slow machine reaches.
      // At debug, the server logs each request when it arrives ("request received"), with our request id.
      server = backend!.serve({
        WEBHOOK_ALLOW_LOOPBACK: "true",
        SHUTDOWN_TIMEOUT_MS: "60000",
        LOG_LEVEL: "debug",
      });
      const port = await server.listening;
      const api = (path: string, method: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}/api/projects/${projectId}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });

      const webhook = await api("/webhooks/", "POST", {
        url: receiver!.url,
        kinds: ["feature_flag.updated"],
      });
      expect(webhook.status, await webhook.clone().text()).toBe(201);
      const flag = await api("/feature_flags/", "POST", { key: "drained-job" });
      expect(flag.status).toBe(201);
      const flagId = ((await flag.json()) as { id: number }).id;
      // The update enqueues a delivery in its transaction; the queue runs it and the receiver holds it.
      expect(
        (await api(`/feature_flags/${flagId}/`, "PATCH", { name: "Delivered on the way out" })).status,
      ).toBe(200);
      const delivery = JSON.parse(await receiver!.firstDelivery) as { data: { event_id: string } };

      const agent = new http.Agent({ keepAlive: true });
      const inFlight = ["drained-1", "drained-2"].map((flagKey) =>
        halfSentRequest(port, agent, {
          path: `/api/projects/${projectId}/feature_flags/`,
          key,
          requestId: flagKey,
          body: { key: flagKey, name: `In flight at SIGTERM: ${flagKey}` },
        }),
      );
      // Both requests reached the server.
      await printed(server, '"reqId":"drained-1"');
      await printed(server, '"reqId":"drained-2"');

      server.child.kill("SIGTERM");
      await refusesConnections(port);
      const answers = await Promise.all(inFlight.map((request) => request.finish()));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
      // Requests done, the server waits for the delivery in progress, then exits.
      expect(server.output()).not.toContain('"msg":"stopped"');
      receiver!.release();
      expect(await server.exited, server.output()).toBe(0);
      agent.destroy();

      const { flags, deliveries, queued } = await backend!.withSql(async (query) => ({
        flags: await query<{ key: string }>(
          "SELECT key FROM feature_flags WHERE project_id = $1 ORDER BY key",
          [projectId],
        ),
        deliveries: await query<{ event_id: string; status: string; status_code: number }>(
          "SELECT event_id::text, status, status_code FROM webhook_deliveries WHERE project_id = $1",
          [projectId],
        ),
        queued: await query<{ count: number }>(
          backendName === "postgres"
            ? "SELECT count(*)::int AS count FROM graphile_worker._private_jobs WHERE key IS NULL OR key NOT LIKE 'schedule:%'"
            : "SELECT count(*)::int AS count FROM job_queue WHERE job_key IS NULL OR job_key NOT LIKE 'schedule:%'",
        ),
      }));
      expect(flags.map((row) => row.key)).toEqual(["drained-1", "drained-2", "drained-job"]);
      expect(deliveries).toEqual([
        { event_id: delivery.data.event_id, status: "succeeded", status_code: 200 },
      ]);
      expect(queued[0]!.count).toBe(0);
    },
  );
});
