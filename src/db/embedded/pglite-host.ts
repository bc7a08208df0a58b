/**
 * The embedded database (PGlite) in a process of its own, behind PostgreSQL's wire protocol: the
 * server reaches it through node-postgres over a Unix socket, exactly as it reaches a PostgreSQL
 * server, so the request thread never runs the database (a long statement blocks no timer, socket or
 * request that does not need the database) and the same driver code serves both backends. The
 * process is ./pglite-process.ts; what the two say is ./process-protocol.ts.
 *
 * **Statements are bounded as on PostgreSQL.** PGlite cannot enforce `statement_timeout` (PostgreSQL
 * arms it with a signal; nothing interrupts WebAssembly that is running). The process's watchdog
 * reports a statement past its deadline; the host then fails that statement's connection with
 * PostgreSQL's own timeout error (SQLSTATE 57014, `canceling statement due to statement timeout`),
 * ends the process with SIGKILL and reopens the database in a new one. Reopening is PostgreSQL's
 * crash recovery on the data directory: every committed transaction is there (PGlite writes through
 * to the files); the stopped statement's transaction is not. A statement without a
 * `statement_timeout` is never stopped, as on PostgreSQL.
 *
 * A process that dies otherwise (a fault inside PGlite, the OOM killer) is reopened the same way, its
 * connections failed; a reopen that fails is retried with back-off, connections failing at once
 * meanwhile. The process holds the data-directory lock's owner socket too, so the directory counts
 * as locked while either process lives (../data-dir-lock.ts).
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { forkModule, siblingModule } from "../module-process.js";
import type { MigrationProgress } from "../schema-engine.js";
import {
  type HostMessage,
  type MigrationsReply,
  type ProcessInit,
  type ProcessMessage,
  REPORT_FD,
  STATEMENT_TIMEOUT_LINE,
} from "./process-protocol.js";

const REOPEN_MIN_MS = 100;
const REOPEN_MAX_MS = 5_000;
/** How long a clean close (PostgreSQL's shutdown checkpoint) may take before the process is killed. */
const CLOSE_TIMEOUT_MS = 30_000;

/** Where the host reports a database process stopped or reopened. */
export interface EmbeddedHostLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Why the database process was restarted. */
export type RestartReason = "statement_timeout" | "fault";

/** The embedded database's host (see the module comment). */
export interface EmbeddedHost {
  /** A new connection's socket, for node-postgres's `stream` option (one connection at a time). */
  connect(): net.Socket;
  /**
   * Runs the migration runner's `op` (../migrations.ts) in the database's own process; `apply`'s
   * steps reach `onProgress` as they happen.
   * @throws Error with the runner's message when it fails.
   */
  migrations(
    op: "apply" | "status",
    dir?: string,
    onProgress?: (step: MigrationProgress) => void,
  ): Promise<unknown>;
  /** Calls `listener` each time the database is reopened in a new process; returns the unsubscribe function. */
  onRestart(listener: (reason: RestartReason) => void): () => void;
  /** Closes the database cleanly (PostgreSQL's shutdown checkpoint) and ends its process. */
  close(): Promise<void>;
}

/** A PostgreSQL error as node-postgres reports one, for a connection the host had to end. */
function connectionError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, 0, "error");
  error.code = code;
  error.severity = "ERROR";
  return error;
}

/** A running database process and what the host knows of it. */
interface Child {
  process: ChildProcess;
  /** Where it listens for connections. */
  socketPath: string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** Migrations asked of it and not answered yet, by id. */
  migrations: Map<number, Migrations>;
}

/** Migrations waiting for their reply. */
interface Migrations {
  onProgress: ((step: MigrationProgress) => void) | undefined;
  resolve(reply: MigrationsReply): void;
  reject(error: Error): void;
}

/**
 * Opens the PGlite database in `dataDir` in a process of its own and returns its host.
 * @param lockSocket the data-directory lock's owner socket (../data-dir-lock.ts), shared with the process.
 * @throws Error with the process's exit status when the database cannot be opened.
 */
