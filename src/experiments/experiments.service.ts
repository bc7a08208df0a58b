/**
 * The experiment service (issue 11 part B): experiments, and (from holdouts.service.ts and
 * saved-metrics.service.ts) holdouts and saved metrics, for both front doors. It checks scopes and project access, validates by PostHog's rules, writes the change and its
 * activity entry in one transaction, and returns records. Experiments run on multivariate flags,
 * created or changed through the flag service so every flag rule applies. Creates and updates
 * (PostHog's rules in order, the row lock, the activity entry in one transaction) are
 * experiments.writes.ts; how experiments are stored, experiments.store.ts; how they are read,
 * experiments.queries.ts.
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

import { type CohortRecord, readCohort } from "../cohorts/cohorts.queries.js";
import type { CohortService } from "../cohorts/cohorts.service.js";
import { changesBetween, recordActivity } from "../core/activity-log.js";
import { authorizeProject, authorizeProjectStream } from "../core/auth/access.js";
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import { forbidDestroy } from "../core/forbid-destroy.js";
import { checkNestingDepth } from "../core/json-input.js";
import { objectChanges } from "../core/live-changes.js";
import { versionOperations } from "../core/object-versions.js";
import type { OffsetPage } from "../core/paging.js";
import type { ServiceDeps } from "../core/services.js";
import { sharedRead } from "../core/shared-reads.js";
import { transactional } from "../core/transactional.js";
import { inIdOrder, parseInput } from "../core/validation.js";
import type { ObjectChange } from "../db/change-feed.js";
import { findLiveFlag } from "../feature-flags/feature-flags.queries.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import type { Prisma } from "../generated/prisma/client.js";
import { requestMetrics } from "./experiment-write-checks.js";
import {
  type ExperimentRecord,
  experimentListWhere,
  readExperiment,
  sampleHasFeatureProperties,
  selectExperiment,
  selectExperimentCounts,
  selectExperimentPage,
  selectExperiments,
  selectMetricsText,
} from "./experiments.queries.js";
import {
  type CreateExperimentInput,
  createExperimentSchema,
  duplicateExperimentSchema,
  eligibleFlagsQuerySchema,
  experimentListFiltersSchema,
} from "./experiments.schemas.js";
import { linkExposureCohort, selectNamesStartingWith } from "./experiments.store.js";
import { createExperimentWrites } from "./experiments.writes.js";
import { createHoldoutOperations } from "./holdouts.service.js";
import { exposureCohortFilters, exposureCohortName } from "./rules/exposure-cohort.js";
import { type JsonWithNumbers, parseJsonNumbers } from "./rules/fingerprint.js";
import { flagImplementationSample, SAMPLE_DAYS } from "./rules/flag-implementation.js";
import { flagVariants, isEligibleFlag, isObject } from "./rules/flag-variants.js";
import { createSavedMetricOperations } from "./saved-metrics.service.js";
import { createTimeseriesOperations } from "./timeseries.service.js";

/** The flag's variants and whether a flag can run an experiment (rules/flag-variants.ts). */
export { flagVariants, isEligibleFlag };

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
    | "createAuthorized"
    | "rewriteFiltersAuthorized"
    | "updateFiltersAuthorized"
    | "activateAuthorized"
    | "list"
    | "get"
  >;
  /** Writes the exposure cohort (`create_exposure_cohort_for_experiment`). */
  cohorts: Pick<CohortService, "createDynamicAuthorized">;
}

/** An experiment's status: draft (no start), running (started, no end), stopped (ended). */
export function experimentStatus(experiment: { startDate: Date | null; endDate: Date | null }): string {
  if (!experiment.startDate) return "draft";
  return experiment.endDate ? "stopped" : "running";
}

/** Snapshot fields (the activity log's names) a restore copies that its update takes under the same name. */
const RESTORED_FIELDS = [
  "name",
  "description",
  "start_date",
  "end_date",
  "parameters",
  "filters",
  "archived",
  "secondary_metrics",
  "metrics",
  "metrics_secondary",
  "exposure_criteria",
  "stats_config",
  "conclusion",
  "conclusion_comment",
  "primary_metrics_ordered_uuids",
  "secondary_metrics_ordered_uuids",
];

