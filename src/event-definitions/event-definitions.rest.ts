/**
 * Event definitions on PostHog's REST paths (spec "Event definitions" rows, posthog-behavior.md §6;
 * `posthog/api/event_definition.py` EventDefinitionViewSet): request parsing and PostHog's shapes.
 * Behaviour lives in event-definitions.service.ts. The code-generation rows (`golang/`, `python/`,
 * `typescript/`) are declared before `:id/`, so they are never taken for an id.
 */
import { z } from "zod";
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { errorBodySchema } from "../core/error-body.js";
import { parseInput } from "../core/validation.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import { CODE_LANGUAGES, type CodeLanguage } from "./codegen/model.js";
import {
  type DefinitionRoutes,
  definitionItemRoutes,
  definitionListRoute,
} from "./definitions-base.routes.js";
import type { EventDefinitionRecord } from "./event-definitions.queries.js";
import {
  eventDefinitionCodeSchema,
  eventDefinitionMetricsSchema,
  eventDefinitionPageSchema,
  eventDefinitionSchema,
  serializeCode,
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

/** What each code-generation row generates for (posthog-behavior.md §6.4). */
const CODE_SUMMARIES: Record<CodeLanguage, string> = {
  typescript: "`posthog-js` (a typed `capture` wrapper, generator 1.1.0)",
  golang: "`posthog-go` (`posthog.Capture` builders per event, package `typed`, generator 1.0.0)",
  python: "the `posthog` Python SDK (`TypedDict`s and `capture` overloads, generator 1.0.0)",
};

/** `:id` of an event definition (`:id/metrics/`; the other `:id/` rows: `definitionItemRoutes`): a UUID (anything else answers 404). */
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
  const kind: DefinitionRoutes<EventDefinitionRecord> = {
    base: BASE,
    noun: "event definition",
    read: "event_definition:read",
    write: "event_definition:write",
    schema: eventDefinitionSchema,
    pageSchema: eventDefinitionPageSchema,
    serialize: serializeEventDefinition,
    service: definitions,
    listSummary:
      "List the project's event definitions: search, event type, ordering, hidden/stale/verified, names, " +
      "tags and excluded names filters; limit/offset pages.",
    listQuery: listQuerySchema,
    // Strict, unlike property definitions': a bad `limit` or `offset` is a 400.
    page: (query, ctx) => {
      const requested = parseInput(pageQuerySchema, Object.fromEntries(query), ctx.limits);
      return {
        limit: Math.min(requested.limit ?? DEFAULT_PAGE_SIZE, limits.maxPageSize),
        offset: requested.offset ?? 0,
      };
    },
    filters: (query) => ({
      ...Object.fromEntries(query),
      names: query.getAll("names"),
      ordering: query.getAll("ordering"),
    }),
    updateBody: updateEventDefinitionSchema as z.ZodType,
    updateSummary:
      "Change an event definition (description, owner, tags, verified, hidden, default_columns; absent " +
      "fields keep their value): hiding unverifies, verifying unhides and stamps who and when.",
    deleteSummary: "Delete an event definition for good (capture recreates it when it sees the name again).",
  };
  return [
    definitionListRoute(kind, limits),
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
    ...CODE_LANGUAGES.map(
      (language): RestRoute => ({
        method: "GET",
        path: `${BASE}${language}/`,
        summary:
          `Typed capture code for ${CODE_SUMMARIES[language]}: the project's events not starting with \`$\` ` +
          "plus `$pageview`, `$pageleave` and `$screen`, with their event schemas' properties; " +
          "`schema_hash` tells when to regenerate.",
        scopes: ["event_definition:read"],
        responses: { 200: eventDefinitionCodeSchema },
        handler: async ({ params, ctx }) => ({
          body: serializeCode(await definitions.code(ctx, pathId(params, "project_id"), language)),
        }),
      }),
    ),
    ...definitionItemRoutes(kind),
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
