/**
 * Counting the rows a property filter selects beside all the rows it could select, in one
 * statement (`count(*) FILTER (WHERE ...)`): what estimates such as a flag condition's blast radius
 * need (persons' and groups' `countMatching`).
 */
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";

/** How many rows matched, out of how many. */
export interface MatchCounts {
  matching: number;
  total: number;
}

/**
 * Counts the rows of `rows` (a `FROM ... WHERE` clause that keeps one tenant's rows) and those of
 * them for which `criteria` (a boolean expression over the same aliases, e.g. from `toSql`) holds;
 * null criteria match every row.
 */
export async function countMatches(
  db: Pick<PrismaClient, "$queryRaw">,
  rows: Prisma.Sql,
  criteria: Prisma.Sql | null,
): Promise<MatchCounts> {
  const [counts] = await db.$queryRaw<MatchCounts[]>`SELECT
    count(*) FILTER (WHERE ${criteria ?? Prisma.sql`TRUE`})::int AS matching, count(*)::int AS total ${rows}`;
  return counts ?? { matching: 0, total: 0 };
}
