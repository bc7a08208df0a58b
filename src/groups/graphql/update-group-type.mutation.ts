/** `updateGroupType`: REST's `PATCH groups_types/update_metadata/` for one group type. */
import { NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { mutationResult, WRITE_ERRORS } from "../../graphql/mutation-result.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { GroupTypeRef } from "./group-type.type.js";

const UpdateGroupTypeInput = builder.inputType("UpdateGroupTypeInput", {
  description:
    "New display names of a group type (REST `PATCH groups_types/update_metadata/`): an absent name keeps its " +
    "value, null clears it, a text sets it.",
  fields: (t) => ({
    projectId: t.id({
      required: true,
      description: "The project: PostHog's integer id (REST's `:project_id`) or the project's global `id`.",
    }),
    groupTypeIndex: t.int({ required: true, description: "The group type's slot, 0–4." }),
    nameSingular: t.string({ description: "Display name for one group (at most 400 characters)." }),
    namePlural: t.string({ description: "Display name for several groups (at most 400 characters)." }),
  }),
});

builder.mutationField("updateGroupType", (t) =>
  t.field({
    type: GroupTypeRef,
    nullable: true,
    description: "Renames a group type (REST `PATCH groups_types/update_metadata/`). Scope `group:write`.",
    extensions: requiresScopes("group:write"),
    args: { input: t.arg({ type: UpdateGroupTypeInput, required: true, description: "The changes." }) },
    errors: mutationResult({
      name: "UpdateGroupType",
      field: "groupType",
      what: "The group type",
      verb: "renamed",
      types: WRITE_ERRORS,
    }),
    resolve: async (_root, { input }, ctx) => {
      const serviceContext = await ctx.serviceContext();
      const { projectId, ...fields } = input;
      const row = postHogFields(fields, {
        groupTypeIndex: "group_type_index",
        nameSingular: "name_singular",
        namePlural: "name_plural",
      });
      const types = await ctx.services.groups.updateTypes(serviceContext, parseProjectId(projectId), [row]);
      const updated = types.find((type) => type.groupTypeIndex === input.groupTypeIndex);
      if (!updated) throw new NotFoundError();
      return updated;
    },
  }),
);
