/**
 * Trends on the ClickHouse analytics store (issue 30): the statement of one series over one period
 * (`clickHouseSeriesStatement`), the ClickHouse twin of ./series-sql.ts's (read that module for the
 * shapes: buckets, weekly/monthly active windows, totals, cumulative distinct, breakdowns with the
 * top values and Other), and the store running it (`clickHouseTrendsStore`, ./store.ts). PostHog's
 * own: posthog/hogql_queries/insights/trends/trends_query_builder.py, aggregation_operations.py,
 * breakdown.py.
 *
 * Reads and guards:
 * - `events AS e FINAL` (a resent uuid counts once) with `e.team_id = {p:Int64}`; each event's
 *   current person is its distinct id's latest `person_distinct_id2` row unless that row deletes it
 *   (`argMax(.., version)`), else the `person_id` stored at capture, as PostHog's overrides
 *   (posthog/hogql/database/schema/person_distinct_id_overrides.py); the person's properties are
 *   its latest `person` row (`argMax(properties, version)`), not deleted. Both subqueries are
 *   bounded by the same project.
 * - Every value (project, event, keys, bounds, bucket starts, timezone, limit, the null/Other
 *   values) is a typed parameter (src/lib/hogql/clickhouse/params.ts); raw text is fixed SQL of this
 *   module. Internal columns are named apart from every table column (`ts`, `bucket`, `actor`,
 *   `num`, `bd`), so ClickHouse's aliases, visible in WHERE and GROUP BY, shadow nothing.
 *
 * Buckets match PostgreSQL's `width_bucket(ts, starts)` exactly: the starts are the same JS
 * bucket starts (./buckets.ts, project zone, DST) bound as microseconds; an event's bucket is the
 * index of its own interval start (`toStartOfDay(ts, zone)`, `toStartOfWeek(ts, 0, zone)`, ...)
 * among them (`transform`, a hash lookup), checked against the starts, and counted
 * (`arrayCount(s <= ts)`) only where that check fails (zones whose midnight can be skipped, a
 * timezone database differing from luxon's).
 *
 * Math as ./math.ts: `count()`, `count(DISTINCT ...)` (ClickHouse's exact `uniqExact`), sum/avg/
 * min/max of the property as a Float64 (JSON numbers, strings Python's `float()` reads), 0 without
 * any; percentiles by `quantileExactInclusive`, which interpolates as PostgreSQL's
 * `percentile_cont` (PostHog's own ClickHouse uses the approximate `quantile`).
 *
 * Refused (NotImplementedError, 501, naming ClickHouse): filters reaching a static cohort, whose
 * members are kept in PostgreSQL only (nothing mirrors them into `person_static_cohort` yet).
 *
 * Intended differences from PostgreSQL (outside the shared cases' reach unless said; the cases:
 * test/queries/trends/vectors.ts):
 * 1. A number property's text (breakdown values, filters) is ClickHouse's shortest double (`1e21`)
 *    where PostgreSQL writes jsonb's digits; objects' text is compact JSON (../../lib/property-filters/
 *    to-clickhouse.ts difference 3).
 * 2. Breakdown ties (equal aggregates at the limit) keep the greatest values by byte order; PostgreSQL
 *    orders text by the database collation (alike for ASCII letters of one case and digits).
 * 3. Regex filters are re2 (to-clickhouse.ts difference 1), refused up front when re2 cannot compile
 *    them.
 * 4. The static cohort refusal above (a shared case).
 * Persons: PostgreSQL reads the event's `person_id` as capture rewrites it on merges, ClickHouse the
 * distinct id's current person: the same person once a merge is mirrored (a shared case merges two).
 */
import type { DateTime } from "luxon";
import type { ClickHouseClient } from "../../analytics/clickhouse/client.js";
import { readClickHouse } from "../../analytics/clickhouse/query.js";
import { NotImplementedError } from "../../core/errors.js";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";
import { param } from "../../lib/hogql/clickhouse/params.js";
import { checkClickHouseRegexPatterns, toClickHouse } from "../../lib/property-filters/to-clickhouse.js";
import { bucketEnd } from "./buckets.js";
import { startOfInterval } from "./date-range.js";
import { isActorMath, isDistinctMath } from "./math.js";
import {
  activeWindowDays,
  BREAKDOWN_NULL,
  BREAKDOWN_OTHER,
  type SeriesRow,
  type SeriesStatement,
} from "./series-sql.js";
import type { TrendsStore } from "./store.js";
import {
  type Breakdown,
  type Interval,
  PROPERTY_MATH,
  type TrendsMath,
  type TrendsSeries,
} from "./trends-query.schema.js";

