/**
 * The embedded database in its own process (src/db/embedded/pglite-host.ts), as a server opens it:
 * a statement past its `statement_timeout` is stopped with PostgreSQL's timeout error and the
 * database reopened with every committed write; a statement without a timeout runs to its end;
 * while a statement runs, this thread's timers and the other connections' waits go on; migrations
 * run in the database's process. When the server is killed (idle, or while a statement runs), the
 * database's process ends at once and the directory opens again with every committed write.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirectoryLockedError } from "../../src/db/data-dir-lock.js";
import { type Database, openDatabase } from "../../src/db/database.js";
import { migrationStatus } from "../../src/db/migrations.js";
import { eventually } from "../support/eventually.js";
import { openEmbeddedTestDatabase } from "../support/server.js";

/** A statement that takes half a minute and more on PGlite: a count over 10^8 rows of a cross join. */
const SLOW = "SELECT count(*) FROM generate_series(1, 10000) a CROSS JOIN generate_series(1, 10000) b";

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openEmbeddedTestDatabase());
  await database.pool.query("CREATE TABLE kept (n int)");
});

afterAll(async () => {
  await database.close();
  await drop();
});

/** Runs `sql` in a transaction whose `statement_timeout` is `timeoutMs`; resolves to the error, if any. */
async function withTimeout(timeoutMs: number, sql: string): Promise<{ error: unknown }> {
  const client = await database.pool.connect();
  let error: unknown = null;
  try {
    await client.query("BEGIN");
    await client.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
    await client.query(sql);
    await client.query("COMMIT");
  } catch (caught) {
    error = caught;
  } finally {
    // A connection that failed is not given back to the pool.
    client.release(error ? (error as Error) : undefined);
  }
  return { error };
}

describe("the embedded database's process", () => {
  it("stops a statement past its statement_timeout with PostgreSQL's error, and keeps every committed write", async () => {
    await database.pool.query("INSERT INTO kept VALUES (1), (2)");
    const restarted = new Promise<void>((resolve) => {
      const unsubscribe = database.changes.subscribe((change) => {
        if (change.kind === "reset" && database.changes.live) {
          unsubscribe();
          resolve();
        }
      });
    });
    const { error } = await withTimeout(300, SLOW);
    expect(error).toMatchObject({
      code: "57014",
      message: "canceling statement due to statement timeout",
    });
    // Reopened, with what was committed before.
    const { rows } = await database.pool.query("SELECT count(*)::int AS n FROM kept");
    expect(rows).toEqual([{ n: 2 }]);
    await restarted;
    expect(database.changes.live).toBe(true);
  });

  it("lets a statement without a statement_timeout run to its end", async () => {
    const { rows } = await database.pool.query(
      "SELECT count(*)::int AS n FROM generate_series(1, 1500) a CROSS JOIN generate_series(1, 1500) b",
    );
    expect(rows).toEqual([{ n: 2_250_000 }]);
  });

  it("does not hold this thread while a statement runs: timers fire and other connections wait their turn", async () => {
    const order: string[] = [];
    const slow = withTimeout(2_000, SLOW).then((outcome) => {
      order.push("slow statement ended");
      return outcome;
    });
    // Ticks of this thread's event loop while the statement runs in the database's thread.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    order.push(`timers ran (${ticks > 5 ? "many" : ticks} ticks)`);
    clearInterval(ticker);
    // A second statement queues for the one connection and runs once the first is stopped.
    const next = database.pool.query("SELECT 1 AS one").then(() => order.push("next statement answered"));
    const { error } = await slow;
    await next;
    expect(error).toMatchObject({ code: "57014" });
    expect(order).toEqual(["timers ran (many ticks)", "slow statement ended", "next statement answered"]);
  });

  it("runs migrations in the database's own process", async () => {
    expect(await migrationStatus(database.migrationTarget)).toMatchObject({ pending: [], failed: [] });
  });
});

/** A server stand-in: opens the embedded database in `argv[1]`, commits a row, maybe starts `SLOW`, says "ready". */
const SERVER = `
import { openDatabase } from ${JSON.stringify(new URL("../../src/db/database.ts", import.meta.url).href)};
const database = await openDatabase({ kind: "embedded", dataDir: process.argv[1] });
await database.pool.query("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)");
if (process.argv[2] === "busy") database.pool.query(${JSON.stringify(SLOW)}).catch(() => {});
console.log("ready");
setInterval(() => {}, 60_000);
`;

/** The live (not zombie) children of process `pid` whose command line holds `name` (Linux's /proc). */
function childrenNamed(pid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== pid || state === "Z") continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(name)) found.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  return found;
}

/** Whether any thread of process `pid` still runs (a zombie's threads may still be ending). */
function running(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return !/^State:\s+Z/m.test(status) || !/^Threads:\s+1$/m.test(status);
  } catch {
    return false;
  }
}

/** Opens the embedded database in `dataDir` once the lock is free (the killed processes' sockets closed). */
async function reopen(dataDir: string): Promise<Database> {
  for (let tries = 0; ; tries++) {
    try {
      return await openDatabase({ kind: "embedded", dataDir });
    } catch (error) {
      if (!(error instanceof DataDirectoryLockedError) || tries >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe.skipIf(process.platform !== "linux")(
  "the embedded database's process when its server is killed",
  () => {
    for (const mode of ["idle", "busy"] as const) {
      it(`ends at once (server killed ${mode === "idle" ? "while idle" : "while a statement runs"}), and the directory opens again with every committed write`, async () => {
        const parent = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-orphan-"));
        const dataDir = path.join(parent, "data");
        const server = spawn(
          process.execPath,
          ["--import", "tsx", "--input-type=module", "-e", SERVER, dataDir, mode],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        try {
          await new Promise<void>((resolve, reject) => {
            server.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
            server.once("exit", (code) => reject(new Error(`the server stand-in exited (${code})`)));
          });
          const [database] = childrenNamed(server.pid as number, "pglite-process");
          expect(database, "the embedded database's process").toBeDefined();
          server.kill("SIGKILL");
          // Idle, it hears its parent go; in a statement, its watchdog sees it (every 100 ms).
          expect(await eventually(() => !running(database as number), 5_000)).toBe(true);
          const reopened = await reopen(dataDir);
          try {
            expect((await reopened.pool.query("SELECT n FROM kept")).rows).toEqual([{ n: 7 }]);
          } finally {
            await reopened.close();
          }
        } finally {
          server.kill("SIGKILL");
          await fs.rm(parent, { recursive: true, force: true });
        }
      }, 60_000);
    }
  },
);
