/**
 * Projects and organizations in GraphQL: the `Project` and `Organization` types and the root fields
 * `project` and `projects` (PostHog's `/api/projects/`). Visibility and scopes are
 * projects.service.ts's: a key sees the projects of its user's organizations, narrowed by its
 * `scopedTeams`/`scopedOrganizations`; `project:read` for projects, `organization:read` for an
 * organization. Other domains add their fields to `Project` beside their own types. Both types are
 * nodes (src/graphql/node.ts): `node(id:)` reads them through the same service calls and scopes.
 */
import { DEFAULT_PAGE_SIZE } from "../config.js";
import { type DomainError, ProjectNotFoundError } from "../core/errors.js";
import { parseIntegerId } from "../core/validation.js";
import type { Organization } from "../generated/prisma/client.js";
import { builder, connectionTotalCount } from "../graphql/builder.js";
import type { GraphQLContext } from "../graphql/context.js";
import { parseProjectId } from "../graphql/ids.js";
import { implementNode, loadParsed } from "../graphql/node.js";
import { resolveCountedConnection } from "../graphql/offset-connection.js";
import { projectSubscriptionField } from "../graphql/project-subscription.js";
import { OrganizationRef, ProjectRef } from "../graphql/refs.js";
import { requiresScopes } from "../graphql/scopes.js";

builder.objectType(OrganizationRef, {
  description: "An organization: owns projects and has members.",
  extensions: requiresScopes("organization:read"),
  fields: (t) => ({
    uuid: t.field({
      type: "UUID",
      description: "PostHog's id of the organization (REST's `/api/organizations/:id/`).",
      resolve: (o) => o.id,
    }),
    name: t.exposeString("name", { description: "The organization's name." }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (o) => o.createdAt,
    }),
  }),
});

/** Loads organizations by id for one request, in one service read (scope `organization:read`). */
async function loadOrganizations(
  ids: readonly string[],
  ctx: GraphQLContext,
): Promise<(Organization | DomainError)[]> {
  return ctx.services.projects.getOrganizations(await ctx.serviceContext(), ids);
}

implementNode(OrganizationRef, { localId: (organization) => organization.id, load: loadOrganizations });

builder.objectType(ProjectRef, {
  description:
    "A project (PostHog's team): the tenant of every configuration object. Its `databaseId` is PostHog's " +
    "integer project id, the `:project_id` of REST paths.",
  extensions: requiresScopes("project:read"),
  fields: (t) => ({
    databaseId: t.exposeInt("id", {
      description: "PostHog's integer project id (REST's `:project_id`).",
    }),
    name: t.exposeString("name", { description: "The project's name." }),
    apiToken: t.exposeString("apiToken", {
      description:
        "The public project API token (`phc_…`) that PostHog's SDKs send with events and flag requests.",
    }),
    timezone: t.exposeString("timezone", { description: "The project's IANA time zone, e.g. `UTC`." }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (p) => p.createdAt,
    }),
    organization: t.loadable({
      type: OrganizationRef,
      nullable: true,
      description:
        "The organization that owns the project. Scope `organization:read`; loaded once per organization per request.",
      extensions: requiresScopes("organization:read"),
      load: loadOrganizations,
      resolve: (project) => project.organizationId,
    }),
  }),
});

implementNode(ProjectRef, {
  localId: (project) => String(project.id),
  load: async (localIds, ctx) => {
    const serviceContext = await ctx.serviceContext();
    return loadParsed(
      localIds,
      parseIntegerId,
      (ids) => ctx.services.projects.getProjects(serviceContext, ids),
      () => new ProjectNotFoundError(),
    );
  },
});

builder.queryField("project", (t) =>
  t.field({
    type: ProjectRef,
    nullable: true,
    description:
      "One project by PostHog's integer id or its global `id`. Scope `project:read`. Null with a `not_found` " +
      "error for an unknown or malformed id, `permission_denied` when the key cannot reach it.",
    extensions: requiresScopes("project:read"),
    args: {
      id: t.arg.id({
        required: true,
        description: "PostHog's integer project id, or the project's global `id`.",
      }),
    },
    resolve: async (_root, args, ctx) =>
      ctx.services.projects.getProject(await ctx.serviceContext(), parseProjectId(args.id)),
  }),
);

builder.queryField("projects", (t) =>
  t.connection(
    {
      type: ProjectRef,
      nullable: true,
      description:
        `The projects the key can see, oldest first, ${DEFAULT_PAGE_SIZE} per page unless \`first\`/\`last\` ` +
        "say otherwise (clamped to the configured page size). Scope `project:read`.",
      extensions: requiresScopes("project:read"),
      resolve: async (_root, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.projects.listProjects(serviceContext, page),
        );
      },
    },
    {
      name: "ProjectConnection",
      description: "A page of projects.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Projects the key can see, on all pages together.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "ProjectEdge", description: "A project in a page of projects." },
  ),
);

/** One event of `configurationRevision`. */
type RevisionEvent = { projectId: number; revision: bigint };

const ConfigurationRevisionRef = builder.objectRef<RevisionEvent>("ConfigurationRevision").implement({
  description:
    "A project's configuration revision: it moves in the same transaction as every configuration write.",
  fields: (t) => ({
    projectId: t.int({
      description: "PostHog's integer id of the project.",
      resolve: (event) => event.projectId,
    }),
    revision: t.string({
      description:
        "The revision, as a decimal string; it only grows. Equal to `Project.flagDefinitionsRevision` at the same " +
        "moment, and the `id` of the flag definitions stream's event at that revision.",
      resolve: (event) => String(event.revision),
    }),
  }),
});

projectSubscriptionField("configurationRevision", {
  type: ConfigurationRevisionRef,
  description:
    "The project's configuration revision now, then each newer one as writes commit (a burst of commits may " +
    "be heard as its last). Scope `project:read`, checked when the subscription begins and whenever access changes.",
  scope: "project:read",
  open: (ctx, serviceContext, projectId, _args, signal) =>
    ctx.services.projects.revisions(serviceContext, projectId, signal),
  event: (projectId, revision): RevisionEvent => ({ projectId, revision }),
});
