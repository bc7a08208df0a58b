/**
 * `npm run test:soak` (issue 13, item 8): mixed traffic against one server on PostgreSQL for
 * `SOAK_SECONDS` (default 600), then, per request kind, the count, the error answers and the
 * latency percentiles, and whether the server's memory stayed flat after the warm-up.
 *
 * It creates a fresh database on the test PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432; none
 * answering is a failure, exit 1: there is nothing to soak), forks the server (server.ts: the real
 * app, job queue included), seeds it through the REST door and sends the mix of traffic.ts at
 * `SOAK_RATE` requests per second (default 200) with at most `SOAK_CONCURRENCY` in flight (default
 * 16): capture batches, `/flags/?v=2`, local evaluation revalidated by ETag, flag list and read,
 * a GraphQL page, flag PATCHes, creates and soft deletes, and HogQL endpoint runs. When the server
 * falls behind, requests beyond one concurrency's worth of backlog are not sent (counted as `shed`)
 * rather than sent in a burst later. Every `SOAK_SAMPLE_SECONDS` (default 10) the server reports its
 * memory after a full garbage collection and a line is printed. At the end the database is dropped.
 *
 * Error answers: any status other than 2xx and 304, a failed request, a GraphQL answer with
 * `errors`, `/flags` with `errorsWhileComputingFlags`. Memory: the samples from `SOAK_WARMUP_SECONDS`
 * on (default 60, or a fifth of a shorter run) are judged; the heap used after a full collection
 * must not grow both faster than `SOAK_MAX_HEAP_SLOPE` MB per minute (least squares, default 1)
 * and by more than `SOAK_MAX_HEAP_GROWTH` (default 0.10) of the warm-up heap by the end. Both,
 * because either alone misleads: a slope over a few noisy samples can exceed 1 MB/min with no
 * growth at the end, and a cache filling to its bound grows once and then stays. 1 MB/min is about
 * 80 bytes kept per request at 200 requests/s: any per-request leak is far above it. RSS is printed,
 * not judged: V8 and the allocator keep freed pages, so RSS follows the peak rather than what is kept.
 * Exit 1 on any error answer or on growth beyond the threshold. Latency is measured in this process
 * from sending to the last byte; on a shared machine it is indicative, and the collection the
 * samples force pauses the server briefly every sample.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pLimit from "p-limit";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";
import type { SoakReady } from "./server.js";
import { percentile, slope } from "./stats.js";
import { type RequestKind, setupTraffic } from "./traffic.js";

const SECONDS = Number(process.env["SOAK_SECONDS"] ?? 600);
const WARMUP_SECONDS = Number(process.env["SOAK_WARMUP_SECONDS"] ?? Math.min(60, Math.floor(SECONDS / 5)));
const RATE = Number(process.env["SOAK_RATE"] ?? 200);
const CONCURRENCY = Number(process.env["SOAK_CONCURRENCY"] ?? 16);
const SAMPLE_SECONDS = Number(process.env["SOAK_SAMPLE_SECONDS"] ?? 10);
const MAX_HEAP_SLOPE = Number(process.env["SOAK_MAX_HEAP_SLOPE"] ?? 1);
const MAX_HEAP_GROWTH = Number(process.env["SOAK_MAX_HEAP_GROWTH"] ?? 0.1);

const MB = 1024 * 1024;

/** What one kind of request came to. */
interface KindResult {
  kind: RequestKind;
  /** Latency of every answered request, ms. */
  latencies: number[];
  /** Answers by status (a kind with several successful ones, as local evaluation's 200 and 304, prints them). */
  statuses: Map<number, number>;
  /** Error answers by status (or `network`, `client`): how many, and the first one's body. */
  errors: Map<string, { count: number; sample: string }>;
}

/** One memory sample of the server process, after a full collection. */
interface Sample {
  /** Seconds since the load started. */
  at: number;
  memory: NodeJS.MemoryUsage;
}

/** Forks the soak server on database `url` and waits for it to listen. */
function startServer(url: string): Promise<{ child: ChildProcess; ready: SoakReady }> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = fork(path.join(here, "server.ts"), [url], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (ready) => resolve({ child, ready: ready as SoakReady }));
    child.once("exit", (code) => reject(new Error(`soak server exited with ${code}`)));
  });
}

/** Asks the server for its memory (after a full collection). */
function sampleMemory(child: ChildProcess): Promise<NodeJS.MemoryUsage> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) =>
      reject(new Error(`soak server exited with ${code} during the soak`));
    child.once("exit", exited);
    child.once("message", (memory) => {
      child.off("exit", exited);
      resolve(memory as NodeJS.MemoryUsage);
    });
    child.send("memory");
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.send("close");
  await exited;
}

