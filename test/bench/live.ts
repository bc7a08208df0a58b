/**
 * The live-configuration figure of `npm run bench` (issue 12): change-to-subscriber latency with
 * `BENCH_SUBSCRIBERS` (default 1,000) GraphQL subscriptions open over SSE on PostgreSQL, beside a
 * baseline measured in the same run on the same database:
 * - `ours`: 1,000 `configurationRevision` subscriptions (one HTTP connection each) on a real server
 *   (buildApp, listening on 127.0.0.1); a write commits (an activity entry inserted through a separate
 *   connection, which moves the project's revision), and each subscriber's latency is the time from
 *   just before the write is sent to its event arriving (trigger, NOTIFY, the change feed, the
 *   per-project fan-out, one GraphQL execution per subscriber, SSE over HTTP).
 * - `baseline`: raw LISTEN/NOTIFY: one listening connection whose notifications are handed to 1,000
 *   in-process callbacks; each callback's latency is the time from just before `pg_notify` is sent.
 * `BENCH_LIVE_ROUNDS` (default 30) writes each, alternating; p50 and p99 over every subscriber of every
 * round; the ratio is ours / baseline (lower is better). Clients, server and database share the machine.
 *
 * Environment: BENCH_ONLY (runs when it names `live`), BENCH_SUBSCRIBERS, BENCH_LIVE_ROUNDS.
 * PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432; skipped loudly when none answers.
 */
import os from "node:os";
import pg from "pg";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { RATE_LIMITS_OFF } from "../support/rate-limits.js";
import { openBootstrappedBench, runPostgresBench } from "./sequential.js";

const SUBSCRIBERS = Number(process.env["BENCH_SUBSCRIBERS"] ?? 1_000);
const ROUNDS = Number(process.env["BENCH_LIVE_ROUNDS"] ?? 30);
const ARRIVAL_TIMEOUT_MS = 30_000;

const SUBSCRIPTION = "subscription ($p: ID!) { configurationRevision(projectId: $p) { revision } }";

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

async function benchPostgres(): Promise<void> {
  const { database, raw, close, boot } = await openBootstrappedBench("postgres");
  const config = loadConfig({ LOG_LEVEL: "silent", PORT: "0", ...RATE_LIMITS_OFF });
  const app = await buildApp({ config, database, logger: pino({ level: "silent" }) });
  const aborts = new AbortController();
  const listener = new pg.Client({
    connectionString: database.migrationTarget.kind === "postgres" ? database.migrationTarget.url : "",
  });
  try {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    const url = `http://127.0.0.1:${address.port}/graphql`;

    // Arrival time of each subscriber's newest revision.
    let expected = "";
    let arrived = 0;
    const ours: number[] = [];
    let sentAt = 0;
    const subscribe = async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${boot.personal_api_key}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ query: SUBSCRIPTION, variables: { p: String(boot.project_id) } }),
        signal: aborts.signal,
      });
      void (async () => {
        const decoder = new TextDecoder();
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            const text = decoder.decode(chunk, { stream: true });
            const match = /"revision":"(\d+)"/.exec(text);
            if (!match) continue;
            if (match[1] === expected) {
              ours.push(performance.now() - sentAt);
              arrived++;
            } else if (expected === "") arrived++;
          }
        } catch {
          // aborted at the end
        }
      })();
    };
    // Opened 50 at a time: a thousand connects at once overflow the listen backlog.
    for (let opened = 0; opened < SUBSCRIBERS; opened += 50) {
      await Promise.all(Array.from({ length: Math.min(50, SUBSCRIBERS - opened) }, subscribe));
    }
    await until(() => arrived, SUBSCRIBERS, "first events");

    // The baseline: one LISTEN connection, its notifications handed to in-process callbacks.
    const baseline: number[] = [];
    let baselineArrived = 0;
    let baselineSentAt = 0;
    const callbacks = Array.from({ length: SUBSCRIBERS }, () => () => {
      baseline.push(performance.now() - baselineSentAt);
      baselineArrived++;
    });
    await listener.connect();
    listener.on("notification", () => {
      for (const callback of callbacks) callback();
    });
    await listener.query("LISTEN bench_live");

    const write = (round: number) =>
      raw(
        `INSERT INTO activity_logs (id, project_id, activity, scope, item_id, detail)
         VALUES (gen_random_uuid(), $1, 'updated', 'FeatureFlag', $2, '{}')`,
        [boot.project_id, String(round)],
      );
    for (let round = 0; round < ROUNDS; round++) {
      const [current] = await raw<{ revision: string }>(
        "SELECT revision::text AS revision FROM projects WHERE id = $1",
        [boot.project_id],
      );
      expected = String(BigInt(current!.revision) + 1n);
      arrived = 0;
      sentAt = performance.now();
      await write(round);
      await until(() => arrived, SUBSCRIBERS, `round ${round}: subscribers`);

      baselineArrived = 0;
      baselineSentAt = performance.now();
      await raw("SELECT pg_notify('bench_live', $1)", [String(round)]);
      await until(() => baselineArrived, SUBSCRIBERS, `round ${round}: baseline`);
    }

    const [load1] = os.loadavg();
    console.log(
      `\nPostgreSQL 127.0.0.1: change-to-subscriber latency, ${SUBSCRIBERS.toLocaleString("en")} open GraphQL SSE subscriptions ` +
        `(configurationRevision), ${ROUNDS} writes, every subscriber of every write; load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
    );
    const row = (name: string, values: number[]) =>
      `${name.padEnd(44)} p50 ${quantile(values, 0.5).toFixed(1).padStart(7)} ms | p99 ${quantile(values, 0.99).toFixed(1).padStart(7)} ms`;
    console.log(row("ours: write → SSE subscription event", ours));
    console.log(row("baseline: pg_notify → in-process LISTEN callback", baseline));
    console.log(
      `${"ratio (ours / baseline)".padEnd(44)} p50 ${(quantile(ours, 0.5) / quantile(baseline, 0.5)).toFixed(1).padStart(6)}× | p99 ${(
        quantile(ours, 0.99) / quantile(baseline, 0.99)
      )
        .toFixed(1)
        .padStart(6)}×`,
    );
  } finally {
    aborts.abort();
    await listener.end().catch(() => {});
    // The database is dropped even when the server does not close cleanly.
    await app.close().catch((error: unknown) => console.error("closing the server:", error));
    await close();
  }
}

runPostgresBench("live", "live configuration", benchPostgres);
