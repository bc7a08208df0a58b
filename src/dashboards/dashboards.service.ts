/**
 * The dashboards service: dashboards with their insight tiles, each tile's Trends result computed
 * by the Trends engine (src/queries/trends) with the dashboard's filters, and the feature-flag usage
 * dashboards (posthog-behavior.md §2.4, §2.7, §2.10, §2.11): written with a flag, renamed with its
 * key, created again on demand, enriched with PostHog's `$feature_view`/`$feature_interaction` insights.
 * How dashboards are stored is dashboards.store.ts; how they are read, dashboards.queries.ts.
 *
 * Writes run in one transaction with their activity-log entry (scope `Dashboard`, PostHog's
 * `ModelActivityMixin` on `Dashboard` logs `created`), a `transactional` (core/transactional.ts)
 * that joins the caller's: a flag's create and key rename call `writeUsageDashboard` and
 * `renameUsageDashboardKey` inside their own. A flag is read through the flags' read model
 * (feature-flags.queries.ts) and its `usage_dashboard_id` set through the flags' store
 * (`setUsageDashboard`): this service is built before the flag service, which calls it. Reads never
 * see soft-deleted dashboards, tiles or insights.
 */

import { recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ProjectAccess, ServiceContext } from "../core/context.js";
import { DomainError, ValidationError } from "../core/errors.js";
import { checkNestingDepth } from "../core/json-input.js";
import type { OffsetPage } from "../core/paging.js";
import { transactional } from "../core/transactional.js";
import { inIdOrder } from "../core/validation.js";
import { readFlag } from "../feature-flags/feature-flags.queries.js";
import { setUsageDashboard } from "../feature-flags/feature-flags.store.js";
import type { DashboardRecord } from "./dashboard-record.js";

export type { DashboardRecord };

import type { Prisma } from "../generated/prisma/client.js";
import type { QueryService } from "../queries/query.service.js";
import type { TrendsQueryResponse } from "../queries/trends/run-trends.js";
import {
  hasEnrichedEvents,
  readDashboard,
  readWrittenDashboard,
  type StoredInsight,
  type StoredTile,
  selectDashboardPage,
  selectDashboards,
  selectTiles,
} from "./dashboards.queries.js";
import {
  insertDashboard,
  insertTiles,
  insightNamesOnDashboard,
  linkDashboardTags,
  liveDashboardExists,
  lockDashboard,
  selectUsageInsights,
  updateInsight,
} from "./dashboards.store.js";
import { dashboardDateFilters, tileTrendsQuery } from "./rules/dashboard-filters.js";
import {
  enrichedInsightTemplates,
  hasEnrichedInsights,
  renamedUsageInsight,
  TOTAL_VOLUME_INSIGHT_NAME,
  totalVolumeDescription,
  UNIQUE_USERS_INSIGHT_NAME,
  uniqueUsersDescription,
  usageDashboardTemplate,
  usageInsightTemplates,
} from "./rules/usage-dashboard.js";

/** The code of the flag-action refusals answered as PostHog's `{"success": false, "error": ...}`. */
export const USAGE_DASHBOARD_ERROR = "usage_dashboard";

/** PostHog's refusal messages of `:id/dashboard` and `:id/enrich_usage_dashboard` (§2.10). */
export const USAGE_DASHBOARD_MESSAGES = {
  unableToGenerate: "Unable to generate usage dashboard",
  notFound: "Usage dashboard not found",
  alreadyEnriched: "Usage dashboard already has enriched data",
  noEnrichedAnalytics: "No enriched analytics available for this feature flag",
  unableToEnrich: "Unable to enrich usage dashboard",
} as const;

const refusal = (message: string) => new ValidationError(message, { code: USAGE_DASHBOARD_ERROR });

/** An insight as a tile shows it, with its Trends result computed for the dashboard. */
export interface InsightRecord extends StoredInsight {
  /** The engine's answer for the query with the dashboard's filters; null when the query is not a TrendsQuery. */
  result: TrendsQueryResponse | null;
}

