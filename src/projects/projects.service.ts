/**
 * Projects and organizations as a key sees them: what PostHog's clients call to find their project
 * (`/api/projects/`, `/api/organizations/:id/`). A key sees the projects of its user's
 * organizations, narrowed by the key's `scoped_teams` / `scoped_organizations` (§1.4).
 * Scopes: `project:read` for projects, `organization:read` for organizations (posthog/scopes.py).
 */
import { authorizeProject, authorizeProjectStream, authorizeProjects } from "../core/auth/access.js";
import { requireScope } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { type DomainError, NotFoundError, PermissionDeniedError } from "../core/errors.js";
import { isUuid } from "../core/validation.js";
import type { Organization, Prisma, Project } from "../generated/prisma/client.js";
import {
  findOrganization,
  selectOrganizations,
  selectProjectPage,
  selectProjectRevision,
} from "./projects.queries.js";

/** An organization with its projects that the key can reach. */
export type OrganizationRecord = Organization & { projects: Project[]; membershipLevel: number | null };

/** The `where` of projects a key can reach (membership ∩ key limits). */
function reachableProjects(ctx: ServiceContext, organizationId?: string): Prisma.ProjectWhereInput {
  const { apiKey, organizationIds } = ctx.actor;
  const orgs = apiKey.scopedOrganizations.length
    ? organizationIds.filter((id) => apiKey.scopedOrganizations.includes(id))
    : organizationIds;
  return {
    organizationId:
      organizationId === undefined
        ? { in: orgs }
        : orgs.includes(organizationId)
          ? organizationId
          : { in: [] },
    ...(apiKey.scopedTeams.length ? { id: { in: apiKey.scopedTeams } } : {}),
  };
}

/**
 * Why the actor may not read organization `organizationId`, or null: `Organization not found.` for a
 * malformed id or an organization the user is not a member of; 403 when the key is limited to others.
 */
function organizationDenial(ctx: ServiceContext, organizationId: string): DomainError | null {
  if (!isUuid(organizationId) || !ctx.actor.organizationIds.includes(organizationId)) {
    return new NotFoundError("Organization not found.");
  }
  const { scopedOrganizations } = ctx.actor.apiKey;
  if (scopedOrganizations.length && !scopedOrganizations.includes(organizationId)) {
    return new PermissionDeniedError(
      `API key does not have access to the requested organization: ID ${organizationId}.`,
    );
  }
  return null;
}

/** Creates the projects service. */
export function createProjectService() {
  return {
    /**
     * The project's configuration revision now, then each newer one as writes commit, until `signal`
     * aborts (GraphQL `configurationRevision`). Every write to the project's configuration moves it
     * (migration `project_revision`); after a `reset` (changes may have been missed) the current
     * revision is read again and sent if it moved. Scope `project:read`, checked now and whenever
     * access changes: the revisions end with the refusal (core/auth/access.ts `authorizeProjectStream`).
     * @throws as `authorizeProject`.
     */
    async revisions(
      ctx: ServiceContext,
      projectId: number,
      signal: AbortSignal,
    ): Promise<AsyncIterable<bigint>> {
      // Subscribed before the revision is read, so no commit between the two is missed.
      const { project, events } = await authorizeProjectStream(ctx, projectId, "project:read", signal);
      const first = (await selectProjectRevision(ctx.reader, project.id)) ?? project.revision;
      return (async function* () {
        try {
          let sent = first;
          yield first;
          for await (const event of events) {
            let revision: bigint | null = null;
            if (event.kind === "revision") revision = event.revision;
            else if (event.kind === "reset") {
              revision = await selectProjectRevision(ctx.reader, project.id);
              if (revision === null) return;
            }
            if (revision === null || revision <= sent) continue;
            sent = revision;
            yield revision;
          }
        } finally {
          await events.return();
        }
      })();
    },

    /** Projects the key can reach, oldest first, one page. Scope `project:read`. */
    async listProjects(
      ctx: ServiceContext,
      page: { limit: number; offset: number },
      organizationId?: string,
    ): Promise<{ count: number; results: Project[] }> {
      requireScope(ctx.actor.apiKey.scopes, "project:read");
      return selectProjectPage(ctx.db, reachableProjects(ctx, organizationId), page);
    },

    /**
     * One project. Scope `project:read`.
     * @throws NotFoundError `Project not found.`; PermissionDeniedError when the key cannot reach it.
     */
    async getProject(ctx: ServiceContext, projectId: number): Promise<Project> {
      return authorizeProject(ctx, projectId, "project:read");
    },

    /**
     * Projects by id, in order: each the project, or the error `getProject` would throw for it
     * (one statement for the projects not yet read in this request). Scope `project:read`.
     */
    async getProjects(
      ctx: ServiceContext,
      projectIds: readonly number[],
    ): Promise<(Project | DomainError)[]> {
      return authorizeProjects(ctx, projectIds, "project:read");
    },

    /**
     * One organization of the user, with the projects the key can reach. Scope `organization:read`.
     * @throws NotFoundError `Organization not found.` for unknown ids and organizations the user is not in.
     */
    async getOrganization(ctx: ServiceContext, organizationId: string): Promise<OrganizationRecord> {
      requireScope(ctx.actor.apiKey.scopes, "organization:read");
      const denial = organizationDenial(ctx, organizationId);
      if (denial) throw denial;
      const organization = await findOrganization(
        ctx.db,
        organizationId,
        reachableProjects(ctx, organizationId),
        ctx.actor.user.id,
      );
      if (!organization) throw new NotFoundError("Organization not found.");
      const { memberships, ...rest } = organization;
      return { ...rest, membershipLevel: memberships[0]?.level ?? null };
    },

    /**
     * Organizations by id (their own rows, without projects), in order: each the organization, or the
     * error `getOrganization` would throw for it. One statement. Scope `organization:read`.
     * @throws PermissionDeniedError without the scope.
     */
    async getOrganizations(
      ctx: ServiceContext,
      organizationIds: readonly string[],
    ): Promise<(Organization | DomainError)[]> {
      requireScope(ctx.actor.apiKey.scopes, "organization:read");
      const denials = organizationIds.map((id) => organizationDenial(ctx, id));
      const readable = [...new Set(organizationIds.filter((_, i) => denials[i] === null))];
      const rows = readable.length ? await selectOrganizations(ctx.db, readable) : [];
      const byId = new Map(rows.map((row) => [row.id, row]));
      return organizationIds.map(
        (id, i) => denials[i] ?? byId.get(id) ?? new NotFoundError("Organization not found."),
      );
    },
  };
}

/** The projects service's operations. */
export type ProjectService = ReturnType<typeof createProjectService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createProjectService`. */
    projects: ProjectService;
  }
}
