/**
 * The caller's own identity: `GET /api/users/@me/` and `GET /api/personal_api_keys/@current`
 * (posthog/api/user.py, posthog/api/personal_api_key.py), and issuing keys for the CLI.
 */

import { canReachProject } from "../core/auth/access.js";
import { generatePersonalApiKey, hashApiKey, maskApiKey, randomToken } from "../core/auth/api-keys.js";
import { requireScope, validateScopes } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import type { UserBasic } from "../core/records.js";
import { inIdOrder } from "../core/validation.js";
import type {
  Organization,
  PersonalApiKey,
  Prisma,
  PrismaClient,
  Project,
  User,
} from "../generated/prisma/client.js";
import { readPersonalApiKey, readUserWithOrganizations, selectVisibleUsers } from "./users.queries.js";
import { insertPersonalApiKey, selectMemberOrganizationIds } from "./users.store.js";

/** The user behind the key with the project and organizations it works in. */
export interface MeRecord {
  user: User;
  /** The user's current project if the key can reach it, else the first one it can; null when none. */
  team: Project | null;
  organization: Organization | null;
  organizations: Organization[];
}

/** What `keys create` asks for. */
export interface NewKeyRequest {
  userId: number;
  label: string;
  scopes: string[];
  scopedTeams?: number[];
  scopedOrganizations?: string[];
}

/** Longest key label (PostHog `max_length=40`). */
export const KEY_LABEL_MAX_LENGTH = 40;

/**
 * Issues a personal API key. Returns the raw key (shown once, never stored) and the stored row.
 * @throws ValidationError for a blank or long label, an invalid scope, or a project or organization
 *   the user is not a member of (PostHog's messages).
 */
export async function createPersonalApiKey(
  db: PrismaClient,
  request: NewKeyRequest,
): Promise<{ key: string; record: PersonalApiKey }> {
  const label = request.label.trim();
  if (!label) throw new ValidationError("This field may not be blank.", { attr: "label", code: "blank" });
  if (label.length > KEY_LABEL_MAX_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${KEY_LABEL_MAX_LENGTH} characters.`, {
      attr: "label",
      code: "max_length",
    });
  }
  const scopes = validateScopes(request.scopes);
  const orgIds = new Set(await selectMemberOrganizationIds(db, request.userId));
  const scopedTeams = [...new Set(request.scopedTeams ?? [])];
  if (scopedTeams.length) {
    const teams = await db.project.findMany({
      where: { id: { in: scopedTeams } },
      select: { organizationId: true },
    });
    if (teams.length !== scopedTeams.length || teams.some((t) => !orgIds.has(t.organizationId))) {
      throw new ValidationError("You must be a member of all teams that you are scoping the key to.", {
        attr: "scoped_teams",
      });
    }
  }
  const scopedOrganizations = [...new Set(request.scopedOrganizations ?? [])];
  if (scopedOrganizations.some((id) => !orgIds.has(id))) {
    throw new ValidationError("You must be a member of all organizations that you are scoping the key to.", {
      attr: "scoped_organizations",
    });
  }
  const key = generatePersonalApiKey();
  const record = await insertPersonalApiKey(db, {
    id: randomToken(24),
    userId: request.userId,
    label,
    secureValue: hashApiKey(key),
    maskValue: maskApiKey(key),
    scopes,
    scopedTeams,
    scopedOrganizations,
  });
  return { key, record };
}

/** Creates the users service. */
export function createUserService() {
  return {
    /** The key's user with its current project and organizations. Scope `user:read`. */
    async me(ctx: ServiceContext): Promise<MeRecord> {
      requireScope(ctx.actor.apiKey.scopes, "user:read");
      const user = await readUserWithOrganizations(ctx.db, ctx.actor.user.id);
      const organizations = user.memberships
        .map((m) => m.organization)
        .sort((a, b) => a.name.localeCompare(b.name));
      const projects = organizations.flatMap((o) => o.projects).filter((p) => canReachProject(ctx, p));
      const team = projects.find((p) => p.id === user.currentProjectId) ?? projects[0] ?? null;
      const organization =
        organizations.find((o) => o.id === team?.organizationId) ?? organizations[0] ?? null;
      const { memberships: _memberships, ...plainUser } = user;
      return {
        user: plainUser,
        team,
        organization: organization ? stripProjects(organization) : null,
        organizations: organizations.map(stripProjects),
      };
    },

    /**
     * Users by id, in order, null where the caller may not see one: a key sees its own user and the
     * members of the organizations it can reach (its user's organizations, narrowed by the key's
     * `scopedOrganizations`, and to the organizations of its `scopedTeams` when it has those).
     * One statement. Scope `user:read`.
     * @throws PermissionDeniedError without the scope.
     */
    async getMany(ctx: ServiceContext, userIds: readonly number[]): Promise<(UserBasic | null)[]> {
      requireScope(ctx.actor.apiKey.scopes, "user:read");
      const { apiKey, organizationIds, user } = ctx.actor;
      const organizations = apiKey.scopedOrganizations.length
        ? organizationIds.filter((id) => apiKey.scopedOrganizations.includes(id))
        : organizationIds;
      const sharedOrganization: Prisma.OrganizationWhereInput = {
        id: { in: organizations },
        ...(apiKey.scopedTeams.length ? { projects: { some: { id: { in: apiKey.scopedTeams } } } } : {}),
      };
      const rows = await selectVisibleUsers(ctx.db, userIds, user.id, sharedOrganization);
      return inIdOrder(userIds, rows);
    },

    /**
     * The key of this request (never its value). Any valid key may read itself: it reveals only what
     * the caller already holds.
     */
    async currentKey(ctx: ServiceContext): Promise<PersonalApiKey> {
      return readPersonalApiKey(ctx.db, ctx.actor.apiKey.id);
    },
  };
}

function stripProjects(organization: Organization & { projects?: Project[] }): Organization {
  const { projects: _projects, ...rest } = organization;
  return rest;
}

/** The users service's operations. */
export type UserService = ReturnType<typeof createUserService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createUserService`. */
    users: UserService;
  }
}
