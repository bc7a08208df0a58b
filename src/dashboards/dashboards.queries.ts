/**
 * How dashboards are read: the dashboard read model, for the dashboards service's answers (a page,
 * a batch, one dashboard, its tiles with their insights) and for other domains, which ask it what
 * they may not read themselves (a flag's `analytics_dashboards` rule). Writes, and the reads a write
 * decides from, are dashboards.store.ts's.
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; soft-deleted
 * dashboards, tiles and insights are never answered.
 */
import { NotFoundError } from "../core/errors.js";
import type { OffsetPage } from "../core/paging.js";
import { USER_BASIC_SELECT, type UserBasic } from "../core/records.js";
import type { SqlReader } from "../db/sql-reader.js";
import { Prisma } from "../generated/prisma/client.js";
import type { DashboardRecord } from "./dashboard-record.js";
import { ENRICHED_EVENTS, ENRICHED_FLAG_PROPERTY } from "./rules/usage-dashboard.js";

/** A database the dashboard reads run on: the client, or a transaction's. */
type DashboardDb = Pick<Prisma.TransactionClient, "dashboard">;

/** An insight as a tile shows it, as stored (the service adds its result for the dashboard). */
export interface StoredInsight {
  id: number;
  shortId: string;
  name: string | null;
  description: string;
  /** The stored query (PostHog's `InsightVizNode` around a `TrendsQuery`). */
  query: Prisma.JsonValue;
  isSample: boolean;
  createdBy: UserBasic | null;
  createdAt: Date;
}

/** A tile of a dashboard with its insight, as stored. */
export interface StoredTile {
  id: number;
  layouts: Prisma.JsonValue;
  color: string | null;
  insight: StoredInsight;
}

const DASHBOARD_SELECT = {
  id: true,
  projectId: true,
  name: true,
  description: true,
  pinned: true,
  creationMode: true,
  filters: true,
  createdAt: true,
  deleted: true,
  createdBy: { select: USER_BASIC_SELECT },
  tags: { select: { tag: { select: { name: true } } } },
} as const;

type DashboardRow = Prisma.DashboardGetPayload<{ select: typeof DASHBOARD_SELECT }>;

function dashboardRecord(row: DashboardRow): DashboardRecord {
  const { tags, ...rest } = row;
  return { ...rest, tags: tags.map((t) => t.tag.name).sort() };
}

/** Which of `ids` are non-deleted dashboards of the project. `db`: the client or a transaction's. */
export async function existingDashboardIds(
  db: DashboardDb,
  projectId: number,
  ids: readonly number[],
): Promise<Set<number>> {
  const found = await db.dashboard.findMany({
    where: { projectId, deleted: false, id: { in: [...ids] } },
    select: { id: true },
  });
  return new Set(found.map((dashboard) => dashboard.id));
}

/** One page of the project's non-deleted dashboards, oldest first (by id), with their total. */
export async function selectDashboardPage(
  db: DashboardDb,
  projectId: number,
  page: OffsetPage,
): Promise<{ count: number; results: DashboardRecord[] }> {
  const where = { projectId, deleted: false };
  const [count, rows] = await Promise.all([
    db.dashboard.count({ where }),
    db.dashboard.findMany({
      where,
      orderBy: { id: "asc" },
      skip: page.offset,
      take: page.limit,
      select: DASHBOARD_SELECT,
    }),
  ]);
  return { count, results: rows.map(dashboardRecord) };
}

/** The project's non-deleted dashboards among `ids`, in no order. */
export async function selectDashboards(
  db: DashboardDb,
  projectId: number,
  ids: readonly number[],
): Promise<DashboardRecord[]> {
  const rows = await db.dashboard.findMany({
    where: { projectId, deleted: false, id: { in: [...ids] } },
    select: DASHBOARD_SELECT,
  });
  return rows.map(dashboardRecord);
}

/** Dashboard `id` of the project, not soft-deleted. @throws NotFoundError */
export async function readDashboard(
  db: DashboardDb,
  projectId: number,
  id: number,
): Promise<DashboardRecord> {
  const row = await db.dashboard.findFirst({
    where: { id, projectId, deleted: false },
    select: DASHBOARD_SELECT,
  });
  if (!row) throw new NotFoundError();
  return dashboardRecord(row);
}

/**
 * Dashboard `id` as written, by its id alone: one the caller has just written in, or found under,
 * its project. @throws Prisma's P2025 when there is no such row.
 */
export async function readWrittenDashboard(db: DashboardDb, id: number): Promise<DashboardRecord> {
  const row = await db.dashboard.findUniqueOrThrow({ where: { id }, select: DASHBOARD_SELECT });
  return dashboardRecord(row);
}

/** The non-deleted tiles of dashboard `dashboardId` whose insight is not deleted, in tile order (oldest first). */
export function selectTiles(
  db: Pick<Prisma.TransactionClient, "dashboardTile">,
  projectId: number,
  dashboardId: number,
): Promise<StoredTile[]> {
  return db.dashboardTile.findMany({
    where: {
      dashboardId,
      projectId,
      deleted: false,
      insight: { deleted: false },
    },
    orderBy: { id: "asc" },
    select: {
      id: true,
      layouts: true,
      color: true,
      insight: {
        select: {
          id: true,
          shortId: true,
          name: true,
          description: true,
          query: true,
          isSample: true,
          createdAt: true,
          createdBy: { select: USER_BASIC_SELECT },
        },
      },
    },
  });
}

/**
 * Whether the project has `$feature_view` or `$feature_interaction` events naming flag `flagKey` in
 * their `feature_flag` property (PostHog's test for a flag's enriched analytics). Reads the shared
 * `events` table, as the other domains' read models do.
 */
export async function hasEnrichedEvents(
  reader: SqlReader,
  projectId: number,
  flagKey: string,
): Promise<boolean> {
  const rows = await reader.rows<{ found: boolean }>(
    Prisma.sql`SELECT EXISTS (
        SELECT 1 FROM events
        WHERE project_id = ${projectId}::int
          AND event IN (${Prisma.join([...ENRICHED_EVENTS])})
          AND properties ->> ${ENRICHED_FLAG_PROPERTY} = ${flagKey}
      ) AS found`,
  );
  return rows[0]?.found === true;
}
