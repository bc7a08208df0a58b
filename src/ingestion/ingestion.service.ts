/**
 * Capture (issue 7 §1, §5): a request's events, validated, then in ONE transaction: person state
 * (person-state.ts: persons created, identified, merged, their properties set), group state
 * (group-state.ts), the events stored with the person each resolved to (idempotent per event uuid),
 * and the catalogue they add to. Events the pipeline drops (rules/dropped-events.ts) are not stored. The SDK door (src/sdk/) has already decoded the
 * payload and found the project by its public token; nothing here needs a personal API key or a
 * scope (PostHog's capture takes the public token alone).
 *
 * Per request, whatever the number of events: person state's few statements (see its header), one
 * INSERT of the events, and at most three catalogue statements (none once this process has recorded the same names within the hour, see
 * catalogue-cache.ts). A request with one bad event stores nothing (rules/capture-events.ts).
 */
import type { ServiceDeps } from "../core/services.js";
import type { RunSqlTransaction } from "../db/sql-transaction.js";
import { CatalogueCache } from "./catalogue-cache.js";
import { applyGroupState } from "./group-state.js";
import { groupTypeIndexes, insertEvents, writeCatalogue } from "./ingestion.queries.js";
import { applyPersonState } from "./person-state.js";
import { readCaptureEvents } from "./rules/capture-events.js";
import { catalogueEntries, groupTypesToResolve } from "./rules/catalogue.js";
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
   * @throws ParseError / ValidationError (400) as `readCaptureEvents`, with nothing stored.
   */
  capture(
    transaction: RunSqlTransaction,
    projectId: number,
    payload: unknown,
    request: CaptureRequest,
  ): Promise<CaptureResult>;
}

/** Builds the ingestion service; `deps.now` is the server's clock (`now` of clock-skew correction). */
export function createIngestionService(deps: ServiceDeps): IngestionService {
  const cache = new CatalogueCache();
  return {
    async capture(transaction, projectId, payload, request) {
      const now = deps.now();
      const events = readCaptureEvents(payload, { ...request, now });
      let written: ReturnType<CatalogueCache["unwritten"]> | undefined;
      const stored = await transaction(async (tx) => {
        const personIds = await applyPersonState(tx, projectId, events);
        await applyGroupState(tx, projectId, events);
        const kept = events.flatMap((event, index) => (droppedByPipeline(event) ? [] : [{ event, index }]));
        const stored = kept.map(({ event }) => event);
        const inserted = await insertEvents(
          tx,
          projectId,
          stored,
          kept.map(({ index }) => personIds[index] ?? null),
        );
        const indexes = await groupTypeIndexes(tx, projectId, groupTypesToResolve(stored));
        written = cache.unwritten(projectId, catalogueEntries(stored, indexes, now), now);
        await writeCatalogue(tx, projectId, written, now);
        return inserted;
      });
      if (written) cache.markWritten(projectId, written, now);
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
