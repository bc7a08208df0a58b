/**
 * The `Group` object type: one key of one group type, with its properties. A node: its global id
 * names its project, type index and key, and `node(id:)` reads it with the service's batch read.
 */
import { builder } from "../../graphql/builder.js";
import { projectOwnedLocalId } from "../../graphql/ids.js";
import { implementNode, projectOwnedLoader } from "../../graphql/node.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { GroupRecord } from "../groups.queries.js";

/** The `Group` object type. */
export const GroupRef = builder.objectRef<GroupRecord>("Group").implement({
  description:
    "A group of a project (PostHog's Group): a company, an organization... identified by type and key.",
  extensions: requiresScopes("group:read"),
  fields: (t) => ({
    groupTypeIndex: t.exposeInt("groupTypeIndex", { description: "Its group type's slot, 0–4." }),
    groupKey: t.exposeString("groupKey", { description: "Its key, unique within its type." }),
    groupProperties: t.expose("groupProperties", {
      type: "JSON",
      description: "Its properties (free-form JSON).",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was first seen." }),
  }),
});

/**
 * The (type index, key) in the key of a group's local id (`<index>:<key>`); null when malformed or
 * holding what no stored key can (a NUL, a lone surrogate).
 */
function parseGroupKey(key: string): { groupTypeIndex: number; groupKey: string } | null {
  const match = /^(\d{1,2}):([\s\S]*)$/.exec(key);
  if (!match || match[2]!.includes("\u0000") || /\p{Cs}/u.test(match[2]!)) return null;
  return { groupTypeIndex: Number(match[1]), groupKey: match[2]! };
}

implementNode(GroupRef, {
  localId: (group) => projectOwnedLocalId(group.projectId, `${group.groupTypeIndex}:${group.groupKey}`),
  // Scope `group:read` and the project check, as `Project.group`.
  load: projectOwnedLoader(parseGroupKey, (ctx, serviceContext, projectId, keys) =>
    ctx.services.groups.getMany(serviceContext, projectId, keys),
  ),
});
