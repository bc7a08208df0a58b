/**
 * What the embedded database's process (./pglite-process.ts) and its host in the server's process
 * (./pglite-host.ts) say to each other. Shared by both so that neither spells a message twice.
 *
 * - Over the IPC channel (`serialization: "advanced"`): the host sends `init` first and the process
 *   answers `ready` once its database is open and it listens; migrations are asked with `migrations`
 *   and answered with their progress and reply, by `id`; `close` ends it with a checkpoint (the process
 *   exits 0 once its database is closed).
 * - Connections are Unix socket connections to `ProcessInit.socketPath`, carrying PostgreSQL's wire
 *   protocol exactly as a connection to a PostgreSQL server does.
 * - The process's statement watchdog writes `STATEMENT_TIMEOUT_LINE` on the pipe at file descriptor
 *   `REPORT_FD` when a statement runs past its `statement_timeout`; the host then ends the process.
 */
import type { MigrationProgress } from "../schema-engine.js";

/** The process's file descriptor (stdio index) of the pipe its watchdog reports on. */
export const REPORT_FD = 4;

/** What the watchdog writes on `REPORT_FD` when a statement runs past its deadline. */
export const STATEMENT_TIMEOUT_LINE = "statement_timeout\n";

/** Data the process starts with (the first IPC message). */
export interface ProcessInit {
  type: "init";
  /** The PGlite data directory (created when absent). */
  dataDir: string;
  /** Where the process listens for connections (a Unix socket path, or a named pipe on Windows). */
  socketPath: string;
}

/** Host → process, after `init`. */
export type HostMessage =
  /**
   * Sent with the data-directory lock's owner socket as its handle (../data-dir-lock.ts): the
   * process keeps it open, so that the directory counts as locked while the process lives.
   */
  | { type: "lock" }
  /** Runs `op` of the migration runner (../migrations.ts) on the process's database; answered by `id`. */
  | { type: "migrations"; id: number; op: "apply" | "status"; dir: string | undefined }
  /** Closes the database cleanly (a checkpoint) and ends the process. */
  | { type: "close" };

/** Process → host. */
export type ProcessMessage =
  /** The database is open and the process listens on `socketPath`. */
  | { type: "ready" }
  /** A step of migrations `id`'s `apply`, sent before its reply. */
  | { type: "migrations-progress"; id: number; progress: MigrationProgress }
  /** The answer to migrations `id`. */
  | ({ type: "migrations-reply"; id: number } & MigrationsReply);

/** How migrations ended. */
export type MigrationsReply = { ok: true; result: unknown } | { ok: false; message: string };

/** The slots of the statement state the process's main thread and its watchdog share (BigInt64 each). */
export const StateSlot = {
  /** When the statement now running began (ms since the epoch); 0 while idle. */
  busySince: 0,
  /** When that statement's `statement_timeout` runs out (ms since the epoch); 0 when it has none. */
  deadline: 1,
} as const;

/** How many slots the statement state has. */
export const STATE_SLOTS = 2;
