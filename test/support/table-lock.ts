/**
 * A table held under an exclusive lock by a connection of its own (PostgreSQL only), so that a
 * query the server starts meanwhile waits: how tests hold a run in flight for as long as they need.
 */
import pg from "pg";
import { expect } from "vitest";

/** A held table lock (see `lockTable`). */
export interface TableLock {
  /** Resolves once at least one other statement of the database waits on a lock (up to 20 s). */
  waitForWaiter(): Promise<void>;
  /** Commits, letting the waiting statements go on, and closes the connection. */
  release(): Promise<void>;
}

/** Takes `ACCESS EXCLUSIVE` on `table` of the database at `databaseUrl`, in an open transaction. */
export async function lockTable(databaseUrl: string, table: string): Promise<TableLock> {
  const locker = new pg.Client({ connectionString: databaseUrl });
  await locker.connect();
  await locker.query("BEGIN");
  await locker.query(`LOCK TABLE ${pg.escapeIdentifier(table)} IN ACCESS EXCLUSIVE MODE`);
  let open = true;
  return {
    async waitForWaiter() {
      await expect
        .poll(
          async () => {
            const { rows } = await locker.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
            );
            return rows[0].n;
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBeGreaterThan(0);
    },
    async release() {
      if (!open) return;
      open = false;
      try {
        await locker.query("COMMIT");
      } finally {
        await locker.end();
      }
    },
  };
}
