/**
 * How personal API keys are kept: every write of `personal_api_keys` (a key's row, issued for a
 * user) and the read an issue decides from (the organizations the user is a member of, which the
 * key's scoping must stay within). The service says what happens (users.service.ts); this module
 * says how it is stored. Reads that answer callers are the read model's (users.queries.ts).
 *
 * Invariant: every statement filters by the user's id; a key's value is never stored, only its hash
 * and its mask.
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
