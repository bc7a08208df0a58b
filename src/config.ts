/**
 * Environment → typed configuration, validated once at start. Every limit the service enforces
 * lives here so that it can be tuned without code changes (style.md, "Limits are configuration").
 */
import path from "node:path";
import { z } from "zod";

/**
 * Deepest object/array nesting accepted in one field of an input (`MAX_JSON_DEPTH`'s default): the
 * deepest a PostHog flag needs is about 7 (`filters.groups[].properties[].value[]`), payloads add
 * what the caller nests.
 */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/**
 * `QUERY_MAX_COST`'s default on the embedded database, in PostgreSQL's cost units: a 100 × 100 ×
 * 100 × 100-row cross join is estimated at 1.5 million and runs about 2 s on PostgreSQL, 7 s on
 * PGlite; scanning a million events and grouping them is estimated at 30,000 to 200,000.
 */
export const EMBEDDED_QUERY_MAX_COST = 1_000_000;

/** A rate: `requests` per `durationMs`, written as DRF writes it (`480/minute`). */
export interface Rate {
  requests: number;
  durationMs: number;
}

const PERIOD_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses DRF's rate syntax `<requests>/<period>`, the period's first letter naming it (`s`econd,
 * `m`inute, `h`our, `d`ay: `100/min`, `4800/hour`); `0`, `off` or an empty text is no limit (null).
 * @throws Error for any other text.
 */
export function parseRate(text: string): Rate | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "" || trimmed === "0" || trimmed === "off") return null;
  const match = /^(\d+)\/([smhd])[a-z]*$/.exec(trimmed);
  if (!match) throw new Error(`not a rate (like 480/minute or off): ${text}`);
  const requests = Number(match[1]);
  if (requests === 0) return null;
  return { requests, durationMs: PERIOD_MS[match[2]!]! };
}

/** The configured rates; null is no limit. */
export interface RateLimitConfig {
  /** Management API per personal API key, short window (`RATE_LIMIT_BURST`, default 480/minute). */
  burst: Rate | null;
  /** Management API per personal API key, long window (`RATE_LIMIT_SUSTAINED`, default 4800/hour). */
  sustained: Rate | null;
  /** Local-evaluation polls per project (`RATE_LIMIT_LOCAL_EVALUATION`, default 600/minute). */
  localEvaluation: Rate | null;
  /** `remote_config` reads per project (`RATE_LIMIT_REMOTE_CONFIG`, default 600/minute). */
  remoteConfig: Rate | null;
  /** Capture requests per project token (`RATE_LIMIT_CAPTURE`, default off). */
  capture: Rate | null;
  /** Remote flag evaluation requests (`/flags`, `/decide`, OFREP) per project token (`RATE_LIMIT_FLAGS`, default off). */
  flags: Rate | null;
}

const booleanFromEnv = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

