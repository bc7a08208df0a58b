/**
 * The embedded database (PGlite) on a thread of its own, behind PostgreSQL's wire protocol: the
 * server's thread reaches it through node-postgres, exactly as it reaches a PostgreSQL server, with
 * a `stream` (`connect()`) that carries the bytes to the worker (./pglite-worker.ts) instead of a
 * socket. So the request thread never runs the database: a long statement blocks no timer, socket or
 * request that does not need the database, and the same driver code serves both backends.
 *
 * **Statements are bounded as on PostgreSQL.** PGlite cannot enforce `statement_timeout` (PostgreSQL
 * arms it with a signal; nothing interrupts WebAssembly that is running). The worker publishes when
 * the statement it runs began and when the session's `statement_timeout` ends it; a watchdog here
 * checks every `WATCHDOG_INTERVAL_MS` and, once a running statement is past its deadline, stops the
 * thread: the statement's connection fails with PostgreSQL's own timeout error (SQLSTATE 57014,
 * `canceling statement due to statement timeout`), and the database is reopened on a new thread.
 * Reopening is PostgreSQL's crash recovery on the data directory: every committed transaction is
 * there (PGlite writes through to the files); the stopped statement's transaction is not. A statement
 * without a `statement_timeout` is never stopped, as on PostgreSQL.
 *
 * A thread that dies otherwise (a fault inside PGlite) is reopened the same way, its connections
 * failed with SQLSTATE 57P01; a reopen that fails is retried with back-off, connections failing at
 * once meanwhile.
 */
import { Duplex } from "node:stream";
import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import pg from "pg";
import { siblingModule, startModuleWorker } from "../module-worker.js";
import type { MigrationProgress } from "../schema-engine.js";
import {
  type HostMessage,
  type MigrationsProgress,
  type MigrationsReply,
  STATE_SLOTS,
  StateSlot,
  type WorkerInit,
  type WorkerMessage,
} from "./worker-protocol.js";

/** How often the watchdog looks at the running statement (ms): a statement stops at most this late. */
export const WATCHDOG_INTERVAL_MS = 100;
const REOPEN_MIN_MS = 100;
const REOPEN_MAX_MS = 5_000;

/** Where the host reports a database thread stopped or reopened. */
export interface EmbeddedHostLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Why the database thread was restarted. */
export type RestartReason = "statement_timeout" | "fault";

/** The embedded database's host (see the module comment). */
export interface EmbeddedHost {
  /** A new connection's stream, for node-postgres's `stream` option (one connection at a time). */
  connect(): Duplex;
  /**
   * Runs the migration runner's `op` (../migrations.ts) on the database's own thread; `apply`'s
   * steps reach `onProgress` as they happen.
   * @throws Error with the runner's message when it fails.
   */
  migrations(
    op: "apply" | "status",
    dir?: string,
    onProgress?: (step: MigrationProgress) => void,
  ): Promise<unknown>;
  /** Calls `listener` each time the database is reopened on a new thread; returns the unsubscribe function. */
  onRestart(listener: (reason: RestartReason) => void): () => void;
  /** Closes the database cleanly (PostgreSQL's shutdown checkpoint) and ends its thread. */
  close(): Promise<void>;
}

/** A PostgreSQL error as node-postgres reports one, for a connection the host had to end. */
function connectionError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, 0, "error");
  error.code = code;
  error.severity = "ERROR";
  return error;
}

/** A `Duplex` that carries one connection's wire bytes to the worker over a `MessagePort`. */
class WireStream extends Duplex {
  private port: MessagePort | null = null;
  private outbox: Buffer[] = [];

  constructor(
    private readonly open: () => Promise<MessagePort>,
    private readonly forget: (stream: WireStream) => void,
  ) {
    super();
  }

  /** node-postgres's `connect(port, host)`: attaches to the worker, then emits `connect`. */
  connect(): this {
    this.open().then(
      (port) => {
        if (this.destroyed) {
          port.close();
          return;
        }
        this.port = port;
        port.on("message", (chunk: Uint8Array) =>
          this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
        );
        port.on("close", () =>
          this.destroy(connectionError("08006", "the embedded database closed the connection")),
        );
        this.emit("connect");
      },
      (error: unknown) => this.destroy(error as Error),
    );
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  override _read(): void {}

  /** Collects the writes of one tick (node-postgres writes a query as several messages) into one post. */
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.outbox.push(chunk);
    if (this.outbox.length === 1) queueMicrotask(() => this.flush());
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.flush();
    this.port?.close();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.outbox = [];
    this.port?.close();
    this.forget(this);
    done(error);
  }

  private flush(): void {
    if (!this.port || this.outbox.length === 0) return;
    const bytes = Buffer.concat(this.outbox);
    this.outbox = [];
    this.port.postMessage(bytes);
  }
}

/** A worker thread with its open database, and the memory it publishes its running statement in. */
interface Thread {
  worker: Worker;
  state: BigInt64Array;
}

/**
 * Opens the PGlite database in `dataDir` on a thread of its own and returns its host.
 * @param loadDataDir a data-directory tarball to load into a new `dataDir` (tests' migrated template).
 * @throws the worker's error when the database cannot be opened.
 */
