/**
 * How users and personal API keys are read: the read model of the users service's answers (the
 * caller's user with its organizations and their projects, a batch of users, the caller's key).
 * One Prisma read per record or batch. Who may see whom is the service's `where`
 * (users.service.ts), given here as is; writes, and the reads a write decides from, are
 * users.store.ts's.
 *
 * Invariant: every statement is narrowed by the caller's own user or key id, or by the
 * organizations the caller may reach.
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
