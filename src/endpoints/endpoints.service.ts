/**
 * The saved-query endpoint service (issue 10 parts 1, 4 and 6): every endpoint operation of both
 * front doors. It checks scopes and project access, validates input by PostHog's rules in PostHog's
 * order, writes the endpoint, its versions and the activity entries in one transaction, and returns
 * records. It knows nothing of HTTP or GraphQL.
 *
 * Versioning (posthog-behavior.md §4.4): a new version is made only when the query changes (JSON with
 * sorted keys); `description` and `cache_age_seconds` apply to every version; `is_active` of one
 * version changes only through `setVersionActive`.
 *
 * Running an endpoint is ./run/endpoint-run.ts (PostHog's run rules, result cache, execution log).
 * Not built yet, answered 501 with the reason: materialization (`is_materialized: true` or a
 * `sync_frequency`, after every validation).
 * Source: `products/endpoints/backend/api.py` EndpointViewSet (late 2025), `models.py`; §4.1–4.9.
 */
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, NotImplementedError, ValidationError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { inUuidOrder, isUuid, parseInput } from "../core/validation.js";
import { Prisma } from "../generated/prisma/client.js";
import { type HogQLNode, parseHogQLSelect } from "../queries/hogql/parser.js";
import type { QueryService } from "../queries/query.service.js";
import {
  type Db,
  type EndpointRecord,
  type EndpointVersionRecord,
  selectEndpointByName,
  selectEndpointPage,
  selectEndpoints,
  selectLastExecutionTimes,
  selectVersion,
  selectVersionPage,
} from "./endpoints.queries.js";
import {
  checkSyncFrequency,
  type EndpointRequest,
  endpointListFiltersSchema,
  endpointRequestSchema,
  forbidExtraFields,
  lastExecutionTimesSchema,
  MAX_CACHE_AGE_SECONDS,
  MIN_CACHE_AGE_SECONDS,
} from "./endpoints.schemas.js";
import { canMaterialize, type MaterializationCheck } from "./rules/materialization.js";
import { INVALID_NAME_MESSAGE, isEndpointName } from "./rules/name.js";
import { ENDPOINT_QUERY_KINDS, isEndpointQueryKind, queryChanged } from "./rules/query.js";
import { createEndpointRunner, type EndpointRunResult, type RunInput } from "./run/endpoint-run.js";

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
  /** `[name, last executed at]` per name that ran in the window, by name. */
  results: Array<[string, Date]>;
}

/**
 * 404 for a version number an endpoint does not have. REST answers it with PostHog's own body
 * `{"error": "Version N not found"}` (§4.4, §4.8).
 */
export class VersionNotFoundError extends NotFoundError {
  constructor(version: number) {
    super(`Version ${version} not found`);
  }
}

/**
 * Which endpoint an operation acts on: its name (REST's `:name`) or its UUID (`{id}`, GraphQL's
 * mutations, which address objects by id).
 */
export type EndpointKey = string | { id: string };

/** The fields the activity log compares, under PostHog's names. */
function snapshot(endpoint: EndpointRecord): Record<string, unknown> {
  return {
    name: endpoint.name,
    description: endpoint.current.description,
    query: endpoint.current.query,
    is_active: endpoint.isActive,
    cache_age_seconds: endpoint.current.cacheAgeSeconds,
    current_version: endpoint.currentVersion,
    derived_from_insight: endpoint.derivedFromInsight,
  };
}

/**
 * The query of a request, checked: an object whose `kind` is `HogQLQuery` (with text PostHog's
 * parser accepts) or an insight node. Returns it as given, with its parsed HogQL (null otherwise).
 * @throws ValidationError attr `query`: an unknown kind, HogQL without text, `Invalid HogQL query: ...`.
 */
async function checkedQuery(
  query: Record<string, unknown>,
): Promise<{ query: Record<string, unknown>; ast: HogQLNode | null }> {
  const kind = query["kind"];
  if (!isEndpointQueryKind(kind)) {
    throw new ValidationError(
      `Query kind '${String(kind)}' is not supported. Supported kinds: ${ENDPOINT_QUERY_KINDS.join(", ")}.`,
      { attr: "query" },
    );
  }
  if (kind !== "HogQLQuery") return { query, ast: null };
  const text = query["query"];
  if (typeof text !== "string") {
    throw new ValidationError("A HogQLQuery needs its HogQL text in `query`.", { attr: "query" });
  }
  return { query, ast: await parseHogQLSelect(text, "query") };
}

