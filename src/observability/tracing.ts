/**
 * Traces (issue 28): OpenTelemetry spans of each HTTP request, of the SQL statements it runs and of
 * its GraphQL operations, sent over OTLP/HTTP. Off unless configured (`Config.tracing`, the standard
 * `OTEL_*` variables: src/config.ts); when off, nothing of OpenTelemetry is loaded, as this module
 * imports none of it: the SDK (./tracing-sdk.ts) is imported only when traces start.
 *
 * Instrumentation must hook `http`, `fastify` and `pg` before they are loaded, and under ESM a
 * module's static imports are loaded before its body runs: so `signalbox serve` starts tracing first
 * thing (src/main.ts awaits `startTracingForCommand`) and imports the server's modules after it,
 * dynamically. No extra Node flag (`--import`) is needed; ./tracing-sdk.ts explains the hook.
 */
import { loadConfig, type TracingSettings } from "../config.js";
import type { Tracing, TracingOptions } from "./types.js";

export type { Tracing, TracingOptions } from "./types.js";

/**
 * Starts traces: loads the OpenTelemetry SDK, hooks `http`, `fastify` and `pg` for every module
 * loaded from now on, and installs the request marks (src/core/tracing.ts). Once per process.
 * @throws Error when traces already started in this process, or `settings.exporter` is null
 *   without a `spanProcessor`.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const { startTracingSdk } = await import("./tracing-sdk.js");
  return startTracingSdk(options);
}

/**
 * What src/main.ts runs before it loads the server: starts traces when the command (`argv`, as
 * `process.argv`) is `serve` and the configuration in `env` turns them on; else null, having loaded
 * nothing. One-shot commands are never traced. A configuration that does not parse starts nothing:
 * the command reports it (exit code 3).
 */
export async function startTracingForCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | null> {
  if (argv[2] !== "serve") return null;
  let settings: TracingSettings;
  try {
    settings = loadConfig(env).tracing;
  } catch {
    return null;
  }
  return settings.exporter ? startTracing({ settings }) : null;
}
