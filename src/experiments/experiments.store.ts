/**
 * How experiments are kept: every write of the experiment tables (the row, its metric lists as
 * JSON text, its saved-metric links, its exposure cohort) and every read a write's decision takes
 * (the saved metrics and the holdout a request names, the names a copy must avoid, the row locked
 * for an update; the flag a new experiment runs on is read through the flags' read model,
 * feature-flags.queries.ts `findLiveFlag`). The service says what happens
 * (experiments.service.ts, experiments.writes.ts); this module says how it is stored. Reads that
 * answer callers are the read model's (experiments.queries.ts).
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client.
 */
import { lockAndRead, lockRow } from "../core/row-lock.js";
import { type ExperimentHoldout, Prisma } from "../generated/prisma/client.js";
import { type Db, type ExperimentRecord, readExperiment } from "./experiments.queries.js";
import type { CreateExperimentInput, UpdateExperimentInput } from "./experiments.schemas.js";
import type { MetricOrdering } from "./rules/metric-ordering.js";

/** A JSON value for a Prisma `Json?` column (null as SQL NULL). */
function jsonColumn(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** The `query` of each saved metric of the project among `ids` (an id of no saved metric of it has none). */
export function selectSavedMetricQueries(
  db: Db,
  projectId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; query: Prisma.JsonValue }>> {
  return db.experimentSavedMetric.findMany({
    where: { projectId, id: { in: [...ids] } },
    select: { id: true, query: true },
  });
}

/** Holdout `id` of the project, or null when it has none such. */
export function findHoldout(db: Db, projectId: number, id: number): Promise<ExperimentHoldout | null> {
  return db.experimentHoldout.findFirst({ where: { projectId, id } });
}

/** The names of the project's non-deleted experiments starting with `prefix` (those a copy's name must avoid). */
export async function selectNamesStartingWith(
  db: Db,
  projectId: number,
  prefix: string,
): Promise<Set<string>> {
  const rows = await db.experiment.findMany({
    where: { projectId, deleted: false, name: { startsWith: prefix } },
    select: { name: true },
  });
  return new Set(rows.map((row) => row.name));
}

/** What a create derives beside its input (experiments.writes.ts): stats config, web variants, metric orders. */
export interface DerivedColumns {
  /** `stats_config` with its `method` set. */
  statsConfig: Record<string, unknown>;
  /** A web experiment's variants by key (`{rollout_percentage}`), null for a product one. */
  variants: Record<string, unknown> | null;
  ordering: MetricOrdering;
}

/**
 * Inserts a new experiment on flag `flagId` from a create's validated input and its derived
 * columns, created by `userId` at `now`. Returns its id. The metric lists (`writeMetricsText`) and
 * the saved-metric links (`replaceSavedMetricLinks`) are written apart.
 */
export async function insertExperiment(
  tx: Prisma.TransactionClient,
  projectId: number,
  flagId: number,
  input: CreateExperimentInput,
  derived: DerivedColumns,
  userId: number,
  now: Date,
): Promise<number> {
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
      statsConfig: derived.statsConfig as Prisma.InputJsonValue,
      variants: jsonColumn(derived.variants),
      type: input.type ?? "product",
      conclusion: input.conclusion ?? null,
      conclusionComment: input.conclusion_comment ?? null,
      primaryMetricsOrderedUuids: jsonColumn(derived.ordering.primary),
      secondaryMetricsOrderedUuids: jsonColumn(derived.ordering.secondary),
      startDate: input.start_date ?? null,
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
  return created.id;
}

/** Writes an experiment's metric lists from JSON text (so numbers keep their written form). */
export async function writeMetricsText(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
  metrics: string,
  metricsSecondary: string,
): Promise<void> {
  await tx.$executeRaw(Prisma.sql`UPDATE experiments SET metrics = ${metrics}::jsonb,
    metrics_secondary = ${metricsSecondary}::jsonb WHERE project_id = ${projectId} AND id = ${id}`);
}

/** Replaces experiment `experimentId`'s saved-metric links with `items` (saved metric ids and their metadata). */
export async function replaceSavedMetricLinks(
  tx: Prisma.TransactionClient,
  projectId: number,
  experimentId: number,
  items: ReadonlyArray<{ id: number; metadata: unknown }>,
): Promise<void> {
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
 * Locks the row of flag `flagId` (the experiment's), then experiment `id`'s, in `tx`
 * (core/row-lock.ts), and reads the experiment: its writers take turns from here until their
 * transactions end. The flag's row first: the order a draft's flag rewrite (flag update first)
 * takes too, so a launch and a variants edit of one experiment cannot deadlock.
 * @throws NotFoundError
 */
export async function lockExperiment(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
  flagId: number,
): Promise<ExperimentRecord> {
  await lockRow(tx, "feature_flags", flagId);
  return lockAndRead(tx, "experiments", id, () => readExperiment(tx, projectId, id));
}

/** What an update decided beside its input (experiments.writes.ts). */
export interface DecidedColumns {
  /** The holdout's id when the body set one (null: none), undefined when the holdout is kept. */
  holdoutId: number | null | undefined;
  ordering: MetricOrdering;
}

/**
 * Writes an update over experiment `id`'s row, locked in `tx`: each field the body set (`input`),
 * the holdout and metric orders `decided`, `updated_at` = `now`. The metric lists and the
 * saved-metric links are written apart.
 */
export async function writeExperimentRow(
  tx: Prisma.TransactionClient,
  id: number,
  input: UpdateExperimentInput,
  decided: DecidedColumns,
  now: Date,
): Promise<void> {
  const data: Prisma.ExperimentUncheckedUpdateInput = { updatedAt: now };
  if (input.name !== undefined) data.name = input.name;
  if (input.description !== undefined) data.description = input.description;
  if (input.start_date !== undefined) data.startDate = input.start_date;
  if (input.end_date !== undefined) data.endDate = input.end_date;
  if (input.filters !== undefined) data.filters = (input.filters ?? {}) as Prisma.InputJsonValue;
  if (input.parameters !== undefined) data.parameters = jsonColumn(input.parameters);
  if (input.archived !== undefined) data.archived = input.archived;
  if (input.deleted !== undefined) data.deleted = input.deleted;
  if (input.secondary_metrics !== undefined) data.secondaryMetrics = jsonColumn(input.secondary_metrics);
  if (decided.holdoutId !== undefined) data.holdoutId = decided.holdoutId;
  if (input.exposure_criteria !== undefined) data.exposureCriteria = jsonColumn(input.exposure_criteria);
  if (input.stats_config !== undefined) data.statsConfig = jsonColumn(input.stats_config);
  if (input.conclusion !== undefined) data.conclusion = input.conclusion;
  if (input.conclusion_comment !== undefined) data.conclusionComment = input.conclusion_comment;
  data.primaryMetricsOrderedUuids = jsonColumn(decided.ordering.primary);
  data.secondaryMetricsOrderedUuids = jsonColumn(decided.ordering.secondary);
  await tx.experiment.update({ where: { id }, data });
}

/**
 * Sets cohort `cohortId` as experiment `id`'s exposure cohort, only while it has none, so two racing
 * links make one. Whether it did.
 */
export async function linkExposureCohort(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: number,
  cohortId: number,
): Promise<boolean> {
  const { count } = await tx.experiment.updateMany({
    where: { id, projectId, exposureCohortId: null },
    data: { exposureCohortId: cohortId },
  });
  return count > 0;
}
