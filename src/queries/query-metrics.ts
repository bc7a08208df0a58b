/**
 * Query runs' Prometheus metrics (src/core/metrics.ts's registry): every run of the query service
 * (`/query/`, endpoint runs, experiment results, Trends) by kind and outcome: `ok`, or the code of
 * the error that ended it, which names the limit for a refusal (`max_time`, `max_memory`,
 * `too_complex` from the worker pool; `query_timeout`, `query_too_expensive` from the database;
 * `throttled` for the per-project cap) and the fault otherwise (`invalid_input`, ...). `error` for
 * a failure that is no domain error (a bug, the database gone).
 */
import { Counter, Histogram } from "prom-client";
import { DomainError } from "../core/errors.js";
import { metricsRegistry } from "../core/metrics.js";

const runs = new Counter({
  name: "signalbox_query_runs_total",
  help: "Query runs by kind and outcome: ok, or the error code (a refusal names its limit).",
  labelNames: ["kind", "outcome"] as const,
  registers: [metricsRegistry],
});

const duration = new Histogram({
  name: "signalbox_query_run_duration_seconds",
  help: "Time a query run took, in seconds, by kind.",
  labelNames: ["kind"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

/** The outcome label of a run that threw `error`. */
function outcomeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : "error";
}

/** Runs `run` (a query of `kind`), counting its outcome and time. Returns or throws what it does. */
export async function countedRun<T>(kind: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await run();
    runs.inc({ kind, outcome: "ok" });
    return result;
  } catch (error) {
    runs.inc({ kind, outcome: outcomeOf(error) });
    throw error;
  } finally {
    duration.observe({ kind }, (performance.now() - started) / 1000);
  }
}
