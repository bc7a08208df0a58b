/**
 * How experiments, holdouts and saved metrics are read: one Prisma read per page or record with the
 * flag (its minimal fields and evaluation tags), the holdout, the creator and the saved-metric links
 * included, and a page's total beside it.
 *
 * Invariant: every statement filters by `project_id`; values are bound parameters, never text.
 */

import { NotFoundError } from "../core/errors.js";
import { ownValue } from "../core/own-keys.js";
import { USER_BASIC_SELECT } from "../core/records.js";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { ExperimentListFilters } from "./experiments.schemas.js";

/** A database client or an interactive transaction's client. */
export type Db = Prisma.TransactionClient | PrismaClient;

/** What an experiment read includes. */
export const EXPERIMENT_INCLUDE = {
  featureFlag: {
    select: {
      id: true,
      projectId: true,
      key: true,
      name: true,
      filters: true,
      deleted: true,
      active: true,
      ensureExperienceContinuity: true,
      hasEncryptedPayloads: true,
      version: true,
      evaluationRuntime: true,
      bucketingIdentifier: true,
      evaluationTags: { select: { tag: { select: { name: true } } } },
    },
  },
  holdout: { include: { createdBy: { select: USER_BASIC_SELECT } } },
  createdBy: { select: USER_BASIC_SELECT },
  savedMetricLinks: { include: { savedMetric: true }, orderBy: { id: "asc" } },
} satisfies Prisma.ExperimentInclude;

/** An experiment as both doors show it. */
export type ExperimentRecord = Prisma.ExperimentGetPayload<{ include: typeof EXPERIMENT_INCLUDE }>;

/** A holdout with its creator. */
export type HoldoutRecord = Prisma.ExperimentHoldoutGetPayload<{
  include: { createdBy: { select: typeof USER_BASIC_SELECT } };
}>;

/** A saved metric with its creator. */
export type SavedMetricRecord = Prisma.ExperimentSavedMetricGetPayload<{
  include: { createdBy: { select: typeof USER_BASIC_SELECT } };
}>;

/** What a holdout or saved metric read includes. */
export const WITH_CREATOR = { createdBy: { select: USER_BASIC_SELECT } } as const;

/** One experiment of the project by id, deleted ones included; null when none. */
export function selectExperiment(db: Db, projectId: number, id: number): Promise<ExperimentRecord | null> {
  return db.experiment.findFirst({ where: { id, projectId }, include: EXPERIMENT_INCLUDE });
}

/** One experiment of the project by id, deleted ones included. @throws NotFoundError */
export async function readExperiment(db: Db, projectId: number, id: number): Promise<ExperimentRecord> {
  const experiment = await selectExperiment(db, projectId, id);
  if (!experiment) throw new NotFoundError();
  return experiment;
}

/** The experiments of the project among `ids` (deleted ones included), in no particular order. */
export function selectExperiments(
  db: Db,
  projectId: number,
  ids: readonly number[],
): Promise<ExperimentRecord[]> {
  return db.experiment.findMany({ where: { projectId, id: { in: [...ids] } }, include: EXPERIMENT_INCLUDE });
}

/** The list's `WHERE` (§5.2): not deleted, archived excluded unless asked, status, creator, name search. */
export function experimentListWhere(
  projectId: number,
  filters: ExperimentListFilters,
): Prisma.ExperimentWhereInput {
  const where: Prisma.ExperimentWhereInput = {
    projectId,
    deleted: false,
    archived: filters.archived ?? false,
  };
  if (filters.status === "draft") where.startDate = null;
  else if (filters.status === "running") Object.assign(where, { startDate: { not: null }, endDate: null });
  else if (filters.status === "complete") where.endDate = { not: null };
  if (filters.created_by_id !== undefined) where.createdById = filters.created_by_id;
  if (filters.search) where.name = { contains: filters.search, mode: "insensitive" };
  return where;
}

/** SQL of each accepted order (PostHog's `OrderingFilter` fields and its computed `duration`, `status`). */
const ORDER_SQL: Record<string, Prisma.Sql> = {
  id: Prisma.sql`x.id`,
  name: Prisma.sql`x.name`,
  created_at: Prisma.sql`x.created_at`,
  updated_at: Prisma.sql`x.updated_at`,
  start_date: Prisma.sql`x.start_date`,
  end_date: Prisma.sql`x.end_date`,
  // Running experiments last until now (PostHog annotates `duration` as `coalesce(end, now()) - start`).
  duration: Prisma.sql`(COALESCE(x.end_date, now()) - x.start_date)`,
  // draft (no start) < running (no end) < complete.
  status: Prisma.sql`(CASE WHEN x.start_date IS NULL THEN 0 WHEN x.end_date IS NULL THEN 1 ELSE 2 END)`,
};

/**
 * One page of the experiments matching `where`, in `order` (`-created_at` by default; an unknown
 * field is ignored, as DRF's OrderingFilter does), with the total.
 */
