/**
 * What each setting means, beside its parsing and default in src/config.ts's `envSchema` (typed by
 * it: a setting added there without a meaning here, or one here that is gone there, fails the
 * build), and the table `signalbox config` prints and docs/configuration.md holds
 * (`npm run docs:config` writes it; test/cli/config.test.ts fails when it is stale).
 */
import { z } from "zod";
import { envSchema } from "./config.js";

/** A setting's environment variable. */
export type SettingName = keyof z.input<typeof envSchema>;

/** What each setting means, as the docs and `signalbox config` say it. */
export const SETTING_DESCRIPTIONS: Record<SettingName, string> = {
  PORT: "the service's HTTP port (0 picks a free one)",
  METRICS_PORT:
    "serve the Prometheus exposition `GET /metrics` on this port of its own (on `HOST`; nothing else is served there)",
  METRICS_TOKEN:
    "serve `GET /metrics` on the service's port behind `Authorization: Bearer <token>` (at least 16 characters); with neither setting there is no `/metrics`",
  HOST: "listen address (`0.0.0.0` in containers)",
  DATABASE_URL:
    "`postgresql://…`: use PostgreSQL (run `npx signalbox migrate` first); unset: embedded PGlite. Each process also holds one connection that LISTENs to the change feed: through a pooler, use session pooling (PgBouncer's transaction mode does not carry notifications)",
  CLICKHOUSE_URL:
    "`http(s)://user:password@host:8123/database`: ClickHouse for events (issue 30, in progress): `signalbox migrate` creates its analytics tables; `serve` refuses it until capture and the queries use it",
  DATA_DIR: "embedded database directory",
  LOG_LEVEL: "pino level (`silent` … `trace`)",
  PUBLIC_URL: "base of absolute `next`/`previous` links (else the request's host)",
  TRUST_PROXY: "honour `X-Forwarded-*`",
  BODY_LIMIT_BYTES: "largest request body (413 beyond)",
  CAPTURE_BODY_LIMIT_BYTES:
    "largest capture body (or GET `data`) on `/e/`, `/capture/`, ..., before and after decompression in every encoding (gzip, base64, lz64), which stops at the limit (413 beyond)",
  CAPTURE_BATCH_BODY_LIMIT_BYTES: "the same for `/batch/`",
  MAX_PAGE_SIZE:
    "largest page: a larger REST `limit` or GraphQL `first`/`last` is clamped to it, not refused (DRF's `max_limit`), and the next page is linked",
  RESPONSE_CACHE_BYTES:
    "bytes of REST answers kept per process by ETag for repeated project-path GETs (0: off)",
  GRAPHQL_RESULT_CACHE_BYTES:
    "bytes of GraphQL query results kept per process, served again while the projects, access and minute they were read at are unchanged (0: off)",
  STREAM_HEARTBEAT_MS:
    "interval of the `: heartbeat` comment lines on an idle flag definitions stream (see Live configuration)",
  STREAM_MAX_LIFETIME_MS:
    "longest a stream stays open (a flag definitions stream, a GraphQL subscription's SSE answer, a GraphQL WebSocket), less up to a tenth at random; it then ends cleanly and the client reconnects, authorised afresh (see Live configuration)",
  FLAG_MAX_CONDITION_GROUPS:
    'condition groups per flag (400 `max_length`, `attr: "filters"` beyond; GraphQL: `ValidationError`)',
  FLAG_MAX_PROPERTY_VALUES:
    "values in one list-valued property filter (400, PostHog's `… cannot contain more than N values.`)",
  FLAG_MAX_VARIANTS:
    "variants of one multivariate flag (400 `max_length`; PostHog sets none on flags, experiments keep its fewer than 21)",
  CAPTURE_MAX_EVENTS_PER_REQUEST:
    "events in one capture request, any path (413 `Request holds more events than the limit of N.` beyond, nothing stored; PostHog's SDKs halve the batch and resend)",
  MAX_JSON_DEPTH: "deepest object/array nesting in one input field (400 `max_depth` beyond)",
  MAX_HEADER_BYTES:
    "largest request line plus headers (414 for a long URL, 431 for headers beyond); a path parameter may be as long (an endpoint's 128-character name)",
  SHUTDOWN_TIMEOUT_MS: "grace period for in-flight requests on SIGTERM",
  FLAG_CALL_ROLLUP_INTERVAL_MS:
    "how often `$feature_flag_called` events are rolled up into flags' `last_called_at` (a scheduled job, see Operations)",
  SKIP_UPDATE_EVENT_AND_PROPERTIES_STEP:
    "capture records nothing in the event catalogue (PostHog's plugin-server setting)",
  JOB_CONCURRENCY:
    "jobs one process runs at once on PostgreSQL (the embedded runner runs one at a time); the job queue's pool holds this plus 2 connections",
  JOB_POLL_INTERVAL_MS:
    "longest wait before a job that became due (a retry, a delayed job, a schedule's next run) is noticed; new jobs are noticed at once",
  GRAPHQL_MAX_DEPTH: "deepest field nesting of a GraphQL operation (fragments flattened)",
  GRAPHQL_MAX_ALIASES: "aliases in one GraphQL operation (`__typename` aliases not counted)",
  GRAPHQL_MAX_TOKENS: "lexical tokens in one GraphQL document",
  GRAPHQL_MAX_COST:
    "static cost of one GraphQL operation (a literal page of 1,000 flags with filters, tags and users costs about 330,000)",
  QUERY_TIMEOUT_MS:
    "statement timeout of one query run (HogQL, Trends, experiment results, materialization; 400 `query_timeout` beyond; enforced by PostgreSQL, and on the embedded database by stopping its process, see Operations)",
  STATEMENT_TIMEOUT_MS:
    "every database session's default `statement_timeout`: no statement the service sends runs longer, whatever a request asks (57014, answered as a server error; 0: none). Query runs use `QUERY_TIMEOUT_MS` instead; migrations run without it. On the embedded database it is enforced by stopping its process (Operations)",
  QUERY_MAX_CONCURRENT_PER_PROJECT:
    "query runs one project may have in flight per process (429 `Too many concurrent requests. Please try again later.` beyond)",
  QUERY_MAX_COST:
    "highest planner-estimated cost (`EXPLAIN`'s total, PostgreSQL's cost units) of one query run's statement: above it the run is refused before it starts (400 `query_too_expensive`); 0: none. On the embedded database a statement holds the only session until it ends (see Operations)",
  HOGQL_MAX_QUERY_LENGTH:
    'characters of HogQL text (query runs and endpoint writes; 400 `max_length`, `attr: "query"` beyond)',
  HOGQL_MAX_TOKENS:
    "tokens of HogQL text: words, numbers, strings, operators, punctuation (400 `max_tokens`; the parser spends up to about 0.4 ms a token)",
  HOGQL_MAX_NESTING:
    "levels of brackets `(` `[` `{`, `CASE … END` and `f'…{…}'` templates in HogQL text (400 `max_depth`; the parser's time grows with its square)",
  HOGQL_MAX_EXPRESSION_DEPTH:
    "estimated depth of a HogQL expression, each operator of a chain, call, bracket and join a level (`NOT`, `??` two, a lambda's `->` four, each part of a field chain past the fourth two), before parsing; and depth of expressions and queries as printed, column CTEs expanded (400 `max_depth`; PostHog's parser traps past about 240)",
  HOGQL_MAX_PRINTED_BYTES:
    "size of the PostgreSQL one HogQL query prints to, bound values counted, checked as it grows (400 `max_size`)",
  FORMULA_MAX_LENGTH: 'characters of one Trends formula (400 `max_length`, `attr: "trendsFilter"`)',
  FORMULA_MAX_DEPTH: "parenthesis nesting of one Trends formula (400 `max_depth`)",
  QUERY_WORKER_THREADS:
    "worker threads that parse and print HogQL and evaluate formulas (one long task never holds up the rest; on 2 cores the event loop keeps one)",
  QUERY_WORKER_TIMEOUT_MS:
    "longest one worker task runs once a worker takes it; its worker is then replaced (400 `max_time`)",
  QUERY_WORKER_MAX_MEMORY_MB:
    "heap (V8 old generation) of one worker; past it the worker is replaced (400 `max_memory`). The parser's WebAssembly memory is outside it, bounded by the text limits",
  QUERY_WORKER_MAX_WAITING:
    "most tasks (HogQL parses and prints, formulas) waiting for a query worker at once; the next is refused at once with 429 `throttled` instead of queueing without end (a burst of legitimate writers parses in milliseconds each and stays well below it)",
  ENDPOINT_MATERIALIZATION_INTERVAL_SCALE:
    "test-only: every materialization `sync_frequency` interval is multiplied by this, in (0, 1], so tests can watch several refreshes of a `5min` endpoint in seconds; leave it at 1",
  ENDPOINT_MATERIALIZATION_FAILURES_TO_PAUSE:
    "refreshes of a materialized endpoint that may fail (or run out of `QUERY_TIMEOUT_MS`) in a row before its schedule is paused (see Materialization)",
  RATE_LIMIT_BURST:
    "management requests (REST and GraphQL together) per personal API key, short window (PostHog's `BurstRateThrottle`)",
  RATE_LIMIT_SUSTAINED: "the same, long window (PostHog's `SustainedRateThrottle`)",
  RATE_LIMIT_LOCAL_EVALUATION:
    "local-evaluation polls per project, whoever polls, instead of the key's limits (PostHog's `LocalEvaluationThrottle`)",
  RATE_LIMIT_REMOTE_CONFIG: "`remote_config` reads per project (PostHog's `RemoteConfigThrottle`)",
  RATE_LIMIT_CAPTURE: "capture requests per project token (`/e/`, `/batch/`, ...)",
  RATE_LIMIT_FLAGS: "remote flag evaluation requests per project token (`/flags`, `/decide`, OFREP)",
  ENDPOINT_CACHE_MAX_ENTRIES: "endpoint run results cached per process (0: off)",
  WEBHOOK_ALLOW_LOOPBACK:
    "test-only: deliveries may go to 127.0.0.0/8 and ::1 (every other private target stays refused)",
  WEBHOOK_TIMEOUT_MS: "longest webhook delivery attempt, connecting to the end of the answer",
  WEBHOOK_MAX_RESPONSE_BYTES: "most bytes of a receiver's answer read",
  WEBHOOK_MAX_ATTEMPTS: "tries per webhook delivery (about 30 minutes of back-off) before it is given up",
  ENDPOINT_CACHE_MAX_BYTES: "bytes of endpoint run results cached per process (0: off)",
  OTEL_EXPORTER_OTLP_ENDPOINT:
    "turns traces on (OpenTelemetry, see Tracing): `serve` sends spans over OTLP/HTTP (JSON) to this base URL + `/v1/traces`, e.g. `http://collector:4318`. Unset (and no other `OTEL_*` switch): traces are off and nothing of OpenTelemetry is loaded",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    "the same, the full URL spans are posted to (used as given, over `OTEL_EXPORTER_OTLP_ENDPOINT`)",
  OTEL_EXPORTER_OTLP_HEADERS:
    "headers sent with each export, `name=value` pairs separated by commas (a vendor's API key)",
  OTEL_TRACES_EXPORTER:
    "`otlp`: traces on, to the endpoint above (default `http://localhost:4318`); `console`: spans printed on stdout (a look without a collector); `none`: off whatever else is set. Unset: on when an endpoint is set",
  OTEL_SERVICE_NAME: "the traces' `service.name` (unset: `signalbox`; `service.version` is the package's)",
  OTEL_TRACES_SAMPLER:
    "which requests are traced (unset: `parentbased_always_on`, every request not sampled out by its caller's `traceparent`); `parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG` keeps a fraction",
  OTEL_TRACES_SAMPLER_ARG: "the fraction the `…traceidratio` samplers keep, 0 to 1 (unset: 1)",
  OTEL_SDK_DISABLED: "turns traces off whatever else is set",
};

