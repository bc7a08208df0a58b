/**
 * Experiment saved metrics (`/api/projects/:project_id/experiment_saved_metrics/`,
 * ee/clickhouse/views/experiment_saved_metrics.py): a named metric query that experiments share
 * through `saved_metrics_ids`. Scopes `experiment_saved_metric:read|write`; activity scope
 * `ExperimentSavedMetric`. Part of the experiment service (experiments.service.ts), whose doors call
 * these as `listSavedMetrics`, `createSavedMetric`, ...
 */
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import type { ServiceDeps } from "../core/services.js";
import { parseInput } from "../core/validation.js";
import type { SavedMetricRecord } from "./experiments.queries.js";
import { savedMetricSchema, savedMetricUpdateSchema } from "./experiments.schemas.js";
import { projectObjectOperations } from "./project-objects.js";
import { insertSavedMetric, savedMetricTable, writeSavedMetricRow } from "./saved-metrics.store.js";

/** A saved metric's `query` kind (ExperimentSavedMetricSerializer.validate_query). @throws ValidationError attr `query`. */
function checkSavedMetricQuery(query: Record<string, unknown>): void {
  const kind = query["kind"];
  if (kind !== "ExperimentMetric" && kind !== "ExperimentTrendsQuery" && kind !== "ExperimentFunnelsQuery") {
    throw new ValidationError(
      "Metric query kind must be 'ExperimentMetric', 'ExperimentTrendsQuery' or 'ExperimentFunnelsQuery'",
      { attr: "query" },
    );
  }
}

/** Creates the saved-metric operations of the experiment service. */
export function createSavedMetricOperations(deps: ServiceDeps) {
  const objects = projectObjectOperations<SavedMetricRecord>({
    scope: "experiment_saved_metric",
    activityScope: "ExperimentSavedMetric",
    sqlTable: "experiment_saved_metrics",
    table: savedMetricTable,
  });

  return {
    /** The project's saved metrics, newest first (`{count, results}`). Scope `experiment_saved_metric:read`. */
    listSavedMetrics: objects.list,

    /** One saved metric. Scope `experiment_saved_metric:read`. @throws NotFoundError */
    getSavedMetric: objects.get,

    /** Deletes a saved metric and its links (204). Scope `experiment_saved_metric:write`. @throws NotFoundError */
    deleteSavedMetric: objects.remove,

    /**
     * Creates a saved metric: `query.kind` must be `ExperimentMetric` (or a legacy
     * `ExperimentTrendsQuery`/`ExperimentFunnelsQuery`). Scope `experiment_saved_metric:write`.
     * @throws ValidationError attr `query`.
     */
    async createSavedMetric(
      ctx: ServiceContext,
      projectId: number,
      body: unknown,
    ): Promise<SavedMetricRecord> {
      const project = await authorizeProject(ctx, projectId, "experiment_saved_metric:write");
      const input = parseInput(savedMetricSchema, body, ctx.limits);
      checkSavedMetricQuery(input.query);
      const userId = ctx.actor.user.id;
      return ctx.db.$transaction(async (tx) => {
        const created = await insertSavedMetric(
          tx,
          project.id,
          { name: input.name, description: input.description ?? null, query: input.query },
          userId,
        );
        await recordActivity(tx, {
          projectId: project.id,
          userId,
          scope: "ExperimentSavedMetric",
          itemId: String(created.id),
          activity: "created",
          name: input.name,
          changes: null,
        });
        return created;
      });
    },

    /**
     * Updates a saved metric (PATCH/PUT), under its row lock (concurrent updates take turns).
     * Scope `experiment_saved_metric:write`. @throws NotFoundError, ValidationError
     */
    async updateSavedMetric(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
      partial: boolean,
    ) {
      await authorizeProject(ctx, projectId, "experiment_saved_metric:write");
      await objects.find(ctx, projectId, id);
      const input = parseInput(partial ? savedMetricUpdateSchema : savedMetricSchema, body, ctx.limits);
      if (input.query !== undefined) checkSavedMetricQuery(input.query);
      return ctx.db.$transaction(async (tx) => {
        // Concurrent updates take turns: each one's activity entry starts where the one before ended.
        const current = await objects.lock(tx, projectId, id);
        const updated = await writeSavedMetricRow(
          tx,
          id,
          { name: input.name, description: input.description, query: input.query },
          deps.now(),
        );
        await recordActivity(tx, {
          projectId,
          userId: ctx.actor.user.id,
          scope: "ExperimentSavedMetric",
          itemId: String(id),
          activity: "updated",
          name: updated.name,
          changes: changesBetween(
            "ExperimentSavedMetric",
            { name: current.name, description: current.description, query: current.query },
            { name: updated.name, description: updated.description, query: updated.query },
          ),
        });
        return updated;
      });
    },
  };
}