const sql = Prisma.sql;
const raw = Prisma.raw;

/** `DateTime64(6, 'UTC')` text of an instant. */
const dateTime64 = (dt: DateTime) => dt.toUTC().toFormat("yyyy-LL-dd HH:mm:ss.SSS");
/** Microseconds since 1970 of an instant (exact: below 2^53 until year 2255). */
const micros = (dt: DateTime) => dt.toMillis() * 1000;
const instant = (dt: DateTime) => param(dateTime64(dt), "DateTime64(6, 'UTC')");

/** Text that Python's `float()` reads (./math.ts `NUMBER_TEXT`), in re2 syntax. */
const NUMBER_TEXT = "^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$";

/** The quantile of each percentile math, fixed SQL of this module (a parametric function's level). */
const PERCENTILES: Partial<Record<TrendsMath, string>> = {
  median: "0.5",
  p75: "0.75",
  p90: "0.9",
  p95: "0.95",
  p99: "0.99",
};

/** `->>`'s text of a property of a JSON text column: a string unescaped, else its JSON, NULL when missing or null. */
function propertyText(column: Prisma.Sql, key: string): Prisma.Sql {
  const k = param(key, "String");
  const type = sql`JSONType(${column}, ${k})`;
  return sql`multiIf(${type} = 'Null', NULL, ${type} = 'String', JSONExtractString(${column}, ${k}), JSONExtractRaw(${column}, ${k}))`;
}

/** A property as a Float64 (./math.ts `numericProperty`): JSON numbers, and strings Python's `float()` reads; else NULL. */
function numericProperty(column: Prisma.Sql, key: string): Prisma.Sql {
  const k = param(key, "String");
  const type = sql`JSONType(${column}, ${k})`;
  const text = sql`JSONExtractString(${column}, ${k})`;
  return sql`multiIf(${type} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${column}, ${k}),
    ${type} = 'String' AND match(${text}, ${param(NUMBER_TEXT, "String")}), toFloat64OrNull(trimBoth(${text})),
    CAST(NULL AS Nullable(Float64)))`;
}

/** The interval start (Unix seconds) of `ts` in `zone`, as ClickHouse's calendar computes it. */
function intervalStart(ts: Prisma.Sql, interval: Interval, zone: Prisma.Sql): Prisma.Sql {
  switch (interval) {
    case "minute":
      return sql`toUnixTimestamp(toStartOfMinute(${ts}))`;
    case "hour":
      return sql`toUnixTimestamp(toStartOfHour(${ts}, ${zone}))`;
    case "day":
      return sql`toUnixTimestamp(toStartOfDay(${ts}, ${zone}))`;
    case "week":
      return sql`toUnixTimestamp(toDateTime(toStartOfWeek(${ts}, 0, ${zone}), ${zone}))`;
    case "month":
      return sql`toUnixTimestamp(toDateTime(toStartOfMonth(${ts}, ${zone}), ${zone}))`;
  }
}

/**
 * PostgreSQL's `width_bucket(ts, starts)` of a DateTime64 `ts` over the sorted `starts` (each an
 * `interval` start in `zone`): 0 before the first, n from the last on, else the 1-based index of
 * the start at or before `ts` (see the module comment).
 */
export function widthBucket(
  ts: Prisma.Sql,
  starts: DateTime[],
  interval: Interval,
  zone: string,
): Prisma.Sql {
  const us = sql`toUnixTimestamp64Micro(${ts})`;
  const list = starts.map(micros);
  const s = param(list, "Array(Int64)");
  const n = list.length;
  const candidate = sql`toInt64(${intervalStart(ts, interval, param(zone, "String"))}) * 1000000`;
  const k = sql`transform(${candidate}, ${s}, ${param(
    list.map((_, i) => i + 1),
    "Array(Int64)",
  )}, toInt64(0))`;
  return sql`multiIf(${us} < ${param(list[0] ?? 0, "Int64")}, 0, ${us} >= ${param(list[n - 1] ?? 0, "Int64")}, ${param(n, "Int64")},
    ${k} > 0 AND ${us} >= ${s}[${k}] AND ${us} < ${s}[${k} + 1], ${k},
    toInt64(arrayCount(x -> x <= ${us}, ${s})))`;
}