export async function selectExperimentPage(
  db: PrismaClient,
  projectId: number,
  where: Prisma.ExperimentWhereInput,
  order: string | undefined,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: ExperimentRecord[] }> {
  const count = await db.experiment.count({ where });
  const field = order?.replace(/^-/, "");
  const sql = field ? ownValue(ORDER_SQL, field) : undefined;
  if (!sql) {
    const results = await db.experiment.findMany({
      where,
      include: EXPERIMENT_INCLUDE,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.limit,
      skip: page.offset,
    });
    return { count, results };
  }
  const ids = await db.experiment.findMany({ where, select: { id: true } });
  if (ids.length === 0) return { count, results: [] };
  const direction = order!.startsWith("-") ? Prisma.sql`DESC NULLS LAST` : Prisma.sql`ASC NULLS LAST`;
  const ordered = await db.$queryRaw<Array<{ id: number }>>(Prisma.sql`SELECT x.id FROM experiments x
    WHERE x.project_id = ${projectId} AND x.id = ANY(${ids.map((r) => r.id)}::int[])
    ORDER BY ${sql} ${direction}, x.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  const rows = await db.experiment.findMany({
    where: { projectId, id: { in: ordered.map((r) => r.id) } },
    include: EXPERIMENT_INCLUDE,
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { count, results: ordered.map((r) => byId.get(r.id)!).filter(Boolean) };
}

/** The stored metrics of an experiment as PostgreSQL writes their JSON text (numbers as written: `1.0` stays). */
export async function selectMetricsText(
  db: Db,
  projectId: number,
  id: number,
): Promise<{ metrics: string | null; metricsSecondary: string | null }> {
  const [row] = await db.$queryRaw<Array<{ metrics: string | null; metricsSecondary: string | null }>>(
    Prisma.sql`SELECT metrics::text AS metrics, metrics_secondary::text AS "metricsSecondary"
      FROM experiments WHERE project_id = ${projectId} AND id = ${id}`,
  );
  return row ?? { metrics: null, metricsSecondary: null };
}

/** Experiments' velocity counts (`GET stats`, §5.5): launched in each 30-day window, running, completed. */
export interface ExperimentCounts {
  /** Launched in the last 30 days. */
  last: number;
  /** Launched in the 30 days before those. */
  previous: number;
  active: number;
  completed: number;
}

/**
 * The velocity counts of the project's non-deleted, non-archived experiments, over windows of 30
 * days ending at the start of `now`'s day in time zone `timezone` (day boundaries).
 */
export async function selectExperimentCounts(
  db: Db,
  projectId: number,
  timezone: string,
  now: Date,
): Promise<ExperimentCounts> {
  const [row] = await db.$queryRaw<ExperimentCounts[]>(Prisma.sql`WITH bounds AS (
      SELECT (date_trunc('day', ${now}::timestamptz AT TIME ZONE ${timezone}) AT TIME ZONE ${timezone}) AS today)
    SELECT
      count(*) FILTER (WHERE x.start_date >= b.today - interval '30 days')::int AS last,
      count(*) FILTER (WHERE x.start_date >= b.today - interval '60 days'
        AND x.start_date < b.today - interval '30 days')::int AS previous,
      count(*) FILTER (WHERE x.start_date IS NOT NULL AND x.end_date IS NULL)::int AS active,
      count(*) FILTER (WHERE x.end_date >= b.today - interval '30 days')::int AS completed
    FROM experiments x, bounds b
    WHERE x.project_id = ${projectId} AND NOT x.deleted AND NOT x.archived`);
  return row ?? { last: 0, previous: 0, active: 0, completed: 0 };
}

/**
 * Whether any of the latest `sample.limit` events of each name in `sample.events` between `from`
 * and `to` (inclusive) holds `$feature/` in its properties' JSON text (`requires_flag_warning`'s
 * test). One statement: per name, an index range scan of (project, event, timestamp).
 */
export async function sampleHasFeatureProperties(
  db: Pick<Prisma.TransactionClient, "$queryRaw">,
  projectId: number,
  sample: { events: string[]; limit: number },
  from: Date,
  to: Date,
): Promise<boolean> {
  const [row] = await db.$queryRaw<Array<{ found: boolean }>>`
    SELECT EXISTS (
      SELECT 1 FROM unnest(${sample.events}::text[]) AS n(name)
      CROSS JOIN LATERAL (
        SELECT e.properties FROM events e
        WHERE e.project_id = ${projectId} AND e.event = n.name
          AND e.timestamp >= ${from}::timestamptz AND e.timestamp <= ${to}::timestamptz
        ORDER BY e.timestamp DESC LIMIT ${sample.limit}
      ) s
      WHERE strpos(s.properties::text, '$feature/') > 0
    ) AS found`;
  return row?.found ?? false;
}