/** A rate in DRF's syntax (`480/minute`), or `off` (`parseRate`). */
const rateFromEnv = z.string().transform((text, ctx) => {
  try {
    return parseRate(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

/**
 * Every setting, by its environment variable, with its parsing and default: what `loadConfig`
 * reads, and what `signalbox config` and docs/configuration.md show (src/config-settings.ts).
 */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_TOKEN: z.string().min(16, "Too short: at least 16 characters").optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// or postgresql:// URL")
    .optional(),
  CLICKHOUSE_URL: z
    .string()
    .regex(/^https?:\/\//, "CLICKHOUSE_URL must be an http:// or https:// URL (ClickHouse's HTTP interface)")
    .optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PUBLIC_URL: z.url().optional(),
  TRUST_PROXY: booleanFromEnv.default(false),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024),
  CAPTURE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024),
  CAPTURE_BATCH_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  MAX_PAGE_SIZE: z.coerce.number().int().positive().default(1000),
  RESPONSE_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  GRAPHQL_RESULT_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
  STREAM_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
  STREAM_MAX_LIFETIME_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
  FLAG_MAX_CONDITION_GROUPS: z.coerce.number().int().positive().default(100),
  FLAG_MAX_PROPERTY_VALUES: z.coerce.number().int().positive().default(1000),
  FLAG_MAX_VARIANTS: z.coerce.number().int().positive().default(100),
  CAPTURE_MAX_EVENTS_PER_REQUEST: z.coerce.number().int().positive().default(10_000),
  MAX_JSON_DEPTH: z.coerce.number().int().positive().default(DEFAULT_MAX_JSON_DEPTH),
  MAX_HEADER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  FLAG_CALL_ROLLUP_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 60_000),
  SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP: booleanFromEnv.default(false),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  JOB_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(15),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().nonnegative().default(30),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().positive().default(5000),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(500_000),
  QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  QUERY_MAX_CONCURRENT_PER_PROJECT: z.coerce.number().int().positive().default(4),
  QUERY_MAX_COST: z.coerce.number().nonnegative().optional(),
  HOGQL_MAX_QUERY_LENGTH: z.coerce.number().int().positive().default(65_536),
  HOGQL_MAX_TOKENS: z.coerce.number().int().positive().default(10_000),
  HOGQL_MAX_NESTING: z.coerce.number().int().positive().default(32),
  HOGQL_MAX_EXPRESSION_DEPTH: z.coerce.number().int().positive().default(200),
  HOGQL_MAX_PRINTED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  FORMULA_MAX_LENGTH: z.coerce.number().int().positive().default(1000),
  FORMULA_MAX_DEPTH: z.coerce.number().int().positive().default(32),
  QUERY_WORKER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  QUERY_WORKER_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  QUERY_WORKER_MAX_MEMORY_MB: z.coerce.number().int().min(16).default(128),
  QUERY_WORKER_MAX_WAITING: z.coerce.number().int().min(0).default(256),
  ENDPOINT_MATERIALIZATION_INTERVAL_SCALE: z.coerce.number().positive().max(1).default(1),
  ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE: z.coerce.number().int().min(1).default(5),
  RATE_LIMIT_BURST: rateFromEnv.prefault("480/minute"),
  RATE_LIMIT_SUSTAINED: rateFromEnv.prefault("4800/hour"),
  RATE_LIMIT_LOCAL_EVALUATION: rateFromEnv.prefault("600/minute"),
  RATE_LIMIT_REMOTE_CONFIG: rateFromEnv.prefault("600/minute"),
  RATE_LIMIT_CAPTURE: rateFromEnv.prefault("off"),
  RATE_LIMIT_FLAGS: rateFromEnv.prefault("off"),
  ENDPOINT_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).default(1000),
  WEBHOOK_ALLOW_LOOPBACK: booleanFromEnv.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  WEBHOOK_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(25).default(8),
  ENDPOINT_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  // OpenTelemetry's own variables (opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/):
  // validated and documented here, read by the SDK itself when traces are on (src/observability/).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "console", "none"]).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_TRACES_SAMPLER: z
    .enum([
      "always_on",
      "always_off",
      "traceidratio",
      "parentbased_always_on",
      "parentbased_always_off",
      "parentbased_traceidratio",
    ])
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  OTEL_SDK_DISABLED: booleanFromEnv.default(false),
});

/** Rows per page when a list request gives no size (DRF `PAGE_SIZE` in posthog/settings/web.py). */
export const DEFAULT_PAGE_SIZE = 100;

