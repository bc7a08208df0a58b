/**
 * Running a saved-query endpoint (`GET`/`POST :name/run/`, GraphQL `Endpoint.run`): PostHog's run
 * (posthog-behavior.md §4.7, taking the [newer] rules; `products/endpoints/backend/api.py` `run`,
 * `validate_run_request`, `_execute_query_and_respond`), in PostHog's order:
 * 1. scope `endpoint:read` (not `query:read`: `run` is one of the viewset's read actions), then the
 *    endpoint, active only (inactive or unknown → 404);
 * 2. the body (`EndpointRunRequest`, unknown fields refused), the version (body `version`, else
 *    `?version=N`; `Invalid version parameter: x` 400, `Version N not found for endpoint '<name>'` 404
 *    with `current_version`, `Version N is inactive and cannot be executed.` 400);
 * 3. `query_override`/`filters_override` refused, `limit`/`offset` only for HogQL, `refresh`, variables;
 * 4. the result: a materialized version's stored result while fresh (query-and-experiments.md 1e:
 *    no variables, limit or offset given, `refresh` not `direct`: `endpoint_materialized: true` and
 *    `endpoint_materialized_at`); else from the cache when fresh and `refresh` is `blocking`
 *    (./result-cache.ts); else computed by the query service (statement timeout, per-project cap:
 *    429) and stored. `direct` is refused for a version that is not materialized;
 * 5. the response: the engine's, `results` first, debug keys removed unless `debug`, `hasMore: false`
 *    when the engine did not paginate, plus `name`, `execution_id`, `endpoint_version`,
 *    `endpoint_version_created_at`.
 * Engine errors answer 400 `Query execution failed: <the engine's message>` (which keeps naming an
 * unsupported construct).
 *
 * Execution log: every run of a found, active endpoint that passed validation, success or error
 * (engine failure, 429), becomes a row of
 * `endpoint_executions` (name, version, when, duration, rows, error); a successful run also sets
 * `Endpoint.last_executed_at` when it is unset or older than 30 minutes (`LAST_EXECUTED_THROTTLE`).
 * Every caller authenticates with a personal API key here, so every run counts as one (PostHog
 * counts only those). The writes happen once the answer is decided and before it is sent (two small
 * statements): a failed write is reported as a process warning and never fails the run, and a
 * caller's next request sees its run (a write after the response would let `last_execution_times`
 * miss a run just answered, and would write after the request ended).
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { authorizeProject } from "../../core/auth/access.js";
import type { ProjectAccess, ServiceContext } from "../../core/context.js";
import { NotFoundError, publicMessage, ValidationError } from "../../core/errors.js";
import type { ServiceDeps } from "../../core/services.js";
import { parseInput } from "../../core/validation.js";
import type { PrismaClient } from "../../generated/prisma/client.js";
import type { QueryService } from "../../queries/query.service.js";
import { drfDateTime } from "../../rest/date-time.js";
import { type EndpointRecord, type EndpointVersionRecord, selectVersion } from "../endpoints.queries.js";
import { forbidExtraFields } from "../endpoints.schemas.js";
import type { MaterializationService } from "../materialization/materialization.service.js";
import { ResultCache, type ResultKey, targetAgeSeconds } from "./result-cache.js";
import { endpointRunRequestSchema, refreshMode } from "./run.schemas.js";
import { InvalidVersionParameterError, RunVersionNotFoundError } from "./run-errors.js";
import { applyVariables, checkVariables } from "./variables.js";

/** At most one `last_executed_at` write per endpoint per this many ms (PostHog's `LAST_EXECUTED_THROTTLE`, 30 min). */
export const LAST_EXECUTED_THROTTLE_MS = 30 * 60 * 1000;

/** Response keys removed unless the run asks for `debug` (PostHog's `debug_fields_to_remove`). */
export const DEBUG_FIELDS = [
  "calculation_trigger",
  "cache_key",
  "explain",
  "modifiers",
  "resolved_date_range",
  "timings",
  "hogql",
] as const;

/** What a run is given besides the endpoint: the body, and `?version=` (REST; null elsewhere). */
export interface RunInput {
  body: unknown;
  versionParam: string | null;
}

/** A run's answer: PostHog's response body and the query kind that produced it. */
export interface EndpointRunResult {
  /** The response (`results` first; see the module comment). */
  body: Record<string, unknown>;
  /** The run query's `kind` (`HogQLQuery`, `TrendsQuery`). */
  kind: string;
}

/** Finds an endpoint by name or id in a project (the endpoint service's read). */
export type EndpointLookup<K> = (db: PrismaClient, projectId: number, key: K) => Promise<EndpointRecord>;

