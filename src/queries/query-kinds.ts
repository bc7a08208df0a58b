/**
 * The registry of query kinds the query service runs (`HogQLQuery` here; the Trends engine adds
 * `TrendsQuery` beside it): each kind is `{kind, run}`, registered in src/composition.ts, so a new
 * kind edits nothing in this folder.
 *
 * A kind's `run(deps, project, query, options)`:
 * - `deps.ctx`: the caller's service context (its database client and limits; the project is
 *   already authorised with `query:read`); `deps.now`: the clock;
 *   `deps.execute(sql, timezone)`: runs one read statement in a read-only transaction with the
 *   run's statement timeout and the session `TimeZone` set to `timezone` (./run-sql.ts);
 * - `project`: the project row (its `id` and `timezone`);
 * - `query`: the raw query object (`{kind, ...}`), which the kind validates with zod;
 * - `options`: `limit`/`offset` from the caller (HogQL pagination), `timeoutMs`.
 * It resolves to PostHog's response for that kind (HogQLQueryResponse, TrendsQueryResponse), with
 * the cached-response fields (`is_cached: false`, `last_refresh`, ...) from `cachedResponseFields`.
 */

import { createHash } from "node:crypto";
import type { ServiceContext } from "../core/context.js";
import type { ProjectRecord } from "../core/records.js";
import type { Prisma } from "../generated/prisma/client.js";

/** Options of one run. */
export interface QueryRunOptions {
  /** Rows per page for a paginated HogQL query (default 100, at most 50,000). */
  limit?: number | undefined;
  offset?: number | undefined;
  /** Statement timeout of the run, in ms. */
  timeoutMs: number;
}

/** What a kind's run is handed. */
export interface QueryRunDeps {
  ctx: ServiceContext;
  now: () => Date;
  /** Runs one read statement (read-only transaction, statement timeout, session TimeZone). */
  execute<R>(query: Prisma.Sql, timezone: string): Promise<R[]>;
}

/** A query response: PostHog's JSON object for the kind. */
export type QueryResponse = Record<string, unknown>;

/** A query kind. */
export interface QueryKind {
  /** PostHog's `kind` (`HogQLQuery`, `TrendsQuery`). */
  kind: string;
  run(
    deps: QueryRunDeps,
    project: ProjectRecord,
    query: unknown,
    options: QueryRunOptions,
  ): Promise<QueryResponse>;
}

/**
 * PostHog's `CachedQueryResponseMixin` fields for a fresh (uncached) result: `is_cached: false`,
 * `last_refresh` now, `next_allowed_client_refresh` a minute later (PostHog's minimum refresh
 * interval for query runners), and a `cache_key` over the project and the query; `timezone`.
 */
export function cachedResponseFields(
  project: ProjectRecord,
  query: unknown,
  now: Date,
): {
  is_cached: false;
  last_refresh: string;
  next_allowed_client_refresh: string;
  cache_key: string;
  timezone: string;
} {
  const digest = createHash("sha256")
    .update(JSON.stringify([project.id, project.timezone, query]))
    .digest("hex");
  return {
    is_cached: false,
    last_refresh: now.toISOString(),
    next_allowed_client_refresh: new Date(now.getTime() + 60_000).toISOString(),
    cache_key: `cache_${project.id}_${digest.slice(0, 40)}`,
    timezone: project.timezone,
  };
}
