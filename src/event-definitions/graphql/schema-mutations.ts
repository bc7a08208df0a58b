/**
 * `createSchemaPropertyGroup`, `updateSchemaPropertyGroup`, `deleteSchemaPropertyGroup`,
 * `addEventSchema` and `removeEventSchema`: REST's `schema_property_groups/` POST, PATCH and
 * DELETE and `event_schemas/` POST and DELETE for GraphQL, through the same service methods (inputs
 * re-encoded into REST's bodies, so the same rules and messages apply).
 */
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { SchemaPropertyTypeEnum } from "./enums.js";
import { parseEventDefinitionId } from "./event-definition.type.js";
import { mutationUuid, parseUuidObjectId, writeResult } from "./refs.js";
import { EventSchemaRef, SchemaPropertyGroupRef } from "./schema-property-group.type.js";

const PROJECT_ID_DESCRIPTION =
  "The project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";

const SchemaPropertyInput = builder.inputType("SchemaPropertyInput", {
  description: "One property of a schema property group (an entry of REST's `properties`).",
  fields: (t) => ({
    name: t.string({
      required: true,
      description: "The property name: a letter or `_`, then letters, digits and `_`; unique in the group.",
    }),
    propertyType: t.field({ type: SchemaPropertyTypeEnum, required: true, description: "Its type." }),
    isRequired: t.boolean({ description: "Whether events must carry it; false when absent." }),
    description: t.string({ description: "Its description." }),
  }),
});

/** A property input as REST's body entry. */
const toPostHogProperty = (property: {
  name: string;
  propertyType: string;
  isRequired?: boolean | null;
  description?: string | null;
}) =>
  postHogFields(property, {
    name: "name",
    propertyType: "property_type",
    isRequired: "is_required",
    description: "description",
  });

/** The writable group fields with their PostHog names. */
const GROUP_FIELDS = { name: "name", description: "description", properties: "properties" } as const;
const GROUP_CONVERT = {
  properties: (list: Parameters<typeof toPostHogProperty>[0][]) => list.map(toPostHogProperty),
};

const CreateSchemaPropertyGroupInput = builder.inputType("CreateSchemaPropertyGroupInput", {
  description: "A new schema property group (REST `POST schema_property_groups/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    name: t.string({
      required: true,
      description: "Its name: not yet in the project, at most 400 characters.",
    }),
    description: t.string({ description: "Its description." }),
    properties: t.field({ type: [SchemaPropertyInput], description: "Its properties, each name once." }),
  }),
});

builder.mutationField("createSchemaPropertyGroup", (t) =>
  t.field({
    type: SchemaPropertyGroupRef,
    nullable: true,
    description:
      "Creates a schema property group with its properties (REST `POST schema_property_groups/`). Scope " +
      "`event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: CreateSchemaPropertyGroupInput, required: true, description: "The new group." }),
    },
    errors: writeResult(
      "CreateSchemaPropertyGroup",
      "schemaPropertyGroup",
      "The schema property group",
      "created",
    ),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, ...fields } = input;
      return ctx.services.eventSchemas.createGroup(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        postHogFields(fields, GROUP_FIELDS, GROUP_CONVERT),
      );
    },
  }),
);

const UpdateSchemaPropertyGroupInput = builder.inputType("UpdateSchemaPropertyGroupInput", {
  description:
    "Changes to a schema property group (REST `PATCH schema_property_groups/:id/`): an absent field keeps its " +
    "value; `properties` replaces the whole list.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: "The group: its UUID (REST's `:id`) or its global `id`." }),
    name: t.string({ description: "A new name, not used by another group of the project." }),
    description: t.string({ description: "A new description." }),
    properties: t.field({
      type: [SchemaPropertyInput],
      description: "The group's new properties, replacing all of the old ones in one transaction.",
    }),
  }),
});

builder.mutationField("updateSchemaPropertyGroup", (t) =>
  t.field({
    type: SchemaPropertyGroupRef,
    nullable: true,
    description:
      "Changes a schema property group (REST `PATCH schema_property_groups/:id/`). Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: UpdateSchemaPropertyGroupInput, required: true, description: "The changes." }),
    },
    errors: writeResult(
      "UpdateSchemaPropertyGroup",
      "schemaPropertyGroup",
      "The schema property group",
      "updated",
    ),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.eventSchemas.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationUuid(id, "SchemaPropertyGroup"),
        postHogFields(fields, GROUP_FIELDS, GROUP_CONVERT),
      );
    },
  }),
);

const DeleteSchemaPropertyGroupInput = builder.inputType("DeleteSchemaPropertyGroupInput", {
  description: "A schema property group to delete (REST `DELETE schema_property_groups/:id/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: "The group: its UUID (REST's `:id`) or its global `id`." }),
  }),
});

builder.mutationField("deleteSchemaPropertyGroup", (t) =>
  t.field({
    type: SchemaPropertyGroupRef,
    nullable: true,
    description:
      "Deletes a schema property group with its properties; the events it was attached to lose it. Answers it as " +
      "it was. Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: DeleteSchemaPropertyGroupInput, required: true, description: "Which group." }),
    },
    errors: writeResult(
      "DeleteSchemaPropertyGroup",
      "schemaPropertyGroup",
      "The schema property group",
      "deleted",
    ),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.eventSchemas.destroyGroup(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationUuid(input.id, "SchemaPropertyGroup"),
      ),
  }),
);

const AddEventSchemaInput = builder.inputType("AddEventSchemaInput", {
  description: "A property group to attach to an event definition (REST `POST event_schemas/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    eventDefinitionId: t.id({
      required: true,
      description: "The event definition: its UUID (REST's `event_definition`) or its global `id`.",
    }),
    schemaPropertyGroupId: t.id({
      required: true,
      description: "The group: its UUID (REST's `property_group_id`) or its global `id`.",
    }),
  }),
});

builder.mutationField("addEventSchema", (t) =>
  t.field({
    type: EventSchemaRef,
    nullable: true,
    description:
      "Attaches a schema property group to an event definition of the same project (REST `POST event_schemas/`). " +
      "Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: AddEventSchemaInput, required: true, description: "The event and the group." }),
    },
    errors: writeResult("AddEventSchema", "eventSchema", "The event schema", "created"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.eventSchemas.createEventSchema(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        {
          // A global id is decoded; anything else reaches the service as given, for REST's messages.
          event_definition:
            parseEventDefinitionId(String(input.eventDefinitionId)) ?? String(input.eventDefinitionId),
          property_group_id:
            parseUuidObjectId(String(input.schemaPropertyGroupId), "SchemaPropertyGroup") ??
            String(input.schemaPropertyGroupId),
        },
      ),
  }),
);

const RemoveEventSchemaInput = builder.inputType("RemoveEventSchemaInput", {
  description: "An event schema to remove (REST `DELETE event_schemas/:id/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({
      required: true,
      description: "The event schema: its UUID (REST's `:id`) or its global `id`.",
    }),
  }),
});

builder.mutationField("removeEventSchema", (t) =>
  t.field({
    type: EventSchemaRef,
    nullable: true,
    description:
      "Detaches a schema property group from an event definition (the group stays); answers the event schema as " +
      "it was. Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: RemoveEventSchemaInput, required: true, description: "Which event schema." }),
    },
    errors: writeResult("RemoveEventSchema", "eventSchema", "The event schema", "removed"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.eventSchemas.destroyEventSchema(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationUuid(input.id, "EventSchema"),
      ),
  }),
);
