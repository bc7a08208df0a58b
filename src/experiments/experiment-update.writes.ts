/**
 * How an experiment is updated (§5.4), for the experiment writes (experiments.writes.ts): the keys
 * a PATCH may carry, then PostHog's rules in their order (experiment-write-checks.ts for the checks
 * a create makes too), decided from a first read, then again under the row lock, and written with
 * the metric lists, the saved-metric links and the activity entry in one `transactional`
 * (core/transactional.ts). Its transitions go through here: a draft launched (its flag turned on
 * through the flag service), an experiment ended, archived, soft-deleted or restored; while a
 * draft, new variants or a holdout rewrite its flag through the flag service, joined into the same
 * transaction. Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer.update`);
 * posthog-behavior.md §5.4.
 *
 * Concurrency: an experiment has no `version` (PostHog's PATCH model, §5.4), so concurrent updates
 * are serialised instead: an update decides from a first read (refusals before any write), then
 * locks the experiment's row (after its flag's) and decides again from the locked state (see
 * `updateOnce`). A RowMoved of the experiment's decision, or of its flag's update joined into the
 * same transaction, rolls the whole attempt back to `applyUpdate`'s `retryWhileMoved`, which decides
 * everything again (core/row-lock.ts).
 */
import { changesBetween, recordActivity, softDeleteActivity } from "../core/activity-log.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { once } from "../core/once.js";
import { RowMoved, retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import type { Prisma } from "../generated/prisma/client.js";
import {
  checkDates,
  checkExposureCriteria,
  checkedHoldout,
  checkSavedMetricIds,
  type ExperimentWriteCollaborators,
  requestMetrics,
  withFingerprints,
} from "./experiment-write-checks.js";
import { recordExperimentVersion, snapshot } from "./experiment-write-records.js";
import {
  type ExperimentRecord,
  readExperiment,
  selectExperiment,
  selectMetricsText,
} from "./experiments.queries.js";
import { type UpdateExperimentInput, updateExperimentSchema } from "./experiments.schemas.js";
import {
  lockExperiment,
  replaceSavedMetricLinks,
  writeExperimentRow,
  writeMetricsText,
} from "./experiments.store.js";
import { withHoldoutGroups } from "./holdouts.service.js";
import { jsonTextWithNumbers, parseJsonNumbers } from "./rules/fingerprint.js";
import {
  checkParameters,
  experimentFlagFilters,
  flagVariants,
  isObject,
  type Obj,
} from "./rules/flag-variants.js";
import { orderingOnUpdate } from "./rules/metric-ordering.js";

/**
 * The answer when an update kept finding the experiment moved (a draft launched and reverted over and
 * over): a 409, worded as PostHog's flag conflict (§2.7), since PostHog's experiments have none.
 */
const moved = () =>
  new ConflictError(
    "The experiment was updated by another request since you started editing it. Please refresh and try again.",
  );

/** An experiment's metric lists as stored JSON text (`selectMetricsText`). */
type MetricsText = { metrics: string | null; metricsSecondary: string | null };

/** Keys a PATCH may carry (ExperimentSerializer.update's `expected_keys`), by request field name. */
const UPDATABLE_KEYS = new Set([
  "name",
  "description",
  "start_date",
  "end_date",
  "filters",
  "parameters",
  "archived",
  "deleted",
  "secondary_metrics",
  "holdout",
  "exposure_criteria",
  "metrics",
  "metrics_secondary",
  "stats_config",
  "conclusion",
  "conclusion_comment",
  "primary_metrics_ordered_uuids",
  "secondary_metrics_ordered_uuids",
]);

/**
 * Request fields whose serializer field reads another source, by that source: PostHog's update
 * refuses keys by `validated_data`'s names (`holdout_id` is `source="holdout"`, `feature_flag_key`
 * is `source="get_feature_flag_key"`: ee/clickhouse/views/experiments.py `ExperimentSerializer`).
 */
const SOURCE_NAMES: Readonly<Record<string, string>> = {
  holdout_id: "holdout",
  feature_flag_key: "get_feature_flag_key",
};

/** A stored metric order (`*_metrics_ordered_uuids`) as a list of uuids, null when none is stored. */
function uuidList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : null;
}