/** Limits enforced by the domain services. */
export interface Limits {
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /**
   * Largest capture request body on the event paths (`/e/`, `/capture/`, ...), in bytes, before and
   * after decompression (413 beyond): rust/capture/src/router.rs `EVENT_BODY_SIZE`, 2 MB.
   */
  captureBodyLimitBytes: number;
  /** The same for `/batch/`: rust/capture/src/router.rs `BATCH_BODY_SIZE`, 20 MB. */
  captureBatchBodyLimitBytes: number;
  /** Largest `limit` a paginated list honours; larger values are clamped (DRF `max_limit`). */
  maxPageSize: number;
  /**
   * Bytes of 200 bodies the REST door keeps by ETag for repeated project-path GETs
   * (core/response-cache.ts); 0 turns the cache off.
   */
  responseCacheBytes: number;
  /**
   * Bytes of GraphQL query results kept per process, served again while what they were read from
   * is unchanged (graphql/result-cache.ts); 0 turns the cache off.
   */
  graphqlResultCacheBytes: number;
  /**
   * Milliseconds between heartbeats (SSE comment lines) on an idle event stream (the flag definitions
   * stream, GraphQL subscriptions over SSE), so proxies and clients see the connection alive.
   */
  streamHeartbeatMs: number;
  /**
   * Longest a stream stays open, in ms (`STREAM_MAX_LIFETIME_MS`, default one hour): a definitions
   * stream, a GraphQL subscription's SSE answer, a GraphQL WebSocket. Each then ends cleanly, less up
   * to a tenth earlier at random (core/stream-lifetime.ts), and its client reconnects: an
   * `EventSource` with `Last-Event-ID`, graphql-sse and graphql-ws clients by retrying. A reconnection
   * is authenticated and authorised as any request, so no stream outlives this on old credentials
   * even where a revocation was missed (the change feed's listener was down).
   */
  streamMaxLifetimeMs: number;
  /** Most condition groups (`filters.groups`) one flag may have. */
  flagMaxConditionGroups: number;
  /** Most values in one list-valued property filter (posthog-behavior.md §2.5 rule 7). */
  flagMaxPropertyValues: number;
  /**
   * Most variants (`filters.multivariate.variants`) one flag may have (`FLAG_MAX_VARIANTS`, default
   * 100; 400 `max_length` beyond). PostHog sets no such bound on flags (experiments keep its own
   * "fewer than 21"); every variant is walked on each evaluation and sent to every SDK.
   */
  flagMaxVariants: number;
  /**
   * Most events one capture request may hold, on any capture path (`CAPTURE_MAX_EVENTS_PER_REQUEST`,
   * default 10,000; 413 beyond, nothing stored). PostHog's capture bounds only bytes; here a request
   * is one transaction, so its length is bounded too. PostHog's SDKs answer a 413 by splitting the batch.
   */
  captureMaxEventsPerRequest: number;
  /** Deepest field nesting a GraphQL operation may select (introspection's `__schema` not counted). */
  graphqlMaxDepth: number;
  /** Most aliases in one GraphQL operation (`__typename` aliases not counted). */
  graphqlMaxAliases: number;
  /** Most lexical tokens in one GraphQL document (punctuators, names, values; not comments). */
  graphqlMaxTokens: number;
  /**
   * Highest static cost of one GraphQL operation, as graphql-armor's cost limit counts it: 2 per
   * object field and 1 per scalar field, each times 1.5 per level of depth; introspection not counted.
   */
  graphqlMaxCost: number;
  /** Deepest object/array nesting accepted in one input field (400 `max_depth` beyond). */
  maxJsonDepth: number;
  /** Largest request line plus headers, in bytes (Node's `maxHeaderSize`; 414/431 beyond). */
  maxHeaderBytes: number;
  /** Statement timeout of one query run (HogQL, Trends), in ms (`SET LOCAL statement_timeout`). */
  queryTimeoutMs: number;
  /** Most query runs one project may have in flight in this process (429 beyond). */
  queryMaxConcurrentPerProject: number;
  /**
   * Highest planner-estimated cost of one query run's statement, in PostgreSQL's cost units
   * (`EXPLAIN`'s total cost; `QUERY_MAX_COST`; 0: none). Above it the run is refused before it starts
   * (400 `query_too_expensive`). Default 1,000,000 on the embedded database, whose one session a
   * statement holds until it ends (about 2 s of PostgreSQL's work at that cost), and none on
   * PostgreSQL, where a statement holds one backend and `QUERY_TIMEOUT_MS` bounds it.
   */
  queryMaxCost: number;
  /**
   * Most characters of HogQL text (`HOGQL_MAX_QUERY_LENGTH`, 65,536; 400 `max_length`,
   * `attr: "query"` beyond). This and the next two are checked before parsing, on the request
   * thread (src/lib/hogql/text-limits.ts).
   */
  hogqlMaxQueryLength: number;
  /** Most tokens of HogQL text (`HOGQL_MAX_TOKENS`, 10,000; 400 `max_tokens` beyond). */
  hogqlMaxTokens: number;
  /** Deepest bracket, `CASE` and template nesting of HogQL text (`HOGQL_MAX_NESTING`, 32; 400 `max_depth` beyond). */
  hogqlMaxNesting: number;
  /**
   * Deepest HogQL expression (`HOGQL_MAX_EXPRESSION_DEPTH`, 200; 400 `max_depth` beyond): as
   * estimated from the text before parsing (PostHog's parser traps past about 240 levels), and as
   * printed, column CTEs expanded.
   */
  hogqlMaxExpressionDepth: number;
  /**
   * Most bytes of PostgreSQL one HogQL query may print to, its bound values counted
   * (`HOGQL_MAX_PRINTED_BYTES`, 1 MiB; 400 `max_size` beyond). Checked while printing, so a query
   * whose aliases double at each use is refused before it costs more than this.
   */
  hogqlMaxPrintedBytes: number;
  /** Most characters of one Trends formula (`FORMULA_MAX_LENGTH`, 1,000; 400 `max_length` beyond). */
  formulaMaxLength: number;
  /** Deepest parenthesis nesting of one Trends formula (`FORMULA_MAX_DEPTH`, 32; 400 `max_depth` beyond). */
  formulaMaxDepth: number;
}