/** The columns of `m` a math reads (./math.ts `mathColumns`): `actor`, `num`. */
function mathColumns(series: TrendsSeries, person: Prisma.Sql): Prisma.Sql[] {
  const columns: Prisma.Sql[] = [];
  if (isActorMath(series.math)) {
    columns.push(sql`ifNull(toString(${person}), concat('distinct_id:', e.distinct_id)) AS actor`);
  }
  if (series.math === "unique_session") {
    columns.push(sql`ifNull(${propertyText(sql`e.properties`, "$session_id")}, '') AS actor`);
  }
  if (series.math === "unique_group") {
    const key = `$group_${series.mathGroupTypeIndex ?? 0}`;
    columns.push(sql`nullIf(${propertyText(sql`e.properties`, key)}, '') AS actor`);
  }
  if (series.mathProperty !== null && PROPERTY_MATH.has(series.math)) {
    const properties = series.mathPropertyType === "person" ? sql`p.properties` : sql`e.properties`;
    columns.push(sql`${numericProperty(properties, series.mathProperty)} AS num`);
  }
  return columns;
}

/** The aggregate of one group of `rows` (./math.ts `aggregate`), a number (0 without any). */
function aggregate(math: TrendsMath, rows: string): Prisma.Sql {
  const r = raw(rows);
  const quantile = PERCENTILES[math];
  if (quantile !== undefined) {
    return sql`ifNull(quantileExactInclusive(${raw(quantile)})(${r}.num), 0)`;
  }
  switch (math) {
    case "total":
      return sql`count()`;
    case "sum":
      return sql`ifNull(sum(${r}.num), 0)`;
    case "avg":
      return sql`ifNull(avg(${r}.num), 0)`;
    case "min":
      return sql`ifNull(min(${r}.num), 0)`;
    case "max":
      return sql`ifNull(max(${r}.num), 0)`;
    default:
      return sql`count(DISTINCT ${r}.actor)`;
  }
}

/**
 * The breakdown values of an event row (./series-sql.ts `breakdownValues`): each property's text,
 * `1`/`0` as `true`/`false` for the properties in `booleans` (`event:<name>`/`person:<name>`, the
 * project's Boolean property definitions, read from PostgreSQL before the statement), missing or
 * `''` as the null value.
 */
function breakdownValues(breakdowns: Breakdown[], booleans: ReadonlySet<string>): Prisma.Sql {
  const items = breakdowns.map((b) => {
    const column = b.type === "person" ? sql`p.properties` : sql`e.properties`;
    const text = propertyText(column, b.property);
    const value = booleans.has(`${b.type}:${b.property}`)
      ? sql`multiIf(${text} = '1', 'true', ${text} = '0', 'false', ${text})`
      : text;
    return sql`ifNull(nullIf(${value}, ''), ${param(BREAKDOWN_NULL, "String")})`;
  });
  return sql`[${Prisma.join(items)}]`;
}

/**
 * What one ClickHouse series statement needs: PostgreSQL's (./series-sql.ts `SeriesStatement`, its
 * filters translated by `toClickHouse` over `e` and `p`), with the project's IANA timezone (the zone
 * the buckets were computed in) and the breakdown properties read as Boolean (`event:<name>`,
 * `person:<name>`).
 */
export interface ClickHouseSeriesStatement extends SeriesStatement {
  timezone: string;
  booleans: ReadonlySet<string>;
}

/**
 * The ClickHouse statement of one series over one range (the module comment); its rows are
 * `{b, v, value}` as ./series-sql.ts's, `v` an empty array without breakdowns.
 */