/**
 * The update body that sets an experiment to a kept version's fields (core/object-versions.ts): the
 * fields a PATCH takes, the holdout as `holdout_id` and the saved metrics as `saved_metrics_ids`;
 * not `deleted` (a restore neither deletes nor undeletes). The update's rules decide what a running
 * experiment may take back (its variants and holdout are frozen after launch).
 */
function experimentRestoreBody(snapshot: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = Object.fromEntries(
    RESTORED_FIELDS.filter((f) => f in snapshot).map((f) => [f, snapshot[f]]),
  );
  if ("holdout" in snapshot) body["holdout_id"] = snapshot["holdout"];
  if (Array.isArray(snapshot["saved_metrics"])) {
    body["saved_metrics_ids"] = (snapshot["saved_metrics"] as Array<{ id: number; metadata: unknown }>).map(
      ({ id, metadata }) => (metadata === null || metadata === undefined ? { id } : { id, metadata }),
    );
  }
  return body;
}

/** Creates the experiment service. */
export function createExperimentService(deps: ServiceDeps, others: ExperimentServiceCollaborators) {
  const { featureFlags, cohorts } = others;
  const { createOn, applyUpdate } = createExperimentWrites(deps, { featureFlags });
  const versions = versionOperations({
    scope: "Experiment",
    readScope: "experiment:read",
    writeScope: "experiment:write",
    exists: async (ctx, projectId, id) => (await selectExperiment(ctx.db, projectId, id)) !== null,
    restoreBody: experimentRestoreBody,
    update: applyUpdate,
  });

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
      return inIdOrder(ids, await selectExperiments(ctx.db, projectId, ids));
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
      return applyUpdate(ctx, projectId, id, body);
    },

    /** A page of an experiment's kept versions, highest first, with their changes (issue 27). Scope `experiment:read`. @throws NotFoundError */
    versions: versions.versions,
    /** One kept version of an experiment (issue 27). Scope `experiment:read`. @throws NotFoundError (experiment or version) */
    version: versions.version,
    /**
     * Restores an experiment to kept version n (issue 27): an experiment PATCH of that version's
     * fields (every rule, activity with the `version_restore` trigger, webhooks), returning the
     * experiment as written. Scope `experiment:write`. @throws NotFoundError, ValidationError, as `update`.
     */
    restoreVersion: versions.restore,

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
      const taken = await selectNamesStartingWith(ctx.db, projectId, base);
      let name = base;
      for (let n = 1; taken.has(name); n++) name = `${base} ${n}`;
      let parameters = source.parameters;
      if (key !== source.featureFlag.key) {
        const target = await findLiveFlag(ctx.reader, projectId, key);
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
      const matching = all.results.filter((flag) => isEligibleFlag(flag.filters));
      return { count: matching.length, results: matching.slice(offset, offset + limit) };
    },

    /**
     * Velocity statistics (§5.5) over non-deleted, non-archived experiments, windows of 30 days ending
     * now in the project's time zone (day boundaries). Scope `experiment:read`.
     */
    async stats(ctx: ServiceContext, projectId: number): Promise<ExperimentStats> {
      const project = await authorizeProject(ctx, projectId, "experiment:read");
      const { last, previous, active, completed } = await selectExperimentCounts(
        ctx.db,
        project.id,
        project.timezone,
        deps.now(),
      );
      const percentChange =
        previous === 0 ? (last > 0 ? 100 : 0) : Math.round(((last - previous) / previous) * 1000) / 10;
      return {
        launchedLast30d: last,
        launchedPrevious30d: previous,
        percentChange,
        activeExperiments: active,
        completedLast30d: completed,
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
      // The cohort service's create joins this transaction: the cohort lands with the link or not at all.
      return transactional(ctx, async (tx) => {
        const cohort = await cohorts.createDynamicAuthorized(
          ctx,
          projectId,
          exposureCohortName(experiment.name),
          filters,
        );
        const linked = await linkExposureCohort(tx, projectId, id, cohort.id);
        if (!linked) throw new ValidationError("Experiment already has an exposure cohort");
        await recordActivity(tx, {
          projectId,
          userId,
          scope: "Experiment",
          itemId: String(id),
          activity: "updated",
          name: experiment.name,
          changes: changesBetween("Experiment", { exposure_cohort: null }, { exposure_cohort: cohort.id }),
        });
        // Read again through the cohorts' read model: with the link (`experiment_set`).
        return readCohort(tx, projectId, cohort.id);
      });
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
