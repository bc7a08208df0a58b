/**
 * A test server on PostgreSQL and a second `signalbox serve` process on its database, for the
 * calling file's tests (started before them, stopped after them): for what one process writes and
 * the other must hear (the change feed across processes).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type ServeProcess, spawnServe } from "./cli.js";
import { startTestServer, type TestServer } from "./server.js";

/** The two processes: the in-process test server, and the base URL of the other one. */
export interface TwoProcesses {
  server: TestServer;
  otherUrl: string;
}

/**
 * Starts both before the file's tests (the second process with its own temporary data directory,
 * named from `prefix`) and stops both after them; the returned function reads them.
 */
export function useSecondProcess(prefix: string): () => TwoProcesses {
  let server: TestServer | undefined;
  let other: ServeProcess | undefined;
  let otherUrl = "";
  let dataDir = "";
  beforeAll(async () => {
    server = await startTestServer("postgres");
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
    other = spawnServe(dataDir, { DATABASE_URL: server.databaseUrl! });
    otherUrl = `http://127.0.0.1:${await other.listening}`;
  }, 90_000);
  afterAll(async () => {
    if (other) {
      other.child.kill("SIGTERM");
      await other.exited;
    }
    await server?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!server || !otherUrl) throw new Error("the two processes are not started");
    return { server, otherUrl };
  };
}
