/**
 * The lock that lets one process at a time open an embedded (PGlite) data directory, and lets a
 * restart after a crash (SIGKILL, OOM kill, power loss) proceed at once instead of waiting for the
 * lock to age.
 *
 * The lock is the file `.signalbox.lock`, whose JSON content names its owner (`LockOwner`). A lock
 * is taken by `link(2)`-ing a fully written private file to that name, which fails if the name
 * exists, so the content is never seen half written and two processes can never both create it.
 *
 * Whether an owner is alive, decided without timers:
 * 1. Before writing its record, every owner listens on a Unix socket of its own in the directory
 *    (`.signalbox.lock.<nonce>.sock`). The kernel closes it when the process dies, however it dies;
 *    a connection then fails with ECONNREFUSED, and the owner is dead. This works across PID
 *    namespaces (two containers sharing a volume on one machine) and is immune to PID reuse.
 * 2. Without that socket (its path would exceed the 103 bytes a Unix socket path may have, the
 *    platform has no Unix sockets, or someone deleted the file), the owner check of PostgreSQL's
 *    postmaster.pid, hardened against PID reuse: the owner is alive while a process with its pid
 *    exists, is not a zombie, and started at the recorded time (field 22 of /proc/<pid>/stat),
 *    on the same boot (/proc/sys/kernel/random/boot_id). Where /proc is missing (macOS) only the
 *    pid's existence is checked, so there a reused pid keeps a dead owner's lock until the
 *    process with that pid ends. That check cannot see into another PID namespace: containers
 *    that share a directory whose path is too long for the socket are not kept apart.
 *
 * Taking over a dead owner's lock is atomic: a taker first creates `.signalbox.lock.claim.<nonce
 * of the dead owner>` the same exclusive way (only one process can, and if that claimer dies, its
 * claim is taken over by the same rule, recursively), then checks the lock still names the dead
 * owner (nobody else may change it: the owner is dead and the claim is ours) and replaces it with
 * `rename(2)`. Racing restarters therefore never both win; the losers see a live owner and fail.
 *
 * A process that works on the directory for its owner (the embedded database's, src/db/embedded/)
 * holds the owner socket too, so the directory stays locked until both have ended.
 *
 * Locks are advisory among Signalbox processes on one machine's local filesystem; the directory
 * is not meant to be shared between machines. A lock directory left by versions that used
 * proper-lockfile (an empty directory at the same name, refreshed every 5 s) is honoured while
 * fresh and removed when older than 15 s, the rule those versions applied.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

const LOCK_FILE = ".signalbox.lock";

/** Longest Unix socket path every platform binds without truncating it (macOS: 104 bytes with the NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/** A connection to a live owner's socket succeeds at once; a probe that hangs this long counts as alive. */
const SOCKET_PROBE_TIMEOUT_MS = 2_000;

/** proper-lockfile's staleness rule as the previous versions configured it (15 s, refreshed every 5 s). */
const LEGACY_STALE_MS = 15_000;

/** A live process is replacing a dead owner's lock: wait this long between looks, this many times. */
const CLAIM_RETRY_MS = 20;
const CLAIM_RETRIES = 100;

const ownerSchema = z.object({
  pid: z.number().int().positive(),
  startTime: z.string().nullable(),
  bootId: z.string().nullable(),
  socket: z.string().nullable(),
  nonce: z.string().regex(/^[0-9a-f]{16}$/),
});

/** The owner of a lock or claim file, as stored in it (JSON). */
export type LockOwner = z.infer<typeof ownerSchema>;

/** What holds the lock file: a Signalbox owner, or the directory an older version's proper-lockfile made. */
type Holder = { kind: "owner"; owner: LockOwner } | { kind: "legacy"; fresh: boolean };

/** A second process tried to open an embedded data directory that a live process holds. */
export class DataDirectoryLockedError extends Error {
  constructor(dataDir: string, holderPid?: number) {
    super(
      `The data directory ${dataDir} is in use by another Signalbox process` +
        `${holderPid ? ` (pid ${holderPid})` : ""} (is 'signalbox serve' running?). ` +
        "The embedded database admits one process at a time: stop the server, run this command, then start " +
        "the server again; or use PostgreSQL (DATABASE_URL) for both.",
    );
    this.name = "DataDirectoryLockedError";
  }
}

