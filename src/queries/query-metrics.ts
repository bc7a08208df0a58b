/**
 * Query runs' Prometheus metrics (src/core/metrics.ts's registry): every run of the query service
 * (`/query/`, endpoint runs, experiment results, Trends) by kind and outcome: `ok`, or the code of
 * the error that ended it, which names the limit for a refusal (`max_time`, `max_memory`,
 * `too_complex` from the worker pool; `query_timeout`, `query_too_expensive` from the database;
 * `throttled` for the per-project cap) and the fault otherwise (`invalid_input`, ...). `error` for
 * a failure that is no domain error (a bug, the database gone).
 */
import { DomainError } from "../core/errors.js";
import { runMetrics } from "../core/metrics.js";

/** Runs `run` (a query of `kind`), counting its outcome and time. Returns or throws what it does. */
export const countedRun = runMetrics({
  subject: "query",
  label: "kind",
  runsHelp: "Query runs by kind and outcome: ok, or the error code (a refusal names its limit).",
  durationHelp: "Time a query run took, in seconds, by kind.",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  outcomeOf: (error) => (error instanceof DomainError ? error.code : "error"),
});
