/**
 * The embedded database's own process: PGlite (PostgreSQL compiled to WebAssembly) runs here, never
 * in the process that serves requests, and listens on a Unix socket for PostgreSQL's wire protocol,
 * as a PostgreSQL server does. Its host (./pglite-host.ts) starts it; see ./process-protocol.ts.
 *
 * A process, not a thread: a statement past its `statement_timeout` is stopped by ending the
 * database's runtime, and only a process can be ended while WebAssembly runs in it, every time.
 * Node's `worker.terminate()` on a thread inside WebAssembly can crash the whole server or hang in
 * its teardown (nodejs/node#47748; seen on Node 24 in our CI); the kernel's SIGKILL cannot fail.
 *
 * PGlite has one session. Connections are served one at a time: a new one closes the previous one
 * and resets the session (a transaction left open is rolled back, then `DISCARD ALL` drops prepared
 * statements, settings and LISTENs), so each connection starts as a fresh PostgreSQL backend would.
 *
 * Every batch of complete wire messages runs synchronously (`execProtocolRawSync`), and before it
 * runs the main thread publishes, in memory its watchdog thread reads, when it began and when the
 * session's `statement_timeout` runs out. PGlite cannot enforce that timeout itself: PostgreSQL arms
 * it with a signal, and nothing can deliver a signal to WebAssembly that is running. The watchdog
 * reports a statement past its deadline to the host, which ends this process. The watchdog also ends
 * this process at once when its parent is gone (the server was killed): an orphan must not keep
 * writing to a data directory a restarted server opens.
 */
import net from "node:net";
import { Worker } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { applyMigrations, type MigrationProgress, migrationStatus } from "../migrations.js";
import {
  type HostMessage,
  type MigrationsReply,
  type ProcessInit,
  type ProcessMessage,
  REPORT_FD,
  STATE_SLOTS,
  STATEMENT_TIMEOUT_LINE,
  StateSlot,
} from "./process-protocol.js";

/** The PostgreSQL protocol version 3.0 code of a StartupMessage. */
const PROTOCOL_3 = 196_608;

/** The parts of PGlite's Emscripten module this thread calls (not in PGlite's typings). */
interface PostgresModule {
  stringToNewUTF8(text: string): number;
  UTF8ToString(pointer: number): string;
  /** PostgreSQL's `GetConfigOption(name, missing_ok, restrict_privileged)`: a setting as text. */
  _GetConfigOption(name: number, missingOk: number, restrictPrivileged: number): number;
}

/** How often the watchdog looks at the running statement and the parent (ms). */
const WATCHDOG_INTERVAL_MS = 100;

/**
 * The watchdog thread (plain JavaScript: it needs no module of ours). Every interval: a parent that
 * is gone ends the process (SIGKILL: nothing of it may run on); a statement past its deadline is
 * reported once on the report pipe, and the host ends the process.
 */
