/**
 * Event definitions on PostHog's REST paths (spec "Event definitions" rows, posthog-behavior.md §6;
 * `posthog/api/event_definition.py` EventDefinitionViewSet): request parsing and PostHog's shapes.
 * Behaviour lives in event-definitions.service.ts. The code-generation rows (`golang`, `python`,
 * `typescript`) are declared but not built yet (501), so they are never taken for `:id/`.
 */
import { z } from "zod";
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { parseInput } from "../core/validation.js";
import { errorBodySchema } from "../rest/error-body.js";
import { type NotBuiltOperation, notBuiltRoutes } from "../rest/not-built.js";
import { offsetPageLinks, offsetPageQuerySchema } from "../rest/pagination.js";
import { pathId, type RestModule, type RestRoute } from "../rest/routes.js";
import {
  eventDefinitionMetricsSchema,
  eventDefinitionPageSchema,
  eventDefinitionSchema,
  serializeEventDefinition,
  serializeMetrics,
} from "./event-definitions.responses.js";
import {
  createEventDefinitionSchema,
  EVENT_TYPES,
  ORDERING_FIELDS,
  eventDefinitionPageSchema as pageQuerySchema,
  updateEventDefinitionSchema,
} from "./event-definitions.schemas.js";

const BASE = "/api/projects/:project_id/event_definitions/";

/** The code-generation rows (issue 9 part 5), each answering 501 after authorizing. */
const NOT_BUILT: readonly NotBuiltOperation[] = ["golang", "python", "typescript"].map((language) => ({
  method: "GET",
  path: `${language}/`,
  scopes: ["event_definition:read"],
  reason: `typed ${language} capture code needs event schemas and the ${language} generator, which are not built yet`,
}));

/** `:id` of an event definition: a UUID (anything else answers 404). */
const idParams = z.object({ id: z.string().describe("The event definition's UUID.") });

/** The list's query parameters, for the OpenAPI document (the service parses them). */
const listQuerySchema = offsetPageQuerySchema.extend({
  search: z.string().optional().describe("Every whitespace-separated term must be in the name (any case)."),
  event_type: z
    .enum(EVENT_TYPES)
    .optional()
    .describe("`event_custom`: names without a `$` prefix; `event_posthog`: with one. Default `event`."),
  ordering: z
    .string()
    .optional()
    .describe(
      `Sort keys (${ORDERING_FIELDS.join(", ")}), \`-\` for descending, comma-joined or repeated. ` +
        "Default `-last_seen_at::date,name`; `name` breaks ties.",
    ),
  exclude_hidden: z.boolean().optional().describe("Leave out hidden events."),
  exclude_stale: z
    .boolean()
    .optional()
    .describe("Leave out events not seen for 30 days (never-seen ones stay)."),
  verified: z.boolean().optional().describe("true: verified events only; false: unverified ones only."),
  names: z.string().optional().describe("Exact names, comma-joined or repeated."),
  tags: z.string().optional().describe('Events having any of these tags, as a JSON list: `["a","b"]`.'),
  excluded_properties: z.string().optional().describe("Event names to leave out, as a JSON list."),
});

/** The event-definition routes. */
export const eventDefinitionRoutes: RestModule = (services, limits) => {
  const definitions = services.eventDefinitions;
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${BASE}:id/`,
    summary:
      "Change an event definition (description, owner, tags, verified, hidden, default_columns; absent " +
      "fields keep their value): hiding unverifies, verifying unhides and stamps who and when.",
    scopes: ["event_definition:write"],
    request: { params: idParams, body: updateEventDefinitionSchema as z.ZodType },
    responses: { 200: eventDefinitionSchema },
    handler: async ({ params, body, ctx }) => ({
      body: serializeEventDefinition(
        await definitions.update(ctx, pathId(params, "project_id"), params["id"]!, body),
      ),
    }),
  });
  return [
    {
      method: "GET",
      path: BASE,
      summary:
        "List the project's event definitions: search, event type, ordering, hidden/stale/verified, names, " +
        "tags and excluded names filters; limit/offset pages.",
      scopes: ["event_definition:read"],
      request: { query: listQuerySchema },
      responses: { 200: eventDefinitionPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const requested = parseInput(pageQuerySchema, Object.fromEntries(query), ctx.limits);
        const page = {
          limit: Math.min(requested.limit ?? DEFAULT_PAGE_SIZE, limits.maxPageSize),
          offset: requested.offset ?? 0,
        };
        const filters = {
          ...Object.fromEntries(query),
          names: query.getAll("names"),
          ordering: query.getAll("ordering"),
        };
        const { count, results } = await definitions.list(ctx, pathId(params, "project_id"), filters, page);
        return {
          body: {
            count,
            ...offsetPageLinks(url, page, count),
            results: results.map(serializeEventDefinition),
          },
        };
      },
    },
    {
      method: "POST",
      path: BASE,
      summary:
        "Create an event definition (a name not yet in the project); it has no last_seen_at until captured.",
      scopes: ["event_definition:write"],
      request: { body: createEventDefinitionSchema as z.ZodType },
      responses: { 201: eventDefinitionSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeEventDefinition(await definitions.create(ctx, pathId(params, "project_id"), body)),
      }),
    },
    {
      method: "GET",
      path: `${BASE}by_name/`,
      summary: "The event definition named exactly `name` (query parameter, required).",
      scopes: ["event_definition:read"],
      request: { query: z.object({ name: z.string().describe("The exact event name.") }) },
      responses: { 200: eventDefinitionSchema },
      handler: async ({ params, query, ctx }) => ({
        body: serializeEventDefinition(
          await definitions.getByName(ctx, pathId(params, "project_id"), query.get("name")),
        ),
      }),
    },
    ...notBuiltRoutes(BASE, NOT_BUILT),
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One event definition, by UUID.",
      scopes: ["event_definition:read"],
      request: { params: idParams },
      responses: { 200: eventDefinitionSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeEventDefinition(
          await definitions.get(ctx, pathId(params, "project_id"), params["id"]!),
        ),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path: `${BASE}:id/`,
      summary: "Delete an event definition for good (capture recreates it when it sees the name again).",
      scopes: ["event_definition:write"],
      request: { params: idParams },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await definitions.destroy(ctx, pathId(params, "project_id"), params["id"]!);
        return { status: 204, body: undefined };
      },
    },
    {
      method: "GET",
      path: `${BASE}:id/metrics/`,
      summary: "Usage of the event over 30 days: `query_usage_30_day`.",
      scopes: ["event_definition:read"],
      request: { params: idParams },
      responses: { 200: eventDefinitionMetricsSchema, 404: errorBodySchema },
      handler: async ({ params, ctx }) => ({
        body: serializeMetrics(await definitions.metrics(ctx, pathId(params, "project_id"), params["id"]!)),
      }),
    },
  ];
};