/** Creates the experiment update over the clock and the flag service it calls. */
export function createExperimentUpdateWrites(
  deps: ServiceDeps,
  { featureFlags }: ExperimentWriteCollaborators,
) {
  /** An update's request: the parsed input, the raw body (metrics as written) and its lookups, each made once. */
  type UpdateRequest = {
    input: UpdateExperimentInput;
    body: unknown;
    savedMetrics: () => ReturnType<typeof checkSavedMetricIds>;
    holdout: () => ReturnType<typeof checkedHoldout>;
  };

  /**
   * What an update writes, decided from the experiment as stored (`current`, with its metric lists
   * as JSON text, `stored`) and the request, by PostHog's rules in their order (§5.4). The lookups
   * that do not depend on the experiment (saved metrics, the holdout) are made once, through
   * `request`, so the same decision can be made again under the row lock (see `updateOnce`).
   * @throws NotFoundError (a deleted experiment), ValidationError.
   */
  async function decideUpdate(current: ExperimentRecord, stored: MetricsText, request: UpdateRequest) {
    const { input, body } = request;
    // The fields the body set (a JSON or form body alike: the parsed input holds only those).
    const given = Object.keys(input).filter((key) => Object.hasOwn(updateExperimentSchema.shape, key));
    if (current.deleted && input.deleted !== false) throw new NotFoundError();
    const extra = given
      .filter((key) => key !== "saved_metrics_ids")
      .filter((key) => !(key === "feature_flag_key" && input.feature_flag_key === current.featureFlag.key))
      // PostHog names a key by its serializer field's source: `holdout`, `get_feature_flag_key`.
      .map((key) => SOURCE_NAMES[key] ?? key)
      .filter((key) => !UPDATABLE_KEYS.has(key))
      .sort();
    if (extra.length > 0) throw new ValidationError(`Can't update keys: ${extra.join(", ")} on Experiment`);
    const savedMetrics = await request.savedMetrics();
    checkParameters(input.parameters);
    checkExposureCriteria(input.exposure_criteria);
    const startDate = input.start_date === undefined ? current.startDate : input.start_date;
    const endDate = input.end_date === undefined ? current.endDate : input.end_date;
    checkDates(startDate, endDate);
    const isDraft = current.startDate === null;
    const holdoutGiven = input.holdout_id !== undefined;
    const holdout = holdoutGiven ? await request.holdout() : current.holdout;
    if (!isDraft) {
      const params = isObject(input.parameters) ? input.parameters : {};
      if ("feature_flag_variants" in params) {
        const wanted = Array.isArray(params["feature_flag_variants"]) ? params["feature_flag_variants"] : [];
        const variants = flagVariants(current.featureFlag.filters);
        const same =
          wanted.length === variants.length &&
          wanted.every((v) => isObject(v) && variants.filter((s) => s.key === v["key"]).length === 1);
        if (!same) throw new ValidationError("Can't update feature_flag_variants on Experiment");
      }
      if (holdoutGiven && (holdout?.id ?? null) !== current.holdoutId) {
        throw new ValidationError("Can't update holdout on running Experiment");
      }
    }
    const filters = input.filters;
    if (isObject(filters) && Array.isArray(filters["properties"]) && filters["properties"].length > 0) {
      throw new ValidationError("Experiments do not support global filter properties");
    }
    // Metrics: the request's (as written) or the stored ones (PostgreSQL's text keeps `1.0`).
    const primaryRaw =
      input.metrics !== undefined
        ? requestMetrics(body, "metrics")
        : stored.metrics === null
          ? null
          : parseJsonNumbers(stored.metrics);
    const secondaryRaw =
      input.metrics_secondary !== undefined
        ? requestMetrics(body, "metrics_secondary")
        : stored.metricsSecondary === null
          ? null
          : parseJsonNumbers(stored.metricsSecondary);
    const statsConfig = input.stats_config !== undefined ? input.stats_config : current.statsConfig;
    const exposure =
      input.exposure_criteria !== undefined ? input.exposure_criteria : current.exposureCriteria;
    const primary = withFingerprints(primaryRaw, "metrics", startDate, statsConfig, exposure);
    const secondary = withFingerprints(secondaryRaw, "metrics_secondary", startDate, statsConfig, exposure);
    const storedLinks = current.savedMetricLinks.map((l) => ({
      query: l.savedMetric.query,
      metadata: l.metadata,
    }));
    const ordering = orderingOnUpdate({
      stored: {
        primary: uuidList(current.primaryMetricsOrderedUuids),
        secondary: uuidList(current.secondaryMetricsOrderedUuids),
      },
      requested: {
        primary: input.primary_metrics_ordered_uuids,
        secondary: input.secondary_metrics_ordered_uuids,
      },
      metricsBefore: {
        primary: stored.metrics === null ? null : parseJsonNumbers(stored.metrics),
        secondary: stored.metricsSecondary === null ? null : parseJsonNumbers(stored.metricsSecondary),
      },
      metricsAfter: {
        primary: input.metrics === undefined ? undefined : primary,
        secondary: input.metrics_secondary === undefined ? undefined : secondary,
      },
      savedBefore: storedLinks,
      savedAfter: savedMetrics,
    });
    return {
      savedMetrics,
      holdoutGiven,
      holdout,
      primary,
      secondary,
      ordering,
      launching: isDraft && input.start_date !== undefined && input.start_date !== null,
      // While a draft, new variants or a holdout rewrite the flag through the flag service.
      viaFlag: isDraft && (isObject(input.parameters) || holdoutGiven),
    };
  }

  /**
   * One attempt of `update`: decides from a read of the experiment (so refusals come before any
   * write), then writes in a `transactional` that first locks the experiment's row (after its
   * flag's) and decides again from the locked state. Concurrent updates of one experiment so take
   * turns, each applied to the state it replaces: a transition (launch, end, archive, delete)
   * happens once and is logged once, the others find it done (a no-op, or PostHog's 404 for a
   * deleted experiment).
   * @throws RowMoved when the locked state would take the other path (the draft was launched), or
   *   when the draft's flag moved under its update's first decision.
   */
  async function updateOnce(
    ctx: ServiceContext,
    projectId: number,
    id: number,
    body: unknown,
  ): Promise<ExperimentRecord> {
    const current = await readExperiment(ctx.db, projectId, id);
    const input: UpdateExperimentInput = parseInput(updateExperimentSchema, body, ctx.limits);
    const request: UpdateRequest = {
      input,
      body,
      savedMetrics: once(() => checkSavedMetricIds(ctx, projectId, input.saved_metrics_ids)),
      holdout: once(() => checkedHoldout(ctx, projectId, input.holdout_id)),
    };
    const first = await decideUpdate(current, await selectMetricsText(ctx.db, projectId, id), request);
    const userId = ctx.actor.user.id;
    const write = async (tx: Prisma.TransactionClient) => {
      // The flag's row, then the experiment's: the order the draft path (flag update first) takes too.
      const locked = await lockExperiment(tx, projectId, id, current.featureFlagId);
      const plan = await decideUpdate(locked, await selectMetricsText(tx, projectId, id), request);
      if (plan.viaFlag !== first.viaFlag || (plan.holdout?.id ?? null) !== (first.holdout?.id ?? null)) {
        throw new RowMoved();
      }
      await writeExperimentRow(
        tx,
        id,
        input,
        {
          holdoutId: plan.holdoutGiven ? (plan.holdout?.id ?? null) : undefined,
          ordering: plan.ordering,
        },
        deps.now(),
      );
      await writeMetricsText(
        tx,
        projectId,
        id,
        jsonTextWithNumbers(plan.primary),
        jsonTextWithNumbers(plan.secondary),
      );
      if (plan.savedMetrics !== null) await replaceSavedMetricLinks(tx, projectId, id, plan.savedMetrics);
      // The flag service joins this transaction (the flag's row is locked already).
      if (plan.launching) await featureFlags.activateAuthorized(ctx, projectId, locked.featureFlagId);
      const updated = (await selectExperiment(tx, projectId, id))!;
      const activity = softDeleteActivity(locked, updated);
      const written = await recordActivity(tx, {
        projectId,
        userId,
        scope: "Experiment",
        itemId: String(id),
        activity,
        name: updated.name,
        changes: changesBetween("Experiment", snapshot(locked), snapshot(updated)),
      });
      if (written) await recordExperimentVersion(tx, updated, activity, userId);
    };
    // While a draft, new variants or a holdout rewrite the flag through the flag service's own update
    // (its rules, version and activity), joined into this transaction before the experiment's
    // write (the flag's row locked first): both are written or neither.
    await transactional(ctx, async (tx) => {
      if (first.viaFlag) {
        const flagFilters = isObject(input.parameters)
          ? experimentFlagFilters(input.parameters, first.holdout?.filters ?? null)
          : withHoldoutGroups(current.featureFlag.filters as Obj, first.holdout?.filters ?? null);
        await featureFlags.updateFiltersAuthorized(ctx, projectId, current.featureFlagId, flagFilters);
      }
      await write(tx);
    });
    return readExperiment(ctx.db, projectId, id);
  }

  return {
    /**
     * Updates experiment `id` from `body` after the caller authorised it (see the service's `update`):
     * each attempt decides, locks, decides again and writes (`updateOnce`); concurrent updates are
     * applied one after another. @throws NotFoundError, ValidationError; ConflictError when the
     * experiment kept leaving the write path chosen for it (8 times over).
     */
    applyUpdate(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<ExperimentRecord> {
      // Only a draft launched (or a holdout swapped) between the read and the lock moves it.
      return retryWhileMoved(() => updateOnce(ctx, projectId, id, body), moved);
    },
  };
}
