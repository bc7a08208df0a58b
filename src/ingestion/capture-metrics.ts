/**
 * Capture's Prometheus metrics (src/core/metrics.ts's registry): events received on the capture
 * paths, by outcome: `stored`, or `dropped` (by the pipeline's rules, rules/dropped-events.ts, or as
 * a repeat of a stored event's uuid). Requests refused whole (a bad body, a rate limit) are counted
 * by the HTTP metrics with their status.
 */
import { BoundCounter } from "../core/bound-metrics.js";
import { metricsRegistry } from "../core/metrics.js";

const events = new BoundCounter({
  name: "signalbox_capture_events_total",
  help: "Events received by capture, by outcome: stored, or dropped (pipeline rules, repeated uuids).",
  labelNames: ["outcome"] as const,
  registers: [metricsRegistry],
});
const stored = events.series({ outcome: "stored" });
const dropped = events.series({ outcome: "dropped" });

/** Counts a capture request's `received` events, `storedCount` of which were stored. */
export function countCapturedEvents(received: number, storedCount: number): void {
  stored.inc(storedCount);
  dropped.inc(received - storedCount);
}
