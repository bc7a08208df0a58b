/**
 * The database pool's Prometheus metrics (src/core/metrics.ts's registry), read when scraped from
 * node-postgres's pool (both backends go through one: src/db/database.ts): its connections open and idle,
 * the requests waiting for one, and the pool's size limit.
 */
import type pg from "pg";
import { Gauge } from "prom-client";
import { metricsRegistry } from "./metrics.js";

/** The pools a scrape reads (one per app; tests run several in one process). */
const pools = new Set<pg.Pool>();

new Gauge({
  name: "signalbox_db_pool_connections",
  help: "Database pool connections by state: open, idle, waiting (requests waiting for a connection), max (the limit).",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const pool of pools) {
      this.inc({ state: "open" }, pool.totalCount);
      this.inc({ state: "idle" }, pool.idleCount);
      this.inc({ state: "waiting" }, pool.waitingCount);
      this.inc({ state: "max" }, pool.options.max ?? 10);
    }
  },
});

/** Reads `pool` on each scrape until the returned function is called. */
export function watchPool(pool: pg.Pool): () => void {
  pools.add(pool);
  return () => pools.delete(pool);
}