/** The parsed HogQL of a stored query, or null when it is not HogQL or no longer parses. */
async function storedAst(query: Record<string, unknown>): Promise<HogQLNode | null> {
  if (query["kind"] !== "HogQLQuery" || typeof query["query"] !== "string") return null;
  try {
    return await parseHogQLSelect(query["query"]);
  } catch {
    return null;
  }
}

/** PostHog's `_validate_cache_age_seconds`. @throws ValidationError attr `cache_age_seconds`. */
function checkCacheAge(seconds: number | null | undefined): void {
  if (seconds === null || seconds === undefined) return;
  if (seconds < MIN_CACHE_AGE_SECONDS || seconds > MAX_CACHE_AGE_SECONDS) {
    throw new ValidationError(
      `Cache age must be between ${MIN_CACHE_AGE_SECONDS} and ${MAX_CACHE_AGE_SECONDS} seconds.`,
      { attr: "cache_age_seconds" },
    );
  }
}

/**
 * PostHog's materialization rules of a write (`validate_update_request`), then 501 for a request
 * that would enable materialization, which this service does not build yet.
 * @throws ValidationError attr `is_materialized`/`sync_frequency`; NotImplementedError.
 */
function checkMaterialization(data: EndpointRequest, willBeActive: boolean): void {
  if (!willBeActive && data.is_materialized === true) {
    throw new ValidationError("Cannot enable materialization on inactive endpoint.", {
      attr: "is_materialized",
    });
  }
  if (!willBeActive && data.sync_frequency != null) {
    throw new ValidationError("Cannot set sync_frequency on inactive endpoint.", { attr: "sync_frequency" });
  }
  if (data.is_materialized === false && data.sync_frequency != null) {
    throw new ValidationError("Cannot set sync_frequency when disabling materialization.", {
      attr: "sync_frequency",
    });
  }
  if (data.is_materialized === true || data.sync_frequency != null) {
    throw new NotImplementedError(
      "Materialization is not implemented yet: endpoints run inline. Leave out `is_materialized` and " +
        "`sync_frequency` (nothing was changed).",
    );
  }
}

/**
 * Parses an `EndpointRequest` body: nesting, field types and storable text first (`parseInput`, as
 * every body of this service), then unknown fields refused (Pydantic `extra="forbid"`).
 */
function parseRequest(ctx: ServiceContext, body: unknown): EndpointRequest {
  const data = parseInput(endpointRequestSchema, body, ctx.limits);
  forbidExtraFields(endpointRequestSchema, body);
  checkSyncFrequency(data.sync_frequency);
  return data;
}