/** A tile of a dashboard with its insight. */
export interface TileRecord extends Omit<StoredTile, "insight"> {
  insight: InsightRecord;
}

/** A dashboard with its tiles, in tile order (oldest first). */
export interface DashboardWithTiles extends DashboardRecord {
  tiles: TileRecord[];
}

/** The flag a usage dashboard is written for: its project and key. */
export interface UsageDashboardFlag {
  projectId: number;
  key: string;
}

/**
 * Creates the dashboards service. Tiles' results come from `others.queries`, so they run with the
 * query service's statement timeout and per-project cap, as every other query does.
 */
export function createDashboardService(others: { queries: QueryService }) {
  /**
   * Writes flag `flag`'s usage dashboard (§2.11: name, description, `creation_mode` "template",
   * filters `{"date_from": "-30d"}`, tag `feature flags`, the two usage insights), created by the
   * context's user, and its activity entry, in a `transactional`: the caller's (the flag's create)
   * when one is open. Returns the dashboard's id; the caller links it to the flag. No scope check of
   * its own: for callers that authorised their operation.
   */
  function writeUsageDashboard(ctx: ServiceContext, flag: UsageDashboardFlag): Promise<number> {
    const userId = ctx.actor.user.id;
    return transactional(ctx, async (tx) => {
      const template = usageDashboardTemplate(flag.key);
      const dashboardId = await insertDashboard(tx, flag.projectId, template, userId);
      await linkDashboardTags(tx, flag.projectId, dashboardId, template.tags);
      await insertTiles(tx, flag.projectId, dashboardId, userId, usageInsightTemplates(flag.key));
      await recordActivity(tx, {
        projectId: flag.projectId,
        userId,
        scope: "Dashboard",
        itemId: String(dashboardId),
        activity: "created",
        name: template.name,
        changes: [],
      });
      return dashboardId;
    });
  }

  /**
   * Rewrites the usage insights of dashboard `dashboardId` for a key rename (§2.7,
   * `update_feature_flag_dashboard`), in a `transactional`: the caller's (the flag's update) when
   * one is open. Each of the two insights, found by name, gets the new key in its `$feature_flag`
   * filter and description, unless it was edited (see `renamedUsageInsight`). No scope check of its
   * own: for callers that authorised their operation.
   */
  function renameUsageDashboardKey(
    ctx: ServiceContext,
    projectId: number,
    dashboardId: number,
    oldKey: string,
    newKey: string,
  ): Promise<void> {
    const describe = new Map([
      [TOTAL_VOLUME_INSIGHT_NAME, totalVolumeDescription],
      [UNIQUE_USERS_INSIGHT_NAME, uniqueUsersDescription],
    ]);
    return transactional(ctx, async (tx) => {
      const insights = await selectUsageInsights(tx, projectId, dashboardId, [...describe.keys()]);
      const seen = new Set<string>();
      for (const insight of insights) {
        // PostHog takes the first insight of each name (`.filter(name=...).first()`).
        if (!insight.name || seen.has(insight.name)) continue;
        seen.add(insight.name);
        const renamed = renamedUsageInsight(insight, describe.get(insight.name)!, oldKey, newKey);
        if (!renamed) continue;
        await updateInsight(tx, insight.id, renamed);
      }
    });
  }

  /**
   * Whether flag `key` has enriched analytics: the flag says so (`has_enriched_analytics`, which
   * PostHog's analytics task sets when it sees them), or the project has `$feature_view` or
   * `$feature_interaction` events naming the flag in `feature_flag`.
   */
  async function enrichedAnalyticsAvailable(
    ctx: ServiceContext,
    projectId: number,
    flag: { key: string; hasEnrichedAnalytics: boolean },
  ): Promise<boolean> {
    if (flag.hasEnrichedAnalytics) return true;
    return hasEnrichedEvents(ctx.reader, projectId, flag.key);
  }

  /** Whether dashboard `dashboardId` already holds enriched insights (by name, as PostHog). */
  async function dashboardIsEnriched(
    db: Pick<Prisma.TransactionClient, "insight">,
    projectId: number,
    dashboardId: number,
  ): Promise<boolean> {
    return hasEnrichedInsights(await insightNamesOnDashboard(db, projectId, dashboardId));
  }

  /** The insight of a tile with its result for the dashboard's filters. */
  async function computeTiles(
    ctx: ServiceContext,
    project: ProjectAccess,
    dashboard: DashboardRecord,
  ): Promise<TileRecord[]> {
    const tiles = await selectTiles(ctx.db, project.id, dashboard.id);
    const filters = dashboardDateFilters(dashboard.filters);
    const out: TileRecord[] = [];
    for (const tile of tiles) {
      const query = tileTrendsQuery(tile.insight.query, filters);
      const result =
        query === null
          ? null
          : ((await others.queries.runAuthorized(ctx, project, query)) as unknown as TrendsQueryResponse);
      out.push({ ...tile, insight: { ...tile.insight, result } });
    }
    return out;
  }

  return {
    /**
     * The project's non-deleted dashboards, oldest first, one page (`GET dashboards/`).
     * Scope `dashboard:read`.
     */
    async list(
      ctx: ServiceContext,
      projectId: number,
      page: OffsetPage,
    ): Promise<{ count: number; results: DashboardRecord[] }> {
      const project = await authorizeProject(ctx, projectId, "dashboard:read");
      return selectDashboardPage(ctx.db, project.id, page);
    },

    /**
     * Dashboards of the project by id, in the order asked, null where none or deleted (a batch for
     * GraphQL's loaders). Scope `dashboard:read`.
     */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<(DashboardRecord | null)[]> {
      const project = await authorizeProject(ctx, projectId, "dashboard:read");
      return inIdOrder(ids, await selectDashboards(ctx.db, project.id, ids));
    },

    /**
     * One dashboard with its tiles, each insight's Trends result computed now with the dashboard's
     * date filters over the insight's `dateRange` (`GET dashboards/:id/`). Scope `dashboard:read`.
     * @throws NotFoundError for a dashboard not in the project or soft-deleted; ValidationError
     *   when a stored query is one the engine refuses.
     */
    async get(ctx: ServiceContext, projectId: number, id: number): Promise<DashboardWithTiles> {
      const project = await authorizeProject(ctx, projectId, "dashboard:read");
      const dashboard = await readDashboard(ctx.db, project.id, id);
      return { ...dashboard, tiles: await computeTiles(ctx, project, dashboard) };
    },

    /**
     * The tiles of dashboard `dashboard` (read by `getMany` or `list`) with their results: for
     * GraphQL's `Dashboard.tiles`. Scope `dashboard:read`.
     */
    async tiles(ctx: ServiceContext, dashboard: DashboardRecord): Promise<TileRecord[]> {
      const project = await authorizeProject(ctx, dashboard.projectId, "dashboard:read");
      return computeTiles(ctx, project, dashboard);
    },

    writeUsageDashboard,
    renameUsageDashboardKey,

    /**
     * `POST feature_flags/:id/dashboard` (§2.10): creates (another) usage dashboard for the flag,
     * links it as the flag's `usage_dashboard`, and adds the enriched insights when the flag has
     * enriched analytics. Scope `dashboard:write` (decision 2). `body` (REST's, not read) is only
     * checked for depth. Returns the new dashboard.
     * @throws ValidationError `max_depth` for too deep a body; NotFoundError for no such flag;
     *   ValidationError `usage_dashboard` "Unable to generate usage dashboard" when the write fails
     *   (PostHog's answer to any failure there).
     */
    async createFlagUsageDashboard(
      ctx: ServiceContext,
      projectId: number,
      flagId: number,
      body?: unknown,
    ): Promise<DashboardRecord> {
      const project = await authorizeProject(ctx, projectId, "dashboard:write");
      // REST's body is not read, but too deep a one is refused, as for the flag's other actions.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      // Soft-deleted flags included, as PostHog's `get_object` (the flags' read model).
      const flag = await readFlag(ctx.reader, project.id, { id: flagId });
      const enrich = await enrichedAnalyticsAvailable(ctx, project.id, flag);
      const userId = ctx.actor.user.id;
      try {
        const id = await transactional(ctx, async (tx) => {
          const dashboardId = await writeUsageDashboard(ctx, { projectId: project.id, key: flag.key });
          if (enrich) {
            await insertTiles(tx, project.id, dashboardId, userId, enrichedInsightTemplates(flag.key));
          }
          // Through the flags' store, joining this transaction (see the module comment).
          await setUsageDashboard(ctx, flag.id, dashboardId);
          return dashboardId;
        });
        return await readWrittenDashboard(ctx.db, id);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw refusal(USAGE_DASHBOARD_MESSAGES.unableToGenerate);
      }
    },

    /**
     * `POST feature_flags/:id/enrich_usage_dashboard` (§2.10): adds PostHog's two enriched insights
     * to the flag's usage dashboard. Scope `dashboard:write` (decision 2). `body` (REST's, not read)
     * is only checked for depth. Returns the dashboard.
     * @throws ValidationError `max_depth` for too deep a body; NotFoundError for no such flag;
     *   ValidationError `usage_dashboard` with PostHog's message, in its order: no usage dashboard, already enriched, no enriched analytics (neither
     *   `has_enriched_analytics` nor any `$feature_view`/`$feature_interaction` event for the flag).
     */
    async enrichFlagUsageDashboard(
      ctx: ServiceContext,
      projectId: number,
      flagId: number,
      body?: unknown,
    ): Promise<DashboardRecord> {
      const project = await authorizeProject(ctx, projectId, "dashboard:write");
      // REST's body is not read, but too deep a one is refused, as for the flag's other actions.
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const flag = await readFlag(ctx.reader, project.id, { id: flagId });
      const dashboardId = flag.usageDashboardId;
      if (dashboardId === null || !(await liveDashboardExists(ctx.db, project.id, dashboardId))) {
        throw refusal(USAGE_DASHBOARD_MESSAGES.notFound);
      }
      if (await dashboardIsEnriched(ctx.db, project.id, dashboardId)) {
        throw refusal(USAGE_DASHBOARD_MESSAGES.alreadyEnriched);
      }
      if (!(await enrichedAnalyticsAvailable(ctx, project.id, flag))) {
        throw refusal(USAGE_DASHBOARD_MESSAGES.noEnrichedAnalytics);
      }
      const userId = ctx.actor.user.id;
      try {
        await transactional(ctx, async (tx) => {
          // Checked again inside the write: two concurrent calls add the insights once.
          await lockDashboard(tx, dashboardId);
          if (await dashboardIsEnriched(tx, project.id, dashboardId)) {
            throw refusal(USAGE_DASHBOARD_MESSAGES.alreadyEnriched);
          }
          await insertTiles(tx, project.id, dashboardId, userId, enrichedInsightTemplates(flag.key));
        });
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw refusal(USAGE_DASHBOARD_MESSAGES.unableToEnrich);
      }
      return readWrittenDashboard(ctx.db, dashboardId);
    },
  };
}

/** The dashboards service's operations. */
export type DashboardService = ReturnType<typeof createDashboardService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createDashboardService`. */
    dashboards: DashboardService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Dashboards' entries (PostHog's `ModelActivityMixin` on `Dashboard`). */
    Dashboard: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Dashboards (`id` integer). */
    dashboards: number;
  }
}
