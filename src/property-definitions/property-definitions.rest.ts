/**
 * Property definitions on PostHog's REST paths (`posthog/api/property_definition.py`
 * PropertyDefinitionViewSet: list, retrieve, update, destroy, `seen_together`): request parsing and
 * PostHog's shapes. Behaviour lives in property-definitions.service.ts. PostHog's list pages are
 * lenient (a bad `limit` or `offset` falls back to the default, as DRF's `LimitOffsetPagination`).
 */
import { z } from "zod";
import { offsetPageBody, offsetPageQuerySchema, parseOffsetPage } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import {
  propertyDefinitionPageSchema,
  propertyDefinitionSchema,
  seenTogetherSchema,
  serializePropertyDefinition,
} from "./property-definitions.responses.js";
import {
  PROPERTY_DEFINITION_KINDS,
  type PropertyDefinitionUpdate,
  updatePropertyDefinitionSchema,
} from "./property-definitions.schemas.js";

const BASE = "/api/projects/:project_id/property_definitions/";

/** `:id` of a property definition: a UUID (anything else answers 404). */
const idParams = z.object({ id: z.string().describe("The property definition's UUID.") });

/** The list's query parameters, for the OpenAPI document (the service parses them). */
const listQuerySchema = offsetPageQuerySchema.extend({
  type: z
    .enum(PROPERTY_DEFINITION_KINDS)
    .optional()
    .describe(
      "Whose properties: `event` (default), `person`, `group` (with `group_type_index`) or `session`.",
    ),
  group_type_index: z
    .int()
    .min(0)
    .max(4)
    .optional()
    .describe("The group type; only and always with `type=group`."),
  search: z.string().optional().describe("Every whitespace-separated term must be in the name (any case)."),
  properties: z.string().optional().describe("Only these exact names, comma-separated."),
  is_numerical: z.boolean().optional().describe("true: numerical properties only."),
  is_feature_flag: z
    .boolean()
    .optional()
    .describe("true: `$feature/…` properties only; false: none of them."),
  event_names: z
    .string()
    .optional()
    .describe(
      'A JSON list of event names (`type=event` only), e.g. `["$pageview"]`: each result says whether it was ' +
        "seen on them (`is_seen_on_filtered_events`), and those seen come first.",
    ),
  filter_by_event_names: z
    .boolean()
    .optional()
    .describe("Only properties seen on `event_names` (on any event when none are given)."),
  excluded_properties: z.string().optional().describe("Names to leave out, as a JSON list."),
  exclude_core_properties: z
    .boolean()
    .optional()
    .describe(
      "Leave out `$` properties and PostHog's core event properties (utm and click-id parameters, ...).",
    ),
  exclude_hidden: z.boolean().optional().describe("Leave out hidden properties."),
});

/** The property-definition routes. */
export const propertyDefinitionRoutes: RestModule = (services, limits) => {
  const definitions = services.propertyDefinitions;
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${BASE}:id/`,
    summary:
      "Change a property definition (description, tags, property_type, verified, hidden; absent fields keep " +
      "their value): a property_type sets is_numerical; hiding unverifies, verifying unhides and stamps who and when.",
    scopes: ["property_definition:write"],
    request: {
      params: idParams,
      body: updatePropertyDefinitionSchema as z.ZodType<PropertyDefinitionUpdate>,
    },
    responses: { 200: propertyDefinitionSchema },
    handler: async ({ params, body, ctx }) => ({
      body: serializePropertyDefinition(
        await definitions.update(ctx, pathId(params, "project_id"), params["id"]!, body),
      ),
    }),
  });
  return [
    {
      method: "GET",
      path: BASE,
      summary:
        "List the project's property definitions of one kind (event, person, group, session): search, names, " +
        "numerical, feature-flag, event-name, excluded, core and hidden filters; limit/offset pages.",
      scopes: ["property_definition:read"],
      request: { query: listQuerySchema },
      responses: { 200: propertyDefinitionPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        const page = parseOffsetPage(query, limits);
        return {
          body: offsetPageBody(
            url,
            page,
            await definitions.list(ctx, pathId(params, "project_id"), Object.fromEntries(query), page),
            serializePropertyDefinition,
          ),
        };
      },
    },
    {
      method: "GET",
      path: `${BASE}seen_together/`,
      summary:
        "Whether a property was seen on each of some events: `event_names` (repeated) and `property_name` " +
        "give `{event: true|false}`.",
      scopes: ["property_definition:read"],
      request: {
        query: z.object({
          event_names: z.string().describe("An event name; repeat for more."),
          property_name: z.string().describe("The property name."),
        }),
      },
      responses: { 200: seenTogetherSchema },
      handler: async ({ params, query, ctx }) => {
        const events = query.getAll("event_names");
        const input = {
          ...(events.length > 0 ? { event_names: events } : {}),
          ...(query.has("property_name") ? { property_name: query.get("property_name") } : {}),
        };
        return { body: await definitions.seenTogether(ctx, pathId(params, "project_id"), input) };
      },
    },
    {
      method: "GET",
      path: `${BASE}:id/`,
      summary: "One property definition, by UUID.",
      scopes: ["property_definition:read"],
      request: { params: idParams },
      responses: { 200: propertyDefinitionSchema },
      handler: async ({ params, ctx }) => ({
        body: serializePropertyDefinition(
          await definitions.get(ctx, pathId(params, "project_id"), params["id"]!),
        ),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path: `${BASE}:id/`,
      summary: "Delete a property definition for good (capture records it again when it sees the name).",
      scopes: ["property_definition:write"],
      request: { params: idParams },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await definitions.destroy(ctx, pathId(params, "project_id"), params["id"]!);
        return { status: 204, body: undefined };
      },
    },
  ];
};
