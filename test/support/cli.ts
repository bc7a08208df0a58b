/**
 * Runs the real `signalbox` command line as a child process, as a user would: one-shot commands to
 * completion, `serve` in the background until it listens. It runs a compiled main.js: the one given,
 * else the suite's (support/global-setup.ts compiles src/ once a run: a command then starts in about
 * 0.7 s, against 2–3 s compiling some 700 modules through tsx's loader, which cost the CLI's tests
 * half their time), else, outside the suite's setup, src/main.ts through tsx. The child is the
 * signalbox process itself (`node --import tsx`, not the `tsx` binary, which runs it in a
 * grandchild), so a signal sent to it reaches the server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { inject } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NODE_ARGS = ["--import", "tsx", "src/main.ts"];

/**
 * Node's arguments for `signalbox <args>`: `main` (a compiled src/main.ts) when given, else the
 * suite's compiled one, else the source through tsx.
 */
function nodeArgs(args: string[], main: string | undefined): string[] {
  const compiled = main ?? inject("signalboxMain");
  return compiled ? [compiled, ...args] : [...NODE_ARGS, ...args];
}

/** How a one-shot command ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `signalbox <args>` to completion with `env` over the test's environment (no DATABASE_URL
 * unless given); `main`: a compiled main.js to run instead of the suite's.
 */
export function cli(args: string[], env: Record<string, string>, main?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs(args, main), {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A `signalbox serve` child process (on an embedded data directory unless given a `DATABASE_URL`). */
export interface ServeProcess {
  child: ChildProcess;
  /** Its stdout and stderr so far (pino JSON lines at LOG_LEVEL=info, and CLI errors). */
  output(): string;
  /** The port once it listens; rejects with its output if it exits first or takes over a minute. */
  listening: Promise<number>;
  /** Its exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
}

/**
 * Starts `signalbox serve` on `dataDir` on a free port, without waiting for it; `extraEnv` goes over
 * the defaults (e.g. a `DATABASE_URL` to serve PostgreSQL instead); `main`: a compiled main.js to
 * run instead of the suite's.
 */
export function spawnServe(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  main?: string,
): ServeProcess {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: "0",
    LOG_LEVEL: "info",
    DATABASE_URL: "",
    ...extraEnv,
  };
  const child = spawn(process.execPath, nodeArgs(["serve"], main), { cwd: ROOT, env });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    child.stdout.on("data", (d) => {
      output += d;
      const match = output.match(/listening at http:\/\/127\.0\.0\.1:(\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  listening.catch(() => {}); // callers that only await `exited` must not see an unhandled rejection
  return { child, output: () => output, listening, exited };
}

/** Starts `signalbox serve` on `dataDir` and waits until it listens. */
export async function startServer(
  dataDir: string,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const server = spawnServe(dataDir);
  return { child: server.child, port: await server.listening, output: server.output };
}
