/**
 * The live-configuration figures of `npm run bench` (issue 12): change-to-subscriber latency with
 * `BENCH_SUBSCRIBERS` (default 1,000) GraphQL subscriptions open over SSE on PostgreSQL, each beside
 * a baseline measured in the same run on the same database. Two figures:
 * - `configurationRevision { revision }`: the event carries all it shows;
 * - `featureFlagChanged { revision featureFlag { key name version createdBy { email } } }`: each event
 *   shows the flag as it is, which our subscribers of one change read once together
 *   (src/core/shared-reads.ts).
 * For each:
 * - `ours`: 1,000 subscriptions (one HTTP connection each) on a real server (buildApp, listening on
 *   127.0.0.1); a write commits (an activity entry of the flag inserted through a separate
 *   connection: trigger, revision, NOTIFY), and each subscriber's latency is the time from just
 *   before the write is sent to its event arriving (the change feed, the per-project fan-out, one
 *   GraphQL execution per subscriber, SSE over HTTP).
 * - `baseline`: the same transport without us: a plain `node:http` server whose one connection LISTENs
 *   on the same channel and, for each notification of its project, builds the same event once (for
 *   the flag: one hand-written read of the flag and its creator) and writes the same SSE bytes our
 *   server sends to its 1,000 open responses, read by the same 1,000 fetch clients. Its write is the
 *   same INSERT, in a second project, which our server has no subscriber of.
 * `BENCH_LIVE_ROUNDS` (default 30) writes each, alternating; p50 and p99 over every subscriber of every
 * round; the ratio is ours / baseline (lower is better): what our change feed, fan-out, GraphQL
 * execution and yoga's SSE add. Clients, both servers and the database share the machine.
 *
 * Environment: BENCH_ONLY (runs when it names `live`), BENCH_SUBSCRIBERS, BENCH_LIVE_ROUNDS.
 * PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432; skipped loudly when none answers.
 */

import { setMaxListeners } from "node:events";
import http from "node:http";
import os from "node:os";
import pg from "pg";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { dataAccessOf } from "../../src/core/context.js";
import { RATE_LIMITS_OFF } from "../support/rate-limits.js";
import { openBootstrappedBench, type RawRows, runPostgresBench } from "./sequential.js";

const SUBSCRIBERS = Number(process.env["BENCH_SUBSCRIBERS"] ?? 1_000);
const ROUNDS = Number(process.env["BENCH_LIVE_ROUNDS"] ?? 30);
const ARRIVAL_TIMEOUT_MS = 30_000;

/** The key of the flag each project of the bench has, whose activity entries are the writes. */
const FLAG_KEY = "live-bench";

/** A notification of the change feed's channel, as the baseline reads it. */
type Notification = { kind?: string; project?: number; revision?: string; item?: string };

/** One figure: our subscription, and how the baseline builds the same event from a notification. */
interface Figure {
  name: string;
  document: string;
  /** The SSE `data` the baseline sends for `notification` of its project, or null for none. */
  baselineData(notification: Notification, raw: RawRows): Promise<string | null>;
}

const FIGURES: Figure[] = [
  {
    name: "configurationRevision",
    document: "subscription ($p: ID!) { configurationRevision(projectId: $p) { revision } }",
    baselineData: async (notification) =>
      notification.kind === "revision"
        ? JSON.stringify({ data: { configurationRevision: { revision: notification.revision } } })
        : null,
  },
  {
    name: "featureFlagChanged, flag selected",
    document: `subscription ($p: ID!) { featureFlagChanged(projectId: $p, keys: ["${FLAG_KEY}"]) {
      revision featureFlag { key name version createdBy { email } } } }`,
    baselineData: async (notification, raw) => {
      if (notification.kind !== "change") return null;
      const [flag] = await raw<{ key: string; name: string; version: number; email: string | null }>(
        `SELECT f.key, f.name, f.version, u.email FROM feature_flags f
         LEFT JOIN users u ON u.id = f.created_by_id WHERE f.id = $1 AND f.project_id = $2`,
        [Number(notification.item), notification.project],
      );
      if (!flag) return null;
      const { email, ...fields } = flag;
      return JSON.stringify({
        data: {
          featureFlagChanged: {
            revision: notification.revision,
            featureFlag: { ...fields, createdBy: email === null ? null : { email } },
          },
        },
      });
    },
  },
];

