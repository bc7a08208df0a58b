/**
 * How group types are kept: every write of `group_type_mappings` a request makes (a group type's
 * display names) and the read a write decides from (whether a row names a group type). The service
 * says what happens (groups.service.ts); this module says how it is stored. Groups themselves are
 * written by capture; reads that answer callers are the read model's (groups.queries.ts).
 *
 * Invariant: every statement filters by `project_id`; a write takes the transaction it belongs to
 * (`tx`), never the client.
 */
import type { Prisma } from "../generated/prisma/client.js";

/** What a display-name change writes over a group type; an absent (undefined) name keeps its value. */
export interface GroupTypeNames {
  /** null: cleared (SQL NULL). */
  nameSingular?: string | null;
  /** null: cleared (SQL NULL). */
  namePlural?: string | null;
}

/**
 * Writes `names` over the project's group type `groupTypeIndex` in `tx`, or, when `names` changes
 * nothing, counts it. One statement. Returns the number of group types matched (1, or 0 for none).
 */
export async function writeGroupTypeNames(
  tx: Prisma.TransactionClient,
  projectId: number,
  groupTypeIndex: number,
  names: GroupTypeNames,
): Promise<number> {
  const where = { projectId, groupTypeIndex };
  return Object.keys(names).length === 0
    ? await tx.groupTypeMapping.count({ where })
    : (await tx.groupTypeMapping.updateMany({ where, data: names })).count;
}
