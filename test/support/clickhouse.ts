/**
 * A ClickHouse for a test file (issue 30): the real engine, chdb (installed apart, in test/clickhouse/,
 * by .ci/run), served over ClickHouse's HTTP interface by a process of the file's own
 * (test/clickhouse/chdb-http.ts: chdb opens one data directory per process), on a fresh data
 * directory, with the product's ClickHouse migrations applied, reached with the product's own client.
 * Where chdb is not installed (`npm ci --prefix test/clickhouse`), the ClickHouse half of a file is
 * skipped, loudly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { type ClickHouseClient, openClickHouse } from "../../src/analytics/clickhouse/client.js";
import { applyClickHouseMigrations } from "../../src/analytics/clickhouse/migrations.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ADAPTER = path.join(ROOT, "test", "clickhouse", "chdb-http.ts");
/** Queries the adapter runs at once (its sessions; an insert waiting for its flush holds one). */
const ENGINE_SESSIONS = 16;

/** Whether chdb is installed for the suite (test/clickhouse/node_modules). */
export const chdbInstalled: boolean = existsSync(
  path.join(ROOT, "test", "clickhouse", "node_modules", "chdb"),
);

if (!chdbInstalled) {
  console.warn(
    "\n!!! chdb is not installed (npm ci --prefix test/clickhouse): the ClickHouse half of this file is SKIPPED. !!!\n",
  );
}

/** A migrated ClickHouse database of a test file's own. */
export interface TestClickHouse {
  client: ClickHouseClient;
  /** The URL the client was opened on (the adapter's, database in its path). */
  url: string;
  /**
   * Kills the engine's process (SIGKILL: no flush, no goodbye) while the caller's requests may be
   * in flight, then starts it again on the same data directory; `client` and `url` then reach the
   * new process (the old client is closed).
   */
  crashAndRestart(): Promise<void>;
  /** Stops the engine's process and removes its data directory. */
  close(): Promise<void>;
}

/** Waits for the adapter's `listening <url>` line; rejects with what it wrote if it ends first. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("listening ")) resolve(line.split(" ")[1]!);
    });
    child.once("exit", (code) =>
      reject(new Error(`chdb's adapter ended (${code}) before it answered: ${errors}`)),
    );
  });
}

/** chdb's adapter serving `dir`: its base URL, and how to end it. */
async function startEngine(dir: string) {
  const child = spawn(process.execPath, ["--import", "tsx", ADAPTER, "--path", dir], {
    cwd: ROOT,
    // Each query in flight holds a thread of libuv's pool (chdb's native calls run there): room
    // for the adapter's sessions, as a server has a thread per connection.
    env: { ...process.env, UV_THREADPOOL_SIZE: String(ENGINE_SESSIONS + 4) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const ended = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await ended;
  };
  try {
    return { base: await listeningUrl(child), end };
  } catch (error) {
    await end("SIGKILL");
    throw error;
  }
}

/** Starts chdb on a fresh data directory and opens a migrated database `signalbox` on it. */
export async function openTestClickHouse(): Promise<TestClickHouse> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-chdb-"));
  let engine = await startEngine(dir).catch(async (error) => {
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  });
  try {
    const admin = openClickHouse(engine.base);
    await admin.command({ query: "CREATE DATABASE signalbox" });
    await admin.close();
    const opened: TestClickHouse = {
      url: `${engine.base}/signalbox`,
      client: openClickHouse(`${engine.base}/signalbox`),
      async crashAndRestart() {
        await engine.end("SIGKILL");
        await opened.client.close();
        engine = await startEngine(dir);
        opened.url = `${engine.base}/signalbox`;
        opened.client = openClickHouse(opened.url);
      },
      async close() {
        await opened.client.close();
        await engine.end("SIGTERM");
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
    await applyClickHouseMigrations(opened.client);
    return opened;
  } catch (error) {
    await engine.end("SIGKILL");
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}
