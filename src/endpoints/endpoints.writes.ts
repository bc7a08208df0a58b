/**
 * How an endpoint is written (issue 10 parts 1, 4 and 6), for the endpoint service once it has
 * authorised the caller: its create, update, version (de)activation and delete, each validated by
 * PostHog's rules in PostHog's order and written with its versions, its materialization state and
 * its activity entries in one transaction; refresh jobs are scheduled after the commit
 * (materialization/materialization.service.ts). How it is stored is endpoints.store.ts.
 * Source: `products/endpoints/backend/api.py` EndpointViewSet (late 2025), `models.py`; §4.3–4.6.
 *
 * Concurrency: an update decides from a first read (so PostHog's refusals come before any write), then
 * locks the endpoint's row (`SELECT ... FOR UPDATE`) in its transaction and decides again from the
 * locked state. Concurrent updates of one endpoint so take turns: each changed query becomes its own
 * version, numbered after the one before it, and none is lost. Concurrent creates of one name meet
 * the (project, name) unique key: one is written, the others get PostHog's `Failed to create endpoint.`
 */
import { changesBetween, recordActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { TooManyRequestsError, ValidationError } from "../core/errors.js";
import { once } from "../core/once.js";
import type { ServiceDeps } from "../core/services.js";
import { parseInput } from "../core/validation.js";
import { Prisma } from "../generated/prisma/client.js";
import type { HogQLNode } from "../lib/hogql/parser.js";
import type { QueryWorkers } from "../queries/query-workers.js";
import {
  type EndpointKey,
  type EndpointRecord,
  type EndpointVersionRecord,
  readEndpoint,
  readEndpointVersion,
} from "./endpoints.queries.js";
import {
  checkSyncFrequency,
  type EndpointRequest,
  endpointRequestSchema,
  forbidExtraFields,
  MAX_CACHE_AGE_SECONDS,
  MIN_CACHE_AGE_SECONDS,
} from "./endpoints.schemas.js";
import {
  deleteEndpointRow,
  insertEndpoint,
  insertVersion,
  lockEndpoint,
  type SharedVersionFields,
  setVersionIsActive,
  updateAllVersions,
  updateEndpointRow,
} from "./endpoints.store.js";
import type { MaterializationService } from "./materialization/materialization.service.js";
import {
  disableMaterialization,
  enableMaterialization,
  materializedVersionIds,
} from "./materialization/materialization.store.js";
import { canMaterializeHere, DEFAULT_SYNC_FREQUENCY, type SyncFrequency } from "./rules/materialization.js";
import { INVALID_NAME_MESSAGE, isEndpointName } from "./rules/name.js";
import {
  ENDPOINT_QUERY_KINDS,
  isEndpointQueryKind,
  normalizedQueryNode,
  queryChanged,
} from "./rules/query.js";

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
export type HogQLParse = (text: string) => Promise<HogQLNode>;

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

/** How many stored query texts `storedQueryParse` keeps parsed. */
const STORED_PARSES_KEPT = 500;

/**
 * The `HogQLParse` for stored queries read back (a page of endpoints shows whether each version could
 * be materialized): parsing is a function of the text, so each text is parsed once per process (the
 * last `STORED_PARSES_KEPT` kept), and one at a time, so a page of 100 endpoints is not a burst of
 * 100 tasks for the query workers' bounded waiting line (`QUERY_WORKER_MAX_WAITING`).
 */
export function storedQueryParse(workers: QueryWorkers): HogQLParse {
  const parsed = new Map<string, Promise<HogQLNode>>();
  let previous: Promise<unknown> = Promise.resolve();
  return (text) => {
    let ast = parsed.get(text);
    if (ast) {
      parsed.delete(text);
    } else {
      const next = previous.then(() => workers.parseHogQL(text, "query"));
      previous = next.catch(() => undefined);
      // A refusal for load (429) is not the text's answer: it is not kept.
      ast = next.catch((error: unknown) => {
        if (error instanceof TooManyRequestsError) parsed.delete(text);
        throw error;
      });
    }
    parsed.set(text, ast);
    if (parsed.size > STORED_PARSES_KEPT) parsed.delete(parsed.keys().next().value!);
    return ast;
  };
}

/**
 * The query of a request, checked: an object whose `kind` is `HogQLQuery` (with text PostHog's
 * parser accepts, within the HogQL limits) or an insight node. Returns it as PostHog stores it
 * (`normalizedQueryNode`), with its parsed HogQL (null otherwise).
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
  return { query: normalizedQueryNode(query), ast: await parse(text) };
}

/**
 * The parsed HogQL of a stored query, or null when it is not HogQL or no longer parses.
 * @throws TooManyRequestsError when the query workers' waiting line is full (not an answer about the query).
 */
export async function storedAst(
  query: Record<string, unknown>,
  parse: HogQLParse,
): Promise<HogQLNode | null> {
  if (query["kind"] !== "HogQLQuery" || typeof query["query"] !== "string") return null;
  try {
    return await parse(query["query"]);
  } catch (error) {
    if (error instanceof TooManyRequestsError) throw error;
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

/** The other services an endpoint write calls. */
export interface EndpointWriteCollaborators {
  /** Schedules, re-times and ends the refreshes of materialized versions (after the commit). */
  materialization: Pick<MaterializationService, "refreshSoon" | "reschedule" | "unschedule">;
  /** Parses the endpoints' HogQL. */
  queryWorkers: QueryWorkers;
}

/** The endpoint writes (see the module comment). */
export type EndpointWrites = ReturnType<typeof createEndpointWrites>;

/** Creates the endpoint writes over the clock and the collaborators they call. */
export function createEndpointWrites(deps: ServiceDeps, others: EndpointWriteCollaborators) {
  const { materialization: scheduler, queryWorkers } = others;

  return {
    /**
     * Creates an endpoint and its version 1 (§4.3) after the caller authorised it; see the service's
     * `create`. @throws ValidationError (a duplicate name: `Failed to create endpoint.`).
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<EndpointRecord> {
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
          const endpoint = await insertEndpoint(
            tx,
            projectId,
            { name, isActive: data.is_active ?? true, derivedFromInsight: data.derived_from_insight ?? null },
            userId,
            now,
          );
          const version = await insertVersion(
            tx,
            projectId,
            endpoint.id,
            {
              version: 1,
              query,
              description: data.description ?? "",
              cacheAgeSeconds: data.cache_age_seconds ?? null,
            },
            userId,
            now,
          );
          if (materialize) await enableMaterialization(tx, projectId, version.id, frequency);
          await recordActivity(tx, {
            projectId,
            userId,
            scope: "Endpoint",
            itemId: endpoint.id,
            activity: "created",
            name,
            changes: null,
          });
          return readEndpoint(tx, projectId, name);
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
     * Changes endpoint `name` (§4.4) after the caller authorised it; see the service's `update`.
     * @throws NotFoundError; ValidationError (query, cache age, materialization rules and reasons).
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      body: unknown,
    ): Promise<EndpointRecord> {
      const first = await readEndpoint(ctx.db, projectId, name);
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
          const current = await lockEndpoint(tx, projectId, first.id);
          const { next, changed, asked, disable, frequency, moved } = await decideUpdate(
            current,
            data,
            query,
            parseHere,
          );
          const versionData: SharedVersionFields = {};
          if (data.description != null) versionData.description = data.description;
          if (hasCacheAge) versionData.cacheAgeSeconds = data.cache_age_seconds ?? null;
          if (Object.keys(versionData).length > 0) {
            await updateAllVersions(tx, current.id, versionData);
          }
          const newVersion = current.currentVersion + 1;
          let created: { id: string } | null = null;
          if (changed) {
            created = await insertVersion(
              tx,
              projectId,
              current.id,
              {
                version: newVersion,
                query: next!,
                description: data.description ?? current.current.description,
                cacheAgeSeconds: hasCacheAge
                  ? (data.cache_age_seconds ?? null)
                  : current.current.cacheAgeSeconds,
              },
              userId,
              now,
            );
          }
          const off = disable || changed ? await materializedVersionIds(tx, projectId, current.id) : [];
          await disableMaterialization(tx, projectId, off);
          if (created && moved) {
            await enableMaterialization(tx, projectId, created.id, frequency!, "Modified");
          } else if (!changed && frequency !== null && asked) {
            await enableMaterialization(tx, projectId, current.current.id, frequency);
          }
          const endpointChanged = changed || (data.is_active != null && data.is_active !== current.isActive);
          if (endpointChanged || Object.keys(versionData).length > 0) {
            // The row is locked since `current` was read: no other writer moved its version.
            await updateEndpointRow(
              tx,
              current.id,
              {
                ...(data.is_active != null ? { isActive: data.is_active } : {}),
                ...(changed ? { currentVersion: newVersion } : {}),
              },
              now,
            );
          }
          const updated = await readEndpoint(tx, projectId, current.name);
          if (changed) {
            await recordActivity(tx, {
              projectId,
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
            projectId,
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
     * Sets only version `number`'s `is_active` after the caller authorised it; see the service's
     * `setVersionActive`. @throws NotFoundError; VersionNotFoundError; ValidationError for a bad body.
     */
    async setVersionActive(
      ctx: ServiceContext,
      projectId: number,
      name: EndpointKey,
      number: number,
      body: unknown,
    ): Promise<{ endpoint: EndpointRecord; version: EndpointVersionRecord }> {
      const first = await readEndpoint(ctx.db, projectId, name);
      const firstVersion = await readEndpointVersion(ctx.db, first, number);
      const data = parseRequest(ctx, body);
      if (data.is_active == null) return { endpoint: first, version: firstVersion };
      const isActive = data.is_active;
      return ctx.db.$transaction(async (tx) => {
        // Concurrent writers of the endpoint take turns from here: only the first of many setting
        // the same value changes it and logs the change; the rest find it already set.
        const endpoint = await lockEndpoint(tx, projectId, first.id);
        const version = await readEndpointVersion(tx, endpoint, number);
        if (isActive === version.isActive) return { endpoint, version };
        await setVersionIsActive(tx, version.id, isActive);
        await recordActivity(tx, {
          projectId,
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
        const updated = await readEndpoint(tx, projectId, { id: endpoint.id });
        return { endpoint: updated, version: await readEndpointVersion(tx, updated, number) };
      });
    },

    /**
     * Deletes endpoint `name` and its versions (§4.5) after the caller authorised it; see the
     * service's `destroy`. @throws NotFoundError.
     */
    async destroy(ctx: ServiceContext, projectId: number, name: EndpointKey): Promise<EndpointRecord> {
      const first = await readEndpoint(ctx.db, projectId, name);
      const { current, off } = await ctx.db.$transaction(async (tx) => {
        // Concurrent deletes take turns: the ones after the first find no row (404).
        const current = await lockEndpoint(tx, projectId, first.id);
        const materialized = await materializedVersionIds(tx, projectId, current.id);
        await disableMaterialization(tx, projectId, materialized);
        await deleteEndpointRow(tx, current.id);
        await recordActivity(tx, {
          projectId,
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
  };
}
