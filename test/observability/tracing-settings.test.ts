/**
 * When traces are on (src/config.ts `TracingSettings`, from the standard `OTEL_*` variables), what
 * `signalbox config` shows of them, and that `startTracingForCommand` starts nothing unless `serve`
 * asks for traces (src/observability/tracing.ts).
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError, loadConfig } from "../../src/config.js";
import { settingRows } from "../../src/config-settings.js";
import { startTracingForCommand } from "../../src/observability/tracing.js";

const tracingOf = (env: Record<string, string>) => loadConfig(env).tracing;

describe("tracing settings", () => {
  it("are off with no OTEL variable", () => {
    expect(tracingOf({})).toEqual({ exporter: null, endpoint: null });
  });

  it("turn on with an OTLP endpoint, spans going to its /v1/traces", () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      exporter: "otlp",
      endpoint: "http://collector:4318/v1/traces",
    });
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/ingest",
      }),
    ).toEqual({ exporter: "otlp", endpoint: "https://traces.example/ingest" });
  });

  it("follow OTEL_TRACES_EXPORTER and OTEL_SDK_DISABLED over the endpoint", () => {
    expect(tracingOf({ OTEL_TRACES_EXPORTER: "otlp" })).toEqual({
      exporter: "otlp",
      endpoint: "http://localhost:4318/v1/traces",
    });
    expect(tracingOf({ OTEL_TRACES_EXPORTER: "console" })).toEqual({ exporter: "console", endpoint: null });
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingOf({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).exporter).toBeNull();
    expect(tracingOf({ ...endpoint, OTEL_SDK_DISABLED: "true" }).exporter).toBeNull();
    // An empty variable counts as unset, as every setting's.
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "" }).exporter).toBeNull();
  });

  it("refuse what they cannot use", () => {
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: "jaeger" })).toThrow(ConfigurationError);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector" })).toThrow(ConfigurationError);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: "2" })).toThrow(ConfigurationError);
  });

  it("show in `signalbox config` with the export headers and an endpoint's password masked", () => {
    const rows = settingRows({
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=secret-value",
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:hunter2@collector:4318",
    });
    const value = (name: string) => rows.find((row) => row.name === name)?.value;
    expect(value("OTEL_EXPORTER_OTLP_HEADERS")).toBe("[Redacted]");
    expect(value("OTEL_EXPORTER_OTLP_ENDPOINT")).toBe("https://user:[Redacted]@collector:4318");
    expect(value("OTEL_SERVICE_NAME")).toBeNull();
  });
});

describe("startTracingForCommand", () => {
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

  it("starts nothing for `serve` without OTEL variables, nor for another command with them", async () => {
    expect(await startTracingForCommand(["node", "main.js", "serve"], {})).toBeNull();
    expect(await startTracingForCommand(["node", "main.js", "migrate"], on)).toBeNull();
    expect(await startTracingForCommand(["node", "main.js", "bootstrap"], on)).toBeNull();
  });

  it("leaves a configuration that does not parse to the command, which reports it", async () => {
    expect(await startTracingForCommand(["node", "main.js", "serve"], { ...on, PORT: "nope" })).toBeNull();
  });
});
