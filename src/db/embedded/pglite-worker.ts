/**
 * The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs here, never
 * on the thread that serves requests, and speaks PostgreSQL's wire protocol to its host
 * (./pglite-host.ts) over a `MessagePort`, as a server would over a socket.
 *
 * PGlite has one session. Connections are served one at a time: a new one closes the previous one
 * and resets the session (a transaction left open is rolled back, then `DISCARD ALL` drops prepared
 * statements, settings and LISTENs), so each connection starts as a fresh PostgreSQL backend would.
 *
 * Every batch of complete wire messages runs synchronously (`execProtocolRawSync`), and before it
 * runs the thread publishes, in memory the host reads (`WorkerInit.state`), when it began and when
 * the session's `statement_timeout` runs out. PGlite cannot enforce that timeout itself: PostgreSQL
 * arms it with a signal, and nothing can deliver a signal to WebAssembly that is running. The host's
 * watchdog enforces it instead, by ending this thread (./pglite-host.ts).
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { applyMigrations, type MigrationProgress, migrationStatus } from "../migrations.js";
import {
  type HostMessage,
  type MigrationsProgress,
  type MigrationsReply,
  StateSlot,
  type WorkerInit,
  type WorkerMessage,
} from "./worker-protocol.js";

/** The PostgreSQL protocol version 3.0 code of a StartupMessage. */
const PROTOCOL_3 = 196_608;

/** The parts of PGlite's Emscripten module this thread calls (not in PGlite's typings). */
interface PostgresModule {
  stringToNewUTF8(text: string): number;
  UTF8ToString(pointer: number): string;
  /** PostgreSQL's `GetConfigOption(name, missing_ok, restrict_privileged)`: a setting as text. */
  _GetConfigOption(name: number, missingOk: number, restrictPrivileged: number): number;
}

const init = workerData as WorkerInit;
const port = parentPort as MessagePort;
const state = new BigInt64Array(init.state);

const pglite = new PGlite(
  init.dataDir,
  init.loadDataDir ? { loadDataDir: new Blob([init.loadDataDir as Uint8Array<ArrayBuffer>]) } : {},
);
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

/** One connection: its port and the bytes received that do not make a whole message yet. */
interface Connection {
  port: MessagePort;
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
        connection.port.close();
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
  if (answer.length) connection.port.postMessage(answer, [answer.buffer as ArrayBuffer]);
}

/** Brings the session back to a new backend's state for the next connection. */
async function resetSession(): Promise<void> {
  if (pglite.isInTransaction()) await pglite.exec("ROLLBACK");
  await pglite.exec("DISCARD ALL");
}

async function connect(connectionPort: MessagePort): Promise<void> {
  current?.port.close();
  current = null;
  await migrating;
  if (used) await resetSession();
  used = true;
  const connection: Connection = { port: connectionPort, pending: new Uint8Array(0), started: false };
  current = connection;
  connectionPort.on("message", async (chunk: Uint8Array) => {
    if (migrating) await migrating;
    if (current !== connection) return;
    connection.pending = concat(connection.pending, chunk);
    try {
      serve(connection);
    } catch (error) {
      // PGlite itself failed (its runtime exited or trapped): its state cannot be trusted. Ending
      // the thread makes the host reopen the database from its files.
      console.error("the embedded database failed:", error);
      process.exit(1);
    }
  });
  connectionPort.on("close", () => {
    if (current === connection) current = null;
  });
}

async function runMigrations(op: "apply" | "status", dir: string | undefined, reply: MessagePort) {
  let done: () => void = () => {};
  const previous = migrating;
  migrating = new Promise((resolve) => {
    done = resolve;
  });
  await previous;
  let answer: MigrationsReply;
  try {
    const target = { kind: "pglite" as const, pglite };
    const progress = (step: MigrationProgress) =>
      reply.postMessage({ progress: step } satisfies MigrationsProgress);
    const result =
      op === "apply" ? await applyMigrations(target, dir, progress) : await migrationStatus(target, dir);
    answer = { ok: true, result };
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    migrating = null;
    done();
  }
  reply.postMessage(answer);
  reply.close();
}

const send = (message: WorkerMessage) => port.postMessage(message);

port.on("message", (message: HostMessage) => {
  switch (message.type) {
    case "connect":
      void connect(message.port);
      return;
    case "migrations":
      void runMigrations(message.op, message.dir, message.reply);
      return;
    case "close":
      current?.port.close();
      current = null;
      void (async () => {
        await migrating;
        await pglite.close();
        send({ type: "closed" });
        port.close();
      })();
  }
});
send({ type: "ready" });