/**
 * The worker threads that parse and print HogQL and evaluate formulas (src/queries/query-workers.ts)
 * off the request thread. A task past its time or memory budget, or whose parser trapped, loses its
 * worker (a fresh one replaces it) and answers 400 naming the budget.
 */
export interface QueryWorkerSettings {
  /**
   * Worker threads (`QUERY_WORKER_THREADS`, default 2: one long task never holds up every other,
   * and a 2-core machine keeps a core for the event loop while one task runs).
   */
  threads: number;
  /** Longest one task may run once a worker has taken it, in ms (`QUERY_WORKER_TIMEOUT_MS`, default 5,000). */
  timeoutMs: number;
  /** Heap of one worker, in MB (`QUERY_WORKER_MAX_MEMORY_MB`, default 128: V8's old generation). */
  maxMemoryMb: number;
  /**
   * Most tasks waiting for a worker at once (`QUERY_WORKER_MAX_WAITING`, default 256: a burst of
   * legitimate writers, such as 50 concurrent endpoint creates, each parse once and wait milliseconds;
   * a flood of costly tasks is refused past it instead of queueing without end); the next answers
   * 429 at once.
   */
  maxWaiting: number;
}

/** How webhook deliveries are sent (src/webhooks/delivery/). */
export interface WebhookSettings {
  /**
   * Test-only: deliveries may go to loopback addresses (127.0.0.0/8, ::1) (`WEBHOOK_ALLOW_LOOPBACK`,
   * default false), so tests can run a receiver on 127.0.0.1. Every other private, link-local,
   * unique-local, multicast and unspecified target stays refused. Leave it off in production.
   */
  allowLoopback: boolean;
  /** Longest a delivery may take, connecting to the end of the answer, in ms (`WEBHOOK_TIMEOUT_MS`, default 10 s). */
  timeoutMs: number;
  /** Most bytes of an answer's body read (`WEBHOOK_MAX_RESPONSE_BYTES`, default 64 KiB); the rest is dropped. */
  maxResponseBytes: number;
  /** Tries per delivery before it is given up (`WEBHOOK_MAX_ATTEMPTS`, default 8: about 30 minutes of back-off). */
  maxAttempts: number;
}

/**
 * Traces (src/observability/): OpenTelemetry spans of each request, its SQL statements and its
 * GraphQL operations, sent over OTLP/HTTP. Off unless configured, and then nothing of OpenTelemetry
 * is loaded. The other `OTEL_*` variables (headers, sampler, service name) are read by the SDK itself.
 */
export interface TracingSettings {
  /**
   * Where spans go, null when tracing is off: `otlp` when `OTEL_TRACES_EXPORTER=otlp`, or when it is
   * unset and `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; `console`
   * (stdout, for a look without a collector) when `OTEL_TRACES_EXPORTER=console`; off when
   * `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` (the specification's switches).
   */
  exporter: "otlp" | "console" | null;
  /**
   * The URL OTLP spans are posted to, as the exporter derives it: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
   * as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `http://localhost:4318/v1/traces`;
   * null unless `exporter` is `otlp`.
   */
  endpoint: string | null;
}

