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
 * Concurrency: an update decides from a first read (so PostHog's refusals come before any write), then
 * locks the endpoint's row (`SELECT ... FOR UPDATE`) in its transaction and decides again from the
 * locked state. Concurrent updates of one endpoint so take turns: each changed query becomes its own
 * version, numbered after the one before it, and none is lost. Concurrent creates of one name meet
 * the (project, name) unique key: one is written, the others get PostHog's `Failed to create endpoint.`
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
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { once } from "../core/once.js";
import type { OffsetPage } from "../core/paging.js";
import { lockAndRead } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { inUuidOrder, isUuid, parseInput } from "../core/validation.js";
import type { QueryClient } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { HogQLNode } from "../lib/hogql/parser.js";
import type { QueryService } from "../queries/query.service.js";
import type { QueryWorkers } from "../queries/query-workers.js";
import {
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
import type { MaterializationService } from "./materialization/materialization.service.js";
import {
  disableMaterialization,
  enableMaterialization,
  materializedVersionIds,
} from "./materialization/materialization.store.js";
import {
  canMaterializeHere,
  DEFAULT_SYNC_FREQUENCY,
  type MaterializationCheck,
  type SyncFrequency,
} from "./rules/materialization.js";
import { INVALID_NAME_MESSAGE, isEndpointName } from "./rules/name.js";
import { ENDPOINT_QUERY_KINDS, isEndpointQueryKind, queryChanged } from "./rules/query.js";
import { createEndpointRunner, type EndpointRunResult, type RunInput } from "./run/endpoint-run.js";

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
    is_materialized: endpoint.current.isMaterialized,
    sync_frequency: endpoint.current.syncFrequency,
  };
}

/** Parses HogQL text in the query workers (`QueryWorkers.parseHogQL`, attr `query`). */
type HogQLParse = (text: string) => Promise<HogQLNode>;

/**
 * A `HogQLParse` that parses each text once (an update checks the same query before and under its
 * row lock, and each parse is a round trip to a worker).
 */
function parseOnce(workers: QueryWorkers): HogQLParse {
  const parsed = new Map<string, Promise<HogQLNode>>();
  return (text) => {
    let ast = parsed.get(text);
    if (!ast) {
      ast = workers.parseHogQL(text, "query");
      parsed.set(text, ast);
    }
    return ast;
  };
}

/**
 * The query of a request, checked: an object whose `kind` is `HogQLQuery` (with text PostHog's
 * parser accepts, within the HogQL limits) or an insight node. Returns it as given, with its parsed
 * HogQL (null otherwise).
 * @throws ValidationError attr `query`: an unknown kind, HogQL without text, `Invalid HogQL query: ...`,
 *   a HogQL limit.
 */
async function checkedQuery(
  query: Record<string, unknown>,
  parse: HogQLParse,
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
  return { query, ast: await parse(text) };
}

