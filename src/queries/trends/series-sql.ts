/**
 * One statement per series and period: the series' matching events (`m`), bucketed, optionally
 * broken down with the top values ranked in the same statement, aggregated by its math.
 *
 * Invariants: the project guard (`e.project_id = $project`, and the person join on the same
 * project) is on every table read; every value (event name, property keys, bounds, bucket starts,
 * limits) is a bound parameter; the only raw text is fixed SQL of this module.
 *
 * Shapes (query-and-experiments.md 1d and its PG hints):
 * - buckets: `width_bucket(e.timestamp, <bucket starts>)`, the starts computed in the project zone
 *   (buckets.ts), so every bucket is a local day/week/month even across DST; empty buckets are
 *   zero-filled by the caller from the bucket list;
 * - weekly/monthly active: each bucket joins the events of the 7/30 days ending with it;
 * - total-value displays: one group over the whole range (active users: the window ending at `date_to`);
 * - cumulative distinct math: each actor (session, group) counted in the bucket it first appears
 *   (the caller sums up);
 * - breakdowns: `v` is the text array of the breakdown values (missing or `''` →
 *   `$$_posthog_breakdown_null_$$`); the top `limit` values by the series' aggregate over the
 *   range (`DESC`, `ASC` for `min`; ties by value descending, breakdown_values.py) keep their value,
 *   every other row becomes `$$_posthog_breakdown_other_$$`.
 */
import type { DateTime } from "luxon";
import { Prisma } from "../../generated/prisma/client.js";
import { bucketEnd } from "./buckets.js";
import { type DateRange, startOfInterval } from "./date-range.js";
import { aggregate, isActorMath, isDistinctMath, mathColumns } from "./math.js";
import type { Breakdown, Interval, TrendsSeries } from "./trends-query.schema.js";

/** PostHog's value for rows outside the top breakdown values. */
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";
/** PostHog's value for rows without a breakdown value. */
export const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";

/** How a series is aggregated over a range. */
export type SeriesShape = "buckets" | "total" | "cumulative-distinct";

/** What one series statement needs. */
export interface SeriesStatement {
  projectId: number;
  series: TrendsSeries;
  range: DateRange;
  buckets: DateTime[];
  shape: SeriesShape;
  /** The series' and the query's filters, translated (TRUE when none). */
  where: Prisma.Sql;
  /** Join the event's person (`p`): person filters, breakdowns or math properties. */
  joinPerson: boolean;
  breakdowns: Breakdown[];
  breakdownLimit: number;
}

/** A row of a series statement: bucket (1-based; null for totals), breakdown values, aggregate. */
export interface SeriesRow {
  b: number | null;
  v: string[] | null;
  value: number | string | bigint;
}

const iso = (dt: DateTime) => dt.toISO()!;

/** Days in the active-users window of a math for an interval; null when it is plain distinct actors. */
export function activeWindowDays(math: TrendsSeries["math"], interval: Interval): number | null {
  if (math === "weekly_active") return interval === "week" || interval === "month" ? null : 7;
  if (math === "monthly_active") return interval === "month" ? null : 30;
  return null;
}

/**
 * The breakdown values of an event row: each property's text, `1`/`0` read as `true`/`false` when
 * the project's property definition says Boolean (PostHog's `_is_breakdown_field_boolean`; the
 * lookup is uncorrelated, so PostgreSQL runs it once per statement), missing or `''` as the null value.
 */
function breakdownValues(projectId: number, breakdowns: Breakdown[]): Prisma.Sql {
  const items = breakdowns.map((b) => {
    const column = b.type === "person" ? Prisma.sql`p.properties` : Prisma.sql`e.properties`;
    const text = Prisma.sql`(${column} ->> ${b.property}::text)`;
    const definitionType = b.type === "person" ? 2 : 1;
    const boolean = Prisma.sql`EXISTS (SELECT 1 FROM property_definitions d
      WHERE d.project_id = ${projectId}::int AND d.name = ${b.property}::text
        AND d.type = ${definitionType}::smallint AND d.property_type = 'Boolean')`;
    const value = Prisma.sql`CASE WHEN ${boolean} AND ${text} IN ('1', '0')
      THEN (CASE ${text} WHEN '1' THEN 'true' ELSE 'false' END) ELSE ${text} END`;
    return Prisma.sql`COALESCE(NULLIF(${value}, ''), ${BREAKDOWN_NULL}::text)`;
  });
  return Prisma.sql`ARRAY[${Prisma.join(items)}]::text[]`;
}