/** The service configuration. */
export interface Config {
  port: number;
  host: string;
  /** PostgreSQL URL; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  /**
   * ClickHouse's HTTP interface, its path the database (`CLICKHOUSE_URL`, issue 30): where
   * `signalbox migrate` creates the analytics tables. Unset: events stay in PostgreSQL.
   */
  clickhouseUrl: string | undefined;
  /** Absolute path of the embedded database's data directory. */
  dataDir: string;
  /**
   * Every database session's default `statement_timeout`, in ms (`STATEMENT_TIMEOUT_MS`, default 30 s;
   * 0: none): no statement the service sends runs longer, whatever its inputs, on either backend.
   * Query runs set their own (`QUERY_TIMEOUT_MS`); migrations run on connections of their own, without it.
   */
  statementTimeoutMs: number;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Base URL for absolute links (`next`, `previous`); otherwise taken from the request's Host. */
  publicUrl: string | undefined;
  /** Trust `X-Forwarded-*` headers (behind a proxy). */
  trustProxy: boolean;
  /** Grace period for in-flight requests on SIGTERM, in ms. */
  shutdownTimeoutMs: number;
  /**
   * Where the Prometheus exposition (`GET /metrics`, src/core/metrics.ts) is served: on a port of
   * its own (`METRICS_PORT`, on `HOST`; 0 picks a free one), and/or on the service's port behind
   * `Authorization: Bearer <METRICS_TOKEN>` (at least 16 characters). Neither set: not served (404).
   */
  metrics: { port: number | undefined; token: string | undefined };
  /**
   * How often flag calls (`$feature_flag_called` events) are rolled up into `last_called_at`, in ms
   * (default 30 minutes, PostHog's schedule; src/feature-flags/flag-calls.ts).
   */
  flagCallRollupIntervalMs: number;
  /**
   * Capture stores events without recording their names and properties in the event catalogue
   * (`SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP`, PostHog's plugin-server setting of the same name and
   * meaning; default false). For deployments that keep the catalogue elsewhere, and for measuring
   * what the catalogue costs capture (`npm run bench`, figure `catalogue`).
   */
  skipCatalogueUpdates: boolean;
  /**
   * Test-only: every materialization `sync_frequency` interval is multiplied by this
   * (`ENDPOINT_MATERIALIZATION_INTERVAL_SCALE`, in (0, 1], default 1), so that tests can watch
   * several scheduled refreshes of a `5min` endpoint in seconds. Leave it at 1 in production.
   */
  materializationIntervalScale: number;
  /**
   * Refreshes of a materialized endpoint that may fail (or run out of time) in a row before its
   * schedule is paused until its materialization is set again (`ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE`,
   * default 5: PostHog's `CONSECUTIVE_TIMEOUTS_TO_PAUSE` and `CONSECUTIVE_FAILURES_TO_SUSPEND`,
   * products/data_modeling/backend/temporal).
   */
  materializationFailuresToPause: number;
  /**
   * The in-process cache of endpoint run results (src/endpoints/run/result-cache.ts): results are
   * recomputable, so a restart only loses it. 0 entries or 0 bytes turns it off.
   */
  endpointCache: {
    /** Most results kept (`ENDPOINT_CACHE_MAX_ENTRIES`, default 1000); least recently used go first. */
    maxEntries: number;
    /** Most bytes of result JSON kept (`ENDPOINT_CACHE_MAX_BYTES`, default 64 MiB). */
    maxBytes: number;
  };
  /** Webhook deliveries (src/webhooks/). */
  webhooks: WebhookSettings;
  /** The query worker pool (src/queries/query-workers.ts). */
  queryWorkers: QueryWorkerSettings;
  /** The job queue that runs scheduled and queued work (src/core/jobs/). */
  jobs: {
    /** Jobs one process runs at once on PostgreSQL (`JOB_CONCURRENCY`, default 2); the embedded runner runs one at a time. */
    concurrency: number;
    /**
     * Longest wait before a job that became due (a retry, a delayed job, a schedule's next run) is
     * noticed, in ms (`JOB_POLL_INTERVAL_MS`, default 2000, graphile-worker's); new jobs are noticed at once.
     */
    pollIntervalMs: number;
  };
  limits: Limits;
  /**
   * Request rate limits (core/rate-limit.ts), each in DRF's syntax or `off`: `RATE_LIMIT_BURST`
   * (480/minute) and `RATE_LIMIT_SUSTAINED` (4800/hour) per personal API key on the management
   * API; `RATE_LIMIT_LOCAL_EVALUATION` and `RATE_LIMIT_REMOTE_CONFIG` (600/minute) per project;
   * `RATE_LIMIT_CAPTURE` and `RATE_LIMIT_FLAGS` per project token on the SDK paths (off).
   */
  rateLimits: RateLimitConfig;
  /** Traces (`OTEL_*`, src/observability/). */
  tracing: TracingSettings;
}

