/**
 * The experiment service (issue 11 part B): experiments, and (from holdouts.service.ts and
 * saved-metrics.service.ts) holdouts and saved metrics, for both front doors. It checks scopes and project access, validates by PostHog's rules, writes the change and its
 * activity entry in one transaction, and returns records. Experiments run on multivariate flags,
 * created or changed through the flag service so every flag rule applies.
 * Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer`, `EnterpriseExperimentsViewSet`),
 * `experiment_holdouts.py`, `experiment_saved_metrics.py`, `products/experiments/backend/models/experiment.py`;
 * posthog-behavior.md §5, query-and-experiments.md 2a and 2d.
 *
 * Concurrency: an experiment has no `version` (PostHog's PATCH model, §5.4), so concurrent updates
 * are serialised instead: an update decides from a first read (refusals before any write), then
 * locks the experiment's row (after its flag's, the order a draft's flag rewrite takes too) and
 * decides again from the locked state. A transition (launch, end, archive, soft delete) is so made
 * and logged once; the writers after it find it done (no change, no entry) or, for a deleted
 * experiment, get PostHog's 404.
 */

import type { CohortRecord } from "../cohorts/cohorts.queries.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import { changesBetween, recordActivity, softDeleteActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectStream } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ConflictError, NotFoundError, ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import { checkNestingDepth, jsonSourceText } from "../core/json-input.js";
import { objectChanges } from "../core/live-changes.js";
import { once } from "../core/once.js";
import type { OffsetPage } from "../core/paging.js";
import { lockAndRead, lockRow, RowMoved, retryWhileMoved } from "../core/row-lock.js";
import type { ServiceDeps } from "../core/services.js";
import { sharedRead } from "../core/shared-reads.js";
import { inIdOrder, parseInput } from "../core/validation.js";
import type { ObjectChange } from "../db/change-feed.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import { Prisma } from "../generated/prisma/client.js";
import {
  EXPERIMENT_INCLUDE,
  type ExperimentRecord,
  experimentListWhere,
  sampleHasFeatureProperties,
  selectExperiment,
  selectExperimentPage,
  selectMetricsText,
  writeMetricsText,
} from "./experiments.queries.js";
import {
  type CreateExperimentInput,
  createExperimentSchema,
  duplicateExperimentSchema,
  eligibleFlagsQuerySchema,
  experimentListFiltersSchema,
  type UpdateExperimentInput,
  updateExperimentSchema,
} from "./experiments.schemas.js";
import { createHoldoutOperations, withHoldoutGroups } from "./holdouts.service.js";
import { exposureCohortFilters, exposureCohortName } from "./rules/exposure-cohort.js";
import {
  computeMetricFingerprint,
  type JsonWithNumbers,
  jsonTextWithNumbers,
  parseJsonNumbers,
} from "./rules/fingerprint.js";
import { flagImplementationSample, SAMPLE_DAYS } from "./rules/flag-implementation.js";
import { orderingOnCreate, orderingOnUpdate } from "./rules/metric-ordering.js";
import { createSavedMetricOperations } from "./saved-metrics.service.js";
import { createTimeseriesOperations } from "./timeseries.service.js";

/** PostHog's default variants of a new experiment flag. */
const DEFAULT_VARIANTS = [
  { key: "control", name: "Control Group", rollout_percentage: 50 },
  { key: "test", name: "Test Variant", rollout_percentage: 50 },
];

/** Most variants an experiment may have (newer PostHog: fewer than 21). */
const MAX_VARIANTS = 20;

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

/** Experiments' velocity statistics (`GET stats`, §5.5). */
export interface ExperimentStats {
  launchedLast30d: number;
  launchedPrevious30d: number;
  /** Percent change, 1 decimal: 100.0 when the previous window had none and the last some, 0.0 when both none. */
  percentChange: number;
  activeExperiments: number;
  completedLast30d: number;
}

