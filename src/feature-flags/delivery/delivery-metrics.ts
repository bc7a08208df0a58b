/**
 * Flag delivery's Prometheus metrics (src/core/metrics.ts's registry): requests by door, flags
 * evaluated by door, and the definitions cache. The door is `remote` (`/flags`, `/decide`), `ofrep`
 * (OpenFeature's OFREP) or `local` (the local-evaluation polls, 200 and 304 alike: SDKs evaluate
 * those themselves).
 */
import { BoundCounter, type CounterSeries } from "../../core/bound-metrics.js";
import { metricsRegistry } from "../../core/metrics.js";

/** Where an SDK's flags are delivered. */
export type FlagDoor = "remote" | "ofrep" | "local";

const requests = new BoundCounter({
  name: "signalbox_flag_requests_total",
  help: "Flag delivery requests answered, by door: remote (/flags, /decide), ofrep, local (definition polls).",
  labelNames: ["door"] as const,
  registers: [metricsRegistry],
});

const evaluations = new BoundCounter({
  name: "signalbox_flag_evaluations_total",
  help: "Flags evaluated for a subject on the server, by door (remote, ofrep).",
  labelNames: ["door"] as const,
  registers: [metricsRegistry],
});

const definitionsCache = new BoundCounter({
  name: "signalbox_flag_definitions_cache_total",
  help: "Reads of a project's flag definitions: hit (held at the revision asked for), miss (loaded).",
  labelNames: ["result"] as const,
  registers: [metricsRegistry],
});

/** `counter`'s series of each door, bound once: the polls count on the hot path without a label lookup. */
function seriesByDoor(counter: BoundCounter<"door">): Record<FlagDoor, CounterSeries<"door">> {
  return {
    remote: counter.series({ door: "remote" }),
    ofrep: counter.series({ door: "ofrep" }),
    local: counter.series({ door: "local" }),
  };
}
const byDoor = seriesByDoor(requests);
const evaluatedByDoor = seriesByDoor(evaluations);
const cacheHits = definitionsCache.series({ result: "hit" });
const cacheMisses = definitionsCache.series({ result: "miss" });

/** Counts one answered delivery request of `door`, which evaluated `evaluated` flags on the server. */
export function countFlagRequest(door: FlagDoor, evaluated = 0): void {
  byDoor[door].inc();
  if (evaluated > 0) evaluatedByDoor[door].inc(evaluated);
}

/** How many of an outcome's `results` were evaluated (a flag whose stored data could not be read was not). */
export function evaluatedCount(results: ReadonlyArray<{ evaluation: unknown }>): number {
  let count = 0;
  for (const result of results) if (result.evaluation !== null) count++;
  return count;
}

/** Counts one read of a project's definitions: `hit` when held at the revision, else a load. */
export function countDefinitionsRead(hit: boolean): void {
  (hit ? cacheHits : cacheMisses).inc();
}