/** The statement of one series over one range. */
export function seriesStatement(s: SeriesStatement): Prisma.Sql {
  const { series, range } = s;
  const windowDays = activeWindowDays(series.math, range.interval);
  const extendedLower = windowDays === null ? range.lower : range.lower.minus({ days: windowDays });
  const starts = s.buckets.map(iso);
  const columns: Prisma.Sql[] = [
    Prisma.sql`e.timestamp AS ts`,
    Prisma.sql`width_bucket(e.timestamp, ${starts}::timestamptz[]) AS b`,
    ...mathColumns(series),
  ];
  const broken = s.breakdowns.length > 0;
  if (broken) columns.push(Prisma.sql`${breakdownValues(s.projectId, s.breakdowns)} AS v`);
  else columns.push(Prisma.sql`NULL::text[] AS v`);
  const join = s.joinPerson
    ? Prisma.sql`LEFT JOIN persons p ON p.project_id = e.project_id AND p.uuid = e.person_id`
    : Prisma.empty;
  const event = series.event === null ? Prisma.empty : Prisma.sql`AND e.event = ${series.event}::text`;
  const matched = Prisma.sql`SELECT ${Prisma.join(columns)}
    FROM events e ${join}
    WHERE e.project_id = ${s.projectId}::int ${event}
      AND e.timestamp >= ${iso(extendedLower)}::timestamptz AND e.timestamp <= ${iso(range.upper)}::timestamptz
      AND ${s.where}`;

  const agg = aggregate(series.math);
  const inRange =
    windowDays === null ? Prisma.sql`TRUE` : Prisma.sql`m.ts >= ${iso(range.lower)}::timestamptz`;
  const direction = series.math === "min" ? Prisma.raw("ASC") : Prisma.raw("DESC");
  const top = broken
    ? Prisma.sql`, top AS (SELECT m.v FROM m WHERE ${inRange} GROUP BY m.v
        ORDER BY ${agg} ${direction}, m.v DESC LIMIT ${s.breakdownLimit}::int)`
    : Prisma.empty;
  const value = (rows: string) =>
    broken
      ? Prisma.sql`CASE WHEN ${Prisma.raw(rows)}.v IN (SELECT top.v FROM top) THEN ${Prisma.raw(rows)}.v
          ELSE ${s.breakdowns.map(() => BREAKDOWN_OTHER)}::text[] END`
      : Prisma.sql`NULL::text[]`;

  if (s.shape === "total") {
    if (windowDays !== null) {
      const windowStart = iso(range.upper.plus({ milliseconds: 1 }).minus({ days: windowDays }));
      return Prisma.sql`WITH m AS (${matched}) ${top}
        SELECT NULL::int AS b, ${value("m")} AS v, ${agg} AS value FROM m
        WHERE m.ts >= ${windowStart}::timestamptz GROUP BY 2`;
    }
    return Prisma.sql`WITH m AS (${matched}) ${top}
      SELECT NULL::int AS b, ${value("m")} AS v, ${agg} AS value FROM m GROUP BY 2`;
  }
  if (s.shape === "cumulative-distinct" && isDistinctMath(series.math)) {
    return Prisma.sql`WITH m AS (${matched}) ${top},
      firsts AS (SELECT ${value("m")} AS v, m.a, min(m.b) AS b FROM m
        WHERE m.a IS NOT NULL AND ${inRange} GROUP BY 1, 2)
      SELECT firsts.b, firsts.v, count(*) AS value FROM firsts GROUP BY 1, 2`;
  }
  if (windowDays !== null && isActorMath(series.math)) {
    const ends = s.buckets.map((start) => bucketEnd(start, range.interval));
    const windowStarts = ends.map((end) => iso(end.minus({ days: windowDays })));
    // One row per actor, value and slot before the window join. Windows start and end on local day
    // starts (hour or minute starts for those intervals), so any time in a slot of that size falls
    // in the same windows as the slot's first.
    const slotUnit: Interval =
      range.interval === "hour" || range.interval === "minute" ? range.interval : "day";
    const slots: string[] = [];
    for (let slot = startOfInterval(extendedLower, slotUnit); slot <= range.upper; ) {
      slots.push(iso(slot));
      slot = bucketEnd(slot, slotUnit);
    }
    return Prisma.sql`WITH m AS (${matched}) ${top},
      d AS (SELECT m.a, m.v, min(m.ts) AS ts FROM m
        GROUP BY m.a, m.v, width_bucket(m.ts, ${slots}::timestamptz[])),
      w AS (SELECT * FROM unnest(${windowStarts}::timestamptz[], ${ends.map(iso)}::timestamptz[])
        WITH ORDINALITY AS w(ws, we, b))
      SELECT w.b::int AS b, ${value("d")} AS v, count(DISTINCT d.a) AS value
      FROM w JOIN d ON d.ts >= w.ws AND d.ts < w.we GROUP BY 1, 2`;
  }
  return Prisma.sql`WITH m AS (${matched}) ${top}
    SELECT m.b, ${value("m")} AS v, ${agg} AS value FROM m GROUP BY 1, 2`;
}
