/**
 * The OpenTelemetry SDK as `signalbox serve` runs it; imported only when traces start (./tracing.ts),
 * so a process without traces never loads this module or any `@opentelemetry` package.
 *
 * What is traced, for each HTTP request (the probes and scrapes `/healthz`, `/readyz`, `/metrics`
 * excepted, statements included):
 * - one SERVER span (`@opentelemetry/instrumentation-http`), named by method and route template
 *   (`GET /api/projects/:project_id/feature_flags/:id/`, never the raw URL) with `http.route`,
 *   `http.response.status_code` and, when the request names a project, `signalbox.project_id`
 *   (src/core/tracing.ts). Credentials in the query string are redacted from `url.query`;
 * - under it fastify's `request` span (`@fastify/otel`, the Fastify team's instrumentation, which
 *   the OpenTelemetry project recommends now that `@opentelemetry/instrumentation-fastify` is
 *   deprecated; it needs no module patching, only fastify's `fastify.initialization` diagnostics
 *   channel), without its per-hook and handler spans;
 * - a CLIENT span per SQL statement (`@opentelemetry/instrumentation-pg`), its text in
 *   `db.query.text` and never its bound values (`enhancedDatabaseReporting` false), and one per
 *   pool checkout (`pg-pool.connect`, the wait for a connection). Statements outside a request
 *   (the job queue, the change feed) are not traced;
 * - a span per GraphQL operation (`@envelop/opentelemetry`, `query.Name`), with its document
 *   unless the document holds literal values; never its variables or result.
 * Attribute values are cut at `DEFAULT_ATTRIBUTE_VALUE_LENGTH` characters unless
 * `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` or `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` says otherwise.
 * Spans go in batches (`OTEL_BSP_*`) to the OTLP/HTTP exporter, which reads its endpoint, headers
 * and timeout from the standard variables, as the sampler and the resource (`OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`) are read: `service.name` is `signalbox` unless they say otherwise.
 *
 * ESM: instrumentations patch a module when it is loaded. CommonJS `require`s are seen through
 * require-in-the-middle (fastify's `require("node:http")`, pg's `require("pg-pool")`), but the
 * service's own ES modules import `pg` and `node:http` through Node's ESM loader, which only a
 * loader hook sees: import-in-the-middle's, registered here with `module.register` (no `--import`
 * flag), limited to the modules the instrumentations ask for (`createAddHookMessageChannel`), and
 * acknowledged by the loader thread before `startTracingSdk` returns. It applies to modules loaded
 * after that, which is why src/main.ts loads the server only then.
 */
import { register } from "node:module";
import { useOpenTelemetry } from "@envelop/opentelemetry";
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { context, type DiagLogger, DiagLogLevel, diag, type Span, SpanKind, trace } from "@opentelemetry/api";
import { getRPCMetadata, RPCType } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { createAddHookMessageChannel } from "import-in-the-middle";
import type { Logger } from "pino";
import { installRequestTracing } from "../core/tracing.js";
import { buildInfo } from "../version.js";
import type { Tracing, TracingOptions } from "./types.js";

/** The attribute holding the project a request names (src/core/tracing.ts). */
export const PROJECT_ID_ATTRIBUTE = "signalbox.project_id";

/**
 * Longest attribute value kept, in characters, unless the standard variables set one: a statement
 * HogQL printed may reach `HOGQL_MAX_PRINTED_BYTES` (1 MiB), which no span should carry whole.
 */
export const DEFAULT_ATTRIBUTE_VALUE_LENGTH = 8192;

/** Paths whose requests are not traced: probes and scrapes, every few seconds (src/app.ts `QUIET_PATHS`). */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Query parameters whose values are credentials (compared in lower case), as src/core/logger.ts
 * redacts them from logged URLs; values shaped like this service's keys are redacted whatever their name.
 */
const SECRET_PARAMETERS: ReadonlySet<string> = new Set(["personal_api_key", "api_key", "token", "secret"]);
const SECRET_VALUE = /(?:phx|pha|phc|whsec)_/;

/** What a redacted value reads as. */
const REDACTED = "REDACTED";

/**
 * `query` (a URL's query string, without `?`) with each credential's value replaced by `REDACTED`:
 * parameters named as `SECRET_PARAMETERS` (any case), and values that look like a key.
 */
export function redactedQuery(query: string): string {
  const params = new URLSearchParams(query);
  const redacted = new URLSearchParams();
  for (const [name, value] of params) {
    const secret = SECRET_PARAMETERS.has(name.toLowerCase()) || SECRET_VALUE.test(value);
    redacted.append(name, secret ? REDACTED : value);
  }
  return redacted.toString();
}

/**
 * The operation of SQL `text`, its first keyword in upper case (`SELECT`, `INSERT`, `WITH`, `BEGIN`),
 * leading comments skipped; `QUERY` when it has none.
 */
export function statementOperation(text: string): string {
  const match = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/.exec(text);
  return match ? match[1]!.toUpperCase() : "QUERY";
}

/** The path of a request target (`/a/b?c` → `/a/b`). */
function pathOf(url: string | undefined): string {
  const target = url ?? "/";
  const mark = target.indexOf("?");
  return mark === -1 ? target : target.slice(0, mark);
}

