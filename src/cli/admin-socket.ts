/**
 * The admin socket: while `serve` holds an embedded data directory, no other process may open it,
 * so CLI commands that only need the running server's database (`bootstrap`, `keys create`) are
 * sent to the server over a Unix socket inside that directory and run there. The socket is created
 * owner-only (0600) in the data directory, so it grants nothing that reading the directory would not.
 *
 * A Unix socket's path is limited to 108 bytes on Linux (104 on macOS), which a deep data directory
 * exceeds. Such a path is then reached through the process's descriptor of the directory
 * (`/proc/self/fd/<fd>/.signalbox.sock`, Linux), which names the same file by a short path.
 */
import { closeSync, existsSync, openSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { DomainError } from "../core/errors.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import { type AdminCommand, type AdminResult, runAdminCommand } from "./admin-commands.js";

const SOCKET_NAME = ".signalbox.sock";

/** The longest socket path every platform takes (`sockaddr_un.sun_path` is 104 bytes on macOS, with its NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/** Path of the admin socket of a data directory (the file; see `withSocketAddress` for binding to it). */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, SOCKET_NAME);
}

/**
 * Runs `use` with an address that reaches the data directory's socket: its path, or, when that is too
 * long for a socket address, the same file through a descriptor of the directory (Linux `/proc`).
 * @throws Error when the path is too long and the platform has no `/proc/self/fd`.
 */
async function withSocketAddress<T>(dataDir: string, use: (address: string) => Promise<T>): Promise<T> {
  const direct = adminSocketPath(dataDir);
  if (Buffer.byteLength(direct) <= MAX_SOCKET_PATH_BYTES) return use(direct);
  if (!existsSync("/proc/self/fd")) {
    throw new Error(
      `The data directory path is too long for its admin socket (${direct}); use a shorter DATA_DIR.`,
    );
  }
  const fd = openSync(dataDir, "r");
  try {
    return await use(`/proc/self/fd/${fd}/${SOCKET_NAME}`);
  } finally {
    closeSync(fd);
  }
}

/** A command failed in the server; `message` is safe to print. */
export class AdminCommandError extends Error {}

/**
 * Listens on the data directory's admin socket and runs the commands sent to it against `db`.
 * Returns a function that stops listening and removes the socket.
 */
export async function listenAdminSocket(dataDir: string, db: PrismaClient): Promise<() => Promise<void>> {
  const socketPath = adminSocketPath(dataDir);
  // A socket file left by a process that died is stale: we hold the data-dir lock, so nobody serves it.
  await fs.rm(socketPath, { force: true });
  const server = http.createServer(async (request, response) => {
    let status = 200;
    let body: unknown;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      body = await runAdminCommand(db, JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdminCommand);
    } catch (error) {
      status = error instanceof DomainError ? error.httpStatus : 500;
      body = { error: error instanceof DomainError ? error.detail : "The server could not run the command." };
    }
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await withSocketAddress(
    dataDir,
    (address) =>
      new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(address, resolve);
      }),
  );
  await fs.chmod(socketPath, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(socketPath, { force: true });
  };
}

/**
 * Sends a command to the server holding `dataDir`; null when no server listens there.
 * @throws AdminCommandError with the server's message when the command fails.
 */
export function sendAdminCommand(dataDir: string, command: AdminCommand): Promise<AdminResult | null> {
  return withSocketAddress(dataDir, (socketPath) => request(socketPath, command));
}

/** Sends `command` over the socket at `socketPath`; null when nothing listens there. */
function request(socketPath: string, command: AdminCommand): Promise<AdminResult | null> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath,
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json" },
      },
      async (response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of response) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        if (response.statusCode === 200) resolve(body as AdminResult);
        else reject(new AdminCommandError(String(body.error)));
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(null);
      else reject(error);
    });
    request.end(JSON.stringify(command));
  });
}