/** The value at quantile `q` (0–1) of `values`. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Waits until `count()` reaches `target`, polling each millisecond. @throws after the timeout. */
async function until(count: () => number, target: number, what: string): Promise<void> {
  const deadline = performance.now() + ARRIVAL_TIMEOUT_MS;
  while (count() < target) {
    if (performance.now() > deadline)
      throw new Error(`${what}: ${count()} of ${target} within ${ARRIVAL_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Arrivals of one side's events: those with revision `expected` are timed from `sentAt`. */
type Arrivals = { expected: string; sentAt: number; arrived: number; latencies: number[] };

/**
 * Opens `count` SSE subscribers with `open` (a fetch), 50 at a time (a thousand connects at once
 * overflow the listen backlog), each counting into `arrivals` the events whose revision is the
 * expected one.
 */
async function openSubscribers(
  count: number,
  open: () => Promise<Response>,
  arrivals: Arrivals,
): Promise<void> {
  const subscribe = async () => {
    const response = await open();
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          const match = /"revision":"(\d+)"/.exec(decoder.decode(chunk, { stream: true }));
          if (match?.[1] === arrivals.expected) {
            arrivals.latencies.push(performance.now() - arrivals.sentAt);
            arrivals.arrived++;
          }
        }
      } catch {
        // aborted at the end
      }
    })();
  };
  for (let opened = 0; opened < count; opened += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - opened) }, subscribe));
  }
}

/**
 * The baseline server: plain `node:http`, one LISTEN connection on the change feed's channel; each
 * notification of `projectId` for which `figure` builds an event is written, built once, to every
 * open response as the SSE frame yoga writes (`event: next`). Returns its URL and how to close it.
 */
async function startBaseline(url: string, projectId: number, figure: Figure, raw: RawRows) {
  const responses = new Set<http.ServerResponse>();
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write(":\n\n");
    responses.add(response);
    response.on("close", () => responses.delete(response));
  });
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  listener.on("notification", async (message) => {
    const notification = JSON.parse(message.payload ?? "{}") as Notification;
    if (notification.project !== projectId) return;
    const data = await figure.baselineData(notification, raw);
    if (data === null) return;
    const frame = `event: next\ndata: ${data}\n\n`;
    for (const response of responses) response.write(frame);
  });
  await listener.query("LISTEN signalbox_changes");
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}/`,
    responses: () => responses.size,
    close: async () => {
      for (const response of responses) response.destroy();
      await listener.end().catch(() => {});
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function benchPostgres(): Promise<void> {
  const { database, raw, close, boot, otherProject } = await openBootstrappedBench("postgres");
  const config = loadConfig({ LOG_LEVEL: "silent", PORT: "0", ...RATE_LIMITS_OFF });
  const app = await buildApp({ config, database, logger: pino({ level: "silent" }) });
  const databaseUrl = database.migrationTarget.kind === "postgres" ? database.migrationTarget.url : "";
  const live = dataAccessOf(database).live;
  const baselineProject = await otherProject();
  /** The bench flag of `projectId` (created by the bench's user): its id. */
  const flagOf = async (projectId: number) => {
    const [flag] = await raw<{ id: number }>(
      `INSERT INTO feature_flags (project_id, key, name, filters, created_by_id, updated_at)
       SELECT $1, $2, 'Live bench', '{}', id, now() FROM users WHERE email = 'bench@example.com' RETURNING id`,
      [projectId, FLAG_KEY],
    );
    return flag!.id;
  };
  const flags = new Map([
    [boot.project_id, await flagOf(boot.project_id)],
    [baselineProject, await flagOf(baselineProject)],
  ]);
  try {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const url = `http://127.0.0.1:${address.port}/graphql`;
    const [load1] = os.loadavg();
    console.log(
      `\nPostgreSQL 127.0.0.1: change-to-subscriber latency, ${SUBSCRIBERS.toLocaleString("en")} open SSE subscriptions, ` +
        `${ROUNDS} writes, every subscriber of every write; load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
    );
    for (const figure of FIGURES) {
      const aborts = new AbortController();
      // Every subscriber's fetch listens on the one signal that ends them all.
      setMaxListeners(0, aborts.signal);
      const baseline = await startBaseline(databaseUrl, baselineProject, figure, raw);
      try {
        const ours: Arrivals = { expected: "", sentAt: 0, arrived: 0, latencies: [] };
        await openSubscribers(
          SUBSCRIBERS,
          () =>
            fetch(url, {
              method: "POST",
              headers: {
                accept: "text/event-stream",
                authorization: `Bearer ${boot.personal_api_key}`,
                "content-type": "application/json",
              },
              body: JSON.stringify({ query: figure.document, variables: { p: String(boot.project_id) } }),
              signal: aborts.signal,
            }),
          ours,
        );
        const plain: Arrivals = { expected: "", sentAt: 0, arrived: 0, latencies: [] };
        await openSubscribers(
          SUBSCRIBERS,
          () => fetch(baseline.url, { headers: { accept: "text/event-stream" }, signal: aborts.signal }),
          plain,
        );
        await until(() => live.subscriptions, SUBSCRIBERS, "our subscriptions listening");
        await until(baseline.responses, SUBSCRIBERS, "baseline subscribers");

        /** One write to `projectId`'s flag (an activity entry: trigger, revision, NOTIFY), timed into `arrivals`. */
        const round = async (projectId: number, arrivals: Arrivals, what: string) => {
          const [current] = await raw<{ revision: string }>(
            "SELECT revision::text AS revision FROM projects WHERE id = $1",
            [projectId],
          );
          arrivals.expected = String(BigInt(current!.revision) + 1n);
          arrivals.arrived = 0;
          arrivals.sentAt = performance.now();
          await raw(
            `INSERT INTO activity_logs (id, project_id, activity, scope, item_id, detail)
             VALUES (gen_random_uuid(), $1, 'updated', 'FeatureFlag', $2, '{}')`,
            [projectId, String(flags.get(projectId))],
          );
          await until(() => arrivals.arrived, SUBSCRIBERS, what);
        };
        for (let index = 0; index < ROUNDS; index++) {
          await round(boot.project_id, ours, `${figure.name} round ${index}: subscribers`);
          await round(baselineProject, plain, `${figure.name} round ${index}: baseline`);
        }

        const row = (name: string, values: number[]) =>
          `${name.padEnd(52)} p50 ${quantile(values, 0.5).toFixed(1).padStart(7)} ms | p99 ${quantile(values, 0.99).toFixed(1).padStart(7)} ms`;
        console.log(`${figure.name}:`);
        console.log(row("  ours: write → GraphQL SSE subscription event", ours.latencies));
        console.log(row("  baseline: write → plain node:http SSE, same bytes", plain.latencies));
        console.log(
          `${"  ratio (ours / baseline)".padEnd(52)} p50 ${(quantile(ours.latencies, 0.5) / quantile(plain.latencies, 0.5)).toFixed(2).padStart(6)}× | p99 ${(
            quantile(ours.latencies, 0.99) / quantile(plain.latencies, 0.99)
          )
            .toFixed(2)
            .padStart(6)}×`,
        );
      } finally {
        aborts.abort();
        await baseline.close();
        await until(() => SUBSCRIBERS - live.subscriptions, SUBSCRIBERS, "our subscriptions closed");
      }
    }
  } finally {
    // The database is dropped even when the server does not close cleanly.
    await app.close().catch((error: unknown) => console.error("closing the server:", error));
    await close();
  }
}

runPostgresBench("live", "live configuration", benchPostgres);