/** The version a run asks for. @throws InvalidVersionParameterError, RunVersionNotFoundError. */
async function runVersion(
  ctx: ServiceContext,
  endpoint: EndpointRecord,
  bodyVersion: number | null | undefined,
  param: string | null,
): Promise<EndpointVersionRecord> {
  let number = bodyVersion ?? null;
  if (number === null && param !== null) {
    if (!/^\s*[-+]?\d{1,9}\s*$/.test(param)) throw new InvalidVersionParameterError(param);
    number = Number(param);
  }
  if (number === null || number === endpoint.currentVersion) return endpoint.current;
  const version = await selectVersion(ctx.db, endpoint.projectId, endpoint.id, number);
  if (!version) throw new RunVersionNotFoundError(number, endpoint.name, endpoint.currentVersion);
  return version;
}

/** An engine failure as the run answers it: 400 `Query execution failed: ...` (other errors unchanged). */
function executionError(error: unknown): unknown {
  if (error instanceof ValidationError && !error.detail.startsWith("Query execution failed")) {
    return new ValidationError(`Query execution failed: ${error.detail}`, {
      attr: error.attr,
      code: error.code,
    });
  }
  return error;
}

/** The engine's response shaped as `run` answers it (step 5 of the module comment). */
function shape(
  response: Record<string, unknown>,
  options: { debug: boolean; name: string; executionId: string; version: EndpointVersionRecord },
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...response };
  if (!options.debug) for (const key of DEBUG_FIELDS) delete copy[key];
  if (!("hasMore" in copy)) copy["hasMore"] = false;
  const { results, ...rest } = copy;
  return {
    results,
    ...rest,
    name: options.name,
    execution_id: options.executionId,
    endpoint_version: options.version.version,
    endpoint_version_created_at: drfDateTime(options.version.createdAt),
  };
}

/**
 * Creates the run operation over the query service and the materialized results, with its own
 * result cache and execution log.
 */
