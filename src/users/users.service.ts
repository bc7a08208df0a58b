/**
 * The caller's own identity: `GET /api/users/@me/` and `GET /api/personal_api_keys/@current`
 * (posthog/api/user.py, posthog/api/personal_api_key.py); an organization's members,
 * `GET /api/organizations/:id/members/` (posthog/api/organization_member.py); and, for the CLI,
 * issuing, listing and revoking keys, creating users with their membership and listing an
 * organization's members.
 */

import { canReachProject } from "../core/auth/access.js";
import { generatePersonalApiKey, hashApiKey, maskApiKey, randomToken } from "../core/auth/api-keys.js";
import { requireScope, validateScopes } from "../core/auth/scopes.js";
import type { ServiceContext } from "../core/context.js";
import { NotFoundError, PermissionDeniedError, ValidationError } from "../core/errors.js";
import type { UserBasic } from "../core/records.js";
import { inIdOrder, isUuid } from "../core/validation.js";
import { isUniqueViolation } from "../db/database-error.js";
import type {
  Organization,
  PersonalApiKey,
  Prisma,
  PrismaClient,
  Project,
  User,
} from "../generated/prisma/client.js";
import {
  type MemberFilter,
  type MemberOrder,
  type MemberRecord,
  organizationExists,
  readPersonalApiKey,
  readUserWithOrganizations,
  selectMemberPage,
  selectPersonalApiKeys,
  selectVisibleUsers,
} from "./users.queries.js";
import { DEFAULT_MEMBER_ORDER, MEMBERSHIP_LEVELS, type NewUser } from "./users.schemas.js";
import {
  deletePersonalApiKey,
  insertPersonalApiKey,
  insertUserWithMembership,
  selectFirstOrganizationId,
  selectMemberOrganizationIds,
  userEmailTaken,
} from "./users.store.js";

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

/**
 * One key as `keys list` prints it: the fields of PostHog's `PersonalAPIKeySerializer`
 * (posthog/api/personal_api_key.py) but `value` and `user_id`; never the key nor its hash.
 */
export interface ListedKey {
  id: string;
  label: string;
  /** First and last four characters: `phx_...abcd`. */
  mask_value: string;
  scopes: string[];
  /** Project ids the key is limited to; empty: all. */
  scoped_teams: number[];
  /** Organization ids the key is limited to; empty: all. */
  scoped_organizations: string[];
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null for a key never used. */
  last_used_at: string | null;
}

/** User `userId`'s personal API keys, newest first (as PostHog lists them), for the CLI's `keys list`. One statement. */
export async function listPersonalApiKeys(db: PrismaClient, userId: number): Promise<ListedKey[]> {
  const keys = await selectPersonalApiKeys(db, userId);
  return keys.map((key) => ({
    id: key.id,
    label: key.label,
    mask_value: key.maskValue,
    scopes: key.scopes,
    scoped_teams: key.scopedTeams,
    scoped_organizations: key.scopedOrganizations,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  }));
}

/**
 * Deletes personal API key `id` (PostHog's `DELETE /api/personal_api_keys/:id/`), only if it is
 * `owner`'s when that is given, for the CLI's `keys revoke`. Every running server refuses the key
 * from then on: the delete is announced on the change feed (migration `change_feed_access_names`),
 * which clears each process's cached actors (core/auth/actor-cache.ts). One statement.
 * @throws NotFoundError `No personal API key with id <id>.` (`… of <owner's e-mail>.` with an
 *   owner) when there is none.
 */
export async function revokePersonalApiKey(
  db: PrismaClient,
  id: string,
  owner?: Pick<User, "id" | "email">,
): Promise<{ revoked: string }> {
  if (!(await deletePersonalApiKey(db, id, owner?.id))) {
    throw new NotFoundError(`No personal API key with id ${id}${owner ? ` of ${owner.email}` : ""}.`);
  }
  return { revoked: id };
}

/** What `users create` prints: the new user and its membership (PostHog's names). */
export interface CreatedUser {
  user_id: number;
  uuid: string;
  distinct_id: string;
  email: string;
  first_name: string;
  organization_id: string;
  /** The membership's id (a UUID). */
  membership_id: string;
  /** PostHog's `OrganizationMembership.Level`: 1 member, 8 admin. */
  level: number;
  /** When the membership was made, ISO 8601. */
  joined_at: string;
}

/** One member as `users list` prints it. */
export interface ListedMember {
  user_id: number;
  uuid: string;
  email: string;
  first_name: string;
  membership_id: string;
  level: number;
  joined_at: string;
}

/** What `users list` prints: the organization listed and its members, newest membership first. */
export interface MemberList {
  organization_id: string;
  members: ListedMember[];
}

/** PostHog's refusal of an e-mail that has an account (posthog/api/signup.py). */
const emailTaken = () =>
  new ValidationError("There is already an account with this email address.", {
    attr: "email",
    code: "unique",
  });

/**
 * The organization a CLI command names (`--organization`), or the first one (`bootstrap`'s).
 * @throws ValidationError for an id that is not a UUID or names no organization, or when there is none yet.
 */
