/**
 * How dashboards are kept: every write of the dashboard tables (the dashboard's row, its tag links,
 * its insights and their tiles) and every read a write decides from (whether a flag's usage
 * dashboard is there and already enriched, the usage insights a key rename rewrites, the dashboard's
 * row locked for an enrichment). The service says what happens (dashboards.service.ts); this module
 * says how it is stored. Reads that answer callers are the read model's (dashboards.queries.ts).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client.
 */
import { randomInt } from "node:crypto";
import { lockRow } from "../core/row-lock.js";
import { ensureTags } from "../core/tags.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { DashboardTemplate, InsightTemplate } from "./rules/usage-dashboard.js";

const SHORT_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** PostHog's `generate_short_id`: 8 random letters and digits. */
function shortId(): string {
  let id = "";
  for (let i = 0; i < 8; i++) id += SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)];
  return id;
}

/** A usage insight as a key rename reads it. */
export interface UsageInsight {
  id: number;
  name: string | null;
  description: string;
  query: Prisma.JsonValue;
}

/**
 * Inserts a dashboard of the project with `dashboard`'s fields (its tags are linked apart,
 * `linkDashboardTags`), created by `userId` (null: by no user). Returns its id.
 */
export async function insertDashboard(
  tx: Prisma.TransactionClient,
  projectId: number,
  dashboard: Omit<DashboardTemplate, "tags">,
  userId: number | null,
): Promise<number> {
  const created = await tx.dashboard.create({
    data: {
      projectId,
      name: dashboard.name,
      description: dashboard.description,
      creationMode: dashboard.creationMode,
      filters: dashboard.filters,
      createdById: userId,
    },
    select: { id: true },
  });
  return created.id;
}

/** Links dashboard `dashboardId` to the project's tags named `names` (normalised), creating the missing tags. */
export async function linkDashboardTags(
  tx: Prisma.TransactionClient,
  projectId: number,
  dashboardId: number,
  names: readonly string[],
): Promise<void> {
  const tagIds = await ensureTags(tx, projectId, names);
  await tx.dashboardTag.createMany({
    data: tagIds.map((tagId) => ({ projectId, dashboardId, tagId })),
  });
}

/**
 * Inserts an insight (`is_sample`, a new 8-character `short_id`, created by `userId`) and its tile on
 * dashboard `dashboardId` for each of `templates`, in order: PostHog's `_create_tile_for_insight`.
 * Two statements per template.
 */
export async function insertTiles(
  tx: Prisma.TransactionClient,
  projectId: number,
  dashboardId: number,
  userId: number | null,
  templates: readonly InsightTemplate[],
): Promise<void> {
  for (const template of templates) {
    const insight = await tx.insight.create({
      data: {
        projectId,
        shortId: shortId(),
        name: template.name,
        description: template.description,
        query: template.query as unknown as Prisma.InputJsonValue,
        isSample: true,
        createdById: userId,
      },
      select: { id: true },
    });
    await tx.dashboardTile.create({
      data: {
        projectId,
        dashboardId,
        insightId: insight.id,
        layouts: template.layouts as Prisma.InputJsonValue,
        color: template.color,
      },
    });
  }
}

/**
 * The non-deleted insights named one of `names` with a non-deleted tile on dashboard `dashboardId`,
 * by id ascending (the first of each name is the one PostHog's rename rewrites).
 */
export function selectUsageInsights(
  tx: Prisma.TransactionClient,
  projectId: number,
  dashboardId: number,
  names: readonly string[],
): Promise<UsageInsight[]> {
  return tx.insight.findMany({
    where: {
      projectId,
      deleted: false,
      name: { in: [...names] },
      tiles: { some: { dashboardId, deleted: false } },
    },
    select: { id: true, name: true, description: true, query: true },
    orderBy: { id: "asc" },
  });
}

/** Writes insight `id`'s description and query (a usage insight renamed with its flag's key). */
export async function updateInsight(
  tx: Prisma.TransactionClient,
  id: number,
  insight: { description: string; query: unknown },
): Promise<void> {
  await tx.insight.update({
    where: { id },
    data: {
      description: insight.description,
      query: insight.query as Prisma.InputJsonValue,
    },
  });
}

/** Whether dashboard `id` is a non-deleted dashboard of the project. `db`: the client or a transaction's. */
export async function liveDashboardExists(
  db: Pick<Prisma.TransactionClient, "dashboard">,
  projectId: number,
  id: number,
): Promise<boolean> {
  const found = await db.dashboard.findFirst({
    where: { id, projectId, deleted: false },
    select: { id: true },
  });
  return found !== null;
}

/**
 * The names of the project's insights with a non-deleted tile on dashboard `dashboardId`, deleted
 * insights included (PostHog's enriched check reads them so). `db`: the client or a transaction's.
 */
export async function insightNamesOnDashboard(
  db: Pick<Prisma.TransactionClient, "insight">,
  projectId: number,
  dashboardId: number,
): Promise<Array<string | null>> {
  const insights = await db.insight.findMany({
    where: { projectId, tiles: { some: { dashboardId, deleted: false } } },
    select: { name: true },
  });
  return insights.map((insight) => insight.name);
}

/**
 * Locks dashboard `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`): its writers
 * take turns from here until their transactions end. @throws NotFoundError when the row is gone.
 */
export function lockDashboard(tx: Prisma.TransactionClient, id: number): Promise<void> {
  return lockRow(tx, "dashboards", id);
}
