/**
 * The types of traces (./tracing.ts), apart so that the SDK module (./tracing-sdk.ts), which
 * implements them, and the module that loads it on demand do not import each other.
 */
import type { SpanProcessor } from "@opentelemetry/sdk-trace-node";
import type { Logger } from "pino";
import type { TracingSettings } from "../config.js";

/** A process's traces, once started. */
export interface Tracing {
  /** Where spans go, for the startup line: the OTLP URL, or `console`. */
  readonly destination: string;
  /** Sends OpenTelemetry's own warnings and errors (an export that failed) to `logger`. */
  logTo(logger: Logger): void;
  /** Exports every span ended so far; resolves once they are sent (or failed to be). */
  flush(): Promise<void>;
  /**
   * Stops tracing: the spans not yet sent are exported, waiting at most `timeoutMs` (ms) for the
   * collector, so a collector that does not answer cannot hold a graceful stop. Never rejects.
   */
  shutdown(timeoutMs: number): Promise<void>;
}

/** What traces are started with. */
export interface TracingOptions {
  /** Where spans go (`Config.tracing`); its `exporter` must not be null unless `spanProcessor` is given. */
  settings: TracingSettings;
  /**
   * Test-only: the one span processor spans go to instead of the configured exporter (e.g. a
   * `SimpleSpanProcessor` over an `InMemorySpanExporter`, which exports each span as it ends).
   */
  spanProcessor?: SpanProcessor;
}
