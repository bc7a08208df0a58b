/**
 * `createEventDefinition`, `updateEventDefinition` and `deleteEventDefinition`: REST's `POST`,
 * `PATCH :id/` and `DELETE :id/` for GraphQL, through the same service methods (inputs re-encoded
 * into REST's body, so the same rules and messages apply).
 */
import { builder } from "../../graphql/builder.js";
import { parseIntegerObjectId, parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { EventDefinitionRef } from "./event-definition.type.js";
import { mutationUuid, writeResult } from "./refs.js";

const PROJECT_ID_DESCRIPTION =
  "The definition's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The definition: its UUID (REST's `:id`) or its global `id`.";

/** The writable fields shared by create and update, with their PostHog names. */
const FIELD_NAMES = {
  description: "description",
  owner: "owner",
  tags: "tags",
  verified: "verified",
  hidden: "hidden",
  defaultColumns: "default_columns",
} as const;

/** `owner` as REST takes it: PostHog's integer user id (a `User` global id is decoded). */
const CONVERT = { owner: (raw: string | number) => parseIntegerObjectId(raw, "User") ?? raw };

/** plugin-errors options of mutation `name` (refs.ts `writeResult`). */
const result = (name: string, verb: string) =>
  writeResult(name, "eventDefinition", "The event definition", verb);

/** The UUID of a mutation input's `id`. @throws NotFoundError for an id naming no definition. */
const mutationId = (raw: string) => mutationUuid(raw, "EventDefinition");

const CreateEventDefinitionInput = builder.inputType("CreateEventDefinitionInput", {
  description: "A new event definition (REST `POST event_definitions/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    name: t.string({
      required: true,
      description: "The event name: not yet in the project, at most 400 characters.",
    }),
    description: t.string({ description: "Its description." }),
    owner: t.id({ description: "Its owner: a user of the organization, by integer id or global `id`." }),
    tags: t.stringList({ description: "Its tags (stored lower-case)." }),
    verified: t.boolean({ description: "Verify it (stamps you and now); not together with `hidden`." }),
    hidden: t.boolean({ description: "Hide it from lists; not together with `verified`." }),
    defaultColumns: t.stringList({ description: "Columns the events table shows for this event." }),
  }),
});

builder.mutationField("createEventDefinition", (t) =>
  t.field({
    type: EventDefinitionRef,
    nullable: true,
    description:
      "Creates an event definition (REST `POST event_definitions/`). Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: CreateEventDefinitionInput, required: true, description: "The new definition." }),
    },
    errors: result("CreateEventDefinition", "created"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, name, ...fields } = input;
      const body = { name, ...postHogFields(fields, FIELD_NAMES, CONVERT) };
      return ctx.services.eventDefinitions.create(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        body,
      );
    },
  }),
);

const UpdateEventDefinitionInput = builder.inputType("UpdateEventDefinitionInput", {
  description:
    "Changes to an event definition (REST `PATCH event_definitions/:id/`): an absent field keeps its value. " +
    "Hiding unverifies; verifying unhides and stamps who and when; the name cannot change.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    description: t.string({ description: "A new description." }),
    owner: t.id({ description: "A new owner (a user of the organization), or null for none." }),
    tags: t.stringList({ description: "The new tags (replacing the old ones)." }),
    verified: t.boolean({
      description: "Verify (true) or unverify (false); not true together with `hidden`.",
    }),
    hidden: t.boolean({ description: "Hide (true) or show (false); not true together with `verified`." }),
    defaultColumns: t.stringList({ description: "The new default columns." }),
  }),
});

builder.mutationField("updateEventDefinition", (t) =>
  t.field({
    type: EventDefinitionRef,
    nullable: true,
    description:
      "Changes an event definition (REST `PATCH event_definitions/:id/`). Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: { input: t.arg({ type: UpdateEventDefinitionInput, required: true, description: "The changes." }) },
    errors: result("UpdateEventDefinition", "updated"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.eventDefinitions.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(id),
        postHogFields(fields, FIELD_NAMES, CONVERT),
      );
    },
  }),
);

const DeleteEventDefinitionInput = builder.inputType("DeleteEventDefinitionInput", {
  description: "An event definition to delete (REST `DELETE event_definitions/:id/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
  }),
});

builder.mutationField("deleteEventDefinition", (t) =>
  t.field({
    type: EventDefinitionRef,
    nullable: true,
    description:
      "Deletes an event definition for good (capture recreates it when it sees the name again); answers it as " +
      "it was. Scope `event_definition:write`.",
    extensions: requiresScopes("event_definition:write"),
    args: {
      input: t.arg({ type: DeleteEventDefinitionInput, required: true, description: "Which definition." }),
    },
    errors: result("DeleteEventDefinition", "deleted"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.eventDefinitions.destroy(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);
