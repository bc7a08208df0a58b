/**
 * Persons on PostHog's REST paths (`posthog/api/person.py` `PersonViewSet`, scope `person:read`):
 * the list and one person. Both read data tables (persons, their distinct ids, events), which do
 * not bump the project's revision: no ETag, never 304 (`conditional: false`). Behaviour lives in
 * persons.service.ts.
 */
import { z } from "zod";
import { drfDateTime, drfDateTimeOrNull } from "../rest/date-time.js";
import { type NotBuiltOperation, notBuiltRoutes } from "../rest/not-built.js";
import { offsetPageQuerySchema, parseOffsetPage, uncountedPageLinks } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import type { PersonRecord } from "./persons.queries.js";
import {
  type ListedPersonResponse,
  type PersonResponse,
  personPageSchema,
  personSchema,
} from "./persons.responses.js";
import { identifiedFirst, personDisplayName } from "./rules/display-name.js";

const BASE = "/api/projects/:project_id/persons/";

/** A person as `GET persons/:id/` answers it (`PersonSerializer`). */
function serializePerson(person: PersonRecord): PersonResponse {
  return {
    id: Number(person.id),
    name: personDisplayName(person.id, person.properties, person.distinctIds),
    distinct_ids: identifiedFirst(person.distinctIds),
    properties: person.properties as Record<string, unknown>,
    created_at: drfDateTime(person.createdAt),
    uuid: person.uuid,
  };
}

/** A person as an item of `GET persons/` (`get_serialized_people`). */
function serializeListedPerson(person: PersonRecord): ListedPersonResponse {
  return {
    type: "person",
    id: person.uuid,
    uuid: person.uuid,
    created_at: drfDateTime(person.createdAt),
    last_seen_at: drfDateTimeOrNull(person.lastSeenAt),
    properties: person.properties as Record<string, unknown>,
    is_identified: person.isIdentified,
    name: personDisplayName(person.id, person.properties, person.distinctIds),
    distinct_ids: person.distinctIds,
    matched_recordings: [],
    value_at_data_point: null,
  };
}

/** The list's query parameters, for the OpenAPI document. */
const personListQuerySchema = offsetPageQuerySchema.extend({
  distinct_id: z.string().optional().describe("Only the person with this distinct id."),
  email: z.string().optional().describe("Only persons whose `email` property is exactly this."),
  search: z
    .string()
    .optional()
    .describe("Persons whose email contains it (any case), or with this exact distinct id or uuid."),
  include_total: z.string().optional().describe("Present (any value): add `count`, all matches."),
  properties: z
    .string()
    .optional()
    .describe(
      'Person property and cohort filters as JSON: a list (all must match), e.g. `[{"key":"email","value":"a@b.c","type":"person"}]`, or a group `{"type":"OR","values":[...]}`.',
    ),
});

/**
 * Person operations of PostHog's `PersonViewSet` that this service does not provide yet (scopes from
 * its `required_scopes` and `scope_object = "person"`). Each writes persons, which only capture
 * does here (issue 7 §2); PostHog itself carries most of them out by capturing an event.
 */
const NOT_BUILT: readonly NotBuiltOperation[] = [
  {
    method: "DELETE",
    path: ":id/",
    scopes: ["person:write"],
    reason: "deleting a person (and queuing its events' deletion) arrives with person state",
  },
  {
    method: "PATCH",
    path: ":id/",
    scopes: ["person:write"],
    reason: "setting person properties (PostHog captures a `$set` event) arrives with person state",
  },
  {
    method: "POST",
    path: ":id/update_property/",
    scopes: ["person:write"],
    reason: "setting a person property (PostHog captures a `$set` event) arrives with person state",
  },
  {
    method: "POST",
    path: ":id/delete_property/",
    scopes: ["person:write"],
    reason: "removing a person property (PostHog captures a `$unset` event) arrives with person state",
  },
  {
    method: "POST",
    path: ":id/split/",
    scopes: ["person:write"],
    reason: "splitting a person into one per distinct id arrives with person state",
  },
  {
    method: "POST",
    path: "bulk_delete/",
    scopes: ["person:write"],
    reason: "deleting persons arrives with person state",
  },
];

/** The person routes. */
export const personRoutes: RestModule = (services, limits) => {
  const persons = services.persons;
  return [
    {
      method: "GET",
      path: BASE,
      summary: "List the project's persons, newest first: filters, limit/offset pages without a total.",
      scopes: ["person:read"],
      conditional: false,
      request: { query: personListQuerySchema },
      responses: { 200: personPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, limits);
        const { results, count } = await persons.list(
          ctx,
          pathId(params, "project_id"),
          Object.fromEntries(query),
          page,
        );
        return {
          body: {
            results: results.map(serializeListedPerson),
            ...uncountedPageLinks(url, page, results.length >= page.limit),
            ...(count === undefined ? {} : { count }),
          },
        };
      },
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One person, by its uuid or its integer id.",
      scopes: ["person:read"],
      conditional: false,
      request: { params: z.object({ id: z.string().describe("The person's uuid or integer id.") }) },
      responses: { 200: personSchema },
      handler: async ({ params, ctx }) => ({
        body: serializePerson(await persons.get(ctx, pathId(params, "project_id"), params["id"]!)),
      }),
    },
    ...notBuiltRoutes(BASE, NOT_BUILT),
  ];
};
