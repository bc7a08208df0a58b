/**
 * How an experiment is created and updated, for the experiment service: PostHog's rules in their
 * order (§5.3, §5.4), decided from a first read, then again under the row lock, and written with
 * the metric lists (their fingerprints), the saved-metric links and the activity entry in one
 * `transactional` (core/transactional.ts); a new experiment's flag is created, a draft's flag
 * rewritten, a launched one's flag turned on through the flag service, whose writes join that same
 * transaction (no transaction client crosses to the flag service). How it is stored is
 * experiments.store.ts. Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer`:
 * `create`, `update`, `validate_*`); posthog-behavior.md §5.3–5.4.
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
import { jsonSourceText } from "../core/json-input.js";
import { recordVersion } from "../core/object-versions.js";
import { once } from "../core/once.js";
import { RowMoved, retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { transactional } from "../core/transactional.js";
import { parseInput } from "../core/validation.js";
import { findLiveFlag } from "../feature-flags/feature-flags.queries.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import type { Prisma } from "../generated/prisma/client.js";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import {
  type ExperimentRecord,
  readExperiment,
  selectExperiment,
  selectMetricsText,
} from "./experiments.queries.js";
import {
  type CreateExperimentInput,
  type UpdateExperimentInput,
  updateExperimentSchema,
} from "./experiments.schemas.js";
import {
  findHoldout,
  insertExperiment,
  lockExperiment,
  replaceSavedMetricLinks,
  selectSavedMetricQueries,
  writeExperimentRow,
  writeMetricsText,
} from "./experiments.store.js";
import { withHoldoutGroups } from "./holdouts.service.js";
import {
  computeMetricFingerprint,
  type JsonWithNumbers,
  jsonTextWithNumbers,
  parseJsonNumbers,
} from "./rules/fingerprint.js";
import {
  checkParameters,
  experimentFlagFilters,
  flagVariants,
  isEligibleFlag,
  isObject,
  type Obj,
} from "./rules/flag-variants.js";
import { orderingOnCreate, orderingOnUpdate } from "./rules/metric-ordering.js";

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

/** The fields the activity log compares, under PostHog's names. */
function snapshot(x: ExperimentRecord): Obj {
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
async function recordExperimentVersion(
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

/** A stored metric order (`*_metrics_ordered_uuids`) as a list of uuids, null when none is stored. */
function uuidList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : null;
}

/**
 * The metric lists of a request as number-keeping JSON (see rules/fingerprint.ts): from the body's
 * own text when it came as JSON, else from the parsed values.
 */
export function requestMetrics(
  body: unknown,
  field: "metrics" | "metrics_secondary",
): JsonWithNumbers | undefined {
  const text = jsonSourceText(body);
  if (text !== undefined) {
    const parsed = parseJsonNumbers(text);
    if (isObject(parsed)) return parsed[field] as JsonWithNumbers | undefined;
  }
  return isObject(body) ? (body[field] as JsonWithNumbers | undefined) : undefined;
}

/**
 * Sets each metric's `fingerprint` (§5.3, `experiment_metric_fingerprint.py`) from the experiment's
 * start date, stats config and exposure criteria. A list that is not a list is refused.
 * @throws ValidationError attr `metrics`/`metrics_secondary` for a non-list or a non-object metric.
 */
function withFingerprints(
  metrics: JsonWithNumbers | undefined | null,
  attr: string,
  startDate: Date | null,
  statsConfig: unknown,
  exposureCriteria: unknown,
): JsonWithNumbers[] {
  if (metrics === undefined || metrics === null) return [];
  if (!Array.isArray(metrics)) throw new ValidationError("Metrics must be a list", { attr });
  return metrics.map((metric) => {
    if (!isObject(metric)) throw new ValidationError("Metrics must be objects", { attr });
    const fingerprint = computeMetricFingerprint(metric, startDate, statsConfig, exposureCriteria);
    return { ...(metric as { [key: string]: JsonWithNumbers }), fingerprint };
  });
}

/** The other domains' services an experiment write calls. */
export interface ExperimentWriteCollaborators {
  /** Creates a new experiment's flag, rewrites a draft's flag filters, turns a launched one's flag on. */
  featureFlags: Pick<
    FeatureFlagService,
    "createAuthorized" | "updateFiltersAuthorized" | "activateAuthorized"
  >;
}

/** Creates the experiment writes over the clock and the collaborators they call. */
export function createExperimentWrites(deps: ServiceDeps, { featureFlags }: ExperimentWriteCollaborators) {
  /**
   * `saved_metrics_ids` (validate_saved_metrics_ids): a list of `{id, metadata?: {type}}` naming saved
   * metrics of the project; each returned with its saved metric's `query` (for the metric order).
   * @throws ValidationError attr `saved_metrics_ids`.
   */
  async function checkSavedMetricIds(
    ctx: ServiceContext,
    projectId: number,
    value: unknown[] | null | undefined,
  ): Promise<Array<{ id: number; metadata: unknown; query: unknown }> | null> {
    if (value === null || value === undefined) return null;
    const attr = "saved_metrics_ids";
    const items: Array<{ id: number; metadata: unknown }> = [];
    for (const item of value) {
      if (!isObject(item)) throw new ValidationError("Saved metric must be an object", { attr });
      if (!("id" in item)) throw new ValidationError("Saved metric must have an id", { attr });
      if ("metadata" in item && !isObject(item["metadata"])) {
        throw new ValidationError("Metadata must be an object", { attr });
      }
      if ("metadata" in item && !("type" in (item["metadata"] as Obj))) {
        throw new ValidationError("Metadata must have a type key", { attr });
      }
      const id = item["id"];
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) {
        throw new ValidationError("Saved metric does not exist or does not belong to this project", { attr });
      }
      items.push({ id, metadata: item["metadata"] ?? null });
    }
    const ids = [...new Set(items.map((i) => i.id))];
    const found = await selectSavedMetricQueries(ctx.db, projectId, ids);
    if (found.length !== ids.length) {
      throw new ValidationError("Saved metric does not exist or does not belong to this project", { attr });
    }
    const queries = new Map(found.map((m) => [m.id, m.query]));
    return items.map((item) => ({ ...item, query: queries.get(item.id) }));
  }

  /** The holdout `id` of the project, or null. @throws ValidationError attr `holdout_id` (DRF's does_not_exist). */
  async function checkedHoldout(ctx: ServiceContext, projectId: number, id: number | null | undefined) {
    if (id === null || id === undefined) return null;
    const holdout = await findHoldout(ctx.db, projectId, id);
    if (!holdout) {
      throw new ValidationError(`Invalid pk "${id}" - object does not exist.`, {
        attr: "holdout_id",
        code: "does_not_exist",
      });
    }
    return holdout;
  }

  /** `exposure_criteria` (§5.3): `filterTestAccounts` boolean, `exposure_config` an event config or ActionsNode. */
  function checkExposureCriteria(value: unknown): void {
    if (value === null || value === undefined) return;
    const attr = "exposure_criteria";
    if (!isObject(value)) throw new ValidationError("Invalid exposure criteria", { attr });
    if ("filterTestAccounts" in value && typeof value["filterTestAccounts"] !== "boolean") {
      throw new ValidationError("filterTestAccounts must be a boolean", { attr });
    }
    const config = value["exposure_config"];
    if (config !== undefined && config !== null) {
      const ok =
        isObject(config) &&
        ((config["kind"] === "ExperimentEventExposureConfig" && typeof config["event"] === "string") ||
          (config["kind"] === "ActionsNode" && typeof config["id"] === "number"));
      if (!ok) throw new ValidationError("Invalid exposure criteria", { attr });
    }
  }

  /** Dates: end after start when both are set (§5.3). */
  function checkDates(start: Date | null | undefined, end: Date | null | undefined): void {
    if (start && end && start.getTime() >= end.getTime()) {
      throw new ValidationError("End date must be after start date");
    }
  }

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

  return {
    createOn,

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
