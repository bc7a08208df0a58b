/**
 * PostHog's query door, `POST /api/projects/:project_id/query/` with `{query: {kind, ...}}`
 * (`posthog/api/query.py`; scope `query:read`): runs the query through the query service and
 * answers the kind's response (HogQLQueryResponse for `HogQLQuery`, ExperimentQueryResponse for
 * `ExperimentQuery`) with 200. Only blocking runs
 * exist here: the response is always complete (`query_status` null). Other body fields PostHog
 * accepts (`refresh`, `client_query_id`, ...) are accepted and not used: this door never caches.
 */
import { z } from "zod";
import { parseInput } from "../core/validation.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";

/** The request body: PostHog's `QueryRequest`. */
export const queryRequestSchema = z.looseObject({
  query: z
    .looseObject({ kind: z.string() })
    .describe("The query node, e.g. {kind: 'HogQLQuery', query: 'SELECT ...'}."),
  refresh: z.union([z.string(), z.boolean()]).nullish(),
  client_query_id: z.string().nullish(),
});

/** A query response: PostHog's response for the query's kind (free-form JSON here). */
const queryResponseSchema = z
  .looseObject({
    results: z.unknown().optional().describe("The rows or series (absent from ExperimentQueryResponse)."),
    is_cached: z.boolean(),
    last_refresh: z.string(),
    timezone: z.string(),
  })
  .describe(
    "PostHog's response for the query's kind (HogQLQueryResponse: results, columns, types, hasMore, ...; " +
      "ExperimentQueryResponse: baseline, variant_results).",
  );

/** The query routes. */
export const queryRoutes: RestModule = (services, limits) => [
  {
    method: "POST",
    path: "/api/projects/:project_id/query/",
    summary:
      "Run a query (HogQLQuery, TrendsQuery, ExperimentQuery) over the project's events and persons; blocking, never cached.",
    scopes: ["query:read"],
    request: { body: queryRequestSchema },
    responses: { 200: queryResponseSchema },
    handler: async ({ params, body, ctx }) => ({
      // The service authorises first, then validates the body (PostHog checks permissions before input).
      body: await services.queries.run(
        ctx,
        pathId(params, "project_id"),
        undefined,
        {},
        () => parseInput(queryRequestSchema, body, limits).query,
      ),
    }),
  },
];