/** The parsed HogQL of a stored query, or null when it is not HogQL or no longer parses. */
async function storedAst(query: Record<string, unknown>, parse: HogQLParse): Promise<HogQLNode | null> {
  if (query["kind"] !== "HogQLQuery" || typeof query["query"] !== "string") return null;
  try {
    return await parse(query["query"]);
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
 * PostHog's materialization rules of a write (`validate_update_request`).
 * @throws ValidationError attr `is_materialized`/`sync_frequency`.
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
}

/**
 * The check of a query a request asks to materialize. @throws ValidationError attr `is_materialized`
 * with the reason when it cannot be (PostHog refuses to enable materialization of such a query).
 */
async function requireMaterializable(query: Record<string, unknown>, parse: HogQLParse): Promise<void> {
  const check = canMaterializeHere(query, await storedAst(query, parse));
  if (!check.canMaterialize) {
    throw new ValidationError(`Cannot materialize endpoint: ${check.reason}`, { attr: "is_materialized" });
  }
}

/** Runs `work` (scheduling after a commit), ignoring its failure: the queue's start restores schedules. */
async function afterCommit(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch {
    // The state is committed; MaterializationService.attachQueue re-enqueues every materialized version.
  }
}

/**
 * What an update of `current` does (§4.4), by PostHog's rules in their order: the materialization
 * rules, the query check (made once, through `query`), whether the query changed (sorted-key JSON),
 * and the frequency the (new or current) version is materialized with after the write (null: not).
 * It depends only on its arguments, so an update makes it again under the endpoint's row lock.
 * @throws ValidationError (materialization rules and reasons, the query).
 */
async function decideUpdate(
  current: EndpointRecord,
  data: EndpointRequest,
  query: () => Promise<Record<string, unknown> | null>,
  parse: HogQLParse,
) {
  const willBeActive = data.is_active ?? current.isActive;
  checkMaterialization(data, willBeActive);
  const next = await query();
  const changed = next !== null && queryChanged(current.current.query, next);
  const asked = data.is_materialized === true || data.sync_frequency != null;
  const disable = !willBeActive || data.is_materialized === false;
  const frequency: SyncFrequency | null = disable
    ? null
    : asked || current.current.isMaterialized
      ? ((data.sync_frequency ?? current.current.syncFrequency ?? DEFAULT_SYNC_FREQUENCY) as SyncFrequency)
      : null;
  if (asked) await requireMaterializable(changed ? next! : current.current.query, parse);
  // A materialized endpoint whose new query cannot be materialized stops being materialized.
  const moved =
    changed && frequency !== null && canMaterializeHere(next!, await storedAst(next!, parse)).canMaterialize;
  return { next, changed, asked, disable, frequency, moved };
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
  const { materialization: scheduler, queryWorkers } = collaborators;
  const parse: HogQLParse = (text) => queryWorkers.parseHogQL(text, "query");
  /** The project's endpoint named or identified by `ref`. @throws NotFoundError. */
  async function read(db: QueryClient, projectId: number, ref: EndpointKey): Promise<EndpointRecord> {
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
    db: QueryClient,
    endpoint: EndpointRecord,
    number: number,
  ): Promise<EndpointVersionRecord> {
    const version = await selectVersion(db, endpoint.projectId, endpoint.id, number);
    if (!version) throw new VersionNotFoundError(number);
    return version;
  }

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

  const runner = createEndpointRunner(deps, collaborators, read);

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
     * HogQL text, the cache age, then the materialization rules. Writes activity `created`. A
     * materializable HogQL query is materialized (`sync_frequency`, default `24hour`) unless
     * `is_materialized: false` is sent; asking for it on a query that cannot be is a 400.
     * Scope `endpoint:write`.
     * @throws ValidationError (a duplicate name: `Failed to create endpoint.`).
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      const data = parseRequest(ctx, body);
      if (!data.query || Object.keys(data.query).length === 0)
        throw new ValidationError("Must specify query");
      if (!data.name) throw new ValidationError("Endpoint must have a name.");
      if (!isEndpointName(data.name)) throw new ValidationError(INVALID_NAME_MESSAGE);
      const parseHere = parseOnce(queryWorkers);
      const { query } = await checkedQuery(data.query, parseHere);
      checkCacheAge(data.cache_age_seconds);
      const isActive = data.is_active ?? true;
      checkMaterialization(data, isActive);
      const asked = data.is_materialized === true || data.sync_frequency != null;
      if (asked) await requireMaterializable(query, parseHere);
      // PostHog enables materialization of a materializable HogQL query on create (failures swallowed).
      const materialize =
        asked ||
        (isActive &&
          data.is_materialized !== false &&
          canMaterializeHere(query, await storedAst(query, parseHere)).canMaterialize);
      const frequency = (data.sync_frequency ?? DEFAULT_SYNC_FREQUENCY) as SyncFrequency;
      const name = data.name;
      const userId = ctx.actor.user.id;
      const now = deps.now();
      try {
        const created = await ctx.db.$transaction(async (tx) => {
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
          const version = await tx.endpointVersion.create({
            select: { id: true },
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
          if (materialize) await enableMaterialization(tx, project.id, version.id, frequency);
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
        if (materialize) await afterCommit(() => scheduler.refreshSoon([created.current.id]));
        return created;
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
      const first = await read(ctx.db, project.id, name);
      const data = parseRequest(ctx, body);
      checkCacheAge(data.cache_age_seconds);
      const parseHere = parseOnce(queryWorkers);
      const query = once(async () => (data.query ? (await checkedQuery(data.query, parseHere)).query : null));
      // PostHog's refusals come before any write; the decision is made again under the row lock.
      await decideUpdate(first, data, query, parseHere);
      const hasCacheAge = body !== null && typeof body === "object" && "cache_age_seconds" in body;
      const userId = ctx.actor.user.id;
      const now = deps.now();
      return ctx.db
        .$transaction(async (tx) => {
          // Concurrent updates of one endpoint take turns from here, each deciding from the state it
          // replaces: every changed query becomes its own version, numbered after the one before it.
          const current = await lockAndRead(tx, "endpoints", first.id, () =>
            read(tx, project.id, { id: first.id }),
          );
          const { next, changed, asked, disable, frequency, moved } = await decideUpdate(
            current,
            data,
            query,
            parseHere,
          );
          const versionData: Prisma.EndpointVersionUpdateManyMutationInput = {};
          if (data.description != null) versionData.description = data.description;
          if (hasCacheAge) versionData.cacheAgeSeconds = data.cache_age_seconds ?? null;
          if (Object.keys(versionData).length > 0) {
            await tx.endpointVersion.updateMany({ where: { endpointId: current.id }, data: versionData });
          }
          const newVersion = current.currentVersion + 1;
          let created: { id: string } | null = null;
          if (changed) {
            created = await tx.endpointVersion.create({
              select: { id: true },
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
          const off = disable || changed ? await materializedVersionIds(tx, project.id, current.id) : [];
          await disableMaterialization(tx, project.id, off);
          if (created && moved) {
            await enableMaterialization(tx, project.id, created.id, frequency!, "Modified");
          } else if (!changed && frequency !== null && asked) {
            await enableMaterialization(tx, project.id, current.current.id, frequency);
          }
          const endpointChanged = changed || (data.is_active != null && data.is_active !== current.isActive);
          if (endpointChanged || Object.keys(versionData).length > 0) {
            // The row is locked since `current` was read: no other writer moved its version.
            await tx.endpoint.update({
              where: { id: current.id },
              data: {
                ...(data.is_active != null ? { isActive: data.is_active } : {}),
                ...(changed ? { currentVersion: newVersion } : {}),
                updatedAt: now,
              },
            });
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
          return { current, updated, off, created, moved };
        })
        .then(async ({ current, updated, off, created, moved }) => {
          const wasMaterialized = current.current.isMaterialized;
          await afterCommit(async () => {
            const on = updated.current;
            const offNow = off.filter((id) => id !== on.id || !on.isMaterialized);
            if (offNow.length > 0) await scheduler.unschedule(offNow);
            if (!on.isMaterialized || !on.materialization) return;
            const wasPaused = current.current.materialization?.paused === true;
            if ((created && moved) || !wasMaterialized || (wasPaused && !on.materialization.paused))
              await scheduler.refreshSoon([on.id]);
            else if (on.syncFrequency !== current.current.syncFrequency)
              await scheduler.reschedule(
                on.id,
                on.materialization.syncFrequency,
                on.materialization.lastRunAt,
              );
          });
          return updated;
        });
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
      const first = await read(ctx.db, project.id, name);
      const firstVersion = await readVersion(ctx.db, first, number);
      const data = parseRequest(ctx, body);
      if (data.is_active == null) return { endpoint: first, version: firstVersion };
      const isActive = data.is_active;
      return ctx.db.$transaction(async (tx) => {
        // Concurrent writers of the endpoint take turns from here: only the first of many setting
        // the same value changes it and logs the change; the rest find it already set.
        const endpoint = await lockAndRead(tx, "endpoints", first.id, () =>
          read(tx, project.id, { id: first.id }),
        );
        const version = await readVersion(tx, endpoint, number);
        if (isActive === version.isActive) return { endpoint, version };
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
        const updated = await read(tx, project.id, { id: endpoint.id });
        return { endpoint: updated, version: await readVersion(tx, updated, number) };
      });
    },

    /**
     * Deletes endpoint `name` and its versions, with their materializations and stored rows (§4.5;
     * their refresh jobs end after the commit; its execution log keeps the name) and writes activity
     * `deleted`; returns it as it was. Scope `endpoint:write`. @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, name: EndpointKey): Promise<EndpointRecord> {
      const project = await authorizeProject(ctx, projectId, "endpoint:write");
      const first = await read(ctx.db, project.id, name);
      const { current, off } = await ctx.db.$transaction(async (tx) => {
        // Concurrent deletes take turns: the ones after the first find no row (404).
        const current = await lockAndRead(tx, "endpoints", first.id, () =>
          read(tx, project.id, { id: first.id }),
        );
        const materialized = await materializedVersionIds(tx, project.id, current.id);
        await disableMaterialization(tx, project.id, materialized);
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
        return { current, off: materialized };
      });
      await afterCommit(() => scheduler.unschedule(off));
      return current;
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
      const endpoint = await read(ctx.db, projectId, name);
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