/** Settings whose values are secrets: `signalbox config` masks them. */
const SECRET_SETTINGS: ReadonlySet<SettingName> = new Set(["METRICS_TOKEN", "OTEL_EXPORTER_OTLP_HEADERS"]);

/** Settings that are URLs, whose password (if any) is masked. */
const URL_SETTINGS: ReadonlySet<SettingName> = new Set([
  "DATABASE_URL",
  "CLICKHOUSE_URL",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
]);

/** One setting as shown: its variable, default (null: unset), meaning, and its value now. */
export interface SettingRow {
  name: SettingName;
  /** The default as the variable would be written, or null when unset means something of its own. */
  default: string | null;
  description: string;
  /** The effective value as written in the environment (secrets masked), or the default; null: unset. */
  value: string | null;
  /** Where the value comes from. */
  source: "environment" | "default";
}

/** `schema`'s default as written in the environment, or null when it has none (optional). */
function defaultOf(schema: z.ZodType): string | null {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    return String((schema.def as { defaultValue: unknown }).defaultValue);
  }
  return null;
}

/** `value` with what would give a secret away replaced: a URL's password, a token. */
function masked(name: SettingName, value: string): string {
  if (SECRET_SETTINGS.has(name)) return "[Redacted]";
  // A URL's password (`postgresql://user:password@host/db`).
  if (URL_SETTINGS.has(name)) return value.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, "$1[Redacted]@");
  return value;
}

