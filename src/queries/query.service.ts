/**
 * The query service: runs a query object (`{kind: "HogQLQuery", ...}`, and the kinds other engines
 * register) for a project, as PostHog's query runners do, for the endpoints' `run`, dashboards and
 * the REST door `POST /api/projects/:id/query/`. Caching belongs to the callers; this service always
 * computes.
 *
 * Limits (configuration, src/config.ts): each run has a statement timeout (`QUERY_TIMEOUT_MS`,
 * overridable per call), and a project may have at most `QUERY_MAX_CONCURRENT_PER_PROJECT` runs in
 * flight in this process; beyond that a run fails at once with 429
 * `Too many concurrent requests. Please try again later.` (posthog-behavior.md §4.7).
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ProjectAccess, ServiceContext } from "../core/context.js";
import { TooManyRequestsError, ValidationError } from "../core/errors.js";
import type { ServiceDeps } from "../core/services.js";
import type { QueryKind, QueryResponse } from "./query-kinds.js";
import { countedRun } from "./query-metrics.js";
import { runReadOnly } from "./run-sql.js";

declare module "../core/services.js" {
  interface Services {
    queries: QueryService;
  }
}

/** Options of `QueryService.run`. */
export interface RunQueryOptions {
  /** Rows per page of a paginated HogQL query. */
  limit?: number;
  offset?: number;
  /** Statement timeout in ms (default `QUERY_TIMEOUT_MS`). */
  timeoutMs?: number;
}

/** The query service (see the module comment). */
export type QueryService = ReturnType<typeof createQueryService>;

/** Creates the query service over the registered kinds (src/composition.ts lists them). */
export function createQueryService(deps: ServiceDeps, kinds: readonly QueryKind[]) {
  const registry = new Map(kinds.map((kind) => [kind.kind, kind]));
  const inFlight = new Map<number, number>();

  /** Runs `query` for an authorised `project` (see `run`). */
  async function runFor(
    ctx: ServiceContext,
    project: ProjectAccess,
    query: unknown,
    options: RunQueryOptions,
  ): Promise<QueryResponse> {
    const kindName =
      query !== null && typeof query === "object" ? (query as Record<string, unknown>)["kind"] : undefined;
    const kind = typeof kindName === "string" ? registry.get(kindName) : undefined;
    if (!kind) {
      throw new ValidationError(
        `Unsupported query kind: ${String(kindName)}. Supported: ${[...registry.keys()].join(", ")}.`,
        { attr: "kind" },
      );
    }
    return countedRun(kind.kind, async () => {
      const running = inFlight.get(project.id) ?? 0;
      if (running >= ctx.limits.queryMaxConcurrentPerProject) throw new TooManyRequestsError();
      inFlight.set(project.id, running + 1);
      const timeoutMs = options.timeoutMs ?? ctx.limits.queryTimeoutMs;
      try {
        return await kind.run(
          {
            ctx,
            now: deps.now,
            execute: (sql, timezone) =>
              runReadOnly(ctx.db, sql, { timeoutMs, timezone, maxCost: ctx.limits.queryMaxCost }),
          },
          project,
          query,
          { limit: options.limit, offset: options.offset, timeoutMs },
        );
      } finally {
        const left = (inFlight.get(project.id) ?? 1) - 1;
        if (left <= 0) inFlight.delete(project.id);
        else inFlight.set(project.id, left);
      }
    });
  }

  return {
    /** The kinds this service runs. */
    kinds(): string[] {
      return [...registry.keys()];
    },

    /**
     * Runs `query` for `projectId` and returns PostHog's response for its kind. Scope `query:read`.
     * `readQuery`, when given, is called once the project is authorised to read the query from a
     * request body (so that a caller without access gets 403 before any 400 about its input).
     * @throws NotFoundError (project), PermissionDeniedError; ValidationError for an unknown kind,
     *   an invalid query, an unsupported construct or a failed execution; TooManyRequestsError
     *   when the project already has the configured number of runs in flight.
     */
    async run(
      ctx: ServiceContext,
      projectId: number,
      query: unknown,
      options: RunQueryOptions = {},
      readQuery?: () => unknown,
    ): Promise<QueryResponse> {
      const project = await authorizeProject(ctx, projectId, "query:read");
      if (readQuery) query = readQuery();
      return runFor(ctx, project, query, options);
    },

    /**
     * Runs `query` for `project`, which the caller has already authorised with its own scope (the
     * endpoints' `run` needs `endpoint:read`, not `query:read`: PostHog's `scope_object_read_actions`).
     * No scope is checked here: callers must pass a project `authorizeProject` returned. Same answer,
     * errors and per-project cap as `run`.
     * @throws ValidationError, TooManyRequestsError as `run`.
     */
    runAuthorized(
      ctx: ServiceContext,
      project: ProjectAccess,
      query: unknown,
      options: RunQueryOptions = {},
    ): Promise<QueryResponse> {
      return runFor(ctx, project, query, options);
    },
  };
}
