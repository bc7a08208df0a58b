/**
 * The person service: the reads of persons for both front doors (writes arrive through capture,
 * issue 7 §2). It checks the project and the `person:read` scope, parses filters and ids as PostHog
 * does, and returns records; it knows nothing of HTTP or GraphQL.
 * Source: `posthog/api/person.py` `PersonViewSet` (`scope_object = "person"`: list and retrieve
 * need `person:read`), `posthog/queries/person_query.py` for the list's filters and order.
 */
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { decodeKeysetCursor, encodeKeysetCursor, isPgTimestamp } from "../core/keyset-cursor.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { isUuid, parseInput } from "../core/validation.js";
import { loadCohortDefinitions } from "../lib/property-filters/cohort-definitions.js";
import { countMatches, type MatchCounts } from "../lib/property-filters/match-counts.js";
import type { PropertyNode } from "../lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../lib/property-filters/regex-check.js";
import { toSql } from "../lib/property-filters/to-sql.js";
import { type EventPosition, type EventRecord, selectPersonEvents } from "./events.queries.js";
import {
  type PersonRecord,
  personListWhere,
  projectPersons,
  selectPersonPage,
  selectPersons,
} from "./persons.queries.js";
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

/**
 * `query` with its `properties` JSON text read into a value (REST's query string; GraphQL passes the
 * value itself); an empty text is no filter.
 * @throws ValidationError (`attr` `properties`) for text that is not JSON.
 */
function withParsedProperties(query: Record<string, unknown>): Record<string, unknown> {
  const { properties, ...rest } = query;
  if (typeof properties !== "string") return query;
  if (properties.trim() === "") return rest;
  try {
    return { ...rest, properties: JSON.parse(properties) as unknown };
  } catch {
    throw new ValidationError("Properties must be JSON: a list of property filters or a property group.", {
      attr: "properties",
    });
  }
}

/** Creates the person service. */
export function createPersonService(deps: ServiceDeps) {
  return {
    /**
     * One page of the project's persons, newest first (PostHog's list): `query` holds the filters
     * under PostHog's names (`distinct_id`, `email`, `search`, `include_total`, `properties`);
     * unknown or empty ones are ignored. `properties` (JSON text, or its value) is translated by
     * src/lib/property-filters/ over person properties and cohort membership (cohorts read first: one
     * statement per level of nesting). `count` is there only when `include_total` was asked for.
     * Persons created more than a day in the future are left out, as PostHog does. Scope `person:read`.
     * @throws NotFoundError (project), PermissionDeniedError; ValidationError for a `properties`
     *   filter that is not JSON, not PostHog's shape, or about events or groups.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      query: Record<string, unknown>,
      page: OffsetPage,
    ): Promise<{ results: PersonRecord[]; count?: number }> {
      const project = await authorizeProject(ctx, projectId, "person:read");
      const filters = parseInput(personListFiltersSchema, withParsedProperties(query), ctx.limits);
      const now = deps.now();
      const properties = filters.properties
        ? toSql(filters.properties, {
            projectId: project.id,
            now,
            targets: { person: "p" },
            cohorts: await loadCohortDefinitions(ctx.db, project.id, filters.properties),
          })
        : null;
      const where = personListWhere(project.id, filters, now, properties);
      return selectPersonPage(ctx.db, where, page, filters.includeTotal);
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
     * How many of the project's persons match `criteria` (person properties and cohorts, as
     * src/lib/property-filters/ translates them; null: everyone), and how many persons it has: one statement,
     * after the cohorts the criteria name are read and their regex patterns checked. For another
     * domain's estimates (a flag condition's blast radius): it authorizes nothing, its caller has
     * authorized the project with its own scope (as `cohorts.summariesForFlags`).
     * @throws ValidationError (`attr` as given for a bad regex) for a filter persons cannot be
     *   filtered by; NotImplementedError for behavioral cohort criteria not calculated here.
     */
    async countMatching(
      ctx: ServiceContext,
      projectId: number,
      criteria: PropertyNode | null,
      attr: string,
    ): Promise<MatchCounts> {
      if (criteria === null) return countMatches(ctx.db, projectPersons(projectId), null);
      await checkRegexPatterns(ctx.db, criteria, attr);
      const where = toSql(criteria, {
        projectId,
        now: deps.now(),
        targets: { person: "p" },
        cohorts: await loadCohortDefinitions(ctx.db, projectId, criteria),
      });
      return countMatches(ctx.db, projectPersons(projectId), where);
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