export async function startEmbeddedHost(options: {
  dataDir: string;
  loadDataDir?: Uint8Array | null;
  log?: EmbeddedHostLogger;
}): Promise<EmbeddedHost> {
  const { dataDir, log } = options;
  const streams = new Set<WireStream>();
  const restartListeners = new Set<(reason: RestartReason) => void>();
  let closed = false;

  /** Starts a thread and resolves once its database is open. */
  const spawn = (loadDataDir: Uint8Array | null): Promise<Thread> => {
    const shared = new SharedArrayBuffer(STATE_SLOTS * BigInt64Array.BYTES_PER_ELEMENT);
    const init: WorkerInit = { dataDir, loadDataDir, state: shared };
    const worker = startModuleWorker(siblingModule(import.meta.url, "pglite-worker"), import.meta.url, {
      workerData: init,
    });
    return new Promise<Thread>((resolve, reject) => {
      const failed = (error: unknown) => {
        worker.removeAllListeners();
        void worker.terminate();
        reject(
          error instanceof Error ? error : new Error(`the embedded database's thread exited (${error})`),
        );
      };
      worker.once("error", failed);
      worker.once("exit", failed);
      worker.once("message", (message: WorkerMessage) => {
        worker.removeAllListeners();
        if (message.type !== "ready") {
          failed(new Error(`unexpected message from the embedded database: ${message.type}`));
          return;
        }
        const thread = { worker, state: new BigInt64Array(shared) };
        worker.on("error", (error) => restart(thread, "fault", error));
        worker.on("exit", (code) => restart(thread, "fault", new Error(`its thread exited (code ${code})`)));
        resolve(thread);
      });
    });
  };

  let live: Thread | null = await spawn(options.loadDataDir ?? null);
  let current: Promise<Thread> = Promise.resolve(live);
  let reopenDelayMs = REOPEN_MIN_MS;

  /**
   * Reopens the database on a new thread after `delayMs`, retrying with back-off until it opens;
   * connections wait for the attempt, and fail at once while the last attempt failed.
   */
  const reopen = (delayMs: number, reason: RestartReason): void => {
    const attempt = new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref()).then(() =>
      spawn(null),
    );
    current = attempt;
    attempt.then(
      (thread) => {
        if (closed) {
          void thread.worker.terminate();
          return;
        }
        live = thread;
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

  /** Ends `thread` (unless it is already replaced) and reopens the database on a new one. */
  function restart(thread: Thread, reason: RestartReason, cause?: unknown): void {
    if (thread !== live || closed) return;
    live = null;
    const error =
      reason === "statement_timeout"
        ? connectionError("57014", "canceling statement due to statement timeout")
        : connectionError("57P01", "terminating connection because the embedded database stopped");
    for (const stream of [...streams]) stream.destroy(error);
    if (reason === "statement_timeout") {
      log?.warn(
        {},
        "a statement ran past its statement_timeout: the embedded database's thread was stopped and the database reopened",
      );
    } else {
      log?.error({ err: cause }, "the embedded database's thread stopped; reopening the database");
    }
    thread.worker.removeAllListeners();
    // The data directory is opened again only once this thread can no longer write to it.
    const stopped = thread.worker.terminate();
    current = stopped.then(() => {
      reopen(0, reason);
      return current;
    });
    // Handled here: a connection that awaits it sees the failure itself.
    current.catch(() => {});
  }

  const watchdog = setInterval(() => {
    const thread = live;
    if (!thread) return;
    const since = Atomics.load(thread.state, StateSlot.busySince);
    const deadline = Atomics.load(thread.state, StateSlot.deadline);
    if (since !== 0n && deadline !== 0n && BigInt(Date.now()) > deadline) {
      restart(thread, "statement_timeout");
    }
  }, WATCHDOG_INTERVAL_MS);
  watchdog.unref();

  const post = (thread: Thread, message: HostMessage, transfer: MessagePort[]) =>
    thread.worker.postMessage(message, transfer);

  return {
    connect() {
      const stream: WireStream = new WireStream(
        async () => {
          if (closed) throw connectionError("57P01", "the embedded database is closed");
          const thread = await current;
          const channel = new MessageChannel();
          post(thread, { type: "connect", port: channel.port2 }, [channel.port2]);
          return channel.port1;
        },
        (gone) => streams.delete(gone),
      );
      streams.add(stream);
      return stream;
    },

    async migrations(op, dir, onProgress) {
      const thread = await current;
      const channel = new MessageChannel();
      const answer = new Promise<MigrationsReply>((resolve, reject) => {
        channel.port1.on("message", (message: MigrationsProgress | MigrationsReply) => {
          if ("progress" in message) onProgress?.(message.progress);
          else resolve(message);
        });
        channel.port1.once("close", () =>
          reject(new Error("the embedded database stopped while migrations ran")),
        );
      });
      post(thread, { type: "migrations", op, dir, reply: channel.port2 }, [channel.port2]);
      const reply = await answer;
      channel.port1.close();
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
      clearInterval(watchdog);
      for (const stream of [...streams]) stream.destroy();
      const thread = await current.catch(() => null);
      if (!thread) return;
      thread.worker.removeAllListeners();
      const done = new Promise<void>((resolve) => {
        thread.worker.on("message", (message: WorkerMessage) => {
          if (message.type === "closed") resolve();
        });
        thread.worker.once("exit", () => resolve());
        thread.worker.once("error", () => resolve());
      });
      post(thread, { type: "close" }, []);
      await done;
      await thread.worker.terminate();
    },
  };
}