/** Where a lock reports a takeover; pino's logger fits. */
export interface LockLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A held data-directory lock. */
export interface DataDirectoryLock {
  /**
   * The owner socket (null where none could be bound): a process this one starts to work on the
   * directory (the embedded database's) is handed it, so that the lock lives while either does.
   */
  ownerSocket: net.Server | null;
  /** Removes the lock file (when it is still ours) and closes the owner socket. */
  release(): Promise<void>;
}

/**
 * Takes the lock of `dataDir` (created if missing) for this process. A lock whose owner died is
 * taken over at once and reported through `log.warn` with the dead owner's pid (`deadPid`).
 * @throws DataDirectoryLockedError when a live process holds the directory.
 */
export async function lockDataDirectory(dataDir: string, log?: LockLogger): Promise<DataDirectoryLock> {
  await fs.mkdir(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, LOCK_FILE);
  const nonce = randomBytes(8).toString("hex");
  const socketName = `${LOCK_FILE}.${nonce}.sock`;
  const server = await listenOwnerSocket(path.join(dataDir, socketName));
  const stat = await readProcStat(process.pid);
  const me: LockOwner = {
    pid: process.pid,
    startTime: stat?.startTime ?? null,
    bootId: await readBootId(),
    socket: server ? socketName : null,
    nonce,
  };
  const closeSocket = () =>
    new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  try {
    for (let retry = 0; ; retry++) {
      const attempt = await tryAcquire(dataDir, lockFile, me);
      if (attempt.won) {
        if (attempt.previous) {
          await removeOwnerFiles(dataDir, attempt.previous);
          log?.warn(
            { dataDir, deadPid: attempt.previous.pid },
            "took over the data directory lock of a process that died",
          );
        }
        break;
      }
      // Someone holds a claim on a dead owner's lock: it is replacing it now; look again shortly.
      if (attempt.file !== lockFile && retry < CLAIM_RETRIES) {
        await sleep(CLAIM_RETRY_MS);
        continue;
      }
      throw new DataDirectoryLockedError(
        dataDir,
        attempt.holder.kind === "owner" ? attempt.holder.owner.pid : undefined,
      );
    }
  } catch (error) {
    await closeSocket();
    throw error;
  }
  return {
    ownerSocket: server,
    release: async () => {
      try {
        const holder = await readHolder(lockFile);
        if (holder?.kind === "owner" && holder.owner.nonce === me.nonce)
          await fs.rm(lockFile, { force: true });
      } finally {
        await closeSocket();
      }
    },
  };
}

type Attempt = { won: true; previous: LockOwner | null } | { won: false; file: string; holder: Holder };

/**
 * Makes `me` the owner of `file`, taking it over from a dead owner through a claim file (module
 * header). Loses to a live owner of `file`, or of the claim on its dead owner (then `file` is the claim).
 */
async function tryAcquire(dataDir: string, file: string, me: LockOwner): Promise<Attempt> {
  for (;;) {
    if (await createExclusive(dataDir, file, me)) return { won: true, previous: null };
    const holder = await readHolder(file);
    if (!holder) continue; // released between our link and our read: try again
    if (holder.kind === "legacy") {
      if (holder.fresh) return { won: false, file, holder };
      await removeLegacyLock(file);
      continue;
    }
    if (await ownerIsAlive(dataDir, holder.owner)) return { won: false, file, holder };
    const claim = path.join(dataDir, `${LOCK_FILE}.claim.${holder.owner.nonce}`);
    const claimed = await tryAcquire(dataDir, claim, me);
    if (!claimed.won) return claimed;
    if (claimed.previous) await removeOwnerFiles(dataDir, claimed.previous);
    try {
      const now = await readHolder(file);
      // Only the dead owner or the claim's holder (us) could change `file`: if it still names the dead
      // owner, it does until we replace it. If not, an earlier claimant replaced it, or the owner
      // released it before dying: start over.
      if (now?.kind === "owner" && now.owner.nonce === holder.owner.nonce) {
        await fs.rename(await writePrivateCopy(dataDir, me), file);
        return { won: true, previous: holder.owner };
      }
    } finally {
      await fs.rm(claim, { force: true });
    }
  }
}

/** Writes `me` to a file only `me` uses, ready to be linked or renamed into place; returns its path. */
async function writePrivateCopy(dataDir: string, me: LockOwner): Promise<string> {
  const file = path.join(dataDir, `${LOCK_FILE}.${me.nonce}.tmp`);
  await fs.writeFile(file, JSON.stringify(me), { mode: 0o600 });
  return file;
}