const WATCHDOG = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const state = new BigInt64Array(workerData.state);
let reported = 0n;
setInterval(() => {
  if (process.ppid !== workerData.parent) process.kill(process.pid, "SIGKILL");
  const since = Atomics.load(state, ${StateSlot.busySince});
  const deadline = Atomics.load(state, ${StateSlot.deadline});
  if (since !== 0n && deadline !== 0n && BigInt(Date.now()) > deadline && reported !== since) {
    reported = since;
    writeSync(${REPORT_FD}, ${JSON.stringify(STATEMENT_TIMEOUT_LINE)});
  }
}, ${WATCHDOG_INTERVAL_MS});
`;

const send = (message: ProcessMessage) => process.send?.(message);

/** The data-directory lock's owner socket, held open for as long as this process lives. */
const held: unknown[] = [];
process.on("message", (message: HostMessage | ProcessInit, handle: unknown) => {
  if (message.type === "lock") held.push(handle);
});
/** The host's first message. */
const init = await new Promise<ProcessInit>((resolve) => process.once("message", resolve));
// The server is gone (however it ended): end at once, without a checkpoint (crash recovery on the
// next open keeps every committed transaction), so that a restarted server can open the directory.
process.on("disconnect", () => process.exit(0));

const shared = new SharedArrayBuffer(STATE_SLOTS * BigInt64Array.BYTES_PER_ELEMENT);
const state = new BigInt64Array(shared);
new Worker(WATCHDOG, { eval: true, workerData: { state: shared, parent: process.ppid } }).unref();

const pglite = new PGlite(init.dataDir);
await pglite.waitReady;
const postgres = (pglite as unknown as { Module: PostgresModule }).Module;
const statementTimeoutName = postgres.stringToNewUTF8("statement_timeout");

/** The session's `statement_timeout` in ms (0: none), read from PostgreSQL itself (about 1 µs). */
function statementTimeoutMs(): number {
  const value = Number(postgres.UTF8ToString(postgres._GetConfigOption(statementTimeoutName, 1, 0)));
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/** Runs wire messages, publishing the statement's start and deadline for the host's watchdog. */
function execute(messages: Uint8Array): Uint8Array {
  const timeoutMs = statementTimeoutMs();
  const now = Date.now();
  Atomics.store(state, StateSlot.deadline, timeoutMs ? BigInt(now + timeoutMs) : 0n);
  Atomics.store(state, StateSlot.busySince, BigInt(now));
  try {
    return pglite.execProtocolRawSync(messages);
  } finally {
    Atomics.store(state, StateSlot.busySince, 0n);
  }
}

/** One connection: its socket and the bytes received that do not make a whole message yet. */
interface Connection {
  socket: net.Socket;
  pending: Uint8Array;
  started: boolean;
}

let current: Connection | null = null;
/** Whether a connection was ever served (the session then needs a reset for the next one). */
let used = false;
/** Set while migrations run on the session: wire messages wait for them. */
let migrating: Promise<void> | null = null;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** Length of the whole messages at the start of `bytes` (each: a type byte, then an int32 length). */
function wholeMessages(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = 0;
  while (bytes.length - end >= 5) {
    const length = 1 + view.getInt32(end + 1);
    if (length < 5 || bytes.length - end < length) break;
    end += length;
  }
  return end;
}

/** Runs what `connection` has received in whole messages and sends the answers back in one chunk. */
function serve(connection: Connection): void {
  const answers: Uint8Array[] = [];
  for (;;) {
    const bytes = connection.pending;
    if (!connection.started) {
      // The startup packet has no type byte: an int32 length, then the protocol version.
      if (bytes.length < 8) break;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const length = view.getInt32(0);
      if (view.getInt32(4) !== PROTOCOL_3) {
        // SSL, GSS and cancel requests: this server has none of them.
        connection.socket.destroy();
        return;
      }
      if (bytes.length < length) break;
      answers.push(pglite.execProtocolRawSync(bytes.slice(0, length)));
      connection.pending = bytes.slice(length);
      connection.started = true;
      continue;
    }
    const end = wholeMessages(bytes);
    if (end === 0) break;
    answers.push(execute(bytes.slice(0, end)));
    connection.pending = bytes.slice(end);
  }
  const answer = answers.reduce(concat, new Uint8Array(0));
  if (answer.length) connection.socket.write(answer);
}

/** Brings the session back to a new backend's state for the next connection. */
async function resetSession(): Promise<void> {
  if (pglite.isInTransaction()) await pglite.exec("ROLLBACK");
  await pglite.exec("DISCARD ALL");
}

async function connect(socket: net.Socket): Promise<void> {
  // Bytes that arrive while the previous session is reset wait in the socket.
  socket.pause();
  socket.on("error", () => socket.destroy());
  current?.socket.destroy();
  current = null;
  await migrating;
  if (used) await resetSession();
  used = true;
  const connection: Connection = { socket, pending: new Uint8Array(0), started: false };
  current = connection;
  socket.on("data", async (chunk: Buffer) => {
    if (migrating) await migrating;
    if (current !== connection) return;
    connection.pending = concat(connection.pending, chunk);
    try {
      serve(connection);
    } catch (error) {
      // PGlite itself failed (its runtime exited or trapped): its state cannot be trusted. Ending
      // the process makes the host reopen the database from its files.
      console.error("the embedded database failed:", error);
      process.exit(1);
    }
  });
  socket.on("close", () => {
    if (current === connection) current = null;
  });
  socket.resume();
}

async function runMigrations(id: number, op: "apply" | "status", dir: string | undefined) {
  let done: () => void = () => {};
  const previous = migrating;
  migrating = new Promise((resolve) => {
    done = resolve;
  });
  await previous;
  let answer: MigrationsReply;
  try {
    const target = { kind: "pglite" as const, pglite };
    const progress = (step: MigrationProgress) => send({ type: "migrations-progress", id, progress: step });
    const result =
      op === "apply" ? await applyMigrations(target, dir, progress) : await migrationStatus(target, dir);
    answer = { ok: true, result };
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    migrating = null;
    done();
  }
  send({ type: "migrations-reply", id, ...answer });
}

const server = net.createServer((socket) => void connect(socket));
await new Promise<void>((resolve, reject) => {
  server.once("error", reject);
  server.listen(init.socketPath, resolve);
});

process.on("message", (message: HostMessage) => {
  switch (message.type) {
    case "migrations":
      void runMigrations(message.id, message.op, message.dir);
      return;
    case "close":
      server.close();
      current?.socket.destroy();
      current = null;
      void (async () => {
        await migrating;
        await pglite.close();
        process.exit(0);
      })();
  }
});
send({ type: "ready" });