/** What the experiment service needs from other domains. */
export interface ExperimentServiceCollaborators {
  featureFlags: Pick<
    FeatureFlagService,
    "createWithin" | "updateFiltersIn" | "updateFiltersWithin" | "activateWithin" | "list" | "get"
  >;
  /** Writes the exposure cohort (`create_exposure_cohort_for_experiment`). */
  cohorts: Pick<CohortService, "createDynamicWithin">;
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The flag's variants (`filters.multivariate.variants`), [] when none. */
export function flagVariants(filters: unknown): Array<{ key: string }> {
  const multivariate = isObject(filters) ? filters["multivariate"] : undefined;
  const variants = isObject(multivariate) ? multivariate["variants"] : undefined;
  return Array.isArray(variants) ? (variants.filter(isObject) as Array<{ key: string }>) : [];
}

/** Whether a flag can run an experiment: ≥ 2 variants, `control` first (spec "Experiment"). */
export function isEligibleFlag(filters: unknown): boolean {
  const variants = flagVariants(filters);
  return variants.length >= 2 && variants[0]?.key === "control";
}

/** An experiment's status: draft (no start), running (started, no end), stopped (ended). */
export function experimentStatus(experiment: { startDate: Date | null; endDate: Date | null }): string {
  if (!experiment.startDate) return "draft";
  return experiment.endDate ? "stopped" : "running";
}

/** The fields the activity log compares, under PostHog's names. */
function snapshot(x: ExperimentRecord): Obj {
  return {
    name: x.name,
    description: x.description,
    start_date: x.startDate?.toISOString() ?? null,
    end_date: x.endDate?.toISOString() ?? null,
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

/** A stored metric order (`*_metrics_ordered_uuids`) as a list of uuids, null when none is stored. */
function uuidList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : null;
}

/** A JSON value for a Prisma `Json?` column (null as SQL NULL). */
function jsonColumn(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/**
 * The metric lists of a request as number-keeping JSON (see rules/fingerprint.ts): from the body's
 * own text when it came as JSON, else from the parsed values.
 */
function requestMetrics(body: unknown, field: "metrics" | "metrics_secondary"): JsonWithNumbers | undefined {
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

/** Creates the experiment service. */
export function createExperimentService(deps: ServiceDeps, others: ExperimentServiceCollaborators) {
  const { featureFlags, cohorts } = others;

  async function readExperiment(
    db: Prisma.TransactionClient | ServiceContext["db"],
    projectId: number,
    id: number,
  ) {
    const experiment = await selectExperiment(db, projectId, id);
    if (!experiment) throw new NotFoundError();
    return experiment;
  }

  /**
   * `parameters.feature_flag_variants` (ExperimentSerializer.validate_parameters): fewer than 21, one
   * keyed `control`. @throws ValidationError attr `parameters`.
   */
  function checkParameters(parameters: unknown): void {
    if (!parameters) return;
    if (!isObject(parameters))
      throw new ValidationError("Parameters must be an object", { attr: "parameters" });
    const variants = parameters["feature_flag_variants"] ?? [];
    if (!Array.isArray(variants)) {
      throw new ValidationError("Feature flag variants must be a list", { attr: "parameters" });
    }
    if (variants.length > MAX_VARIANTS) {
      throw new ValidationError(`Feature flag variants must be less than ${MAX_VARIANTS + 1}`, {
        attr: "parameters",
      });
    }
    if (variants.length > 0 && !variants.some((v) => isObject(v) && v["key"] === "control")) {
      throw new ValidationError("Feature flag variants must contain a control variant", {
        attr: "parameters",
      });
    }
  }

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
    const found = await ctx.db.experimentSavedMetric.findMany({
      where: { projectId, id: { in: ids } },
      select: { id: true, query: true },
    });
    if (found.length !== ids.length) {
      throw new ValidationError("Saved metric does not exist or does not belong to this project", { attr });
    }
    const queries = new Map(found.map((m) => [m.id, m.query]));
    return items.map((item) => ({ ...item, query: queries.get(item.id) }));
  }

  /** The holdout `id` of the project, or null. @throws ValidationError attr `holdout_id` (DRF's does_not_exist). */
  async function checkedHoldout(ctx: ServiceContext, projectId: number, id: number | null | undefined) {
    if (id === null || id === undefined) return null;
    const holdout = await ctx.db.experimentHoldout.findFirst({ where: { projectId, id } });
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

  /** The flag filters PostHog writes for an experiment's variants and holdout. */
  function experimentFlagFilters(parameters: unknown, holdoutFilters: unknown): Obj {
    const params = isObject(parameters) ? parameters : {};
    const variants = Array.isArray(params["feature_flag_variants"]) ? params["feature_flag_variants"] : [];
    return {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: variants.length > 0 ? variants : DEFAULT_VARIANTS },
      aggregation_group_type_index: params["aggregation_group_type_index"] ?? null,
      // PostHog writes `holdout_groups: None` without a holdout; the flag rules here take a list or no key.
      ...(Array.isArray(holdoutFilters) ? { holdout_groups: holdoutFilters } : {}),
    };
  }

  /** Replaces an experiment's saved-metric links inside `tx`. */
  async function setSavedMetrics(
    tx: Prisma.TransactionClient,
    projectId: number,
    experimentId: number,
    items: Array<{ id: number; metadata: unknown }>,
  ) {
    await tx.experimentToSavedMetric.deleteMany({ where: { experimentId } });
    if (items.length === 0) return;
    await tx.experimentToSavedMetric.createMany({
      data: items.map((item) => ({
        projectId,
        experimentId,
        savedMetricId: item.id,
        metadata: jsonColumn(item.metadata),
      })),
    });
  }

  /**
   * Creates the experiment row (and its links and activity) inside `tx` for flag `flagId`; metrics
   * are written from number-keeping JSON text with their fingerprints.
   */
  async function insertExperiment(
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
    const now = deps.now();
    const created = await tx.experiment.create({
      data: {
        projectId,
        name: input.name,
        description: input.description ?? "",
        featureFlagId: flagId,
        holdoutId: input.holdout_id ?? null,
        parameters: jsonColumn(input.parameters),
        filters: (input.filters ?? {}) as Prisma.InputJsonValue,
        secondaryMetrics: jsonColumn(input.secondary_metrics ?? []),
        exposureCriteria: jsonColumn(input.exposure_criteria),
        statsConfig: statsConfig as Prisma.InputJsonValue,
        variants: jsonColumn(variants),
        type: input.type ?? "product",
        conclusion: input.conclusion ?? null,
        conclusionComment: input.conclusion_comment ?? null,
        primaryMetricsOrderedUuids: jsonColumn(ordering.primary),
        secondaryMetricsOrderedUuids: jsonColumn(ordering.secondary),
        startDate,
        endDate: input.end_date ?? null,
        archived: input.archived ?? false,
        deleted: input.deleted ?? false,
        createInFolder: input._create_in_folder ?? null,
        createdById: userId,
        createdAt: now,
        updatedAt: now,
      },
      select: { id: true },
    });
    await writeMetricsText(
      tx,
      projectId,
      created.id,
      jsonTextWithNumbers(primary),
      jsonTextWithNumbers(secondary),
    );
    await setSavedMetrics(tx, projectId, created.id, savedMetrics);
    await recordActivity(tx, {
      projectId,
      userId,
      scope: "Experiment",
      itemId: String(created.id),
      activity: "created",
      name: input.name,
      changes: null,
    });
    return created.id;
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
      .map((key) => (key === "holdout_id" ? "holdout" : key))
      .filter((key) => !UPDATABLE_KEYS.has(key))
      .filter((key) => !(key === "feature_flag_key" && input.feature_flag_key === current.featureFlag.key))
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
   * write), then writes in a transaction that first locks the experiment's row and decides again
   * from the locked state. Concurrent updates of one experiment so take turns, each applied to the
   * state it replaces: a transition (launch, end, archive, delete) happens once and is logged once,
   * the others find it done (a no-op, or PostHog's 404 for a deleted experiment).
   * @throws RowMoved when the locked state would take the other path (the draft was launched).
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
      // The flag's row, then the experiment's: the order the draft path (flag update first) takes too,
      // so a launch and a variants edit of one experiment cannot deadlock.
      await lockRow(tx, "feature_flags", current.featureFlagId);
      const locked = await lockAndRead(tx, "experiments", id, () => readExperiment(tx, projectId, id));
      const plan = await decideUpdate(locked, await selectMetricsText(tx, projectId, id), request);
      if (plan.viaFlag !== first.viaFlag || (plan.holdout?.id ?? null) !== (first.holdout?.id ?? null)) {
        throw new RowMoved();
      }
      const data: Prisma.ExperimentUncheckedUpdateInput = { updatedAt: deps.now() };
      if (input.name !== undefined) data.name = input.name;
      if (input.description !== undefined) data.description = input.description;
      if (input.start_date !== undefined) data.startDate = input.start_date;
      if (input.end_date !== undefined) data.endDate = input.end_date;
      if (input.filters !== undefined) data.filters = (input.filters ?? {}) as Prisma.InputJsonValue;
      if (input.parameters !== undefined) data.parameters = jsonColumn(input.parameters);
      if (input.archived !== undefined) data.archived = input.archived;
      if (input.deleted !== undefined) data.deleted = input.deleted;
      if (input.secondary_metrics !== undefined) data.secondaryMetrics = jsonColumn(input.secondary_metrics);
      if (plan.holdoutGiven) data.holdoutId = plan.holdout?.id ?? null;
      if (input.exposure_criteria !== undefined) data.exposureCriteria = jsonColumn(input.exposure_criteria);
      if (input.stats_config !== undefined) data.statsConfig = jsonColumn(input.stats_config);
      if (input.conclusion !== undefined) data.conclusion = input.conclusion;
      if (input.conclusion_comment !== undefined) data.conclusionComment = input.conclusion_comment;
      data.primaryMetricsOrderedUuids = jsonColumn(plan.ordering.primary);
      data.secondaryMetricsOrderedUuids = jsonColumn(plan.ordering.secondary);
      await tx.experiment.update({ where: { id }, data });
      await writeMetricsText(
        tx,
        projectId,
        id,
        jsonTextWithNumbers(plan.primary),
        jsonTextWithNumbers(plan.secondary),
      );
      if (plan.savedMetrics !== null) await setSavedMetrics(tx, projectId, id, plan.savedMetrics);
      if (plan.launching) await featureFlags.activateWithin(tx, projectId, locked.featureFlagId, userId);
      const updated = (await selectExperiment(tx, projectId, id))!;
      await recordActivity(tx, {
        projectId,
        userId,
        scope: "Experiment",
        itemId: String(id),
        activity: softDeleteActivity(locked, updated),
        name: updated.name,
        changes: changesBetween("Experiment", snapshot(locked), snapshot(updated)),
      });
    };
    // While a draft, new variants or a holdout rewrite the flag through the flag service's own update
    // (its rules, version and activity), and the experiment's write runs in that update's
    // transaction: both are written or neither.
    if (first.viaFlag) {
      const flagFilters = isObject(input.parameters)
        ? experimentFlagFilters(input.parameters, first.holdout?.filters ?? null)
        : withHoldoutGroups(current.featureFlag.filters as Obj, first.holdout?.filters ?? null);
      await featureFlags.updateFiltersWithin(ctx, projectId, current.featureFlagId, flagFilters, write);
    } else {
      await ctx.db.$transaction(write);
    }
    return readExperiment(ctx.db, projectId, id);
  }

  /**
   * Creates an experiment on `feature_flag_key`'s flag: an existing non-deleted flag is reused when
   * eligible, else a new multivariate flag is made through the flag service (inactive for a draft).
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
    const existing = await ctx.db.featureFlag.findFirst({
      where: { projectId, key: input.feature_flag_key, deleted: false },
      select: { id: true, filters: true },
    });
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
      const id = await ctx.db.$transaction((tx) =>
        insertExperiment(tx, ctx, projectId, existing.id, input, metrics, savedMetrics),
      );
      return readExperiment(ctx.db, projectId, id);
    }
    const { result: id } = await featureFlags.createWithin(
      ctx,
      projectId,
      {
        key: input.feature_flag_key,
        name: `Feature Flag for Experiment ${input.name}`,
        filters: experimentFlagFilters(input.parameters, holdout?.filters ?? null),
        active: Boolean(input.start_date),
        creation_context: "experiments",
      },
      (tx, flag) => insertExperiment(tx, ctx, projectId, flag.id, input, metrics, savedMetrics),
    );
    return readExperiment(ctx.db, projectId, id);
  }

  return {
    /**
     * The committed changes of the project's experiments (of `ids` only, when given), from now until
     * `signal` aborts (GraphQL `experimentChanged`); a `reset` when some may have been missed.
     * Scope `experiment:read`, checked now and whenever access changes: the changes end with the
     * refusal (core/auth/access.ts `authorizeProjectStream`). @throws as `authorizeProject`.
     */
    async changes(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[] | null,
      signal: AbortSignal,
    ): Promise<AsyncIterable<ObjectChange | { kind: "reset" }>> {
      const { events } = await authorizeProjectStream(ctx, projectId, "experiment:read", signal);
      const wanted = ids === null ? null : new Set(ids.map(String));
      return objectChanges(
        events,
        (change) =>
          change.scope === "Experiment" &&
          (wanted === null || (change.itemId !== null && wanted.has(change.itemId))),
      );
    },

    /**
     * One page of the project's experiments (§5.2): not deleted; archived ones only with
     * `archived=true`; `status`, `created_by_id`, `search` (name), `order` (incl. `duration`, `status`).
     * Scope `experiment:read`. @throws ValidationError for a bad filter value.
     */
    async list(ctx: ServiceContext, projectId: number, query: Record<string, unknown>, page: OffsetPage) {
      const project = await authorizeProject(ctx, projectId, "experiment:read");
      const filters = parseInput(experimentListFiltersSchema, query, ctx.limits);
      return selectExperimentPage(
        ctx.db,
        project.id,
        experimentListWhere(project.id, filters),
        filters.order,
        page,
      );
    },

    /** One experiment by id (deleted ones too, as PostHog's queryset). Scope `experiment:read`. @throws NotFoundError */
    async get(ctx: ServiceContext, projectId: number, id: number): Promise<ExperimentRecord> {
      await authorizeProject(ctx, projectId, "experiment:read");
      return sharedRead(ctx, `experiments:${projectId}:${id}`, () => readExperiment(ctx.db, projectId, id));
    },

    /** Experiments of the project by id, in the order asked, null where none (node loads). Scope `experiment:read`. */
    async getMany(
      ctx: ServiceContext,
      projectId: number,
      ids: readonly number[],
    ): Promise<(ExperimentRecord | null)[]> {
      await authorizeProject(ctx, projectId, "experiment:read");
      const found = await ctx.db.experiment.findMany({
        where: { projectId, id: { in: [...ids] } },
        include: EXPERIMENT_INCLUDE,
      });
      return inIdOrder(ids, found);
    },

    /**
     * Creates an experiment (§5.3) and, unless `feature_flag_key` names an eligible flag, its flag
     * (every flag rule; `creation_context: "experiments"`; active only when `start_date` is given).
     * Metric fingerprints are computed from the body's JSON text. Activity `created`. Scope `experiment:write`.
     * @throws ValidationError for any rule of §5.3 or of the flag.
     */
    async create(ctx: ServiceContext, projectId: number, body: unknown): Promise<ExperimentRecord> {
      const project = await authorizeProject(ctx, projectId, "experiment:write");
      const input = parseInput(createExperimentSchema, body, ctx.limits);
      return createOn(ctx, project.id, input, {
        primary: requestMetrics(body, "metrics"),
        secondary: requestMetrics(body, "metrics_secondary"),
      });
    },

    /**
     * Updates an experiment (§5.4): only PostHog's updatable keys (`Can't update keys: a, b on
     * Experiment`); a deleted experiment takes only `deleted: false` (restore); variants and holdout
     * are frozen after launch; while a draft, parameters/holdout rewrite the flag's filters (flag
     * rules apply); setting `start_date` on a draft launches it and activates the flag. Fingerprints
     * are recomputed. Activity `updated`, or `deleted`/`restored` when `deleted` flips. Scope `experiment:write`.
     * Concurrent updates are applied one after another, each to the state the one before it left.
     * @throws NotFoundError, ValidationError; ConflictError (409) when the experiment kept leaving
     * the write path chosen for it (a draft launched between the read and the lock, 8 times over).
     */
    async update(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<ExperimentRecord> {
      await authorizeProject(ctx, projectId, "experiment:write");
      // Only a draft launched (or a holdout swapped) between the read and the lock moves it.
      return retryWhileMoved(() => updateOnce(ctx, projectId, id, body), moved);
    },

    /** Hard delete, which PostHog refuses (core/forbid-destroy.ts). Scope `experiment:write` first. */
    destroy: forbidDestroy("experiment:write"),

    /**
     * Duplicates an experiment (§5.5): `<name> (Copy)`, then `(Copy) 1`, `2`… unique among non-deleted
     * experiments; same flag unless `feature_flag_key` names another (variants then the target flag's);
     * dates cleared, not archived. Scope `experiment:write`. @throws NotFoundError, ValidationError.
     */
    async duplicate(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<ExperimentRecord> {
      await authorizeProject(ctx, projectId, "experiment:write");
      const source = await readExperiment(ctx.db, projectId, id);
      const input = parseInput(duplicateExperimentSchema, body ?? {}, ctx.limits);
      const key = input.feature_flag_key || source.featureFlag.key;
      const base = `${source.name} (Copy)`;
      const taken = new Set(
        (
          await ctx.db.experiment.findMany({
            where: { projectId, deleted: false, name: { startsWith: base } },
            select: { name: true },
          })
        ).map((x) => x.name),
      );
      let name = base;
      for (let n = 1; taken.has(name); n++) name = `${base} ${n}`;
      let parameters = source.parameters;
      if (key !== source.featureFlag.key) {
        const target = await ctx.db.featureFlag.findFirst({
          where: { projectId, key, deleted: false },
          select: { filters: true },
        });
        if (target && isObject(parameters)) {
          parameters = {
            ...parameters,
            feature_flag_variants: flagVariants(target.filters),
          } as Prisma.JsonValue;
        }
      }
      const stored = await selectMetricsText(ctx.db, projectId, id);
      const stripFingerprints = (text: string | null) => {
        if (text === null) return undefined;
        const list = parseJsonNumbers(text);
        return Array.isArray(list)
          ? list.map((m) => {
              if (!isObject(m)) return m;
              const { fingerprint: _, ...rest } = m as { [key: string]: JsonWithNumbers };
              return rest;
            })
          : list;
      };
      const copy: CreateExperimentInput = {
        name,
        description: source.description,
        feature_flag_key: key,
        type: (source.type as "web" | "product" | null) ?? "product",
        parameters,
        filters: source.filters,
        secondary_metrics: source.secondaryMetrics,
        stats_config: source.statsConfig,
        exposure_criteria: source.exposureCriteria,
        holdout_id: source.holdoutId,
        saved_metrics_ids: source.savedMetricLinks.map((l) =>
          l.metadata === null ? { id: l.savedMetricId } : { id: l.savedMetricId, metadata: l.metadata },
        ),
        primary_metrics_ordered_uuids: source.primaryMetricsOrderedUuids as string[] | null,
        secondary_metrics_ordered_uuids: source.secondaryMetricsOrderedUuids as string[] | null,
        metrics: undefined,
        metrics_secondary: undefined,
        start_date: null,
        end_date: null,
        archived: false,
        deleted: false,
      };
      return createOn(ctx, projectId, copy, {
        primary: stripFingerprints(stored.metrics),
        secondary: stripFingerprints(stored.metricsSecondary),
      });
    },

    /**
     * Flags eligible for experiments (§5.5): the project's non-deleted flags with ≥ 2 variants and
     * `control` first (survey/product-tour flags are not made here), filtered as the flag list;
     * `limit` default 20, at most 100; `order` default `-created_at`. Scope `feature_flag:read`.
     * @throws ValidationError `Invalid limit or offset` (its own body: `{"error": ...}`, see EligibleFlagsError).
     */
    async eligibleFlags(ctx: ServiceContext, projectId: number, query: URLSearchParams) {
      const project = await authorizeProject(ctx, projectId, "feature_flag:read");
      const read = (name: string, fallback: number) => {
        const raw = query.get(name);
        if (raw === null) return fallback;
        if (!/^-?\d+$/.test(raw.trim())) throw new EligibleFlagsError();
        return Number(raw);
      };
      const limit = Math.min(read("limit", 20), 100);
      const offset = read("offset", 0);
      if (limit < 0 || offset < 0) throw new EligibleFlagsError();
      const filters = parseInput(eligibleFlagsQuerySchema, Object.fromEntries(query), ctx.limits);
      const candidates = await ctx.db.featureFlag.findMany({
        where: { projectId: project.id, deleted: false, variantCount: { gte: 2 } },
        select: { id: true, filters: true },
      });
      const eligible = new Set(candidates.filter((f) => isEligibleFlag(f.filters)).map((f) => f.id));
      // The flag list's filters, over every eligible flag (a page as large as the set).
      const listQuery: Record<string, unknown> = {};
      if (filters.search) listQuery["search"] = filters.search;
      if (filters.active !== undefined) listQuery["active"] = String(filters.active);
      if (filters.created_by_id !== undefined) listQuery["created_by_id"] = filters.created_by_id;
      if (filters.evaluation_runtime) listQuery["evaluation_runtime"] = filters.evaluation_runtime;
      if (filters.has_evaluation_tags !== undefined)
        listQuery["has_evaluation_tags"] = String(filters.has_evaluation_tags);
      if (filters.order) listQuery["order"] = filters.order;
      const all = await featureFlags.list(ctx, project.id, listQuery, { limit: 1_000_000, offset: 0 });
      const matching = all.results.filter((flag) => eligible.has(flag.id));
      return { count: matching.length, results: matching.slice(offset, offset + limit) };
    },

    /**
     * Velocity statistics (§5.5) over non-deleted, non-archived experiments, windows of 30 days ending
     * now in the project's time zone (day boundaries). Scope `experiment:read`.
     */
    async stats(ctx: ServiceContext, projectId: number): Promise<ExperimentStats> {
      const project = await authorizeProject(ctx, projectId, "experiment:read");
      const now = deps.now();
      const [row] = await ctx.db.$queryRaw<
        Array<{ last: number; previous: number; active: number; completed: number }>
      >(Prisma.sql`WITH bounds AS (
          SELECT (date_trunc('day', ${now}::timestamptz AT TIME ZONE ${project.timezone}) AT TIME ZONE ${project.timezone}) AS today)
        SELECT
          count(*) FILTER (WHERE x.start_date >= b.today - interval '30 days')::int AS last,
          count(*) FILTER (WHERE x.start_date >= b.today - interval '60 days'
            AND x.start_date < b.today - interval '30 days')::int AS previous,
          count(*) FILTER (WHERE x.start_date IS NOT NULL AND x.end_date IS NULL)::int AS active,
          count(*) FILTER (WHERE x.end_date >= b.today - interval '30 days')::int AS completed
        FROM experiments x, bounds b
        WHERE x.project_id = ${project.id} AND NOT x.deleted AND NOT x.archived`);
      const last = row?.last ?? 0;
      const previous = row?.previous ?? 0;
      const percentChange =
        previous === 0 ? (last > 0 ? 100 : 0) : Math.round(((last - previous) / previous) * 1000) / 10;
      return {
        launchedLast30d: last,
        launchedPrevious30d: previous,
        percentChange,
        activeExperiments: row?.active ?? 0,
        completedLast30d: row?.completed ?? 0,
      };
    },

    /**
     * `POST :id/create_exposure_cohort_for_experiment` (posthog-behavior.md §5.5,
     * `ee/clickhouse/views/experiments.py`): a new dynamic cohort `Users exposed to experiment
     * "<name>"` of the persons who performed `$feature_flag_called` with `$feature_flag` = the
     * flag's key (or the first entity of `parameters.custom_exposure_filter`) since the start date
     * (rules/exposure-cohort.ts), calculated at once, stored as the experiment's `exposure_cohort`.
     * The cohort, its `created` entry, the link and the experiment's `updated` entry are one
     * transaction; the link is written only while none is set, so two racing calls make one cohort.
     * `body` is not read (PostHog's action reads none; only its nesting is limited). Scope
     * `experiment:write` only (PostHog saves the cohort without a cohort scope). Soft-deleted
     * experiments are found, as PostHog's `get_object` finds them.
     * @throws NotFoundError; ValidationError `Experiment does not have a start date`, `Experiment
     *   already has an exposure cohort`, `Invalid action ID`, `max_depth`; NotImplementedError for
     *   custom exposure filters on properties other than event properties.
     */
    async createExposureCohort(
      ctx: ServiceContext,
      projectId: number,
      id: number,
      body: unknown,
    ): Promise<CohortRecord> {
      await authorizeProject(ctx, projectId, "experiment:write");
      checkNestingDepth(body, ctx.limits.maxJsonDepth);
      const experiment = await readExperiment(ctx.db, projectId, id);
      if (!experiment.startDate) throw new ValidationError("Experiment does not have a start date");
      if (experiment.exposureCohortId !== null) {
        throw new ValidationError("Experiment already has an exposure cohort");
      }
      const filters = exposureCohortFilters(
        experiment.featureFlag.key,
        experiment.startDate,
        experiment.parameters,
      );
      const userId = ctx.actor.user.id;
      return cohorts.createDynamicWithin(
        ctx,
        projectId,
        exposureCohortName(experiment.name),
        filters,
        async (tx, cohortId) => {
          const linked = await tx.experiment.updateMany({
            where: { id, projectId, exposureCohortId: null },
            data: { exposureCohortId: cohortId },
          });
          if (linked.count === 0) throw new ValidationError("Experiment already has an exposure cohort");
          await recordActivity(tx, {
            projectId,
            userId,
            scope: "Experiment",
            itemId: String(id),
            activity: "updated",
            name: experiment.name,
            changes: changesBetween("Experiment", { exposure_cohort: null }, { exposure_cohort: cohortId }),
          });
        },
      );
    },

    /**
     * `GET requires_flag_implementation` (posthog-behavior.md §5.5, `requires_flag_warning`): true
     * unless some of the events sampled for the filter's event entities over the last 7 days carry
     * `$feature/` in their properties' JSON text (PostHog's substring test on the properties
     * string). PostHog samples `limit` (default 20) events per name at random (`groupArraySample`);
     * we take the latest `limit` per name (at most 100), which is deterministic. What is read from
     * `query` is in rules/flag-implementation.ts (actions name no events here). Scope `experiment:read`.
     * @throws ValidationError for malformed `events`, `actions` or `limit`.
     */
    async requiresFlagImplementation(
      ctx: ServiceContext,
      projectId: number,
      query: URLSearchParams,
    ): Promise<boolean> {
      const project = await authorizeProject(ctx, projectId, "experiment:read");
      const sample = flagImplementationSample(query);
      if (sample.events.length === 0) return true;
      const now = deps.now();
      const from = new Date(now.getTime() - SAMPLE_DAYS * 86_400_000);
      return !(await sampleHasFeatureProperties(ctx.db, project.id, sample, from, now));
    },

    ...createHoldoutOperations(deps, { featureFlags }),
    ...createSavedMetricOperations(deps),
    ...createTimeseriesOperations(deps),
  };
}

/** `eligible_feature_flags`' refusal of a bad limit/offset; answered as PostHog's `{"error": ...}`. */
export class EligibleFlagsError extends ValidationError {
  constructor() {
    super("Invalid limit or offset");
  }
}

/** The experiment service's operations. */
export type ExperimentService = ReturnType<typeof createExperimentService>;

declare module "../core/services.js" {
  interface Services {
    /** See `createExperimentService`. */
    experiments: ExperimentService;
  }
}

declare module "../core/activity-log.js" {
  interface ActivityScopes {
    /** Experiments' entries (posthog-behavior.md §5.4). */
    Experiment: true;
    /** Holdouts' entries. */
    ExperimentHoldout: true;
    /** Saved metrics' entries. */
    ExperimentSavedMetric: true;
  }
}

declare module "../core/row-lock.js" {
  interface LockableTables {
    /** Experiments (`id` integer). */
    experiments: number;
    /** Holdouts (`id` integer). */
    experiment_holdouts: number;
    /** Saved metrics (`id` integer). */
    experiment_saved_metrics: number;
  }
}