async function organizationFor(db: Prisma.TransactionClient | PrismaClient, id?: string): Promise<string> {
  if (id === undefined) {
    const first = await selectFirstOrganizationId(db);
    if (!first) {
      throw new ValidationError("There is no organization yet. Run 'signalbox bootstrap' first.", {
        attr: "organization",
      });
    }
    return first;
  }
  if (!isUuid(id) || !(await organizationExists(db, id))) {
    throw new ValidationError(`No organization with id ${id}.`, { attr: "organization" });
  }
  return id.toLowerCase();
}

/**
 * Creates a user (fresh uuid and distinct id, as bootstrap.ts makes them) and its membership of
 * the organization at `user.level` (PostHog's levels: member 1, admin 8), in one transaction.
 * @throws ValidationError `There is already an account with this email address.` (attr `email`,
 *   code `unique`) when the e-mail has a user, nothing written; or `organizationFor`'s refusals.
 */
export async function createUser(db: PrismaClient, user: NewUser): Promise<CreatedUser> {
  const level = MEMBERSHIP_LEVELS[user.level];
  const firstName = user.firstName ?? user.email.split("@")[0] ?? "";
  const fresh = { uuid: crypto.randomUUID(), distinctId: crypto.randomUUID() };
  try {
    return await db.$transaction(async (tx) => {
      const organizationId = await organizationFor(tx, user.organizationId);
      if (await userEmailTaken(tx, user.email)) throw emailTaken();
      const created = await insertUserWithMembership(tx, {
        ...fresh,
        email: user.email,
        firstName,
        organizationId,
        level,
      });
      return {
        user_id: created.userId,
        uuid: fresh.uuid,
        distinct_id: fresh.distinctId,
        email: user.email,
        first_name: firstName,
        organization_id: organizationId,
        membership_id: created.membershipId,
        level,
        joined_at: created.joinedAt.toISOString(),
      };
    });
  } catch (error) {
    // Another writer took the e-mail between the check and the insert.
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

/**
 * Every member of the organization (`organizationId`, or the first one), newest membership first,
 * as the REST list shows them (active users, PostHog's bots left out). For the CLI: no key, no scope.
 * @throws ValidationError as `organizationFor`.
 */
export async function listOrganizationMembers(
  db: PrismaClient,
  organizationId?: string,
): Promise<MemberList> {
  const organization = await organizationFor(db, organizationId);
  const { results } = await selectMemberPage(db, organization, {}, DEFAULT_MEMBER_ORDER);
  return {
    organization_id: organization,
    members: results.map((m) => ({
      user_id: m.user.id,
      uuid: m.user.uuid,
      email: m.user.email,
      first_name: m.user.firstName,
      membership_id: m.id,
      level: m.level,
      joined_at: m.joinedAt.toISOString(),
    })),
  };
}

/** What the member list reads: a page, its order, and the `email` filter. */
export interface MemberListRequest {
  page: { limit: number; offset: number };
  order: MemberOrder;
  filter: MemberFilter;
}

/** PostHog's answer to a non-member (DRF's default `PermissionDenied`: `OrganizationMemberPermissions` has no message). */
export const NOT_AN_ORGANIZATION_MEMBER = "You do not have permission to perform this action.";

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
     * A page of organization `organizationId`'s members with their users (active users, PostHog's
     * bots left out), as PostHog's `OrganizationMemberViewSet.list` answers; checks in PostHog's
     * order (posthog/api/routing.py, posthog/permissions.py): the organization exists, the key's
     * `scoped_teams` (none allowed on organization paths) and `scoped_organizations`, the scope
     * `organization_member:read`, then membership. One statement to tell a missing organization
     * from another's when the user is not a member, then the page and its count.
     * @throws NotFoundError `Organization not found.` for a malformed or unknown id.
     * @throws PermissionDeniedError for a key limited to projects or to other organizations, a key
     *   without the scope, or a user who is not a member (`You do not have permission to perform this action.`).
     */
    async members(
      ctx: ServiceContext,
      organizationId: string,
      request: MemberListRequest,
    ): Promise<{ count: number; results: MemberRecord[] }> {
      const { apiKey, organizationIds } = ctx.actor;
      // PostHog parses the id as a UUID (routing.py `parents_query_dict`): either case names it.
      const id = isUuid(organizationId) ? organizationId.toLowerCase() : null;
      const member = id !== null && organizationIds.includes(id);
      if (id === null || (!member && !(await organizationExists(ctx.db, id)))) {
        throw new NotFoundError("Organization not found.");
      }
      if (apiKey.scopedTeams.length) {
        throw new PermissionDeniedError(
          "API keys with scoped projects are only supported on project-based endpoints.",
        );
      }
      if (apiKey.scopedOrganizations.length && !apiKey.scopedOrganizations.includes(id)) {
        throw new PermissionDeniedError(
          `API key does not have access to the requested organization: ID ${id}.`,
        );
      }
      requireScope(apiKey.scopes, "organization_member:read");
      if (!member) throw new PermissionDeniedError(NOT_AN_ORGANIZATION_MEMBER);
      return selectMemberPage(ctx.db, id, request.filter, request.order, request.page);
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
