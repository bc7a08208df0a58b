/**
 * The bench's server process (server.ts), started and stopped by the benchmarks that drive it
 * (run.ts, abuse.ts): a child process of its own, so that the clients' work never shares the
 * server's thread.
 */
import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchReady } from "./server.js";

/**
 * Starts server.ts on `backend` (`pglite` or `postgres`), with `env` added to this process's
 * environment (e.g. `BENCH_SERVER_ENV`), and resolves once it has seeded its data and listens.
 */
export function startServer(
  backend: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; ready: BenchReady }> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = fork(path.join(here, "server.ts"), [backend], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (ready) => resolve({ child, ready: ready as BenchReady }));
    child.once("exit", (code) => reject(new Error(`bench server (${backend}) exited with ${code}`)));
  });
}

/**
 * Sends a command to the server process and waits for its answer: "ok" to a profiler command, the
 * process's CPU time so far (µs, user + system) to `cpu`.
 */
export function tellServer(
  child: ChildProcess,
  command: { profile: string } | { stopProfile: true } | { cpu: true },
): Promise<unknown> {
  return new Promise((resolve) => {
    child.once("message", resolve);
    child.send(command);
  });
}

/** Asks the server process to close everything it opened, and waits until it has exited. */
export async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.send("close");
  await exited;
}
