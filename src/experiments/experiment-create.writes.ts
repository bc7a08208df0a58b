/**
 * How an experiment is created (§5.3), for the experiment writes (experiments.writes.ts): the
 * request checked by PostHog's rules (experiment-write-checks.ts), then, on an existing eligible
 * flag or on a new multivariate flag the flag service creates (inactive for a draft), the row, its
 * metric lists with their fingerprints, its saved-metric links, the activity entry and the kept
 * version written in one `transactional` (core/transactional.ts), which the flag's create joins.
 * Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer.create`);
 * posthog-behavior.md §5.3.
 */
import { recordActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { findLiveFlag } from "../feature-flags/feature-flags.queries.js";
import type { Prisma } from "../generated/prisma/client.js";
import {
  checkDates,
  checkExposureCriteria,
  checkedHoldout,
  checkSavedMetricIds,
  type ExperimentWriteCollaborators,
  withFingerprints,
} from "./experiment-write-checks.js";
import { recordExperimentVersion } from "./experiment-write-records.js";
import { type ExperimentRecord, readExperiment, selectExperiment } from "./experiments.queries.js";
import type { CreateExperimentInput } from "./experiments.schemas.js";
import { insertExperiment, replaceSavedMetricLinks, writeMetricsText } from "./experiments.store.js";
import { type JsonWithNumbers, jsonTextWithNumbers } from "./rules/fingerprint.js";
import {
  checkParameters,
  experimentFlagFilters,
  flagVariants,
  isEligibleFlag,
  isObject,
  type Obj,
} from "./rules/flag-variants.js";
import { orderingOnCreate } from "./rules/metric-ordering.js";

/** Creates the experiment create over the clock and the flag service it calls. */
export function createExperimentCreateWrites(
  deps: ServiceDeps,
  { featureFlags }: ExperimentWriteCollaborators,
) {
  /**
   * Creates the experiment row (and its links and activity) inside `tx` for flag `flagId`; metrics
   * are written from number-keeping JSON text with their fingerprints.
   */
  async function writeNewExperiment(
    tx: Prisma.TransactionClient,
    ctx: ServiceContext,
    projectId: number,
    flagId: number,
    input: CreateExperimentInput,
    metrics: { primary: JsonWithNumbers | undefined; secondary: JsonWithNumbers | undefined },
    savedMetrics: Array<{ id: number; metadata: unknown; query: unknown }>,
  ): Promise<number> {
    const userId = ctx.actor.user.id;
    const statsConfig = { ...(isObject(input.stats_config) ? input.stats_config : {}) };
    statsConfig["method"] ??= "bayesian";
    const startDate = input.start_date ?? null;
    const primary = withFingerprints(
      metrics.primary,
      "metrics",
      startDate,
      statsConfig,
      input.exposure_criteria,
    );
    const secondary = withFingerprints(
      metrics.secondary,
      "metrics_secondary",
      startDate,
      statsConfig,
      input.exposure_criteria,
    );
    const ordering = orderingOnCreate({
      requested: {
        primary: input.primary_metrics_ordered_uuids ?? null,
        secondary: input.secondary_metrics_ordered_uuids ?? null,
      },
      primaryMetrics: metrics.primary === undefined ? undefined : primary,
      secondaryMetrics: metrics.secondary === undefined ? undefined : secondary,
      savedLinks: savedMetrics,
    });
    const variants =
      input.type === "web"
        ? Object.fromEntries(
            (flagVariants(experimentFlagFilters(input.parameters, null)) as Obj[]).map((v) => [
              String(v["key"]),
              { rollout_percentage: v["rollout_percentage"] },
            ]),
          )
        : null;
    const id = await insertExperiment(
      tx,
      projectId,
      flagId,
      input,
      { statsConfig, variants, ordering },
      userId,
      deps.now(),
    );
    await writeMetricsText(tx, projectId, id, jsonTextWithNumbers(primary), jsonTextWithNumbers(secondary));
    await replaceSavedMetricLinks(tx, projectId, id, savedMetrics);
    await recordActivity(tx, {
      projectId,
      userId,
      scope: "Experiment",
      itemId: String(id),
      activity: "created",
      name: input.name,
      changes: null,
    });
    await recordExperimentVersion(tx, (await selectExperiment(tx, projectId, id))!, "created", userId);
    return id;
  }

  /**
   * Creates an experiment on `feature_flag_key`'s flag: an existing non-deleted flag is reused when
   * eligible, else a new multivariate flag is made through the flag service (inactive for a draft),
   * in the experiment's transaction. @throws ValidationError for any rule of §5.3 or of the flag.
   */
  async function createOn(
    ctx: ServiceContext,
    projectId: number,
    input: CreateExperimentInput,
    metrics: { primary: JsonWithNumbers | undefined; secondary: JsonWithNumbers | undefined },
  ): Promise<ExperimentRecord> {
    checkDates(input.start_date, input.end_date);
    checkParameters(input.parameters);
    checkExposureCriteria(input.exposure_criteria);
    const savedMetrics = (await checkSavedMetricIds(ctx, projectId, input.saved_metrics_ids)) ?? [];
    const holdout = await checkedHoldout(ctx, projectId, input.holdout_id);
    const existing = await findLiveFlag(ctx.reader, projectId, input.feature_flag_key);
    if (existing) {
      const variants = flagVariants(existing.filters);
      if (variants.length >= 2 && variants[0]?.key !== "control") {
        throw new ValidationError("Feature flag must have control as the first variant.", {
          attr: "feature_flag_key",
        });
      }
      if (!isEligibleFlag(existing.filters)) {
        throw new ValidationError("Feature flag is not eligible for experiments.", {
          attr: "feature_flag_key",
        });
      }
      const id = await transactional(ctx, (tx) =>
        writeNewExperiment(tx, ctx, projectId, existing.id, input, metrics, savedMetrics),
      );
      return readExperiment(ctx.db, projectId, id);
    }
    // The flag's create joins this transaction: the experiment commits with its new flag or neither does.
    const id = await transactional(ctx, async (tx) => {
      const flag = await featureFlags.createAuthorized(ctx, projectId, {
        key: input.feature_flag_key,
        name: `Feature Flag for Experiment ${input.name}`,
        filters: experimentFlagFilters(input.parameters, holdout?.filters ?? null),
        active: Boolean(input.start_date),
        creation_context: "experiments",
      });
      return writeNewExperiment(tx, ctx, projectId, flag.id, input, metrics, savedMetrics);
    });
    return readExperiment(ctx.db, projectId, id);
  }

  return { createOn };
}