export async function startEmbeddedHost(options: {
  dataDir: string;
  lockSocket?: net.Server | null;
  log?: EmbeddedHostLogger;
}): Promise<EmbeddedHost> {
  const { dataDir, log } = options;
  const sockets = new Set<net.Socket>();
  const restartListeners = new Set<(reason: RestartReason) => void>();
  const socketDir =
    process.platform === "win32" ? null : await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-pglite-"));
  const pipePrefix = `signalbox-pglite-${randomBytes(6).toString("hex")}`;
  let generation = 0;
  let closed = false;
  let migrationIds = 0;

  /** Starts a process and resolves once its database is open and it listens. */
  const spawn = (): Promise<Child> => {
    generation += 1;
    // A new path each time: a killed process leaves its socket file behind.
    const socketPath = socketDir
      ? path.join(socketDir, `${generation}.sock`)
      : `\\\\.\\pipe\\${pipePrefix}-${generation}`;
    const child = forkModule(siblingModule(import.meta.url, "pglite-process"), {
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc", "pipe"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const init: ProcessInit = { type: "init", dataDir, socketPath };
    child.send(init);
    if (options.lockSocket) child.send({ type: "lock" } satisfies HostMessage, options.lockSocket);
    return new Promise<Child>((resolve, reject) => {
      const failedToStart = (error: Error) => {
        child.off("message", started);
        child.kill("SIGKILL");
        reject(error);
      };
      const exitedEarly = (code: number | null, signal: NodeJS.Signals | null) =>
        failedToStart(new Error(`the embedded database's process exited (${signal ?? `code ${code}`})`));
      const started = (message: ProcessMessage) => {
        child.off("error", failedToStart);
        child.off("exit", exitedEarly);
        if (message.type !== "ready") {
          failedToStart(new Error(`unexpected message from the embedded database: ${message.type}`));
          return;
        }
        const ready: Child = { process: child, socketPath, exited, migrations: new Map() };
        child.on("message", (reply: ProcessMessage) => answerMigrations(ready, reply));
        child.on("error", (error) => restart(ready, "fault", error));
        child.once("exit", (code, signal) => {
          for (const pending of ready.migrations.values()) {
            pending.reject(new Error("the embedded database stopped while migrations ran"));
          }
          restart(ready, "fault", new Error(`its process exited (${signal ?? `code ${code}`})`));
        });
        child.stdio[REPORT_FD]?.on("data", (line: Buffer) => {
          if (line.toString().includes(STATEMENT_TIMEOUT_LINE)) restart(ready, "statement_timeout");
        });
        resolve(ready);
      };
      child.once("error", failedToStart);
      child.once("exit", exitedEarly);
      child.once("message", started);
    });
  };

  /** Routes a migrations message to the call waiting for it. */
  function answerMigrations(child: Child, message: ProcessMessage): void {
    if (message.type === "ready") return;
    const pending = child.migrations.get(message.id);
    if (!pending) return;
    if (message.type === "migrations-progress") {
      pending.onProgress?.(message.progress);
      return;
    }
    child.migrations.delete(message.id);
    pending.resolve(message);
  }

  const removeSocketDir = async () => {
    if (socketDir) await fs.rm(socketDir, { recursive: true, force: true });
  };
  let live: Child | null = await spawn().catch(async (error: unknown) => {
    await removeSocketDir();
    throw error;
  });
  let current: Promise<Child> = Promise.resolve(live);
  let reopenDelayMs = REOPEN_MIN_MS;

  /**
   * Reopens the database in a new process after `delayMs`, retrying with back-off until it opens;
   * connections wait for the attempt, and fail at once while the last attempt failed.
   */
  const reopen = (delayMs: number, reason: RestartReason): void => {
    const attempt = new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref()).then(() => spawn());
    current = attempt;
    attempt.then(
      (child) => {
        if (closed) {
          child.process.kill("SIGKILL");
          return;
        }
        live = child;
        reopenDelayMs = REOPEN_MIN_MS;
        for (const listener of restartListeners) listener(reason);
      },
      (error: unknown) => {
        log?.error({ err: error }, "the embedded database could not be reopened; retrying");
        if (closed) return;
        reopenDelayMs = Math.min(reopenDelayMs * 2, REOPEN_MAX_MS);
        reopen(reopenDelayMs, reason);
      },
    );
  };

  /**
   * Fails every connection of `child` (unless it is already replaced), ends it with SIGKILL and
   * reopens the database in a new process once it has exited.
   */
  function restart(child: Child, reason: RestartReason, cause?: unknown): void {
    if (child !== live || closed) return;
    live = null;
    const error =
      reason === "statement_timeout"
        ? connectionError("57014", "canceling statement due to statement timeout")
        : connectionError("57P01", "terminating connection because the embedded database stopped");
    // Before the kill: the connections see this error, not the end of their socket.
    for (const socket of [...sockets]) socket.destroy(error);
    if (reason === "statement_timeout") {
      log?.warn(
        {},
        "a statement ran past its statement_timeout: the embedded database's process was stopped and the database reopened",
      );
    } else {
      log?.error({ err: cause }, "the embedded database's process stopped; reopening the database");
    }
    child.process.kill("SIGKILL");
    // The data directory is opened again only once this process can no longer write to it.
    current = child.exited.then(() => {
      reopen(0, reason);
      return current;
    });
    // Handled here: a connection that awaits it sees the failure itself.
    current.catch(() => {});
  }

  return {
    connect() {
      const socket = new net.Socket();
      const open = socket.connect.bind(socket);
      // node-postgres calls `connect(port, host)`: the database listens where its process does.
      socket.connect = (() => {
        const path = closed
          ? Promise.reject(connectionError("57P01", "the embedded database is closed"))
          : current.then((child) => child.socketPath);
        path.then(
          (socketPath) => {
            if (!socket.destroyed) open({ path: socketPath });
          },
          (error: unknown) => socket.destroy(error as Error),
        );
        return socket;
      }) as typeof socket.connect;
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      return socket;
    },

    async migrations(op, dir, onProgress) {
      const child = await current;
      const id = ++migrationIds;
      const reply = await new Promise<MigrationsReply>((resolve, reject) => {
        child.migrations.set(id, { onProgress, resolve, reject });
        child.process.send({ type: "migrations", id, op, dir } satisfies HostMessage);
      });
      if (!reply.ok) throw new Error(reply.message);
      return reply.result;
    },

    onRestart(listener) {
      restartListeners.add(listener);
      return () => restartListeners.delete(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const socket of [...sockets]) socket.destroy();
      const child = await current.catch(() => null);
      if (child) {
        child.process.removeAllListeners("message");
        child.process.send({ type: "close" } satisfies HostMessage);
        const killer = setTimeout(() => {
          log?.error({}, "the embedded database did not close in time; its process was killed");
          child.process.kill("SIGKILL");
        }, CLOSE_TIMEOUT_MS);
        await child.exited;
        clearTimeout(killer);
      }
      await removeSocketDir();
    },
  };
}
