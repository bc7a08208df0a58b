/**
 * The person service: the reads of persons for both front doors (writes arrive through capture,
 * issue 7 §2). It checks the project and the `person:read` scope, parses filters and ids as PostHog
 * does, and returns records; it knows nothing of HTTP or GraphQL.
 * Source: `posthog/api/person.py` `PersonViewSet` (`scope_object = "person"`: list and retrieve
 * need `person:read`), `posthog/queries/person_query.py` for the list's filters and order.
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError } from "../core/errors.js";
import { decodeKeysetCursor, encodeKeysetCursor, isPgTimestamp } from "../core/keyset-cursor.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { isUuid, parseInput } from "../core/validation.js";
import { type EventPosition, type EventRecord, selectPersonEvents } from "./events.queries.js";
import { type PersonRecord, personListWhere, selectPersonPage, selectPersons } from "./persons.queries.js";
import { personListFiltersSchema } from "./persons.schemas.js";
import { type PersonLookup, parsePersonLookup } from "./rules/person-lookup.js";

/** The cursor of the events page after `event` (newest first). */
export function eventCursor(event: EventRecord): string {
  return encodeKeysetCursor([event.timestampText, event.uuid]);
}

/** The position a cursor of `eventCursor` names. @throws NotFoundError `Invalid cursor` for any other text. */
function eventPosition(cursor: string): EventPosition {
  const decoded = decodeKeysetCursor(cursor, 2);
  const [timestampText, uuid] = decoded?.position ?? [];
  if (!timestampText || !uuid || decoded?.reverse || !isPgTimestamp(timestampText) || !isUuid(uuid)) {
    throw new NotFoundError("Invalid cursor");
  }
  return { timestampText, uuid };
}

/** Creates the person service. */
export function createPersonService(deps: ServiceDeps) {
  return {
    /**
     * One page of the project's persons, newest first (PostHog's list): `query` holds the filters
     * under PostHog's names (`distinct_id`, `email`, `search`, `include_total`); unknown or empty
     * ones are ignored. `count` is there only when `include_total` was asked for. Persons created
     * more than a day in the future are left out, as PostHog does. Scope `person:read`.
     * @throws NotFoundError (project), PermissionDeniedError.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ results: PersonRecord[]; count?: number }> {
      const project = await authorizeProject(ctx, projectId, "person:read");
      const filters = parseInput(personListFiltersSchema, query, ctx.limits);
      return selectPersonPage(
        ctx.db,
        personListWhere(project.id, filters, deps.now()),
        page,
        filters.includeTotal,
      );
    },

    /**
     * One person of the project by the id REST's path carries: its uuid or its integer id
     * (`rules/person-lookup.ts`). Scope `person:read`.
     * @throws ValidationError for an id that is neither; NotFoundError when no such person is in the project.
     */
    async get(ctx: ServiceContext, projectId: number, rawId: string): Promise<PersonRecord> {
      await authorizeProject(ctx, projectId, "person:read");
      const lookup = parsePersonLookup(rawId);
      const [person] = lookup === null ? [] : await selectPersons(ctx.db, projectId, [lookup]);
      if (!person) throw new NotFoundError();
      return person;
    },

    /**
     * Persons of the project by lookup, in the order asked, null where none (a batch for node
     * loaders: one statement). Scope `person:read`.
     */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      lookups: readonly PersonLookup[],
    ): Promise<(PersonRecord | null)[]> {
      await authorizeProject(ctx, projectId, "person:read");
      const persons = await selectPersons(ctx.db, projectId, lookups);
      return lookups.map(
        (lookup) =>
          persons.find((person) =>
            "uuid" in lookup ? person.uuid === lookup.uuid : person.id === lookup.id,
          ) ?? null,
      );
    },

    /**
     * A page of `person`'s recent events (a record this service returned), newest first: every
     * event sent with one of its distinct ids. `cursor` is a `next` this method returned (null: the
     * newest); `next` is null on the last page. Scope `person:read`.
     * @throws NotFoundError `Invalid cursor` for a cursor this service did not make (DRF's answer).
     */
    async events(
      ctx: ServiceContext,
      person: PersonRecord,
      paging: { size: number; cursor: string | null },
    ): Promise<{ results: EventRecord[]; next: string | null }> {
      await authorizeProject(ctx, person.projectId, "person:read");
      const after = paging.cursor === null ? null : eventPosition(paging.cursor);
      const rows = await selectPersonEvents(ctx.db, person.projectId, person.id, paging.size + 1, after);
      const results = rows.slice(0, paging.size);
      const last = results[results.length - 1];
      return { results, next: rows.length > paging.size && last ? eventCursor(last) : null };
    },
  };
}

/** The person service's operations. */
export type PersonService = ReturnType<typeof createPersonService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createPersonService`. */
    persons: PersonService;
  }
}
