/**
 * The job queue's Prometheus metrics (src/core/metrics.ts's registry): runs by job and outcome
 * (`ok`, `failed`) with their time, and the queue's depth by state (`JobQueue.counts`, read when
 * scraped, of every process on PostgreSQL).
 */
import { Gauge } from "prom-client";
import { metricsRegistry, runMetrics } from "../metrics.js";
import type { JobDefinition, JobQueue } from "./jobs.js";

/** Runs a job's handler under its name, counting its outcome (`ok`, `failed`) and time. */
const countedRun = runMetrics({
  subject: "job",
  label: "job",
  runsHelp: "Job runs in this process, by job and outcome (ok, failed: retried or given up).",
  durationHelp: "Time a job run took in this process, in seconds, by job.",
  buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300],
  outcomeOf: () => "failed",
});

/** The queues whose depth a scrape reads (one per app; tests run several in one process). */
const queues = new Set<JobQueue>();

new Gauge({
  name: "signalbox_job_queue_jobs",
  help: "Jobs in the queue by state: due (waiting, time come), scheduled (waiting for a later time), running.",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    const all = await Promise.all([...queues].map((queue) => queue.counts().catch(() => null)));
    for (const counts of all) {
      if (!counts) continue;
      for (const state of ["due", "scheduled", "running"] as const) this.inc({ state }, counts[state]);
    }
  },
});

/** `definition` with its runs counted and timed. */
export function countedJob<P>(definition: JobDefinition<P>): JobDefinition<P> {
  const { name, handler } = definition;
  return {
    ...definition,
    handler: (payload, run) => countedRun(name, () => handler(payload, run)),
  };
}

/** Reads `queue`'s depth on each scrape until it stops (the returned function). */
export function watchQueueDepth(queue: JobQueue): () => void {
  queues.add(queue);
  return () => queues.delete(queue);
}
