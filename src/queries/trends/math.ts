/**
 * A series' `math` as SQL (PostHog's `aggregation_operations.py`; query-and-experiments.md 1d): the
 * per-row columns a math reads from an event (and its person), and the aggregate over the matched
 * rows `m` of one bucket.
 *
 * - `total`: `count(*)`.
 * - `dau`, `weekly_active`, `monthly_active`: distinct actors (`m.a`), the event's `person_id`
 *   (capture stores personless events under their distinct id's derived uuid, as PostHog does; an
 *   event without any falls back to its distinct id).
 *   The active-user windows (7 / 30 days ending with the bucket) are the caller's (series-sql.ts).
 * - `unique_session`: distinct `$session_id`, a missing one counting as the session `''` as in
 *   ClickHouse.
 * - `unique_group`: distinct non-empty `$group_<math_group_type_index>`.
 * - `sum`/`avg`/`min`/`max` and `median`/`p75`/`p90`/`p95`/`p99` of `math_property` read as a number
 *   (JSON numbers, and strings that parse as one, as ClickHouse's `toFloat`; anything else is
 *   ignored), 0 for a bucket without any. Percentiles interpolate (`percentile_cont`; ClickHouse's
 *   `quantile` is approximate).
 */
import { Prisma } from "../../generated/prisma/client.js";
import { PROPERTY_MATH, type TrendsMath, type TrendsSeries } from "./trends-query.schema.js";

/** Text that Python's `float()` reads (what a numeric property string may look like). */
const NUMBER_TEXT = "^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$";

const PERCENTILES: Partial<Record<TrendsMath, number>> = {
  median: 0.5,
  p75: 0.75,
  p90: 0.9,
  p95: 0.95,
  p99: 0.99,
};

/** True for math counting distinct actors. */
export function isActorMath(math: TrendsMath): boolean {
  return math === "dau" || math === "weekly_active" || math === "monthly_active";
}

/** True for math counting distinct things (actors, sessions, groups): cumulative counts first sightings. */
export function isDistinctMath(math: TrendsMath): boolean {
  return isActorMath(math) || math === "unique_session" || math === "unique_group";
}

/** The JSON value of `key` in a properties column, as a float8, NULL when it is not a number. */
export function numericProperty(column: Prisma.Sql, key: string): Prisma.Sql {
  const json = Prisma.sql`(${column} -> ${key}::text)`;
  return Prisma.sql`(CASE jsonb_typeof(${json})
    WHEN 'number' THEN (${json})::float8
    WHEN 'string' THEN CASE WHEN (${json} #>> '{}') ~ ${NUMBER_TEXT} THEN (${json} #>> '{}')::float8 END
    END)`;
}

/** The columns of `m` a math reads, as `<expr> AS <name>` items (the alias `e` is the event, `p` its person). */
export function mathColumns(series: TrendsSeries): Prisma.Sql[] {
  const columns: Prisma.Sql[] = [];
  if (isActorMath(series.math)) {
    columns.push(Prisma.sql`COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id) AS a`);
  }
  if (series.math === "unique_session") {
    columns.push(Prisma.sql`COALESCE(e.properties ->> '$session_id', '') AS a`);
  }
  if (series.math === "unique_group") {
    const key = `$group_${series.mathGroupTypeIndex ?? 0}`;
    columns.push(Prisma.sql`NULLIF(e.properties ->> ${key}::text, '') AS a`);
  }
  if (series.mathProperty !== null && PROPERTY_MATH.has(series.math)) {
    const properties =
      series.mathPropertyType === "person" ? Prisma.sql`p.properties` : Prisma.sql`e.properties`;
    columns.push(Prisma.sql`${numericProperty(properties, series.mathProperty)} AS n`);
  }
  return columns;
}

/** The aggregate of one bucket's rows of `m` (0 when a property math has no number in it). */
export function aggregate(math: TrendsMath): Prisma.Sql {
  const quantile = PERCENTILES[math];
  if (quantile !== undefined) {
    return Prisma.sql`COALESCE(percentile_cont(${quantile}::float8) WITHIN GROUP (ORDER BY m.n), 0)::float8`;
  }
  switch (math) {
    case "total":
      return Prisma.sql`count(*)`;
    case "sum":
      return Prisma.sql`COALESCE(sum(m.n), 0)::float8`;
    case "avg":
      return Prisma.sql`COALESCE(avg(m.n), 0)::float8`;
    case "min":
      return Prisma.sql`COALESCE(min(m.n), 0)::float8`;
    case "max":
      return Prisma.sql`COALESCE(max(m.n), 0)::float8`;
    default:
      return Prisma.sql`count(DISTINCT m.a)`;
  }
}
