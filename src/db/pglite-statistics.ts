/**
 * Planner statistics for the embedded database. PostgreSQL's autovacuum daemon ANALYZEs a table as
 * it changes; PGlite runs no background workers, so without this a table is never analyzed and the
 * planner estimates from nothing. Seen on capture's person lookup: 100 distinct ids looked up key by
 * key scanned a whole project (49 ms at 2,000 rows per key), 2.9 ms after one ANALYZE.
 * `ANALYZE` samples at most 30,000 rows per table (PostgreSQL's default statistics target), so a
 * run costs milliseconds on a small database and well under a second on a large one; it waits for
 * any open transaction (PGlite runs one statement or transaction at a time) and holds the one
 * connection while it runs.
 */
/** How often the embedded database refreshes its statistics (ms). */
export const PGLITE_ANALYZE_INTERVAL_MS = 10 * 60_000;

/**
 * Runs `analyze` (the caller's `ANALYZE` on the embedded database) every `intervalMs`, in the
 * background (the timer keeps no process alive), one run at a time; a failed run is reported to
 * `onError` and the next one still runs. Returns the function that stops it and waits for a run in
 * progress.
 */
export function keepStatisticsFresh(
  analyze: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => analyze().then(() => undefined, onError));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