const mb = (bytes: number) => (bytes / MB).toFixed(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Picks kinds in proportion to their weights, evenly interleaved (smooth weighted round robin, as
 * nginx balances upstreams): the same sequence every run.
 */
function weightedRoundRobin(kinds: readonly RequestKind[]): () => number {
  const current = kinds.map(() => 0);
  const total = kinds.reduce((sum, kind) => sum + kind.weight, 0);
  return () => {
    let best = 0;
    kinds.forEach((kind, i) => {
      current[i]! += kind.weight;
      if (current[i]! > current[best]!) best = i;
    });
    current[best]! -= total;
    return best;
  };
}

/** Sends the mix for `SECONDS`, sampling memory along the way. */
async function soak(child: ChildProcess, ready: SoakReady, kinds: RequestKind[]) {
  const results: KindResult[] = kinds.map((kind) => ({
    kind,
    latencies: [],
    statuses: new Map(),
    errors: new Map(),
  }));
  const gates = kinds.map((kind) => (kind.maxInFlight ? pLimit(kind.maxInFlight) : undefined));
  const next = weightedRoundRobin(kinds);
  const error = (result: KindResult, key: string, sample: string) => {
    const seen = result.errors.get(key);
    if (seen) seen.count++;
    else result.errors.set(key, { count: 1, sample: sample.slice(0, 400) });
  };
  const send = async (index: number) => {
    const result = results[index]!;
    const kind = result.kind;
    try {
      const request = kind.next();
      const started = performance.now();
      const response = await fetch(`${ready.url}${request.path}`, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const body = await response.text();
      result.latencies.push(performance.now() - started);
      result.statuses.set(response.status, (result.statuses.get(response.status) ?? 0) + 1);
      const ok = (response.status >= 200 && response.status < 300) || response.status === 304;
      const why = ok ? kind.read?.(response.status, response.headers, body) : body;
      if (why !== undefined) error(result, String(response.status), why);
    } catch (caught) {
      error(
        result,
        "network",
        caught instanceof Error ? `${caught.message} ${String(caught.cause ?? "")}` : "",
      );
    }
  };

  const samples: Sample[] = [];
  const start = performance.now();
  const elapsed = () => (performance.now() - start) / 1000;
  let sent = 0;
  let shed = 0;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  const errorsSoFar = () =>
    results.reduce((sum, r) => sum + [...r.errors.values()].reduce((s, e) => s + e.count, 0), 0);
  let sampling = true;
  // The server died: the load stops and the soak fails with why.
  let failure: unknown;
  const sampler = (async () => {
    let lastSent = 0;
    for (let n = 1; sampling; n++) {
      await sleep(Math.max(0, n * SAMPLE_SECONDS * 1000 - (performance.now() - start)));
      if (!sampling) break;
      const at = elapsed();
      const memory = await sampleMemory(child);
      samples.push({ at, memory });
      console.log(
        `${at.toFixed(0).padStart(5)} s  rss ${mb(memory.rss).padStart(7)} MB  heap used ${mb(memory.heapUsed).padStart(7)} MB` +
          `  external ${mb(memory.external).padStart(6)} MB  ${((sent - lastSent) / SAMPLE_SECONDS).toFixed(0).padStart(4)} req/s` +
          `  sent ${sent}  shed ${shed}  errors ${errorsSoFar()}  load ${os.loadavg()[0]!.toFixed(1)}${at < WARMUP_SECONDS ? "  (warm-up)" : ""}`,
      );
      lastSent = sent;
    }
  })().catch((caught: unknown) => {
    failure = caught;
  });
  while (elapsed() < SECONDS && failure === undefined) {
    let due = Math.floor(elapsed() * RATE) - sent - shed;
    while (due > 0 && inFlight < CONCURRENCY) {
      const index = next();
      const gate = gates[index];
      inFlight++;
      sent++;
      due--;
      const request = (gate ? gate(() => send(index)) : send(index)).finally(() => {
        inFlight--;
        running.delete(request);
      });
      running.add(request);
    }
    if (due > CONCURRENCY) shed += due - CONCURRENCY;
    await sleep(2);
  }
  await Promise.all(running);
  const seconds = elapsed();
  sampling = false;
  await sampler;
  if (failure !== undefined) throw failure;
  // The last sample after the last answer, so the end of the judged range is the end of the load.
  samples.push({ at: seconds, memory: await sampleMemory(child) });
  return { results, samples, seconds, sent, shed };
}

/** Prints the results; returns whether the soak passed. */
function report(outcome: Awaited<ReturnType<typeof soak>>): boolean {
  const { results, samples, seconds, sent, shed } = outcome;
  console.log(
    `\n${sent} requests in ${seconds.toFixed(0)} s (${(sent / seconds).toFixed(0)} req/s; target ${RATE}, at most ${CONCURRENCY} in flight; ${shed} shed); ` +
      `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
  );
  console.log(
    `${"kind".padEnd(38)} ${"count".padStart(7)} ${"errors".padStart(6)} ${"p50".padStart(7)} ${"p90".padStart(7)} ${"p99".padStart(7)} ${"max".padStart(7)}  ms`,
  );
  let errors = 0;
  for (const result of results) {
    const sorted = [...result.latencies].sort((a, b) => a - b);
    const count = [...result.errors.values()].reduce((sum, e) => sum + e.count, 0);
    errors += count;
    const ms = (p: number) => percentile(sorted, p).toFixed(1).padStart(7);
    console.log(
      `${result.kind.name.padEnd(38)} ${String(sorted.length).padStart(7)} ${String(count).padStart(6)} ${ms(50)} ${ms(90)} ${ms(99)} ${(sorted.at(-1) ?? Number.NaN).toFixed(1).padStart(7)}`,
    );
  }
  for (const result of results) {
    if (result.statuses.size > 1) {
      const statuses = [...result.statuses].sort(([a], [b]) => a - b);
      console.log(
        `   ${result.kind.name}: ${statuses.map(([status, count]) => `${count} × ${status}`).join(", ")}`,
      );
    }
  }
  for (const result of results) {
    for (const [status, { count, sample }] of result.errors) {
      console.log(`!! ${result.kind.name}: ${count} × ${status}: ${sample}`);
    }
  }

  const judged = samples.filter((sample) => sample.at >= WARMUP_SECONDS);
  const first = judged[0];
  const last = judged.at(-1);
  if (!first || !last || judged.length < 3) {
    console.log(
      `!! memory: ${judged.length} samples after the ${WARMUP_SECONDS} s warm-up, too few to judge`,
    );
    return false;
  }
  const perMinute = (pick: (memory: NodeJS.MemoryUsage) => number) =>
    slope(judged.map((sample) => ({ x: sample.at / 60, y: pick(sample.memory) / MB })));
  const heapSlope = perMinute((memory) => memory.heapUsed);
  const growth = last.memory.heapUsed / first.memory.heapUsed - 1;
  const leaking = heapSlope > MAX_HEAP_SLOPE && growth > MAX_HEAP_GROWTH;
  console.log(
    `\nmemory (after a full collection), ${judged.length} samples from ${first.at.toFixed(0)} s to ${last.at.toFixed(0)} s:` +
      `\n  heap used ${mb(first.memory.heapUsed)} MB → ${mb(last.memory.heapUsed)} MB (${(growth * 100).toFixed(1)}%), slope ${heapSlope.toFixed(2)} MB/min` +
      `\n  rss       ${mb(first.memory.rss)} MB → ${mb(last.memory.rss)} MB, slope ${perMinute((memory) => memory.rss).toFixed(2)} MB/min (not judged)` +
      `\n  threshold: fails when the heap slope is over ${MAX_HEAP_SLOPE} MB/min and the heap grew by over ${(MAX_HEAP_GROWTH * 100).toFixed(0)}%: ${leaking ? "FAILED" : "flat"}`,
  );
  console.log(
    errors === 0 && !leaking
      ? "\nsoak passed"
      : `\n!! soak FAILED: ${errors} error answers${leaking ? ", heap growing" : ""}`,
  );
  return errors === 0 && !leaking;
}

async function main(): Promise<number> {
  if (!(await postgresAnswers())) {
    console.error(
      "!! No PostgreSQL at 127.0.0.1:5432 (or TEST_DATABASE_URL): the soak needs one, and did not run",
    );
    return 1;
  }
  const name = `sbx_soak_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  let child: ChildProcess | undefined;
  const drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  process.once("SIGINT", () => {
    child?.kill("SIGKILL");
    drop().finally(() => process.exit(130));
  });
  try {
    const started = await startServer(databaseUrl(name));
    child = started.child;
    const kinds = await setupTraffic(started.ready);
    const total = kinds.reduce((sum, kind) => sum + kind.weight, 0);
    console.log(
      `soak: ${SECONDS} s at ${RATE} req/s (at most ${CONCURRENCY} in flight), warm-up ${WARMUP_SECONDS} s, memory every ${SAMPLE_SECONDS} s; ` +
        `database ${name}; mix: ${kinds.map((kind) => `${kind.name} ${((kind.weight / total) * 100).toFixed(0)}%`).join(", ")}`,
    );
    return report(await soak(child, started.ready, kinds)) ? 0 : 1;
  } finally {
    if (child) await stopServer(child);
    await drop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
