/**
 * How users and personal API keys are read: the read model of the users service's answers (the
 * caller's user with its organizations and their projects, a batch of users, the caller's key, a
 * user's keys for the CLI's `keys list`).
 * One Prisma read per record or batch, and an organization's members (posthog/api/organization_member.py)
 * a page at a time. Who may see whom is the service's `where`
 * (users.service.ts), given here as is; writes, and the reads a write decides from, are
 * users.store.ts's.
 *
 * Invariant: every statement is narrowed by the caller's own user or key id, or by the
 * organizations the caller may reach (the service decides that before a member page is read).
 */
import { USER_BASIC_SELECT, type UserBasic } from "../core/records.js";
import type { PersonalApiKey, Prisma } from "../generated/prisma/client.js";
import type { Db } from "./users.store.js";

/** What the caller's user is read with: its memberships, each organization with its projects (by id). */
const WITH_ORGANIZATIONS = {
  memberships: { include: { organization: { include: { projects: { orderBy: { id: "asc" } } } } } },
} as const satisfies Prisma.UserInclude;

/** A user with its memberships, each organization with all its projects, by id ascending. */
export type UserWithOrganizations = Prisma.UserGetPayload<{ include: typeof WITH_ORGANIZATIONS }>;

/**
 * User `id` with its memberships, each organization with all its projects (by id ascending).
 * One statement. @throws Prisma's P2025 when there is no such user.
 */
export function readUserWithOrganizations(db: Db, id: number): Promise<UserWithOrganizations> {
  return db.user.findUniqueOrThrow({ where: { id }, include: WITH_ORGANIZATIONS });
}

/**
 * The users among `ids` (duplicates read once) that are user `selfId` or a member of an
 * organization matching `sharedOrganization`, as basic records, in no particular order. One statement.
 */
export function selectVisibleUsers(
  db: Db,
  ids: readonly number[],
  selfId: number,
  sharedOrganization: Prisma.OrganizationWhereInput,
): Promise<UserBasic[]> {
  return db.user.findMany({
    where: {
      id: { in: [...new Set(ids)] },
      OR: [{ id: selfId }, { memberships: { some: { organization: sharedOrganization } } }],
    },
    select: USER_BASIC_SELECT,
  });
}

/** Personal API key `id`'s row (its hash and mask, never its value). @throws Prisma's P2025 when there is none. */
export function readPersonalApiKey(db: Db, id: string): Promise<PersonalApiKey> {
  return db.personalApiKey.findUniqueOrThrow({ where: { id } });
}

/** What a key listing reads of a key: every column but `secure_value` (its hash). */
const LISTED_KEY_SELECT = {
  id: true,
  label: true,
  maskValue: true,
  scopes: true,
  scopedTeams: true,
  scopedOrganizations: true,
  createdAt: true,
  lastUsedAt: true,
} as const satisfies Prisma.PersonalApiKeySelect;

/** A personal API key as a listing reads it (see `LISTED_KEY_SELECT`). */
export type ListedKeyRecord = Prisma.PersonalApiKeyGetPayload<{ select: typeof LISTED_KEY_SELECT }>;

/** User `userId`'s personal API keys without their hashes, newest first (PostHog's `-created_at`), then by id. One statement. */
export function selectPersonalApiKeys(db: Db, userId: number): Promise<ListedKeyRecord[]> {
  return db.personalApiKey.findMany({
    where: { userId },
    select: LISTED_KEY_SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
}

/** PostHog's internal bot users (`INTERNAL_BOT_EMAIL_SUFFIX`, posthog/constants.py), never listed as members. */
const INTERNAL_BOT_EMAIL_SUFFIX = "@posthogbot.user";

/** One membership of an organization with its user: what a member list shows. */
export interface MemberRecord {
  /** The membership's id (a UUID): PostHog's `OrganizationMembership.id`. */
  id: string;
  /** PostHog's `OrganizationMembership.Level`: 1 member, 8 admin, 15 owner. */
  level: number;
  /** When the membership was made (PostHog's `joined_at`). */
  joinedAt: Date;
  user: UserBasic;
}

/**
 * How a member list is ordered: a field and its direction, as PostHog's `?order=` names them
 * (`-joined_at` by default). Ties go to the membership id, so pages never overlap.
 */
export type MemberOrder = { field: "joined_at" | "level" | "first_name" | "email"; descending: boolean };

/** Which members a list shows besides the organization's active, non-bot users: `email`, exactly. */
export interface MemberFilter {
  email?: string;
}

function memberWhere(organizationId: string, filter: MemberFilter): Prisma.OrganizationMembershipWhereInput {
  return {
    organizationId,
    user: {
      isActive: true,
      NOT: { email: { endsWith: INTERNAL_BOT_EMAIL_SUFFIX } },
      ...(filter.email !== undefined ? { email: filter.email } : {}),
    },
  };
}

function memberOrderBy(order: MemberOrder): Prisma.OrganizationMembershipOrderByWithRelationInput[] {
  const direction = order.descending ? "desc" : "asc";
  const first: Prisma.OrganizationMembershipOrderByWithRelationInput =
    order.field === "joined_at"
      ? { createdAt: direction }
      : order.field === "level"
        ? { level: direction }
        : order.field === "first_name"
          ? { user: { firstName: direction } }
          : { user: { email: direction } };
  return [first, { id: "asc" }];
}

/**
 * A page of organization `organizationId`'s members (active users, PostHog's bots left out,
 * narrowed by `filter`) in `order`, each with its user, and how many there are over all pages.
 * `page` absent: every member. Two statements (the page and the count), run together.
 */
export async function selectMemberPage(
  db: Db,
  organizationId: string,
  filter: MemberFilter,
  order: MemberOrder,
  page?: { limit: number; offset: number },
): Promise<{ count: number; results: MemberRecord[] }> {
  const where = memberWhere(organizationId, filter);
  const [count, rows] = await Promise.all([
    db.organizationMembership.count({ where }),
    db.organizationMembership.findMany({
      where,
      orderBy: memberOrderBy(order),
      ...(page ? { skip: page.offset, take: page.limit } : {}),
      select: { id: true, level: true, createdAt: true, user: { select: USER_BASIC_SELECT } },
    }),
  ]);
  return {
    count,
    results: rows.map((row) => ({ id: row.id, level: row.level, joinedAt: row.createdAt, user: row.user })),
  };
}

/** Whether organization `id` (a UUID) exists. One statement. */
export async function organizationExists(db: Db, id: string): Promise<boolean> {
  return (await db.organization.count({ where: { id } })) > 0;
}
