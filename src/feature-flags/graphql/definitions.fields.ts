/**
 * The flag-definitions field of `Project`: the revision the local-evaluation payload is at
 * (delivery/definitions.ts), so a client can tell, with one cheap field, whether the definitions
 * an SDK or a cache holds may be stale.
 */
import { builder } from "../../graphql/builder.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";

builder.objectFields(ProjectRef, (t) => ({
  flagDefinitionsRevision: t.string({
    nullable: true,
    description:
      "The revision of the project's flag definitions (flags, cohorts, group types), as a decimal string: " +
      "the same value means the same local-evaluation payload. It moves in the same transaction as every " +
      "write to the project's configuration (so now and then without a definition changing). Scope " +
      "`feature_flag:read` (null with a `permission_denied` error without it).",
    extensions: requiresScopes("feature_flag:read"),
    resolve: async (project, _args, ctx) =>
      String(await ctx.services.flagDefinitions.revision(await ctx.serviceContext(), project.id)),
  }),
}));
