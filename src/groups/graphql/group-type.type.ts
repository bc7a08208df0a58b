/**
 * The `GroupType` object type: one of a project's group types (index 0–4 ↔ name). A node: its
 * global id names its project and index, and `node(id:)` reads it through the group service.
 */
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { GroupTypeRecord } from "../groups.queries.js";

/** The `GroupType` object type. */
export const GroupTypeRef = builder.objectRef<GroupTypeRecord>("GroupType").implement({
  description:
    "A group type of a project (PostHog's GroupTypeMapping): the name SDKs send, in one of five slots (0–4).",
  extensions: requiresScopes("group:read"),
  fields: (t) => ({
    groupType: t.exposeString("groupType", { description: "The name SDKs send (`company`, ...)." }),
    groupTypeIndex: t.exposeInt("groupTypeIndex", { description: "Its slot, 0–4." }),
    nameSingular: t.exposeString("nameSingular", {
      nullable: true,
      description: "Display name for one group; null when unset.",
    }),
    namePlural: t.exposeString("namePlural", {
      nullable: true,
      description: "Display name for several groups; null when unset.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the type was first seen." }),
  }),
});

/** A group type's index from the key of its local id; null when it is not a small integer. */
function parseIndex(key: string): number | null {
  return /^\d{1,2}$/.test(key) ? Number(key) : null;
}

implementNode(GroupTypeRef, {
  localId: (type) => projectOwnedLocalId(type.projectId, type.groupTypeIndex),
  // Scope `group:read` and the project check, as `Project.groupTypes`.
  load: projectOwnedLoader(parseIndex, (ctx, serviceContext, projectId, indexes) =>
    ctx.services.groups.getTypes(serviceContext, projectId, indexes),
  ),
});
