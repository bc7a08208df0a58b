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

/** Starts chdb on a fresh data directory and opens a migrated database `signalbox` on it. */
export async function openTestClickHouse(): Promise<TestClickHouse> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-chdb-"));
  const child = spawn(process.execPath, ["--import", "tsx", ADAPTER, "--path", dir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const ended = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await ended;
    }
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    const base = await listeningUrl(child);
    const admin = openClickHouse(base);
    await admin.command({ query: "CREATE DATABASE signalbox" });
    await admin.close();
    const url = `${base}/signalbox`;
    const client = openClickHouse(url);
    await applyClickHouseMigrations(client);
    return {
      client,
      url,
      async close() {
        await client.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
