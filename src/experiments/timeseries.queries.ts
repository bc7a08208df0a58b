/**
 * How experiment timeseries are read: the read model of `timeseries_results` (the experiment's dates,
 * its days in the project's time zone, the active recalculation request, the stored days of one
 * metric). Writes, and the reads a write decides from, are timeseries.store.ts's.
 *
 * Invariant: every statement filters by `project_id` or by an experiment id read under it; values
 * are bound parameters, never text.
 */
import { type ExperimentTimeseriesRecalculation, Prisma } from "../generated/prisma/client.js";
import type { Db } from "./experiments.queries.js";

/** The statuses of a recalculation request still to run or running (at most one per experiment and fingerprint). */
export const ACTIVE_STATUSES = ["pending", "in_progress"];

/** The dates of an experiment a timeseries answer needs. */
export interface ExperimentSpan {
  id: number;
  startDate: Date | null;
  endDate: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One stored day of a metric's timeseries, keyed by its day in the project's time zone. */
export interface StoredDay {
  /** `YYYY-MM-DD`: the day whose end (exclusive) is the row's `query_to`. */
  day: string;
  /** pending, completed, failed. */
  status: string;
  /** The day's ExperimentQueryResponse (completed days), else null. */
  result: unknown;
  errorMessage: string | null;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Every day from `start`'s day to `end`'s day (both included) in time zone `timezone`, in order:
 * `day` as `YYYY-MM-DD`, and `queryTo` the instant the day ends (exclusive, the next day's start in
 * `timezone`). One statement (no table read).
 */
export function selectExperimentDays(
  db: Pick<Prisma.TransactionClient, "$queryRaw">,
  timezone: string,
  start: Date,
  end: Date,
): Promise<Array<{ day: string; queryTo: Date }>> {
  return db.$queryRaw<Array<{ day: string; queryTo: Date }>>(Prisma.sql`
    SELECT to_char(d, 'YYYY-MM-DD') AS day, ((d + interval '1 day') AT TIME ZONE ${timezone}) AS "queryTo"
    FROM generate_series(
      date_trunc('day', ${start}::timestamptz AT TIME ZONE ${timezone}),
      date_trunc('day', ${end}::timestamptz AT TIME ZONE ${timezone}),
      interval '1 day') AS d
    ORDER BY d`);
}

/** Experiment `id` of the project (deleted ones included) with its dates, or null when it has none such. */
export function findExperimentSpan(db: Db, projectId: number, id: number): Promise<ExperimentSpan | null> {
  return db.experiment.findFirst({
    where: { id, projectId },
    select: { id: true, startDate: true, endDate: true, createdAt: true, updatedAt: true },
  });
}

/**
 * The oldest pending or in_progress recalculation request of experiment `experimentId` for
 * `fingerprint`, or null when none is active. `db`: the client or a transaction's.
 */
export function findActiveRecalculation(
  db: Db,
  experimentId: number,
  fingerprint: string,
): Promise<ExperimentTimeseriesRecalculation | null> {
  return db.experimentTimeseriesRecalculation.findFirst({
    where: { experimentId, fingerprint, status: { in: ACTIVE_STATUSES } },
    orderBy: { createdAt: "asc" },
  });
}

/**
 * The stored days of one metric (`metricUuid` and `fingerprint`) of experiment `experimentId`, each
 * keyed by its day in time zone `timezone`, by `query_to` (then id). One statement.
 */
export function selectStoredDays(
  db: Pick<Prisma.TransactionClient, "$queryRaw">,
  projectId: number,
  experimentId: number,
  metric: { metricUuid: string; fingerprint: string },
  timezone: string,
): Promise<StoredDay[]> {
  return db.$queryRaw<StoredDay[]>(Prisma.sql`
    SELECT to_char((query_to - interval '1 microsecond') AT TIME ZONE ${timezone}, 'YYYY-MM-DD') AS day,
      status, result, error_message AS "errorMessage", completed_at AS "completedAt",
      created_at AS "createdAt", updated_at AS "updatedAt"
    FROM experiment_metric_results
    WHERE project_id = ${projectId} AND experiment_id = ${experimentId}
      AND metric_uuid = ${metric.metricUuid} AND fingerprint = ${metric.fingerprint}
    ORDER BY query_to, id`);
}
