/**
 * The saved-query endpoint service (issue 10 parts 1, 4 and 6): every endpoint operation of both
 * front doors. It checks scopes and project access, validates input by PostHog's rules in PostHog's
 * order and returns records. It knows nothing of HTTP or GraphQL. Creates, updates, a version's
 * `is_active` and deletes (the endpoint, its versions and the activity entries in one transaction;
 * the row lock) are endpoints.writes.ts; how endpoints are stored, endpoints.store.ts; how they are
 * read, endpoints.queries.ts.
 *
 * Versioning (posthog-behavior.md §4.4): a new version is made only when the query changes (JSON with
 * sorted keys); `description` and `cache_age_seconds` apply to every version; `is_active` of one
 * version changes only through `setVersionActive`.
 *
 * Materialization (§4.3–4.6): a materializable HogQL endpoint is materialized on create (`24hour`);
 * PATCH `is_materialized`/`sync_frequency` enable, disable or re-time it; a query change moves it to
 * the new version with its frequency; deactivating or deleting disables it. The state is written in
 * the write's transaction (materialization/materialization.store.ts); the refresh jobs are scheduled
 * after the commit (materialization/materialization.service.ts).
 *
 * Running an endpoint is ./run/endpoint-run.ts (PostHog's run rules, result cache, execution log).
 * Source: `products/endpoints/backend/api.py` EndpointViewSet (late 2025), `models.py`; §4.1–4.9.
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { inUuidOrder, isUuid, parseInput } from "../core/validation.js";
import type { QueryService } from "../queries/query.service.js";
import type { QueryWorkers } from "../queries/query-workers.js";
import {
  type EndpointKey,
  type EndpointRecord,
  type EndpointVersionRecord,
  readEndpoint,
  readEndpointVersion,
  selectEndpointPage,
  selectEndpoints,
  selectLastExecutionTimes,
  selectVersionPage,
} from "./endpoints.queries.js";
import {
  endpointListFiltersSchema,
  forbidExtraFields,
  lastExecutionTimesSchema,
} from "./endpoints.schemas.js";
import { createEndpointWrites, storedAst, storedQueryParse } from "./endpoints.writes.js";
import type { MaterializationService } from "./materialization/materialization.service.js";
import { canMaterializeHere, type MaterializationCheck } from "./rules/materialization.js";
import { isEndpointName } from "./rules/name.js";
import { createEndpointRunner, type EndpointRunResult, type RunInput } from "./run/endpoint-run.js";

export type { EndpointKey } from "./endpoints.queries.js";
export { VersionNotFoundError } from "./endpoints.queries.js";

/**
 * An endpoint version's materialization as both doors show it (§4.6): `materialized` holds PostHog's
 * materialized status while it is on (`can_materialize` is then true), else null and the check says
 * whether it could be.
 */
export interface MaterializationView extends MaterializationCheck {
  materialized: {
    /** PostHog's saved-query status (`Running`, `Completed`, `Failed`, `Modified`), `Unknown` before the first refresh. */
    status: string;
    /** When the last successful refresh started; null before one. */
    lastMaterializedAt: Date | null;
    /** The last failed refresh's message; `""` when none. */
    error: string;
    syncFrequency: string;
  } | null;
}

/** How far back `last_execution_times` looks (the spec's Limits: 6 months). */
const LOOK_BACK_MONTHS = 6;

/** An endpoint with one of its versions: what `?version=N`, `versions/` and `versions/:n/` answer. */
export interface EndpointVersionView {
  endpoint: EndpointRecord;
  version: EndpointVersionRecord;
}

/** `last_execution_times`' answer: PostHog's `QueryStatus` fields this service knows. */
export interface LastExecutionTimes {
  projectId: number;
  /**
   * `[name, last executed at]` per name that ran in the window, by name; null when no names were
   * asked for (PostHog then answers a complete status without running its query).
   */
  results: Array<[string, Date]> | null;
}

/**
 * Creates the endpoint service; `materialization` schedules the refreshes of materialized versions,
 * `queries` runs the endpoints' queries, `queryWorkers` parses their HogQL.
 */