export function createEndpointRunner<K>(
  deps: ServiceDeps,
  collaborators: { queries: QueryService; materialization: MaterializationService },
  lookup: EndpointLookup<K>,
) {
  const { queries, materialization } = collaborators;
  const cache = new ResultCache(deps.config.endpointCache);

  /** Writes one execution row (and, on success, the throttled `last_executed_at`). */
  async function record(
    db: PrismaClient,
    row: {
      id: string;
      endpoint: EndpointRecord;
      version: number | null;
      executedAt: Date;
      durationMs: number;
      rows: number | null;
      error: string | null;
    },
  ): Promise<void> {
    await db.endpointExecution.create({
      data: {
        id: row.id,
        projectId: row.endpoint.projectId,
        endpointId: row.endpoint.id,
        endpointName: row.endpoint.name,
        version: row.version,
        executedAt: row.executedAt,
        durationMs: row.durationMs,
        rows: row.rows,
        error: row.error,
        viaPersonalApiKey: true,
      },
    });
    if (row.error === null) {
      const threshold = new Date(row.executedAt.getTime() - LAST_EXECUTED_THROTTLE_MS);
      // One conditional statement: concurrent runs never move it backwards or write it twice in the window.
      await db.$executeRaw`UPDATE endpoints SET last_executed_at = ${row.executedAt}
        WHERE id = ${row.endpoint.id}::uuid AND project_id = ${row.endpoint.projectId}
          AND (last_executed_at IS NULL OR last_executed_at <= ${threshold})`;
    }
  }

  /**
   * `record`, whose failure is reported as a process warning and never fails the run. Awaited before
   * the answer (two small statements), so a caller's next request sees its run (read-your-writes:
   * `last_execution_times` right after a run), and nothing is written after a response is sent.
   */
  async function recordSafely(db: PrismaClient, row: Parameters<typeof record>[1]): Promise<void> {
    try {
      await record(db, row);
    } catch (error) {
      process.emitWarning(
        `Endpoint execution log write failed for '${row.endpoint.name}': ${error instanceof Error ? error.message : String(error)}`,
        { code: "SIGNALBOX_ENDPOINT_EXECUTION_LOG" },
      );
    }
  }

  /** Steps 2–5 for an active endpoint. */
  async function execute(
    ctx: ServiceContext,
    project: ProjectAccess,
    endpoint: EndpointRecord,
    input: RunInput,
    executionId: string,
    resolved: { version: EndpointVersionRecord | null; executing: boolean },
  ): Promise<EndpointRunResult> {
    const data = parseInput(endpointRunRequestSchema, input.body ?? {}, ctx.limits);
    forbidExtraFields(endpointRunRequestSchema, input.body ?? {});
    const version = await runVersion(ctx, endpoint, data.version, input.versionParam);
    resolved.version = version;
    if (!version.isActive) {
      throw new ValidationError(`Version ${version.version} is inactive and cannot be executed.`);
    }
    if (data.query_override !== undefined && data.query_override !== null) {
      throw new ValidationError("query_override is not allowed. Use variables instead.", {
        attr: "query_override",
      });
    }
    if (data.filters_override !== undefined && data.filters_override !== null) {
      throw new ValidationError("filters_override is not allowed. Use variables instead.", {
        attr: "filters_override",
      });
    }
    const query = version.query;
    const kind = String(query["kind"]);
    if (kind !== "HogQLQuery" && data.offset != null) {
      throw new ValidationError("offset is only supported for HogQL endpoints", { attr: "offset" });
    }
    if (kind !== "HogQLQuery" && data.limit != null) {
      throw new ValidationError("limit is only supported for HogQL endpoints", { attr: "limit" });
    }
    const mode = refreshMode(data.refresh, version.isMaterialized);
    checkVariables(query, data.variables);
    const runQuery = applyVariables(query, data.variables);
    const key: ResultKey = {
      projectId: project.id,
      timezone: project.timezone,
      endpointId: endpoint.id,
      version: version.version,
      query: runQuery,
      limit: data.limit ?? null,
      offset: data.offset ?? null,
    };
    resolved.executing = true;
    const now = deps.now();
    const givesNothing = (value: unknown) =>
      value === null || value === undefined || (typeof value === "object" && Object.keys(value).length === 0);
    const stored =
      mode !== "direct" && givesNothing(data.variables) && data.limit == null && data.offset == null
        ? await materialization.freshMaterializedResult(ctx, version, now)
        : null;
    if (stored) {
      const materializedAt = drfDateTime(stored.materializedAt);
      const response = {
        results: stored.results,
        columns: stored.columns,
        types: stored.types,
        hasMore: false,
        is_cached: false,
        last_refresh: materializedAt,
        timezone: project.timezone,
        endpoint_materialized: true,
        endpoint_materialized_at: materializedAt,
      };
      return {
        kind,
        body: shape(response, { debug: data.debug ?? false, name: endpoint.name, executionId, version }),
      };
    }
    const hit =
      mode !== "force_blocking"
        ? cache.fresh(key, targetAgeSeconds(query, version.cacheAgeSeconds), now)
        : undefined;
    let response: Record<string, unknown>;
    if (hit) {
      response = { ...hit.response, is_cached: true };
    } else {
      try {
        response = await queries.runAuthorized(ctx, project, runQuery, {
          ...(data.limit != null ? { limit: data.limit } : {}),
          ...(data.offset != null ? { offset: data.offset } : {}),
        });
      } catch (error) {
        throw executionError(error);
      }
      const computedAt =
        typeof response["last_refresh"] === "string" ? new Date(response["last_refresh"]) : now;
      cache.store(key, response, Number.isNaN(computedAt.getTime()) ? now : computedAt);
    }
    return {
      kind,
      body: shape(response, { debug: data.debug ?? false, name: endpoint.name, executionId, version }),
    };
  }

  return {
    /**
     * Runs endpoint `key` of project `projectId` (see the module comment). Scope `endpoint:read`.
     * @throws NotFoundError (project, endpoint unknown or inactive), PermissionDeniedError;
     *   InvalidVersionParameterError, RunVersionNotFoundError; ValidationError (body, overrides,
     *   limit/offset, refresh, variables, `Query execution failed: ...`); TooManyRequestsError (429).
     */
    async run(ctx: ServiceContext, projectId: number, key: K, input: RunInput): Promise<EndpointRunResult> {
      // Each run is logged, and its result may come from the run cache without a statement: never kept whole.
      ctx.reads?.volatile();
      const project = await authorizeProject(ctx, projectId, "endpoint:read");
      const endpoint = await lookup(ctx.db, project.id, key);
      if (!endpoint.isActive) throw new NotFoundError();
      const executionId = randomUUID();
      const executedAt = deps.now();
      const started = performance.now();
      const resolved: { version: EndpointVersionRecord | null; executing: boolean } = {
        version: null,
        executing: false,
      };
      const log = (rows: number | null, error: string | null) =>
        recordSafely(ctx.db, {
          id: executionId,
          endpoint,
          version: resolved.version?.version ?? null,
          executedAt,
          durationMs: Math.round(performance.now() - started),
          rows,
          error,
        });
      try {
        const result = await execute(ctx, project, endpoint, input, executionId, resolved);
        const results = result.body["results"];
        await log(Array.isArray(results) ? results.length : null, null);
        return result;
      } catch (error) {
        // A request refused before it ran (bad body, version, overrides, variables) is not a run: it
        // writes nothing, as every refused request. Failures of the run itself (the engine, 429) are logged.
        if (resolved.executing) {
          await log(null, publicMessage(error));
        }
        throw error;
      }
    },
  };
}
