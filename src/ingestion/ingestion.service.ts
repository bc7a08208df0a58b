/**
 * Capture (issue 7 §1, §5): a request's events, validated, then in ONE transaction: person state
 * (person-state.ts: persons created, identified, merged, their properties set), group state
 * (group-state.ts), the events stored with the person each resolved to (idempotent per event uuid),
 * and the catalogue they add to. Events the pipeline drops (rules/dropped-events.ts) are not stored. The SDK door (src/sdk/) has already decoded the
 * payload and found the project by its public token; nothing here needs a personal API key or a
 * scope (PostHog's capture takes the public token alone).
 *
 * Per request, whatever the number of events: person state's few statements (see its header), one
 * INSERT of the events, and one catalogue statement (none once this process has recorded the same
 * names within the hour, see catalogue-cache.ts; none at all with `skipCatalogueUpdates`). A request
 * with one bad event stores nothing (rules/capture-events.ts).
 *
 * The steady state (every distinct id known, nothing to write about persons, no group type named)
 * needs no transaction: the persons as this process last read them (person-cache.ts; else one
 * unlocked read), then one INSERT that stores the events only if those persons are still as read
 * (`steadyPersonState`, `insertEventsIfPersonsUnchanged`): one statement (two on a cache miss) where
 * the transaction takes four on PostgreSQL (BEGIN, the locking read, the INSERT, COMMIT). When they
 * changed meanwhile, nothing was stored and the request goes through the transaction, as any other
 * request.
 *
 * The catalogue entries of a steady request are written by their own statement just BEFORE its
 * events, committed on their own: every stored event's names are then in the catalogue (a crash
 * between the two leaves entries for events that were not stored, which the catalogue allows, as
 * PostHog's, whose property-defs-rs records what it consumed), and writing them adds one statement
 * to the request, not a transaction.
 *
 * With the ClickHouse analytics store (`deps.clickhouse`, issue 30), persons and groups stay in
 * PostgreSQL as above, and the events go to ClickHouse instead (src/analytics/clickhouse/events.ts),
 * with each person and group write mirrored there (src/analytics/clickhouse/persons.ts), both inside the
 * request's transaction before it commits: a ClickHouse failure rolls the request back and answers
 * an error. The steady state then needs no person check: ClickHouse reads take each distinct id's
 * current person from `person_distinct_id2`, whatever person the event was stored with. `stored`
 * then counts the events written, resends included (ClickHouse deduplicates them on read).
 */
import { type EventRow, insertEvents as insertClickHouseEvents } from "../analytics/clickhouse/events.js";
import { groupRows, insertMirrorRows, personRows } from "../analytics/clickhouse/persons.js";
import { databaseOf, type ServiceDeps } from "../core/services.js";
import type { SqlStatements } from "../db/sql-transaction.js";
import { CatalogueCache } from "./catalogue-cache.js";
import { applyGroupState, touchesGroups } from "./group-state.js";
import type { IngestEvent } from "./ingest-event.js";
import {
  groupTypeIndexes,
  insertEvents,
  insertEventsIfPersonsUnchanged,
  writeCatalogue,
} from "./ingestion.queries.js";
import { PersonCache } from "./person-cache.js";
import { applyPersonState, batchDistinctIds, steadyPersonState } from "./person-state.js";
import { readCaptureEvents } from "./rules/capture-events.js";
import {
  type CatalogueEntries,
  catalogueEntries,
  groupTypesToResolve,
  inLockOrder,
} from "./rules/catalogue.js";
import { droppedByPipeline } from "./rules/dropped-events.js";

/** How one capture request came in. */
export interface CaptureRequest {
  /** The SDK path, e.g. `/e/` or `/engage/` (an `/engage/` event without a name is an `$identify`). */
  path: string;
  query: URLSearchParams;
  /** Deepest nesting accepted in an event's properties (`Limits.maxJsonDepth`). */
  maxJsonDepth: number;
}

/** What capture answers: how many events the request held and how many were new (not resent). */
export interface CaptureResult {
  received: number;
  stored: number;
}

/** Capture's behaviour. */
export interface IngestionService {
  /**
   * Validates and stores the events of a decoded capture payload for the project `projectId`.
   * @throws ParseError / ValidationError (400), PayloadTooLargeError (413, more events than
   *   `CAPTURE_MAX_EVENTS_PER_REQUEST`) as `readCaptureEvents`, with nothing stored.
   */
  capture(projectId: number, payload: unknown, request: CaptureRequest): Promise<CaptureResult>;
}

/** The events of a request that are stored (not dropped by the pipeline), each with its index in the request. */
function keptEvents(events: readonly IngestEvent[]): Array<{ event: IngestEvent; index: number }> {
  const kept: Array<{ event: IngestEvent; index: number }> = [];
  for (const [index, event] of events.entries()) if (!droppedByPipeline(event)) kept.push({ event, index });
  return kept;
}

