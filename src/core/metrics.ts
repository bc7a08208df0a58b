/**
 * The process's Prometheus metrics (prom-client), served at `/metrics` (src/app.ts): one registry
 * for the process, on which every module defines its own metrics where the thing it counts happens
 * (`metricsRegistry`), as prom-client's metrics are meant to be declared. Core defines the ones that
 * belong to no domain: HTTP requests by route template, method and status with their latency
 * (`observeHttpRequest`), the event loop's utilisation, and Node's process metrics (prom-client's
 * `collectDefaultMetrics`: CPU, memory, heap, handles, GC, event-loop lag), started once per process
 * (`startProcessMetrics`).
 *
 * Names follow Prometheus's conventions: base units (seconds, bytes), `_total` on counters, the
 * `signalbox_` prefix on ours. Label values are bounded: route templates (never raw URLs), methods,
 * status codes, the names of our own jobs and limits.
 */
import { performance } from "node:perf_hooks";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { BoundCounter, BoundHistogram, type CounterSeries, type HistogramSeries } from "./bound-metrics.js";

/** The registry every module's metrics are defined on. */
export const metricsRegistry = new Registry();

/** The content type of the exposition (`GET /metrics`), Prometheus's text format 0.0.4. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** The route label of a request that matched no route (a 404): raw URLs never become labels. */
export const UNMATCHED_ROUTE = "unmatched";

const httpRequests = new BoundCounter({
  name: "signalbox_http_requests_total",
  help: "HTTP requests answered, by route template, method and status code.",
  labelNames: ["route", "method", "status"] as const,
  registers: [metricsRegistry],
});

const httpDuration = new BoundHistogram({
  name: "signalbox_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, in seconds, by route template, method and status code.",
  labelNames: ["route", "method", "status"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/**
 * The series of each route, method and status seen (route templates and status codes are few), by
 * `method status route`: a request counts without building its labels, on the path SDKs poll.
 */
const httpSeries = new Map<string, { requests: CounterSeries; duration: HistogramSeries }>();

/**
 * Counts one answered request and its latency. `route` is the route's template (`/api/projects/:project_id/feature_flags/`),
 * `UNMATCHED_ROUTE` for none; `durationMs` in ms.
 */
export function observeHttpRequest(route: string, method: string, status: number, durationMs: number): void {
  const key = `${method} ${status} ${route}`;
  let series = httpSeries.get(key);
  if (!series) {
    const labels = { route, method, status: String(status) };
    series = { requests: httpRequests.series(labels), duration: httpDuration.series(labels) };
    httpSeries.set(key, series);
  }
  series.requests.inc();
  series.duration.observe(durationMs / 1000);
}

let processMetricsStarted = false;

/**
 * Starts the process-wide metrics once (later calls do nothing): Node's default metrics with the
 * `signalbox_` prefix left off (their conventional names: `process_cpu_seconds_total`,
 * `nodejs_eventloop_lag_seconds`, ...), and `nodejs_eventloop_utilization_ratio`, the share of
 * time the event loop was busy since the previous scrape (0 to 1).
 */
export function startProcessMetrics(): void {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  collectDefaultMetrics({ register: metricsRegistry });
  let last = performance.eventLoopUtilization();
  new Gauge({
    name: "nodejs_eventloop_utilization_ratio",
    help: "Share of time the event loop was busy (0 to 1) since the previous scrape.",
    registers: [metricsRegistry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });
}

/** How `runMetrics` names, explains and buckets one kind of run. */
export interface RunMetricsOptions {
  /** The runs' name in the metrics' names: `signalbox_<subject>_runs_total`, `signalbox_<subject>_run_duration_seconds`. */
  subject: string;
  /** The label that says which run (`job`, `kind`); the counter adds `outcome`. */
  label: string;
  /** The counter's and the histogram's help texts. */
  runsHelp: string;
  durationHelp: string;
  /** The histogram's buckets, in seconds. */
  buckets: number[];
  /** The outcome label of a run that threw `error` (one that returned is `ok`). */
  outcomeOf(error: unknown): string;
}

/**
 * A counter of runs by `label` and outcome, and a histogram of their time by `label`, defined on the
 * registry; returns the function that runs `run` under `value` and counts it. That function returns
 * or throws what `run` does.
 */
export function runMetrics(
  options: RunMetricsOptions,
): <T>(value: string, run: () => Promise<T>) => Promise<T> {
  const runs = new Counter({
    name: `signalbox_${options.subject}_runs_total`,
    help: options.runsHelp,
    labelNames: [options.label, "outcome"],
    registers: [metricsRegistry],
  });
  const duration = new Histogram({
    name: `signalbox_${options.subject}_run_duration_seconds`,
    help: options.durationHelp,
    labelNames: [options.label],
    buckets: options.buckets,
    registers: [metricsRegistry],
  });
  return async (value, run) => {
    const started = performance.now();
    try {
      const result = await run();
      runs.labels(value, "ok").inc();
      return result;
    } catch (error) {
      runs.labels(value, options.outcomeOf(error)).inc();
      throw error;
    } finally {
      duration.labels(value).observe((performance.now() - started) / 1000);
    }
  };
}

/** The exposition of every metric, in Prometheus's text format (`METRICS_CONTENT_TYPE`). */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}
