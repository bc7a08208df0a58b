/**
 * Cohorts on PostHog's REST paths (`posthog/api/cohort.py` CohortViewSet): request parsing and the
 * PostHog record shapes. Behaviour lives in cohorts.service.ts.
 */
import { authorizeProject } from "../core/auth/access.js";
import { errorBodySchema } from "../core/error-body.js";
import { NotImplementedError } from "../core/errors.js";
import { FormBody } from "../core/form-body.js";
import { activityRoutes } from "../rest/activity-routes.js";
import { drfDateTime } from "../rest/date-time.js";
import { forbiddenDestroyRoute } from "../rest/forbidden-destroy.js";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageLinks, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import type { MemberRecord } from "./cohorts.queries.js";
import {
  cohortPageSchema,
  cohortPersonPageSchema,
  cohortSchema,
  serializeCohort,
  successSchema,
} from "./cohorts.responses.js";
import {
  addPersonsSchema,
  cohortInputSchema,
  cohortListFiltersSchema,
  removePersonSchema,
} from "./cohorts.schemas.js";
import { personName } from "./rules/person-name.js";

const BASE = "/api/projects/:project_id/cohorts/";

/** A person of a cohort as PostHog serializes actors. */
function serializeMember(person: MemberRecord) {
  return {
    type: "person" as const,
    id: person.uuid,
    uuid: person.uuid,
    name: personName(person),
    distinct_ids: person.distinctIds,
    properties: person.properties,
    is_identified: person.isIdentified,
    created_at: drfDateTime(person.createdAt),
    matched_recordings: [],
    value_at_data_point: null,
  };
}

/** The `csv` file of a multipart body, if any (Django's `request.FILES["csv"]`). */
function csvFile(body: unknown): Buffer | undefined {
  return body instanceof FormBody ? body.file("csv") : undefined;
}

/** The cohort list's query parameters: paging and `cohortListFiltersSchema`'s filters. */
const cohortListQuerySchema = offsetPageQuerySchema.extend(cohortListFiltersSchema.in.shape);

/** The cohort routes. */
export const cohortRoutes: RestModule = (services, limits) => {
  const cohorts = services.cohorts;
  // PUT is DRF's full update; with no required field it is the same change as PATCH.
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${BASE}:id/`,
    summary:
      "Change a cohort (absent fields keep their value) and recalculate it; `deleted` soft-deletes or " +
      "restores it; a static cohort gains the persons of a multipart `csv` file.",
    scopes: ["cohort:write"],
    request: { body: cohortInputSchema },
    responses: { 200: cohortSchema },
    handler: async ({ params, body, ctx }) => ({
      body: serializeCohort(
        await cohorts.update(ctx, pathId(params, "project_id"), pathId(params, "id"), body, csvFile(body)),
      ),
    }),
  });
  return [
    offsetListRoute(limits, {
      path: BASE,
      summary:
        "List the project's cohorts without soft-deleted ones, newest first: filters, limit/offset pages.",
      scopes: ["cohort:read"],
      query: cohortListQuerySchema,
      pageSchema: cohortPageSchema,
      load: ({ ctx, projectId, query }, page) =>
        cohorts.list(ctx, projectId, Object.fromEntries(query), page),
      serialize: serializeCohort,
    }),
    {
      method: "POST",
      path: BASE,
      summary:
        "Create a cohort: dynamic (`filters`) or static (`is_static`, members from `_create_static_person_ids` " +
        "and a multipart `csv` file).",
      scopes: ["cohort:write"],
      request: { body: cohortInputSchema },
      responses: { 201: cohortSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeCohort(await cohorts.create(ctx, pathId(params, "project_id"), body, csvFile(body))),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One cohort, soft-deleted ones included.",
      scopes: ["cohort:read"],
      responses: { 200: cohortSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeCohort(await cohorts.get(ctx, pathId(params, "project_id"), pathId(params, "id"))),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    forbiddenDestroyRoute(`${BASE}:id/`, "cohort:write", cohorts.destroy),
    {
      method: "GET",
      path: `${BASE}:id/persons/`,
      summary:
        "The cohort's persons by limit/offset (default 100): a static cohort's members, or whoever a dynamic " +
        "cohort's criteria select now.",
      scopes: ["cohort:read", "person:read"],
      request: { query: offsetPageQuerySchema },
      responses: { 200: cohortPersonPageSchema, 501: errorBodySchema },
      conditional: false,
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, limits);
        const { results, hasMore } = await cohorts.persons(
          ctx,
          pathId(params, "project_id"),
          pathId(params, "id"),
          page,
        );
        const seen = page.offset + results.length + (hasMore ? 1 : 0);
        return { body: { results: results.map(serializeMember), ...offsetPageLinks(url, page, seen) } };
      },
    },
    {
      method: "PATCH",
      path: `${BASE}:id/add_persons_to_static_cohort/`,
      summary: "Add persons (by uuid, at most 1000) to a static cohort.",
      scopes: ["cohort:write"],
      request: { body: addPersonsSchema },
      responses: { 200: successSchema },
      handler: async ({ params, body, ctx }) => {
        await cohorts.addPersons(ctx, pathId(params, "project_id"), pathId(params, "id"), body);
        return { body: { success: true } };
      },
    },
    {
      method: "PATCH",
      path: `${BASE}:id/remove_person_from_static_cohort/`,
      summary: "Remove one person (by uuid) from a static cohort.",
      scopes: ["cohort:write"],
      request: { body: removePersonSchema },
      responses: { 200: successSchema },
      handler: async ({ params, body, ctx }) => {
        await cohorts.removePerson(ctx, pathId(params, "project_id"), pathId(params, "id"), body);
        return { body: { success: true } };
      },
    },
    {
      method: "GET",
      path: `${BASE}:id/duplicate_as_static_cohort/`,
      summary:
        "Create a static copy of a dynamic cohort, holding the persons it selects now (a GET, as PostHog).",
      scopes: ["cohort:write"],
      responses: { 200: cohortSchema, 501: errorBodySchema },
      // It writes: never answered from a cached ETag.
      conditional: false,
      handler: async ({ params, ctx }) => ({
        body: serializeCohort(
          await cohorts.duplicateAsStatic(ctx, pathId(params, "project_id"), pathId(params, "id")),
        ),
      }),
    },
    {
      method: "GET",
      path: `${BASE}:id/calculation_history/`,
      summary: "Not implemented: calculations here are synchronous and keep no history.",
      scopes: ["cohort:read"],
      responses: { 501: errorBodySchema },
      handler: async ({ params, ctx }) => {
        await authorizeProject(ctx, pathId(params, "project_id"), "cohort:read");
        throw new NotImplementedError(
          `GET ${BASE}:id/calculation_history/ is not implemented: cohorts are calculated synchronously ` +
            "on every write and no calculation history is kept.",
        );
      },
    },
    ...activityRoutes(
      BASE,
      { one: "cohort", many: "cohorts" },
      (...args) => cohorts.activity(...args),
      limits.maxPageSize,
    ),
  ];
};
