/**
 * Schema property groups and event schemas on PostHog's REST paths
 * (`posthog/api/schema_property_group.py` SchemaPropertyGroupViewSet: list, create, retrieve,
 * update, partial update, destroy; `posthog/api/event_schema.py` EventSchemaViewSet: list, create,
 * destroy): request parsing and PostHog's shapes. Behaviour lives in event-schemas.service.ts.
 */
import { z } from "zod";
import { offsetListRoute } from "../rest/list-route.js";
import { offsetPageQuerySchema } from "../rest/pagination.js";
import type { RestModule, RestRoute } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import {
  eventSchemaPageSchema,
  eventSchemaSchema,
  schemaPropertyGroupPageSchema,
  schemaPropertyGroupSchema,
  serializeEventSchema,
  serializeSchemaPropertyGroup,
} from "./event-schemas.responses.js";
import {
  createEventSchemaSchema,
  createSchemaPropertyGroupSchema,
  replaceSchemaPropertyGroupSchema,
  updateSchemaPropertyGroupSchema,
} from "./event-schemas.schemas.js";

const GROUPS = "/api/projects/:project_id/schema_property_groups/";
const EVENT_SCHEMAS = "/api/projects/:project_id/event_schemas/";

/** `:id` of a group or an event schema: a UUID (anything else answers 404). */
const idParams = (what: string) => z.object({ id: z.string().describe(`The ${what}'s UUID.`) });

/** The schema property group and event schema routes. */
export const eventSchemaRoutes: RestModule = (services, limits) => {
  const schemas = services.eventSchemas;
  const updateRoute = (method: "PATCH" | "PUT"): RestRoute => ({
    method,
    path: `${GROUPS}:id/`,
    summary:
      method === "PATCH"
        ? "Change a property group (name, description; `properties` replaces the whole list in one transaction)."
        : "Replace a property group (`name` required; `properties`, when given, replaces the whole list).",
    scopes: ["event_definition:write"],
    request: {
      params: idParams("property group"),
      body: (method === "PATCH"
        ? updateSchemaPropertyGroupSchema
        : replaceSchemaPropertyGroupSchema) as z.ZodType,
    },
    responses: { 200: schemaPropertyGroupSchema },
    handler: async ({ params, body, ctx }) => {
      const projectId = pathId(params, "project_id");
      const group =
        method === "PATCH"
          ? await schemas.update(ctx, projectId, params["id"]!, body)
          : await schemas.replace(ctx, projectId, params["id"]!, body);
      return { body: serializeSchemaPropertyGroup(group) };
    },
  });
  return [
    offsetListRoute(limits, {
      path: GROUPS,
      summary: "List the project's schema property groups by name, each with its properties and events.",
      scopes: ["event_definition:read"],
      query: offsetPageQuerySchema,
      pageSchema: schemaPropertyGroupPageSchema,
      load: ({ ctx, projectId }, page) => schemas.listGroups(ctx, projectId, page),
      serialize: serializeSchemaPropertyGroup,
    }),
    {
      method: "POST",
      path: GROUPS,
      summary: "Create a schema property group (a name unique in the project) with its typed properties.",
      scopes: ["event_definition:write"],
      request: { body: createSchemaPropertyGroupSchema as z.ZodType },
      responses: { 201: schemaPropertyGroupSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeSchemaPropertyGroup(
          await schemas.createGroup(ctx, pathId(params, "project_id"), body),
        ),
      }),
    },
    {
      method: "GET",
      path: `${GROUPS}:id/`,
      summary: "One schema property group, by UUID.",
      scopes: ["event_definition:read"],
      request: { params: idParams("property group") },
      responses: { 200: schemaPropertyGroupSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeSchemaPropertyGroup(
          await schemas.getGroup(ctx, pathId(params, "project_id"), params["id"]!),
        ),
      }),
    },
    updateRoute("PATCH"),
    updateRoute("PUT"),
    {
      method: "DELETE",
      path: `${GROUPS}:id/`,
      summary: "Delete a schema property group with its properties; the events it was attached to lose it.",
      scopes: ["event_definition:write"],
      request: { params: idParams("property group") },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await schemas.destroyGroup(ctx, pathId(params, "project_id"), params["id"]!);
        return { status: 204, body: undefined };
      },
    },
    offsetListRoute(limits, {
      path: EVENT_SCHEMAS,
      summary: "List the project's event schemas (event definition and property group), newest first.",
      scopes: ["event_definition:read"],
      query: offsetPageQuerySchema.extend({
        event_definition: z.string().optional().describe("Only this event definition's (its UUID)."),
      }),
      pageSchema: eventSchemaPageSchema,
      load: ({ ctx, projectId, query }, page) =>
        schemas.listEventSchemas(
          ctx,
          projectId,
          query.has("event_definition") ? { event_definition: query.get("event_definition") } : {},
          page,
        ),
      serialize: serializeEventSchema,
    }),
    {
      method: "POST",
      path: EVENT_SCHEMAS,
      summary: "Attach a property group to an event definition (`event_definition`, `property_group_id`).",
      scopes: ["event_definition:write"],
      request: { body: createEventSchemaSchema as z.ZodType },
      responses: { 201: eventSchemaSchema },
      handler: async ({ params, body, ctx }) => ({
        status: 201,
        body: serializeEventSchema(await schemas.createEventSchema(ctx, pathId(params, "project_id"), body)),
      }),
    },
    {
      method: "DELETE",
      path: `${EVENT_SCHEMAS}:id/`,
      summary: "Detach a property group from an event definition (the group stays).",
      scopes: ["event_definition:write"],
      request: { params: idParams("event schema") },
      responses: { 204: null },
      handler: async ({ params, ctx }) => {
        await schemas.destroyEventSchema(ctx, pathId(params, "project_id"), params["id"]!);
        return { status: 204, body: undefined };
      },
    },
  ];
};
