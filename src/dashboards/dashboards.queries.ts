/**
 * Dashboards' read model for other domains: what they may ask of the dashboard tables without
 * reading them themselves (a flag's `analytics_dashboards` rule).
 *
 * Invariant: every statement filters by `project_id`.
 */
import type { Prisma } from "../generated/prisma/client.js";

/** Which of `ids` are non-deleted dashboards of the project. `db`: the client or a transaction's. */
export async function existingDashboardIds(
  db: Pick<Prisma.TransactionClient, "dashboard">,
  projectId: number,
  ids: readonly number[],
): Promise<Set<number>> {
  const found = await db.dashboard.findMany({
    where: { projectId, deleted: false, id: { in: [...ids] } },
    select: { id: true },
  });
  return new Set(found.map((dashboard) => dashboard.id));
}
