/**
 * `updatePropertyDefinition` and `deletePropertyDefinition`: REST's `PATCH :id/` and `DELETE :id/`
 * for GraphQL, through the same service methods (inputs re-encoded into REST's body, so the same
 * rules and messages apply). Capture creates property definitions; nothing else does.
 */
import { mutationUuid, writeResult } from "../../event-definitions/graphql/refs.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { PropertyValueTypeEnum } from "./enums.js";
import { PropertyDefinitionRef } from "./property-definition.type.js";

const PROJECT_ID_DESCRIPTION =
  "The definition's project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.";
const ID_DESCRIPTION = "The definition: its UUID (REST's `:id`) or its global `id`.";

/** plugin-errors options of mutation `name` (event-definitions/graphql/refs.ts `writeResult`). */
const result = (name: string, verb: string) =>
  writeResult(name, "propertyDefinition", "The property definition", verb);

/** The UUID of a mutation input's `id`. @throws NotFoundError for an id naming no definition. */
const mutationId = (raw: string) => mutationUuid(raw, "PropertyDefinition");

const UpdatePropertyDefinitionInput = builder.inputType("UpdatePropertyDefinitionInput", {
  description:
    "Changes to a property definition (REST `PATCH property_definitions/:id/`): an absent field keeps its " +
    "value. A `propertyType` sets `isNumerical` (true for NUMERIC only); hiding unverifies; verifying unhides " +
    "and stamps who and when; the name and kind cannot change.",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
    description: t.string({ description: "A new description." }),
    tags: t.stringList({ description: "The new tags (replacing the old ones)." }),
    propertyType: t.field({
      type: PropertyValueTypeEnum,
      description: "The type of its values, or null to clear it.",
    }),
    verified: t.boolean({
      description: "Verify (true) or unverify (false); not true together with `hidden`.",
    }),
    hidden: t.boolean({ description: "Hide (true) or show (false); not true together with `verified`." }),
  }),
});

builder.mutationField("updatePropertyDefinition", (t) =>
  t.field({
    type: PropertyDefinitionRef,
    nullable: true,
    description:
      "Changes a property definition (REST `PATCH property_definitions/:id/`). Scope `property_definition:write`.",
    extensions: requiresScopes("property_definition:write"),
    args: {
      input: t.arg({ type: UpdatePropertyDefinitionInput, required: true, description: "The changes." }),
    },
    errors: result("UpdatePropertyDefinition", "updated"),
    resolve: async (_root, { input }, ctx) => {
      const { projectId, id, ...fields } = input;
      return ctx.services.propertyDefinitions.update(
        await ctx.serviceContext(),
        parseProjectId(projectId),
        mutationId(id),
        postHogFields(fields, {
          description: "description",
          tags: "tags",
          propertyType: "property_type",
          verified: "verified",
          hidden: "hidden",
        }),
      );
    },
  }),
);

const DeletePropertyDefinitionInput = builder.inputType("DeletePropertyDefinitionInput", {
  description: "A property definition to delete (REST `DELETE property_definitions/:id/`).",
  fields: (t) => ({
    projectId: t.id({ required: true, description: PROJECT_ID_DESCRIPTION }),
    id: t.id({ required: true, description: ID_DESCRIPTION }),
  }),
});

builder.mutationField("deletePropertyDefinition", (t) =>
  t.field({
    type: PropertyDefinitionRef,
    nullable: true,
    description:
      "Deletes a property definition for good (capture records it again when it sees the name); answers it as " +
      "it was. Scope `property_definition:write`.",
    extensions: requiresScopes("property_definition:write"),
    args: {
      input: t.arg({ type: DeletePropertyDefinitionInput, required: true, description: "Which definition." }),
    },
    errors: result("DeletePropertyDefinition", "deleted"),
    resolve: async (_root, { input }, ctx) =>
      ctx.services.propertyDefinitions.destroy(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        mutationId(input.id),
      ),
  }),
);