/**
 * Every setting in `envSchema`'s order with its default and meaning, and its value in `env` (an
 * empty variable counts as unset, as `loadConfig` reads it).
 */
export function settingRows(env: NodeJS.ProcessEnv = process.env): SettingRow[] {
  return (Object.entries(envSchema.shape) as Array<[SettingName, z.ZodType]>).map(([name, schema]) => {
    const set = env[name];
    const fallback = defaultOf(schema);
    return {
      name,
      default: fallback,
      description: SETTING_DESCRIPTIONS[name],
      value: set ? masked(name, set) : fallback,
      source: set ? "environment" : "default",
    };
  });
}

/** docs/configuration.md: every setting's variable, default and meaning, as a Markdown table. */
export function configurationDoc(): string {
  const rows = settingRows({}).map(
    (row) =>
      `| \`${row.name}\` | ${row.default === null ? "unset" : `\`${row.default}\``} | ${row.description} |`,
  );
  return [
    "# Configuration",
    "",
    "Every setting is an environment variable, read once at start (src/config.ts); an empty variable",
    "counts as unset. `signalbox config` prints the effective values, secrets masked. This file is",
    "written by `npm run docs:config` from the settings' schema and meanings (src/config-settings.ts).",
    "",
    "| variable | default | meaning |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
