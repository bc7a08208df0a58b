/**
 * How experiment timeseries are kept: every write of the timeseries tables (the recalculation
 * requests, `experiment_timeseries_recalculations`, and the stored days of a metric,
 * `experiment_metric_results`) and every read a write decides from (the experiment a request is for,
 * the active request read under the experiment's row lock, the requests to queue again, a request
 * as its job runs it). The service says what happens (timeseries.service.ts); this module says how
 * it is stored. Reads that answer callers are the read model's (timeseries.queries.ts).
 *
 * Both tables are derived data, rewritten by each recalculation: not tracked by the project's
 * revision.
 *
 * Invariant: a request's statements filter by `project_id` or by an experiment id read under it, in
 * the transaction they belong to (`tx`). The job's statements are by the request id of its payload
 * (and the rows that request names), one at a time on the client (`db`), in no transaction; the
 * queue's recovery (`selectActiveRecalculationIds`) reads every project's active requests.
 */
import { lockRow } from "../core/row-lock.js";
import { type ExperimentTimeseriesRecalculation, Prisma } from "../generated/prisma/client.js";
import type { Db } from "./experiments.queries.js";
import { ACTIVE_STATUSES, findActiveRecalculation } from "./timeseries.queries.js";

/** A new recalculation request's fields (it is written `pending`). */
export interface NewRecalculation {
  projectId: number;
  experimentId: number;
  /** The metric object as sent. */
  metric: Record<string, unknown>;
  /** The metric's `uuid`, null when it has none. */
  metricUuid: string | null;
  fingerprint: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a request's job reads with it: the experiment with its flag's key and filters, and the project. */
const RUN_INCLUDE = {
  experiment: { include: { featureFlag: { select: { key: true, filters: true } } } },
  project: true,
} satisfies Prisma.ExperimentTimeseriesRecalculationInclude;

/** A recalculation request as its job runs it (see `RUN_INCLUDE`). */
export type RecalculationRun = Prisma.ExperimentTimeseriesRecalculationGetPayload<{
  include: typeof RUN_INCLUDE;
}>;

/**
 * One day of one metric's timeseries: the experiment, the metric (`metricUuid`, `""` when it has no
 * uuid, and `fingerprint`), and the day's range `[queryFrom, queryTo)` (queryTo: the day's end,
 * exclusive; the row's key with the metric).
 */
export interface MetricDay {
  projectId: number;
  experimentId: number;
  metricUuid: string;
  fingerprint: string;
  queryFrom: Date;
  queryTo: Date;
}

/**
 * Experiment `id` of the project (deleted ones included) with its start, or null when it has none
 * such: what a recalculation request is refused or recorded from. One statement.
 */
export function findExperimentStart(
  db: Db,
  projectId: number,
  id: number,
): Promise<{ id: number; startDate: Date | null } | null> {
  return db.experiment.findFirst({ where: { id, projectId }, select: { id: true, startDate: true } });
}

/**
 * Locks experiment `experimentId`'s row in `tx` (core/row-lock.ts), then reads its active request for
 * `fingerprint` (timeseries.queries.ts `findActiveRecalculation`): the experiment row is the lock
 * that keeps one active request per experiment and fingerprint, until `tx` ends.
 * @throws NotFoundError when the experiment's row is gone.
 */
export async function lockActiveRecalculation(
  tx: Prisma.TransactionClient,
  experimentId: number,
  fingerprint: string,
): Promise<ExperimentTimeseriesRecalculation | null> {
  await lockRow(tx, "experiments", experimentId);
  return findActiveRecalculation(tx, experimentId, fingerprint);
}

/** Deletes the stored days of one metric (`metricUuid` and `fingerprint`) of experiment `experimentId`. */
export async function deleteStoredDays(
  tx: Prisma.TransactionClient,
  experimentId: number,
  metric: { metricUuid: string; fingerprint: string },
): Promise<void> {
  await tx.experimentMetricResult.deleteMany({
    where: { experimentId, metricUuid: metric.metricUuid, fingerprint: metric.fingerprint },
  });
}

/** Inserts a `pending` recalculation request with `request`'s fields. Returns its row as written. */
export function insertRecalculation(
  tx: Prisma.TransactionClient,
  request: NewRecalculation,
): Promise<ExperimentTimeseriesRecalculation> {
  return tx.experimentTimeseriesRecalculation.create({
    data: {
      projectId: request.projectId,
      experimentId: request.experimentId,
      metric: request.metric as Prisma.InputJsonValue,
      metricUuid: request.metricUuid,
      fingerprint: request.fingerprint,
      status: "pending",
      createdAt: request.createdAt,
      updatedAt: request.updatedAt,
    },
  });
}

/** The ids of every project's pending or in_progress requests (those to queue again), in no order. */
export async function selectActiveRecalculationIds(db: Db): Promise<string[]> {
  const active = await db.experimentTimeseriesRecalculation.findMany({
    where: { status: { in: ACTIVE_STATUSES } },
    select: { id: true },
  });
  return active.map((row) => row.id);
}

/**
 * Request `recalculationId` while pending or in_progress, with its experiment (the flag's key and
 * filters) and project; null when it is done or gone. One read.
 */
export function findRunnableRecalculation(db: Db, recalculationId: string): Promise<RecalculationRun | null> {
  return db.experimentTimeseriesRecalculation.findFirst({
    where: { id: recalculationId, status: { in: ACTIVE_STATUSES } },
    include: RUN_INCLUDE,
  });
}

/** Marks request `id` `in_progress`, updated at `now`. */
export async function markRecalculationRunning(db: Db, id: string, now: Date): Promise<void> {
  await db.experimentTimeseriesRecalculation.update({
    where: { id },
    data: { status: "in_progress", updatedAt: now },
  });
}

/** Ends request `id` as `status` with `errorMessage` (null: none), updated at `now`. */
export async function finishRecalculation(
  db: Db,
  id: string,
  status: "completed" | "failed",
  errorMessage: string | null,
  now: Date,
): Promise<void> {
  await db.experimentTimeseriesRecalculation.update({
    where: { id },
    data: { status, errorMessage, updatedAt: now },
  });
}

/** The unique key of `day`'s row: experiment, metric uuid, fingerprint and `query_to`. */
function dayKey(day: MetricDay): Prisma.ExperimentMetricResultWhereUniqueInput {
  return {
    experimentId_metricUuid_fingerprint_queryTo: {
      experimentId: day.experimentId,
      metricUuid: day.metricUuid,
      fingerprint: day.fingerprint,
      queryTo: day.queryTo,
    },
  };
}

/** The columns of `day`'s row a new row takes beside its outcome. */
function dayColumns(day: MetricDay) {
  return {
    projectId: day.projectId,
    experimentId: day.experimentId,
    metricUuid: day.metricUuid,
    fingerprint: day.fingerprint,
    queryFrom: day.queryFrom,
    queryTo: day.queryTo,
  };
}

/**
 * Stores `day` as `completed` with `result` (an ExperimentQueryResponse, stored as its JSON form)
 * and `completed_at` = `updated_at` = `now`, inserted or written over the day's row. One statement.
 * @throws TypeError or SyntaxError when `result` has no JSON form (a bigint, undefined).
 */
export async function writeCompletedDay(db: Db, day: MetricDay, result: unknown, now: Date): Promise<void> {
  const fields = {
    status: "completed",
    result: JSON.parse(JSON.stringify(result)) as Prisma.InputJsonValue,
    errorMessage: null,
    completedAt: now,
    updatedAt: now,
  };
  await db.experimentMetricResult.upsert({
    where: dayKey(day),
    create: { ...dayColumns(day), ...fields },
    update: fields,
  });
}

/**
 * Stores `day` as `failed` with `errorMessage` (no result, no `completed_at`), updated at `now`,
 * inserted or written over the day's row. One statement.
 */
export async function writeFailedDay(db: Db, day: MetricDay, errorMessage: string, now: Date): Promise<void> {
  const fields = {
    status: "failed",
    result: Prisma.DbNull,
    errorMessage,
    completedAt: null,
    updatedAt: now,
  };
  await db.experimentMetricResult.upsert({
    where: dayKey(day),
    create: { ...dayColumns(day), ...fields },
    update: fields,
  });
}