/** The `TracingSettings` the `OTEL_*` variables `e` give (see there). */
function tracingSettings(e: z.output<typeof envSchema>): TracingSettings {
  const endpointSet = Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const named = e.OTEL_TRACES_EXPORTER;
  const exporter = e.OTEL_SDK_DISABLED || named === "none" ? null : (named ?? (endpointSet ? "otlp" : null));
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, "") ?? "http://localhost:4318";
  return {
    exporter,
    endpoint: exporter === "otlp" ? (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`) : null,
  };
}

/** A setting's value that does not parse: the CLI exits with code 3. */
export class ConfigurationError extends Error {}

/**
 * Reads the configuration from environment variables.
 * @throws ConfigurationError listing every invalid variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset (`DATABASE_URL= npm start` uses the embedded database).
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigurationError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    clickhouseUrl: e.CLICKHOUSE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ""),
    trustProxy: e.TRUST_PROXY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    metrics: { port: e.METRICS_PORT, token: e.METRICS_TOKEN },
    flagCallRollupIntervalMs: e.FLAG_CALL_ROLLUP_INTERVAL_MS,
    skipCatalogueUpdates: e.SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP,
    materializationIntervalScale: e.ENDPOINT_MATERIALIZATION_INTERVAL_SCALE,
    materializationFailuresToPause: e.ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE,
    endpointCache: { maxEntries: e.ENDPOINT_CACHE_MAX_ENTRIES, maxBytes: e.ENDPOINT_CACHE_MAX_BYTES },
    webhooks: {
      allowLoopback: e.WEBHOOK_ALLOW_LOOPBACK,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: e.WEBHOOK_MAX_RESPONSE_BYTES,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
    },
    jobs: { concurrency: e.JOB_CONCURRENCY, pollIntervalMs: e.JOB_POLL_INTERVAL_MS },
    queryWorkers: {
      threads: e.QUERY_WORKER_THREADS,
      timeoutMs: e.QUERY_WORKER_TIMEOUT_MS,
      maxMemoryMb: e.QUERY_WORKER_MAX_MEMORY_MB,
      maxWaiting: e.QUERY_WORKER_MAX_WAITING,
    },
    rateLimits: {
      burst: e.RATE_LIMIT_BURST,
      sustained: e.RATE_LIMIT_SUSTAINED,
      localEvaluation: e.RATE_LIMIT_LOCAL_EVALUATION,
      remoteConfig: e.RATE_LIMIT_REMOTE_CONFIG,
      capture: e.RATE_LIMIT_CAPTURE,
      flags: e.RATE_LIMIT_FLAGS,
    },
    tracing: tracingSettings(e),
    limits: {
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      captureBodyLimitBytes: e.CAPTURE_BODY_LIMIT_BYTES,
      captureBatchBodyLimitBytes: e.CAPTURE_BATCH_BODY_LIMIT_BYTES,
      maxPageSize: e.MAX_PAGE_SIZE,
      responseCacheBytes: e.RESPONSE_CACHE_BYTES,
      graphqlResultCacheBytes: e.GRAPHQL_RESULT_CACHE_BYTES,
      streamHeartbeatMs: e.STREAM_HEARTBEAT_MS,
      streamMaxLifetimeMs: e.STREAM_MAX_LIFETIME_MS,
      flagMaxConditionGroups: e.FLAG_MAX_CONDITION_GROUPS,
      flagMaxPropertyValues: e.FLAG_MAX_PROPERTY_VALUES,
      flagMaxVariants: e.FLAG_MAX_VARIANTS,
      captureMaxEventsPerRequest: e.CAPTURE_MAX_EVENTS_PER_REQUEST,
      graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
      graphqlMaxAliases: e.GRAPHQL_MAX_ALIASES,
      graphqlMaxTokens: e.GRAPHQL_MAX_TOKENS,
      graphqlMaxCost: e.GRAPHQL_MAX_COST,
      maxJsonDepth: e.MAX_JSON_DEPTH,
      maxHeaderBytes: e.MAX_HEADER_BYTES,
      queryTimeoutMs: e.QUERY_TIMEOUT_MS,
      queryMaxConcurrentPerProject: e.QUERY_MAX_CONCURRENT_PER_PROJECT,
      queryMaxCost: e.QUERY_MAX_COST ?? (e.DATABASE_URL ? 0 : EMBEDDED_QUERY_MAX_COST),
      hogqlMaxQueryLength: e.HOGQL_MAX_QUERY_LENGTH,
      hogqlMaxTokens: e.HOGQL_MAX_TOKENS,
      hogqlMaxNesting: e.HOGQL_MAX_NESTING,
      hogqlMaxExpressionDepth: e.HOGQL_MAX_EXPRESSION_DEPTH,
      hogqlMaxPrintedBytes: e.HOGQL_MAX_PRINTED_BYTES,
      formulaMaxLength: e.FORMULA_MAX_LENGTH,
      formulaMaxDepth: e.FORMULA_MAX_DEPTH,
    },
  };
}
