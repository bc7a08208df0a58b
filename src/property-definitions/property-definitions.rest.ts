/**
 * Property definitions on PostHog's REST paths (`posthog/api/property_definition.py`
 * PropertyDefinitionViewSet: list, retrieve, update, destroy, `seen_together`): request parsing and
 * PostHog's shapes. Behaviour lives in property-definitions.service.ts. PostHog's list pages are
 * lenient (a bad `limit` or `offset` falls back to the default, as DRF's `LimitOffsetPagination`).
 */
import { z } from "zod";
import {
  type DefinitionRoutes,
  definitionItemRoutes,
  definitionListRoute,
} from "../event-definitions/definitions-base.routes.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import type { PropertyDefinitionRecord } from "./property-definitions.queries.js";
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
  const kind: DefinitionRoutes<PropertyDefinitionRecord> = {
    base: BASE,
    noun: "property definition",
    read: "property_definition:read",
    write: "property_definition:write",
    schema: propertyDefinitionSchema,
    pageSchema: propertyDefinitionPageSchema,
    serialize: serializePropertyDefinition,
    service: definitions,
    listSummary:
      "List the project's property definitions of one kind (event, person, group, session): search, names, " +
      "numerical, feature-flag, event-name, excluded, core and hidden filters; limit/offset pages.",
    listQuery: listQuerySchema,
    filters: (query) => Object.fromEntries(query),
    updateBody: updatePropertyDefinitionSchema as z.ZodType<PropertyDefinitionUpdate>,
    updateSummary:
      "Change a property definition (description, tags, property_type, verified, hidden; absent fields keep " +
      "their value): a property_type sets is_numerical; hiding unverifies, verifying unhides and stamps who and when.",
    deleteSummary: "Delete a property definition for good (capture records it again when it sees the name).",
  };
  return [
    definitionListRoute(kind, limits),
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
    ...definitionItemRoutes(kind),
  ];
};