/** Creates `file` with `me` as its content unless it exists; true when created. */
async function createExclusive(dataDir: string, file: string, me: LockOwner): Promise<boolean> {
  const copy = await writePrivateCopy(dataDir, me);
  try {
    await fs.link(copy, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await fs.rm(copy, { force: true });
  }
}

/**
 * Reads who holds `file`; null when nobody does.
 * @throws Error when the file is not a Signalbox lock (the message says which file).
 */
async function readHolder(file: string): Promise<Holder | null> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code !== "EISDIR") throw error;
    const stat = await fs.stat(file).catch(() => null);
    return stat ? { kind: "legacy", fresh: Date.now() - stat.mtimeMs < LEGACY_STALE_MS } : null;
  }
  try {
    return { kind: "owner", owner: ownerSchema.parse(JSON.parse(text)) };
  } catch {
    throw foreignLockError(file);
  }
}

/** A lock file or directory that Signalbox did not write. */
function foreignLockError(file: string): Error {
  return new Error(`${file} is not a Signalbox lock; remove it if no Signalbox process uses this directory.`);
}

/**
 * Removes an older version's stale lock directory; `rmdir` never removes a file another process just
 * created in its place.
 * @throws Error when the directory is not empty (proper-lockfile's always is: it is not ours).
 */
async function removeLegacyLock(file: string): Promise<void> {
  try {
    await fs.rmdir(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTEMPTY") {
      throw foreignLockError(file);
    }
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
}

/** Removes what a dead owner left besides its records: its socket file and its private copy. */
async function removeOwnerFiles(dataDir: string, dead: LockOwner): Promise<void> {
  if (dead.socket) await fs.rm(path.join(dataDir, path.basename(dead.socket)), { force: true });
  await fs.rm(path.join(dataDir, `${LOCK_FILE}.${dead.nonce}.tmp`), { force: true });
}

/** Whether the owner of a record still lives: its socket first, else its pid (module header). */
async function ownerIsAlive(dataDir: string, owner: LockOwner): Promise<boolean> {
  if (owner.socket) {
    const answer = await probeSocket(path.join(dataDir, path.basename(owner.socket)));
    if (answer !== "missing") return answer === "listening";
  }
  return processIsAlive(owner);
}

/** Listens on the owner socket at `file`; null when no socket can be bound there (module header). */
async function listenOwnerSocket(file: string): Promise<net.Server | null> {
  // Node truncates a longer path silently, which would bind somewhere else: never try.
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) return null;
  const server = net.createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(file, resolve);
    });
  } catch {
    return null; // no Unix sockets here (a filesystem or platform without them): the pid check decides
  }
  server.unref(); // the lock must not keep a one-shot command alive
  return server;
}

/** Connects to an owner socket: `refused` only when the file is there and nothing listens. */
function probeSocket(file: string): Promise<"listening" | "refused" | "missing"> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: file });
    const done = (answer: "listening" | "refused" | "missing") => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(SOCKET_PROBE_TIMEOUT_MS, () => done("listening"));
    socket.once("connect", () => done("listening"));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      // Anything but these two (EACCES, EAGAIN on a full backlog) means someone is there: keep the lock.
      done(error.code === "ECONNREFUSED" ? "refused" : error.code === "ENOENT" ? "missing" : "listening");
    });
  });
}

/** The pid check (module header): same boot, pid exists and is no zombie, same start time where known. */
async function processIsAlive(owner: LockOwner): Promise<boolean> {
  const bootId = await readBootId();
  if (owner.bootId && bootId && owner.bootId !== bootId) return false; // the machine restarted since
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    // EPERM: the pid exists under another user.
  }
  if (!owner.startTime) return true;
  const stat = await readProcStat(owner.pid);
  return stat !== null && !"ZX".includes(stat.state) && stat.startTime === owner.startTime;
}

/** State and start time (clock ticks since boot) of a process from /proc; null without /proc or process. */
async function readProcStat(pid: number): Promise<{ state: string; startTime: string } | null> {
  const text = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (text === null) return null;
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count fields after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19]; // field 22 of proc(5), the third after ")" being field 3
  return state && startTime ? { state, startTime } : null;
}

/** This boot's id; null without /proc. */
async function readBootId(): Promise<string | null> {
  const text = await fs.readFile("/proc/sys/kernel/random/boot_id", "utf8").catch(() => null);
  return text?.trim() || null;
}
