/**
 * What an experiment write records beside its row, for the create and update paths
 * (experiments.writes.ts): the fields the activity log compares, under PostHog's names, and the
 * experiment's kept version (core/object-versions.ts). Source: `ee/clickhouse/views/experiments.py`
 * (`ExperimentSerializer`), PostHog's activity log; posthog-behavior.md §5.3–5.4.
 */
import { recordVersion } from "../core/object-versions.js";
import type { Prisma } from "../generated/prisma/client.js";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import type { ExperimentRecord } from "./experiments.queries.js";
import type { Obj } from "./rules/flag-variants.js";

/** The fields the activity log compares, under PostHog's names. */
export function snapshot(x: ExperimentRecord): Obj {
  return {
    name: x.name,
    description: x.description,
    start_date: drfDateTimeOrNull(x.startDate),
    end_date: drfDateTimeOrNull(x.endDate),
    parameters: x.parameters,
    filters: x.filters,
    archived: x.archived,
    deleted: x.deleted,
    holdout: x.holdoutId,
    secondary_metrics: x.secondaryMetrics,
    metrics: x.metrics,
    metrics_secondary: x.metricsSecondary,
    exposure_criteria: x.exposureCriteria,
    stats_config: x.statsConfig,
    conclusion: x.conclusion,
    conclusion_comment: x.conclusionComment,
    primary_metrics_ordered_uuids: x.primaryMetricsOrderedUuids,
    secondary_metrics_ordered_uuids: x.secondaryMetricsOrderedUuids,
    saved_metrics: x.savedMetricLinks.map((l) => ({ id: l.savedMetricId, metadata: l.metadata })),
  };
}

/**
 * Keeps `experiment`, as written in `tx` by `userId`, as its next version (core/object-versions.ts):
 * the activity log's snapshot, numbered by the experiment's own counter.
 */
export async function recordExperimentVersion(
  tx: Prisma.TransactionClient,
  experiment: ExperimentRecord,
  activity: string,
  userId: number | null,
): Promise<void> {
  await recordVersion(tx, {
    scope: "Experiment",
    projectId: experiment.projectId,
    itemId: String(experiment.id),
    version: "next",
    activity,
    snapshot: snapshot(experiment),
    userId,
  });
}