/** `stored` as ClickHouse's rows, each with the person uuid of its index in the request (`personUuids`). */
function eventRows(
  kept: ReadonlyArray<{ event: IngestEvent; index: number }>,
  personUuids: readonly (string | null | undefined)[],
): EventRow[] {
  return kept.map(({ event, index }) => ({
    uuid: event.uuid,
    event: event.event,
    distinctId: event.distinctId,
    properties: event.properties,
    timestamp: event.timestamp,
    personId: personUuids[index] ?? null,
  }));
}

/** Builds the ingestion service; `deps.now` is the server's clock (`now` of clock-skew correction). */
export function createIngestionService(deps: ServiceDeps): IngestionService {
  const { clickhouse } = deps;
  const catalogue = new CatalogueCache();
  const persons = new PersonCache();

  /**
   * Writes the catalogue entries of `stored` that this process has not written within the hour,
   * with `db` (the request's transaction, or a statement of its own in the steady state), and
   * returns them: the caller marks them written (`catalogue.markWritten`) once they are committed.
   * Writes nothing and returns null with `skipCatalogueUpdates`.
   */
  async function recordCatalogue(
    db: SqlStatements,
    projectId: number,
    stored: readonly IngestEvent[],
    groupTypeIndexes: ReadonlyMap<string, number>,
    now: Date,
  ): Promise<CatalogueEntries | null> {
    if (deps.config.skipCatalogueUpdates) return null;
    const unwritten = inLockOrder(
      catalogue.unwritten(projectId, catalogueEntries(stored, groupTypeIndexes, now), now),
    );
    await writeCatalogue(db, projectId, unwritten, now);
    return unwritten;
  }

  /**
   * Stores `events` in the steady state (module header) and returns how many were new; null when
   * the request is not in it, or left it meanwhile (nothing stored then).
   */
  async function captureSteady(
    db: SqlStatements,
    projectId: number,
    events: readonly IngestEvent[],
    now: Date,
  ): Promise<number | null> {
    if (touchesGroups(events)) return null;
    const kept = keptEvents(events);
    const stored = kept.map(({ event }) => event);
    if (groupTypesToResolve(stored).length > 0) return null;
    const steady = await steadyPersonState(db, projectId, events, persons);
    if (!steady) return null;
    // Written ahead of the events, committed on their own (module header).
    const written = await recordCatalogue(db, projectId, stored, new Map(), now);
    if (written) catalogue.markWritten(projectId, written, now);
    if (clickhouse) {
      await insertClickHouseEvents(clickhouse, projectId, eventRows(kept, steady.personUuids), now);
      return kept.length;
    }
    const inserted = await insertEventsIfPersonsUnchanged(
      db,
      projectId,
      stored,
      kept.map(({ index }) => steady.personUuids[index] ?? null),
      steady.read,
    );
    if (inserted === null)
      persons.forget(
        projectId,
        steady.read.map((r) => r.distinctId),
      );
    return inserted;
  }

  return {
    async capture(projectId, payload, request) {
      // Where capture writes: one transaction, or single statements in the steady state (module header).
      const sql = databaseOf(deps, "ingestion service");
      const now = deps.now();
      const events = readCaptureEvents(payload, {
        ...request,
        now,
        maxEvents: deps.config.limits.captureMaxEventsPerRequest,
      });
      const steady = await captureSteady(sql.autocommit, projectId, events, now);
      if (steady !== null) return { received: events.length, stored: steady };
      let written: CatalogueEntries | null = null;
      const stored = await sql.transaction(async (tx) => {
        let persons: ReturnType<typeof personRows> = { persons: [], distinctIds: [] };
        const personIds = await applyPersonState(tx, projectId, events, (plan, moved) => {
          if (clickhouse) persons = personRows(projectId, plan, moved, now);
        });
        const groups = await applyGroupState(tx, projectId, events);
        const kept = keptEvents(events);
        const stored = kept.map(({ event }) => event);
        const inserted = clickhouse
          ? kept.length
          : await insertEvents(
              tx,
              projectId,
              stored,
              kept.map(({ index }) => personIds[index] ?? null),
            );
        const types = deps.config.skipCatalogueUpdates ? [] : groupTypesToResolve(stored);
        const indexes = await groupTypeIndexes(tx, projectId, types);
        written = await recordCatalogue(tx, projectId, stored, indexes, now);
        if (clickhouse) {
          // Before the commit: a ClickHouse failure rolls the request back (module header).
          await insertMirrorRows(clickhouse, { ...persons, groups: groupRows(projectId, groups, now) });
          await insertClickHouseEvents(clickhouse, projectId, eventRows(kept, personIds), now);
        }
        return inserted;
      });
      if (written) catalogue.markWritten(projectId, written, now);
      // The transaction may have changed these persons: read them again next time.
      persons.forget(projectId, batchDistinctIds(events));
      return { received: events.length, stored };
    },
  };
}

declare module "../core/services.js" {
  interface Services {
    /** See `createIngestionService`. */
    ingestion: IngestionService;
  }
}

declare module "../core/rate-limit.js" {
  interface RateScopes {
    /** Capture requests, per project token. */
    capture: true;
  }
}
