/**
 * How users, their memberships and their personal API keys are kept: every write of
 * `personal_api_keys` (a key's row, issued for a user or deleted) and of a new user with its membership (the
 * CLI's `users create`), and the reads those writes decide from (the organizations the user is a
 * member of, which a key's scoping must stay within; whether an e-mail is taken; the first
 * organization). The service says what happens (users.service.ts); this module says how it is
 * stored. Reads that answer callers are the read model's (users.queries.ts).
 *
 * Invariant: a key's statements filter by the user's id, but for the administrator's deletion by
 * key id (the CLI's `keys revoke` without `--email`); a key's value is never stored, only its
 * hash and its mask; a user is inserted together with its membership, never alone.
 */
import type { PersonalApiKey, Prisma, PrismaClient } from "../generated/prisma/client.js";

/** A database client or an interactive transaction's client. */
export type Db = Prisma.TransactionClient | PrismaClient;

/** A new personal API key's row, as decided (label trimmed, scopes validated, scoping deduplicated). */
export interface NewPersonalApiKey {
  /** Random token (24 bytes). */
  id: string;
  userId: number;
  label: string;
  /** The key's hash (core/auth/api-keys.ts `hashApiKey`), never the key. */
  secureValue: string;
  /** What the key shows of itself (`maskApiKey`). */
  maskValue: string;
  scopes: string[];
  scopedTeams: number[];
  scopedOrganizations: string[];
}

/** The ids of the organizations user `userId` is a member of, in no particular order. One statement. */
export async function selectMemberOrganizationIds(db: Db, userId: number): Promise<string[]> {
  const memberships = await db.organizationMembership.findMany({
    where: { userId },
    select: { organizationId: true },
  });
  return memberships.map((m) => m.organizationId);
}

/** Inserts `key`'s row. Returns it as written. One statement. */
export function insertPersonalApiKey(db: Db, key: NewPersonalApiKey): Promise<PersonalApiKey> {
  return db.personalApiKey.create({
    data: {
      id: key.id,
      userId: key.userId,
      label: key.label,
      secureValue: key.secureValue,
      maskValue: key.maskValue,
      scopes: key.scopes,
      scopedTeams: key.scopedTeams,
      scopedOrganizations: key.scopedOrganizations,
    },
  });
}

/**
 * Deletes personal API key `id`, only if it is user `userId`'s when that is given. Returns whether
 * a row was deleted. One statement (its delete trigger announces the key on the change feed).
 */
export async function deletePersonalApiKey(db: Db, id: string, userId?: number): Promise<boolean> {
  const { count } = await db.personalApiKey.deleteMany({ where: { id, userId } });
  return count > 0;
}

/** A new user and its one membership, as `createUser` decided them (users.service.ts). */
export interface NewMember {
  /** The user's UUID (`users.uuid`), fresh. */
  uuid: string;
  /** The user's distinct id, fresh (a UUID, as bootstrap.ts makes them). */
  distinctId: string;
  email: string;
  firstName: string;
  organizationId: string;
  /** PostHog's `OrganizationMembership.Level`: 1 member, 8 admin, 15 owner. */
  level: number;
}

/** Whether a user with e-mail `email` exists (exact match, as the unique index compares). One statement. */
export async function userEmailTaken(db: Db, email: string): Promise<boolean> {
  return (await db.user.count({ where: { email } })) > 0;
}

/** The id of the first organization created (the one `signalbox bootstrap` made), or null when none. One statement. */
export async function selectFirstOrganizationId(db: Db): Promise<string | null> {
  const first = await db.organization.findFirst({
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  return first?.id ?? null;
}

/**
 * Inserts `member`'s user and its membership of `member.organizationId` at `member.level`, both
 * or neither (one nested create). Returns the user's id and the membership's id and join time.
 * @throws Prisma's P2002 when the e-mail (or uuid, distinct id) is taken meanwhile.
 */
export async function insertUserWithMembership(
  db: Db,
  member: NewMember,
): Promise<{ userId: number; membershipId: string; joinedAt: Date }> {
  const user = await db.user.create({
    data: {
      uuid: member.uuid,
      distinctId: member.distinctId,
      email: member.email,
      firstName: member.firstName,
      memberships: { create: { organizationId: member.organizationId, level: member.level } },
    },
    select: { id: true, memberships: { select: { id: true, createdAt: true } } },
  });
  const membership = user.memberships[0]!;
  return { userId: user.id, membershipId: membership.id, joinedAt: membership.createdAt };
}
