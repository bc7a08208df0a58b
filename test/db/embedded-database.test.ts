/**
 * The embedded database on its own thread (src/db/embedded/pglite-host.ts), as a server opens it:
 * a statement past its `statement_timeout` is stopped with PostgreSQL's timeout error and the
 * database reopened with every committed write; a statement without a timeout runs to its end;
 * while a statement runs, this thread's timers and the other connections' waits go on; migrations
 * run on the database's thread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.js";
import { migrationStatus } from "../../src/db/migrations.js";
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

describe("the embedded database's thread", () => {
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

  it("runs migrations on the database's own thread", async () => {
    expect(await migrationStatus(database.migrationTarget)).toMatchObject({ pending: [], failed: [] });
  });
});
