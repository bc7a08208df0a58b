/**
 * Inputs of the person reads, in PostHog's query names (the REST contract; GraphQL maps its
 * camelCase arguments onto these). Source: `posthog/api/person.py` `PersonViewSet.list` (its
 * OpenAPI parameters `email`, `distinct_id`, `search`) and `posthog/queries/person_query.py`.
 */
import { z } from "zod";
import { type PropertyGroup, propertyGroupSchema } from "../lib/property-filters/property-filters.js";

/** A filter PostHog ignores when empty or not a string: absent means "do not filter". */
const optionalText = z.string().min(1).optional().catch(undefined);

/**
 * PostHog's `properties` filter: a list of property filters (all must match) or a property group
 * (`{type: "AND"|"OR", values}`), as JSON (REST's query text is parsed by the service first).
 */
const propertiesFilter = z.preprocess(
  (value) => (Array.isArray(value) ? { type: "AND", values: value } : value),
  propertyGroupSchema,
);

/**
 * The person list's filters. Unknown or empty values are ignored, as PostHog's `Filter` does, but
 * for `properties`, whose errors are answered (a filter silently dropped would list wrong persons).
 * `include_total` (any value) asks for the total count beside the page, PostHog's undocumented flag.
 */
export const personListFiltersSchema = z
  .object({
    distinct_id: optionalText,
    email: optionalText,
    search: optionalText,
    include_total: z.string().optional().catch(undefined),
    properties: propertiesFilter.optional(),
  })
  .transform(
    (q): PersonListFilters => ({
      ...(q.distinct_id === undefined ? {} : { distinctId: q.distinct_id }),
      ...(q.email === undefined ? {} : { email: q.email }),
      ...(q.search === undefined ? {} : { search: q.search }),
      includeTotal: q.include_total !== undefined,
      ...(q.properties === undefined ? {} : { properties: q.properties }),
    }),
  );

/** Filters of the person list, parsed by `personListFiltersSchema`. Unset fields do not filter. */
export interface PersonListFilters {
  /** Persons having exactly this distinct id. */
  distinctId?: string;
  /** Persons whose `email` property equals this text exactly. */
  email?: string;
  /**
   * PostHog's person search: the `email` property contains it (case-insensitive), or a distinct id
   * equals it, or (when it is a uuid) the person's uuid equals it.
   */
  search?: string;
  /** Whether to count all matches as well (an extra aggregate over the matches). */
  includeTotal: boolean;
  /** Person properties and cohort membership the persons must match (src/lib/property-filters/). */
  properties?: PropertyGroup;
}