export function clickHouseSeriesStatement(s: ClickHouseSeriesStatement): Prisma.Sql {
  const { series, range } = s;
  const project = param(s.projectId, "Int64");
  const windowDays = activeWindowDays(series.math, range.interval);
  const extendedLower = windowDays === null ? range.lower : range.lower.minus({ days: windowDays });
  const actorMath = isActorMath(series.math);
  const joinPdi = s.joinPerson || actorMath;
  const person = sql`ifNull(pdi.person_id, e.person_id)`;
  const columns: Prisma.Sql[] = [
    sql`e.timestamp AS ts`,
    sql`${widthBucket(sql`e.timestamp`, s.buckets, range.interval, s.timezone)} AS bucket`,
    ...mathColumns(series, person),
  ];
  const broken = s.breakdowns.length > 0;
  columns.push(
    broken ? sql`${breakdownValues(s.breakdowns, s.booleans)} AS bd` : sql`CAST([], 'Array(String)') AS bd`,
  );
  const pdi = joinPdi
    ? sql`LEFT JOIN (SELECT d.distinct_id AS distinct_id, toNullable(argMax(d.person_id, d.version)) AS person_id
        FROM person_distinct_id2 AS d WHERE d.team_id = ${project}
        GROUP BY d.distinct_id HAVING argMax(d.is_deleted, d.version) = 0) AS pdi ON pdi.distinct_id = e.distinct_id`
    : Prisma.empty;
  const personJoin = s.joinPerson
    ? sql`LEFT JOIN (SELECT pp.id AS id, argMax(pp.properties, pp.version) AS properties
        FROM person AS pp WHERE pp.team_id = ${project}
        GROUP BY pp.id HAVING argMax(pp.is_deleted, pp.version) = 0) AS p ON p.id = ${person}`
    : Prisma.empty;
  const event = series.event === null ? Prisma.empty : sql`AND e.event = ${param(series.event, "String")}`;
  const matched = sql`SELECT ${Prisma.join(columns)}
    FROM events AS e FINAL ${pdi} ${personJoin}
    WHERE e.team_id = ${project} ${event}
      AND e.timestamp >= ${instant(extendedLower)} AND e.timestamp <= ${instant(range.upper)}
      AND ${s.where}`;

  const inRange = windowDays === null ? sql`true` : sql`m.ts >= ${instant(range.lower)}`;
  const direction = raw(series.math === "min" ? "ASC" : "DESC");
  const top = broken
    ? sql`, top AS (SELECT m.bd AS top_bd FROM m WHERE ${inRange} GROUP BY m.bd
        ORDER BY ${aggregate(series.math, "m")} ${direction}, m.bd DESC LIMIT ${param(s.breakdownLimit, "Int64")})`
    : Prisma.empty;
  const other = param(
    s.breakdowns.map(() => BREAKDOWN_OTHER),
    "Array(String)",
  );
  const value = (column: string) =>
    broken ? sql`if(${raw(column)} IN (SELECT top_bd FROM top), ${raw(column)}, ${other})` : raw(column);

  if (s.shape === "total") {
    const windowed =
      windowDays === null
        ? Prisma.empty
        : sql`WHERE m.ts >= ${instant(range.upper.plus({ milliseconds: 1 }).minus({ days: windowDays }))}`;
    return sql`WITH m AS (${matched}) ${top}
      SELECT CAST(NULL, 'Nullable(Int64)') AS b, ${value("m.bd")} AS v, ${aggregate(series.math, "m")} AS value
      FROM m ${windowed} GROUP BY v`;
  }
  if (s.shape === "cumulative-distinct" && isDistinctMath(series.math)) {
    return sql`WITH m AS (${matched}) ${top},
      firsts AS (SELECT ${value("m.bd")} AS first_bd, m.actor AS first_actor, min(m.bucket) AS first_bucket FROM m
        WHERE m.actor IS NOT NULL AND ${inRange} GROUP BY first_bd, first_actor)
      SELECT firsts.first_bucket AS b, firsts.first_bd AS v, count() AS value FROM firsts GROUP BY b, v`;
  }
  if (windowDays !== null && actorMath) {
    const ends = s.buckets.map((start) => bucketEnd(start, range.interval));
    const slotUnit: Interval =
      range.interval === "hour" || range.interval === "minute" ? range.interval : "day";
    const slots: DateTime[] = [];
    for (let slot = startOfInterval(extendedLower, slotUnit); slot <= range.upper; ) {
      slots.push(slot);
      slot = bucketEnd(slot, slotUnit);
    }
    const windowStarts = param(
      ends.map((end) => micros(end.minus({ days: windowDays }))),
      "Array(Int64)",
    );
    const windowEnds = param(ends.map(micros), "Array(Int64)");
    // One row per actor, value and slot (./series-sql.ts), then each in every window holding it.
    return sql`WITH m AS (${matched}) ${top},
      d AS (SELECT m.actor AS d_actor, m.bd AS d_bd, toUnixTimestamp64Micro(min(m.ts)) AS d_us FROM m
        GROUP BY d_actor, d_bd, ${widthBucket(sql`m.ts`, slots, slotUnit, s.timezone)})
      SELECT w AS b, ${value("d.d_bd")} AS v, count(DISTINCT d.d_actor) AS value
      FROM d ARRAY JOIN arrayFilter(i -> ${windowStarts}[i] <= d.d_us AND d.d_us < ${windowEnds}[i],
        range(1, ${param(ends.length + 1, "Int64")})) AS w
      GROUP BY b, v`;
  }
  return sql`WITH m AS (${matched}) ${top}
    SELECT m.bucket AS b, ${value("m.bd")} AS v, ${aggregate(series.math, "m")} AS value FROM m GROUP BY b, v`;
}