/** Creates the endpoint service; `collaborators.queries` runs the endpoints' queries. */
export function createEndpointService(deps: ServiceDeps, collaborators: { queries: QueryService }) {
  /** The project's endpoint named or identified by `ref`. @throws NotFoundError. */
  async function read(db: Db, projectId: number, ref: EndpointKey): Promise<EndpointRecord> {
    const endpoint =
      typeof ref === "string"
        ? await selectEndpointByName(db, projectId, ref)
        : isUuid(ref.id)
          ? ((await selectEndpoints(db, projectId, [ref.id]))[0] ?? null)
          : null;
    if (!endpoint) throw new NotFoundError();
    return endpoint;
  }

  /** Version `number` of `endpoint`. @throws VersionNotFoundError. */
  async function readVersion(
    db: Db,
    endpoint: EndpointRecord,
    number: number,
  ): Promise<EndpointVersionRecord> {
    const version = await selectVersion(db, endpoint.projectId, endpoint.id, number);
    if (!version) throw new VersionNotFoundError(number);
    return version;
  }

  const runner = createEndpointRunner(deps, collaborators.queries, read);

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
      return read(ctx.db, projectId, name);
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
      const endpoint = await read(ctx.db, projectId, name);
      return { endpoint, version: await readVersion(ctx.db, endpoint, number) };
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
      const endpoint = await read(ctx.db, projectId, name);
      return { endpoint, ...(await selectVersionPage(ctx.db, projectId, endpoint.id, page)) };
    },

    /**
     * Creates an endpoint and its version 1 (§4.3), checks in PostHog's order: unknown fields, field
     * types, `Must specify query`, `Endpoint must have a name.`, the name pattern, the query kind and
     * HogQL text, the cache age, then the materialization rules (enabling it: 501). Writes activity
     * `created`. Materialization is never enabled on its own. Scope `endpoint:write`.
     * @throws ValidationError (a duplicate name: `Failed to create endpoint.`); NotImplementedError.
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      const data = parseRequest(ctx, body);
      if (!data.query || Object.keys(data.query).length === 0)
        throw new ValidationError("Must specify query");
      if (!data.name) throw new ValidationError("Endpoint must have a name.");
      if (!isEndpointName(data.name)) throw new ValidationError(INVALID_NAME_MESSAGE);
      const { query } = await checkedQuery(data.query);
      checkCacheAge(data.cache_age_seconds);
      checkMaterialization(data, data.is_active ?? true);
      const name = data.name;
      const userId = ctx.actor.user.id;
      const now = deps.now();
      try {
        return await ctx.db.$transaction(async (tx) => {
          const endpoint = await tx.endpoint.create({
            data: {
              projectId: project.id,
              name,
              isActive: data.is_active ?? true,
              currentVersion: 1,
              derivedFromInsight: data.derived_from_insight ?? null,
              createdById: userId,
              createdAt: now,
              updatedAt: now,
            },
            select: { id: true },
          });
          await tx.endpointVersion.create({
            data: {
              projectId: project.id,
              endpointId: endpoint.id,
              version: 1,
              query: query as Prisma.InputJsonValue,
              description: data.description ?? "",
              cacheAgeSeconds: data.cache_age_seconds ?? null,
              createdById: userId,
              createdAt: now,
            },
          });
          await recordActivity(tx, {
            projectId: project.id,
            userId,
            scope: "Endpoint",
            itemId: endpoint.id,
            activity: "created",
            name,
            changes: null,
          });
          return read(tx, project.id, name);
        });
      } catch (error) {
        // PostHog answers any database failure of the insert, the duplicate name first, with this.
        if (error instanceof Prisma.PrismaClientKnownRequestError) {
          throw new ValidationError("Failed to create endpoint.");
        }
        throw error;
      }
    },

    /**
     * Changes endpoint `name` (PATCH and PUT alike; every field optional, `name` ignored, §4.4):
     * `description` and `cache_age_seconds` apply to every version (`cache_age_seconds: null`
     * clears it); `is_active` to the endpoint; a query that differs from the current version's
     * (sorted-key JSON) makes version `current_version + 1`, copying description and cache age, and
     * writes activity `version_created`. Writes activity `updated` with the changes (none: no entry).
     * Scope `endpoint:write`.
     * @throws NotFoundError; ValidationError (query, cache age, materialization rules); NotImplementedError.
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      body: unknown,
    ): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      const current = await read(ctx.db, project.id, name);
      const data = parseRequest(ctx, body);
      checkCacheAge(data.cache_age_seconds);
      checkMaterialization(data, data.is_active ?? current.isActive);
      const next = data.query ? (await checkedQuery(data.query)).query : null;
      const changed = next !== null && queryChanged(current.current.query, next);
      const hasCacheAge = body !== null && typeof body === "object" && "cache_age_seconds" in body;
      const userId = ctx.actor.user.id;
      const now = deps.now();
      return ctx.db.$transaction(async (tx) => {
        const versionData: Prisma.EndpointVersionUpdateManyMutationInput = {};
        if (data.description != null) versionData.description = data.description;
        if (hasCacheAge) versionData.cacheAgeSeconds = data.cache_age_seconds ?? null;
        if (Object.keys(versionData).length > 0) {
          await tx.endpointVersion.updateMany({ where: { endpointId: current.id }, data: versionData });
        }
        const newVersion = current.currentVersion + 1;
        if (changed) {
          await tx.endpointVersion.create({
            data: {
              projectId: project.id,
              endpointId: current.id,
              version: newVersion,
              query: next as Prisma.InputJsonValue,
              description: data.description ?? current.current.description,
              cacheAgeSeconds: hasCacheAge
                ? (data.cache_age_seconds ?? null)
                : current.current.cacheAgeSeconds,
              isMaterialized: false,
              createdById: userId,
              createdAt: now,
            },
          });
        }
        const endpointChanged = changed || (data.is_active != null && data.is_active !== current.isActive);
        if (endpointChanged || Object.keys(versionData).length > 0) {
          // Compare-and-swap on the version: a concurrent new version fails the unique key above or this count.
          const { count } = await tx.endpoint.updateMany({
            where: { id: current.id, currentVersion: current.currentVersion },
            data: {
              ...(data.is_active != null ? { isActive: data.is_active } : {}),
              ...(changed ? { currentVersion: newVersion } : {}),
              updatedAt: now,
            },
          });
          if (count === 0) throw new ValidationError("Failed to update endpoint.");
        }
        const updated = await read(tx, project.id, current.name);
        if (changed) {
          await recordActivity(tx, {
            projectId: project.id,
            userId,
            scope: "Endpoint",
            itemId: current.id,
            activity: "version_created",
            name: current.name,
            changes: [
              {
                type: "Endpoint",
                action: "created",
                field: "version",
                before: current.currentVersion,
                after: newVersion,
              },
            ],
          });
        }
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "Endpoint",
          itemId: current.id,
          activity: "updated",
          name: current.name,
          changes: changesBetween("Endpoint", snapshot(current), snapshot(updated)),
        });
        return updated;
      });
    },

    /**
     * `PATCH :name/?version=N`: sets only version N's `is_active` (other fields of the body are not
     * applied, as PostHog); writes activity `updated`. Scope `endpoint:write`.
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
      const endpoint = await read(ctx.db, project.id, name);
      const version = await readVersion(ctx.db, endpoint, number);
      const data = parseRequest(ctx, body);
      if (data.is_active == null || data.is_active === version.isActive) return { endpoint, version };
      const isActive = data.is_active;
      return ctx.db.$transaction(async (tx) => {
        await tx.endpointVersion.update({ where: { id: version.id }, data: { isActive } });
        await recordActivity(tx, {
          projectId: project.id,
          userId: ctx.actor.user.id,
          scope: "Endpoint",
          itemId: endpoint.id,
          activity: "updated",
          name: endpoint.name,
          changes: [
            {
              type: "Endpoint",
              action: "changed",
              field: `version_${number}_is_active`,
              before: version.isActive,
              after: isActive,
            },
          ],
        });
        const updated = await read(tx, project.id, name);
        return { endpoint: updated, version: await readVersion(tx, updated, number) };
      });
    },

    /**
     * Deletes endpoint `name` and its versions (there is no materialization to clean up; its
     * execution log keeps the name) and writes activity `deleted`; returns it as it was. Scope
     * `endpoint:write`. @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, name: EndpointKey): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      const current = await read(ctx.db, project.id, name);
      await ctx.db.$transaction(async (tx) => {
        await tx.endpoint.delete({ where: { id: current.id } });
        await recordActivity(tx, {
          projectId: project.id,
          userId: ctx.actor.user.id,
          scope: "Endpoint",
          itemId: current.id,
          activity: "deleted",
          name: current.name,
          changes: null,
        });
      });
      return current;
    },

    /** Whether `version`'s query could be materialized (PostHog's `can_materialize()`, rules/materialization.ts). */
    async materialization(version: EndpointVersionRecord): Promise<MaterializationCheck> {
      return canMaterialize(version.query, await storedAst(version.query));
    },

    /**
     * `GET :name/materialization_status` for an endpoint that is not materialized (none is: §4.6's
     * `{can_materialize, reason}`). Scope `endpoint:read` (decision 2). @throws NotFoundError.
     */
    async materializationStatus(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
    ): Promise<MaterializationCheck> {
      await authorizeProject(ctx, projectId, "endpoint:read");
      const endpoint = await read(ctx.db, projectId, name);
      return canMaterialize(endpoint.current.query, await storedAst(endpoint.current.query));
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