export function createEndpointService(
  deps: ServiceDeps,
  collaborators: {
    materialization: MaterializationService;
    queries: QueryService;
    queryWorkers: QueryWorkers;
  },
) {
  const { queryWorkers } = collaborators;
  const parse = storedQueryParse(queryWorkers);
  const writes = createEndpointWrites(deps, collaborators);

  /**
   * `version`'s materialization: its status while materialized, else whether it could be
   * (`canMaterializeHere`, rules/materialization.ts).
   */
  async function materializationOf(version: EndpointVersionRecord): Promise<MaterializationView> {
    const state = version.materialization;
    if (version.isMaterialized && state) {
      return {
        canMaterialize: true,
        reason: null,
        materialized: {
          status: state.status ?? "Unknown",
          lastMaterializedAt: state.lastRunAt,
          error: state.latestError ?? "",
          syncFrequency: state.syncFrequency,
        },
      };
    }
    return {
      ...canMaterializeHere(version.query, await storedAst(version.query, parse)),
      materialized: null,
    };
  }

  const runner = createEndpointRunner(deps, collaborators, readEndpoint);

  return {
    /**
     * Runs endpoint `name` (`GET`/`POST :name/run/`, GraphQL `Endpoint.run`): PostHog's run rules,
     * result cache and execution log (./run/endpoint-run.ts). Scope `endpoint:read`.
     * @throws as `EndpointRunner.run`: NotFoundError, PermissionDeniedError, the version errors,
     *   ValidationError, TooManyRequestsError.
     */
    run(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      input: RunInput,
    ): Promise<EndpointRunResult> {
      return runner.run(ctx, projectId, name, input);
    },

    /**
     * One page of the project's endpoints, newest first, with the total; `query` holds the list
     * filters `is_active` and `created_by` (a user id). Scope `endpoint:read`.
     * @throws ValidationError for a filter of the wrong type.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ count: number; results: EndpointRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "endpoint:read");
      const filters = parseInput(endpointListFiltersSchema, query, ctx.limits);
      return selectEndpointPage(ctx.db, project.id, filters, page);
    },

    /** The project's endpoint named `name`. Scope `endpoint:read`. @throws NotFoundError. */
    async get(ctx: ServiceContext, projectId: number, name: EndpointKey): Promise<EndpointRecord> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      return readEndpoint(ctx.db, projectId, name);
    },

    /** Endpoints of the project by UUID, in the order asked, null where none (node loads). Scope `endpoint:read`. */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly string[],
    ): Promise<(EndpointRecord | null)[]> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      return inUuidOrder(ids, await selectEndpoints(ctx.db, projectId, ids.filter(isUuid)));
    },

    /**
     * Endpoint `name` with its version `number` (`GET :name/?version=N`, `versions/:n/`). Scope
     * `endpoint:read`. @throws NotFoundError (endpoint), VersionNotFoundError.
     */
    async getVersion(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      number: number,
    ): Promise<EndpointVersionView> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      const endpoint = await readEndpoint(ctx.db, projectId, name);
      return { endpoint, version: await readEndpointVersion(ctx.db, endpoint, number) };
    },

    /**
     * One page of endpoint `name`'s versions, highest first (§4.8). Scope `endpoint:read`.
     * @throws NotFoundError.
     */
    async versions(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      page: OffsetPage,
    ): Promise<{ count: number; endpoint: EndpointRecord; results: EndpointVersionRecord[] }> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      const endpoint = await readEndpoint(ctx.db, projectId, name);
      return { endpoint, ...(await selectVersionPage(ctx.db, projectId, endpoint.id, page)) };
    },

    /**
     * Creates an endpoint and its version 1 (§4.3), checks in PostHog's order: unknown fields, field
     * types, `Must specify query`, `Endpoint must have a name.`, the name pattern, the query kind and
     * HogQL text, the cache age, then the materialization rules. Writes activity `created`. A
     * materializable HogQL query is materialized (`sync_frequency`, default `24hour`) unless
     * `is_materialized: false` is sent; asking for it on a query that cannot be is a 400.
     * Scope `endpoint:write`.
     * @throws ValidationError (a duplicate name: `Failed to create endpoint.`).
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      return writes.create(ctx, project.id, body);
    },

    /**
     * Changes endpoint `name` (PATCH and PUT alike; every field optional, `name` ignored, §4.4):
     * `description` and `cache_age_seconds` apply to every version (`cache_age_seconds: null`
     * clears it); `is_active` to the endpoint; a query that differs from the current version's
     * (sorted-key JSON) makes version `current_version + 1`, copying description and cache age, and
     * writes activity `version_created`. Materialization (§4.4): `is_materialized: true` (with an
     * optional `sync_frequency`, else the current or `24hour`) enables it on the current version, or
     * with the new query on the new one; `sync_frequency` alone re-times (or enables) it;
     * `is_materialized: false` or deactivating disables it on every version; a changed query moves it
     * to the new version keeping its frequency (status `Modified` until its first refresh). Writes
     * activity `updated` with the changes (none: no entry). Scope `endpoint:write`.
     * @throws NotFoundError; ValidationError (query, cache age, materialization rules and reasons).
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      body: unknown,
    ): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      return writes.update(ctx, project.id, name, body);
    },

    /**
     * `PATCH :name/?version=N`: sets only version N's `is_active` (other fields of the body are not
     * applied, as PostHog); writes activity `updated` when that changes it, decided under the
     * endpoint's row lock (src/core/row-lock.ts). Scope `endpoint:write`.
     * @throws NotFoundError; VersionNotFoundError; ValidationError for a bad body.
     */
    async setVersionActive(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      number: number,
      body: unknown,
    ): Promise<EndpointVersionView> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      return writes.setVersionActive(ctx, project.id, name, number, body);
    },

    /**
     * Deletes endpoint `name` and its versions, with their materializations and stored rows (§4.5;
     * their refresh jobs end after the commit; its execution log keeps the name) and writes activity
     * `deleted`; returns it as it was. Scope `endpoint:write`. @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, name: EndpointKey): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      return writes.destroy(ctx, project.id, name);
    },

    /**
     * `version`'s materialization: its status while materialized, else whether it could be
     * (`canMaterializeHere`, rules/materialization.ts).
     */
    materialization: materializationOf,

    /**
     * `GET :name/materialization_status` (§4.6): the current version's materialization. Scope
     * `endpoint:read` (decision 2). @throws NotFoundError.
     */
    async materializationStatus(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
    ): Promise<MaterializationView> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      const endpoint = await readEndpoint(ctx.db, projectId, name);
      return materializationOf(endpoint.current);
    },

    /**
     * `POST last_execution_times` (§4.9): for each of `names`, when a personal API key last ran it in
     * the last 6 months (from the execution log); every name must match the name pattern; no names:
     * no results. Scope `endpoint:read` (decision 2).
     * @throws ValidationError `Invalid endpoint name: <x>`, or for a body without a `names` list.
     */
    async lastExecutionTimes(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
    ): Promise<LastExecutionTimes> {
      const project = await authorizeProject(ctx, projectId, "endpoint:read");
      const { names } = parseInput(lastExecutionTimesSchema, body, ctx.limits);
      forbidExtraFields(lastExecutionTimesSchema, body);
      // products/endpoints/backend/api.py: `if not names` answers `QueryStatus(complete=True)`, results unset.
      if (names.length === 0) return { projectId: project.id, results: null };
      for (const name of names) {
        if (!isEndpointName(name))
          throw new ValidationError(`Invalid endpoint name: ${name}`, { attr: "names" });
      }
      const since = new Date(deps.now());
      since.setUTCMonth(since.getUTCMonth() - LOOK_BACK_MONTHS);
      const rows = await selectLastExecutionTimes(ctx.db, project.id, [...new Set(names)], since);
      return { projectId: project.id, results: rows.map((row) => [row.name, row.lastExecutedAt]) };
    },
  };
}

/** The endpoint service's operations. */
export type EndpointService = ReturnType<typeof createEndpointService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createEndpointService`. */
    endpoints: EndpointService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Saved-query endpoints' entries (`products/endpoints/backend/api.py` `log_activity(scope="Endpoint")`). */
    Endpoint: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Endpoints (`id` uuid). */
    endpoints: string;
  }
}