/** What the ClickHouse store reads with. */
export interface ClickHouseTrendsDeps {
  client: ClickHouseClient;
  /** PostgreSQL, for the project's Boolean property definitions (configuration stays there). */
  db: Pick<PrismaClient, "$queryRaw">;
  /** Each statement's time bound, in seconds (ClickHouse's `max_execution_time`; default 60). */
  timeoutSeconds?: number;
}

/** A row of a ClickHouse series statement. */
interface ClickHouseSeriesRow {
  b: number | null;
  v: string[];
  value: number;
}

/**
 * The ClickHouse store of ./store.ts: one statement per series and period, on `deps.client`
 * (src/analytics/clickhouse/query.ts `readClickHouse`: read-only, time-bounded); with breakdowns,
 * one PostgreSQL statement per run reading which of their properties the project defines as
 * Boolean.
 * @throws NotImplementedError (501) naming ClickHouse for a filter reaching a static cohort (its
 *   members are not mirrored into `person_static_cohort` yet, so it would match nobody); the
 *   client's ClickHouseError for a failed statement.
 */
export function clickHouseTrendsStore(deps: ClickHouseTrendsDeps): TrendsStore {
  const read = <R>(statement: Prisma.Sql) =>
    readClickHouse<R>(deps.client, statement, { timeoutSeconds: deps.timeoutSeconds ?? 60 });
  return {
    name: "ClickHouse",
    async earliestEvent(projectId) {
      const [row] = await read<{ first: number | null }>(
        sql`SELECT if(count() = 0, NULL, toUnixTimestamp64Milli(min(e.timestamp))) AS first
          FROM events AS e FINAL WHERE e.team_id = ${param(projectId, "Int64")}`,
      );
      return row?.first === null || row?.first === undefined ? null : new Date(row.first);
    },
    checkRegexPatterns: (tree, attr) => checkClickHouseRegexPatterns(deps.client, tree, attr),
    async begin(run) {
      for (const cohort of run.cohorts.values()) {
        if (!cohort.deleted && (cohort.isStatic || cohort.criteria === null)) {
          throw new NotImplementedError(
            `Static cohorts are not available on ClickHouse yet (their members are kept in PostgreSQL only): cohort ${cohort.id} cannot filter Trends on ClickHouse.`,
          );
        }
      }
      const booleans = new Set<string>();
      if (run.breakdowns.length > 0) {
        const names = [...new Set(run.breakdowns.map((b) => b.property))];
        const rows = await deps.db.$queryRaw<Array<{ name: string; type: number }>>(
          Prisma.sql`SELECT name, type::int AS type FROM property_definitions
            WHERE project_id = ${run.projectId}::int AND name IN (${Prisma.join(names)})
              AND type IN (1, 2) AND property_type = 'Boolean'`,
        );
        for (const row of rows) booleans.add(`${Number(row.type) === 2 ? "person" : "event"}:${row.name}`);
      }
      return async (input) => {
        const where = input.tree
          ? toClickHouse(input.tree, {
              projectId: run.projectId,
              now: run.now,
              targets: { event: "e", person: "p" },
              cohorts: run.cohorts,
              semantics: "query",
            })
          : sql`true`;
        const rows = await read<ClickHouseSeriesRow>(
          clickHouseSeriesStatement({
            projectId: run.projectId,
            timezone: run.timezone,
            series: input.series,
            range: input.range,
            buckets: input.buckets,
            shape: input.shape,
            where,
            joinPerson: input.joinPerson,
            breakdowns: run.breakdowns,
            breakdownLimit: input.breakdownLimit,
            booleans,
          }),
        );
        const broken = run.breakdowns.length > 0;
        return rows.map(
          (row): SeriesRow => ({ b: row.b, v: broken ? row.v : null, value: Number(row.value) }),
        );
      };
    },
  };
}