/** The server span of the request running now (the HTTP instrumentation's), if any. */
function requestSpan(): Span | undefined {
  const rpc = getRPCMetadata(context.active());
  return rpc?.type === RPCType.HTTP ? rpc.span : undefined;
}

/** Waits for the ESM loader hook's acknowledgement once registered (see the module comment); once a process. */
let esmHook: { acknowledged: () => Promise<void> } | null = null;

/**
 * Registers import-in-the-middle's loader hook for the modules instrumentations name from now on.
 * Node ≥ 20.6 (`module.register`).
 */
function registerEsmHook(): { acknowledged: () => Promise<void> } {
  if (esmHook) return esmHook;
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
  esmHook = { acknowledged: waitForAllMessagesAcknowledged };
  return esmHook;
}

let started = false;

/**
 * Starts traces (./tracing.ts `startTracing`, which documents it).
 * @throws Error when traces already started in this process, or there is no exporter nor `spanProcessor`.
 */
export async function startTracingSdk(options: TracingOptions): Promise<Tracing> {
  if (started) throw new Error("traces already started in this process");
  const { settings, spanProcessor } = options;
  if (!spanProcessor && !settings.exporter) throw new Error("traces are off: no exporter is configured");
  started = true;
  const hook = registerEsmHook();

  const processor: SpanProcessor =
    spanProcessor ??
    new BatchSpanProcessor(
      settings.exporter === "console" ? new ConsoleSpanExporter() : new OTLPTraceExporter(),
    );
  const lengthSet =
    process.env["OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"] || process.env["OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"];
  const provider = new NodeTracerProvider({
    // The defaults, under what the standard variables say (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
    resource: resourceFromAttributes({
      "service.name": "signalbox",
      "service.version": buildInfo().version,
    }).merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [processor],
    ...(lengthSet ? {} : { spanLimits: { attributeValueLengthLimit: DEFAULT_ATTRIBUTE_VALUE_LENGTH } }),
  });
  provider.register();

  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(pathOf(request.url)),
        startIncomingSpanHook: (request) => {
          const mark = request.url?.indexOf("?") ?? -1;
          return mark === -1 ? {} : { "url.query": redactedQuery(request.url!.slice(mark + 1)) };
        },
        // Outgoing calls (webhook deliveries) happen in jobs: traced only within a traced request.
        requireParentforOutgoingSpans: true,
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        instrumentHandler: false,
        // Its `url.path` is fastify's `request.url`, query string included: the path alone.
        requestHook: (span, request) => span.setAttribute("url.path", pathOf(request.url)),
      }),
      new PgInstrumentation({
        enhancedDatabaseReporting: false,
        requireParentSpan: true,
        // Not `ignoreConnectSpans`: the checkout's span is also what binds pg-pool's callback to the
        // request (`pool.query` checks out with a callback, which a full pool runs when another
        // request releases its client), so without it a statement could land in the wrong trace.
        // A prepared statement's span is named by its plan (`pg.query:sbx_12`, src/db/statement-names.ts):
        // by its operation instead, as an unnamed one is (`pg.query:SELECT <database>`).
        requestHook: (span, { query, connection }) =>
          span.updateName(
            `pg.query:${statementOperation(query.text)} ${connection.database ?? ""}`.trimEnd(),
          ),
      }),
    ],
  });
  // The loader thread has the modules to hook before anything imports them.
  await hook.acknowledged();

  const tagged = new WeakSet<Span>();
  installRequestTracing({
    projectNamed(projectId) {
      const span = requestSpan() ?? trace.getActiveSpan();
      if (!span || tagged.has(span)) return;
      tagged.add(span);
      span.setAttribute(PROJECT_ID_ATTRIBUTE, projectId);
    },
    routeMatched(template) {
      const rpc = getRPCMetadata(context.active());
      if (rpc?.type === RPCType.HTTP) rpc.route = template;
    },
    graphqlPlugins: () => [
      useOpenTelemetry(
        { resolvers: false, variables: false, result: false },
        provider,
        SpanKind.INTERNAL,
        {},
        "@envelop/opentelemetry",
      ),
    ],
  });

  return {
    destination: spanProcessor
      ? "the given span processor"
      : settings.exporter === "otlp"
        ? (settings.endpoint ?? "otlp")
        : "console",
    logTo(logger: Logger) {
      diag.setLogger(diagLogger(logger), DiagLogLevel.WARN);
    },
    flush: () => provider.forceFlush(),
    async shutdown(timeoutMs: number) {
      installRequestTracing(null);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch(() => undefined), timeout]);
      clearTimeout(timer);
    },
  };
}

/** OpenTelemetry's diagnostics (`diag`) as lines of `logger`, at warn and error only. */
function diagLogger(logger: Logger): DiagLogger {
  const log = logger.child({ component: "tracing" });
  const at =
    (level: "warn" | "error") =>
    (message: string, ...args: unknown[]) =>
      log[level]({ args: args.length > 0 ? args.map(String) : undefined }, message);
  const none = () => {};
  return { error: at("error"), warn: at("warn"), info: none, debug: none, verbose: none };
}
