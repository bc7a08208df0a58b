/**
 * What the embedded database's thread (./pglite-worker.ts) and its host on the server's thread
 * (./pglite-host.ts) say to each other. Shared by both so that neither spells a message twice.
 *
 * - The host starts the worker with `WorkerInit` (transferred once).
 * - Each connection is a `MessagePort` handed over with `{type: "connect"}`; on it flow PostgreSQL
 *   wire-protocol bytes both ways (Uint8Array chunks), exactly what a socket to a server carries.
 * - Migrations are asked with `{type: "migrations"}` and answered on the port that came with them
 *   (after `apply`'s progress, on the same port).
 * - `state` is memory both threads see: the worker writes when it began the statement it is running
 *   and the deadline `statement_timeout` gives it; the host's watchdog reads them (see the host).
 */
import type { MessagePort } from "node:worker_threads";
import type { MigrationProgress } from "../schema-engine.js";

/** Data the worker starts with. */
export interface WorkerInit {
  /** The PGlite data directory (created when absent). */
  dataDir: string;
  /** A PGlite data-directory tarball (`dumpDataDir`) to load into a new, empty `dataDir`; null to open it as it is. */
  loadDataDir: Uint8Array | null;
  /** `STATE_SLOTS` BigInt64 slots (see `StateSlot`). */
  state: SharedArrayBuffer;
}

/** The slots of `WorkerInit.state`, each a BigInt64 written with `Atomics.store`. */
export const StateSlot = {
  /** When the statement now running began (ms since the epoch); 0 while idle. */
  busySince: 0,
  /** When that statement's `statement_timeout` runs out (ms since the epoch); 0 when it has none. */
  deadline: 1,
} as const;

/** How many slots `state` has. */
export const STATE_SLOTS = 2;

/** Host → worker. */
export type HostMessage =
  /** A new connection: the previous one (if any) is closed and the session reset. */
  | { type: "connect"; port: MessagePort }
  /** Runs `op` of the migration runner (../migrations.ts) on the worker's database; answers on `reply`. */
  | { type: "migrations"; op: "apply" | "status"; dir: string | undefined; reply: MessagePort }
  /** Closes the database cleanly (a checkpoint) and ends the thread. */
  | { type: "close" };

/** Worker → host. */
export type WorkerMessage =
  /** The database is open and serves connections. */
  | { type: "ready" }
  /** The database is closed (answer to `close`). */
  | { type: "closed" };

/** An answer on a `migrations` reply port. */
export type MigrationsReply = { ok: true; result: unknown } | { ok: false; message: string };

/** A step of `apply`, sent on its reply port before the answer. */
export interface MigrationsProgress {
  progress: MigrationProgress;
}
