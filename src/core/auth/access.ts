/**
 * Project access: may this actor act on this project with this scope? Every project-owned
 * operation starts here (posthog/permissions.py; posthog-behavior.md §1.1, §1.4, §1.5).
 * Order of checks: the project exists (404), the key is not limited away from it (403), the key
 * holds the scope (403), the user is a member of the project's organization (403).
 * Projects come whole (revision included, from which the REST door derives ETags), usually already read
 * with the key (core/auth/authenticate.ts); any other is read once per request.
 */
import type { ProjectAccess, ServiceContext } from "../context.js";
import { DomainError, PermissionDeniedError, ProjectNotFoundError } from "../errors.js";
import type { ProjectEventStream } from "../live-changes.js";
import { traceProject } from "../tracing.js";
import { requireScope, type Scope } from "./scopes.js";

async function loadProject(ctx: ServiceContext, projectId: number): Promise<ProjectAccess> {
  const project = await ctx.db.project.findUnique({ where: { id: projectId } });
  if (!project) throw new ProjectNotFoundError();
  ctx.projects.set(projectId, project);
  return project;
}

/** Why the actor's key may not reach `project` (it is limited to other projects or organizations), or null. */
function keyLimitDenial(ctx: ServiceContext, project: ProjectAccess): PermissionDeniedError | null {
  const { apiKey } = ctx.actor;
  if (apiKey.scopedTeams.length > 0 && !apiKey.scopedTeams.includes(project.id)) {
    return new PermissionDeniedError(
      `API key does not have access to the requested project: ID ${project.id}.`,
    );
  }
  if (apiKey.scopedOrganizations.length > 0 && !apiKey.scopedOrganizations.includes(project.organizationId)) {
    return new PermissionDeniedError(
      `API key does not have access to the requested organization: ID ${project.organizationId}.`,
    );
  }
  return null;
}

/** Whether the actor's user is a member of `project`'s organization. */
function isMember(ctx: ServiceContext, project: ProjectAccess): boolean {
  return ctx.actor.organizationIds.includes(project.organizationId);
}

/**
 * Whether the actor's key may reach `project` at all (scoped teams and organizations, membership),
 * without a scope. Used by listings that show only what the key can see.
 */
export function canReachProject(ctx: ServiceContext, project: ProjectAccess): boolean {
  return keyLimitDenial(ctx, project) === null && isMember(ctx, project);
}

/**
 * Checks the actor may use project `projectId` (parsed by the door) with `scope`, in PostHog's order:
 * the project exists, the key is not limited away from it, the key holds the scope, the user is a member.
 * Answers at once (no promise, no statement) when the request already holds the project (read with
 * the key), so that an answer given from memory (sdk/known-answers.ts) is checked by these same
 * rules; else reads the project first.
 * @throws ProjectNotFoundError `Project not found.` for an unknown id.
 * @throws PermissionDeniedError when the key is limited to other projects or organizations, lacks
 *   the scope, or the user is not a member of the project's organization.
 */
export function authorizeProject(
  ctx: ServiceContext,
  projectId: number,
  scope: Scope,
): ProjectAccess | Promise<ProjectAccess> {
  // The request's trace names the project it asks for, refused or not (a no-op without traces).
  traceProject(projectId);
  const held = ctx.projects.get(projectId);
  if (held) return authorized(ctx, held, scope);
  return loadProject(ctx, projectId).then((project) => authorized(ctx, project, scope));
}

/**
 * `project` once the checks of `authorizeProject` after the project was found pass, in PostHog's
 * order. @throws as it.
 */
function authorized(ctx: ServiceContext, project: ProjectAccess, scope: Scope): ProjectAccess {
  const denial = keyLimitDenial(ctx, project);
  if (denial) throw denial;
  requireScope(ctx.actor.apiKey.scopes, scope);
  if (!isMember(ctx, project)) throw new PermissionDeniedError("You don't have access to the project.");
  ctx.reads?.project(project.id, project.revision);
  return project;
}

/**
 * `authorizeProject` for a stream that stays open (GraphQL subscriptions, the flag definitions
 * stream): checks now and returns the project and its live events (`ctx.live.stream`, ended by
 * `signal`), then, while they are read, checks again by the same rules each time access may have
 * changed for the stream's key, user or project (./open-streams.ts), with the caller authenticated
 * afresh by its door (`ctx.renewal`). When the caller may no longer use the project (the key deleted,
 * limited away from it or without the scope; the user deactivated or no longer a member; the
 * project deleted), or the check fails, the events end with that error: the next read rejects with
 * it. A context without `renewal` is checked once, now.
 * @throws as `authorizeProject`.
 */
export async function authorizeProjectStream(
  ctx: ServiceContext,
  projectId: number,
  scope: Scope,
  signal: AbortSignal,
): Promise<{ project: ProjectAccess; events: ProjectEventStream }> {
  const project = await authorizeProject(ctx, projectId, scope);
  const { renewal } = ctx;
  if (!renewal) return { project, events: ctx.live.stream(projectId, signal) };
  // Watched first, so that a stream ended at once (`signal` already aborted) is forgotten at once; a
  // re-check ends nothing before its first await, when `events` is set.
  let events: ProjectEventStream | undefined;
  const unwatch = ctx.streams.watch({
    keyId: ctx.actor.apiKey.id,
    userId: ctx.actor.user.id,
    projectId,
    group: `${renewal.id} ${projectId} ${scope}`,
    recheck: async () => {
      await authorizeProject(await renewal.renew(), projectId, scope);
    },
    end: (error) => events?.fail(error),
  });
  events = ctx.live.stream(projectId, signal, unwatch);
  return { project, events };
}

/**
 * `authorizeProject` for several projects at once, reading the ones not yet resolved in this request
 * with one statement: per id, in order, the project or the error `authorizeProject` would throw.
 */
export async function authorizeProjects(
  ctx: ServiceContext,
  projectIds: readonly number[],
  scope: Scope,
): Promise<(ProjectAccess | DomainError)[]> {
  const unread = [...new Set(projectIds.filter((id) => !ctx.projects.has(id)))];
  if (unread.length > 0) {
    for (const project of await ctx.db.project.findMany({ where: { id: { in: unread } } })) {
      ctx.projects.set(project.id, project);
    }
  }
  return projectIds.map((id) => {
    const project = ctx.projects.get(id);
    if (!project) return new ProjectNotFoundError();
    try {
      authorized(ctx, project, scope);
      return project;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  });
}

/**
 * As `authorizeProject`, for an operation that needs several scopes (e.g. `feature_flag:read` and
 * `cohort:write`): each is checked in order and the first missing one answered.
 */
export async function authorizeProjectScopes(
  ctx: ServiceContext,
  projectId: number,
  scopes: readonly [Scope, ...Scope[]],
): Promise<ProjectAccess> {
  const [first, ...rest] = scopes;
  const project = await authorizeProject(ctx, projectId, first);
  for (const scope of rest) requireScope(ctx.actor.apiKey.scopes, scope);
  return project;
}
