/**
 * The statements of experiment results: one per metric computation, each holding the exposures
 * (Step 1), the per-entity values (Step 2) and the per-variant aggregates (Step 3) of
 * query-and-experiments.md 2b, as PostHog's `experiment_query_builder.py` builds them in HogQL.
 *
 * Invariants: every table read is guarded by `project_id = <project>` (a bound parameter), the
 * person join on the same project; every value (flag key, variants, event names, property keys,
 * bounds, windows, percentiles) is a bound parameter; the only raw text is fixed SQL of this module
 * and the fixed aliases `e` (event) and `p` (its person) that the property translation targets.
 *
 * Entities: a person is the event's `person_id` (capture keeps it pointing at the surviving person
 * after merges, as Trends reads it; an event without one counts under its distinct id); a group is
 * the event's key of group type N (`$group_N`, or the `$groups` entry of the type's name, as SDKs
 * send it); events without a group key are not an entity.
 */
import { Prisma } from "../../generated/prisma/client.js";
import { numericProperty } from "../../queries/trends/math.js";
import {
  DISTINCT_MATH,
  FEATURE_FLAG_CALLED,
  type MetricSource,
  MULTIPLE_VARIANT_KEY,
  type ParsedExposureCriteria,
  WINDOW_UNIT_SECONDS,
} from "./experiment-metric.schema.js";

/** What every statement needs besides the metric. */
export interface ResultsScope {
  projectId: number;
  flagKey: string;
  /** Variant keys counted (the flag's, plus `holdout-<id>`). */
  variants: string[];
  /** Group type index of a group-aggregated flag; null for persons. */
  groupTypeIndex: number | null;
  /** Experiment start and end (end = now when the experiment runs). */
  from: Date;
  to: Date;
  exposure: ParsedExposureCriteria;
  /** The exposure config's filters as SQL over `e` (and `p`), TRUE when none. */
  exposureWhere: Prisma.Sql;
  /** Join the event's person in the exposure scan (person or cohort filters). */
  exposureJoinsPerson: boolean;
}

/** A metric source with its filters translated. */
export interface SourceSql {
  source: MetricSource;
  /** The source's `properties` as SQL over `e` (and `p`), TRUE when none. */
  where: Prisma.Sql;
  joinsPerson: boolean;
}

const iso = (date: Date) => date.toISOString();

/** The join of an event's current person (`p`), for person and cohort filters. */
function personJoin(needed: boolean): Prisma.Sql {
  return needed
    ? Prisma.sql`LEFT JOIN persons p ON p.project_id = e.project_id AND p.uuid = e.person_id`
    : Prisma.empty;
}

/** The key of group type `index` on an event row `e` (NULL when the event has none). */
function groupKey(projectId: number, index: number): Prisma.Sql {
  const column = `$group_${index}`;
  return Prisma.sql`NULLIF(COALESCE(e.properties ->> ${column}::text,
    e.properties -> '$groups' ->> (SELECT m.group_type FROM group_type_mappings m
      WHERE m.project_id = ${projectId}::int AND m.group_type_index = ${index}::int)), '')`;
}

/** The entity an event belongs to: its person, or its group of the flag's group type. */
function entityOf(scope: ResultsScope): Prisma.Sql {
  // Byte order ("C"): entities are only grouped, never shown, and the sort is the statement's cost.
  if (scope.groupTypeIndex !== null)
    return Prisma.sql`(${groupKey(scope.projectId, scope.groupTypeIndex)}) COLLATE "C"`;
  return Prisma.sql`COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id) COLLATE "C"`;
}

/** The event property holding the variant (`_build_variant_property`). */
function variantProperty(scope: ResultsScope): string {
  return scope.exposure.event === FEATURE_FLAG_CALLED
    ? "$feature_flag_response"
    : `$feature/${scope.flagKey}`;
}

/** `_build_exposure_predicate`: the exposure events of the experiment over `e` (without the guard). */
function exposurePredicate(scope: ResultsScope): Prisma.Sql {
  const flag =
    scope.exposure.event === FEATURE_FLAG_CALLED
      ? Prisma.sql`AND e.properties ->> '$feature_flag' = ${scope.flagKey}::text`
      : Prisma.empty;
  return Prisma.sql`(e.event = ${scope.exposure.event}::text
    AND e.timestamp >= ${iso(scope.from)}::timestamptz AND e.timestamp <= ${iso(scope.to)}::timestamptz
    AND (e.properties ->> ${variantProperty(scope)}::text) = ANY(${scope.variants}::text[])
    ${flag} AND ${scope.exposureWhere})`;
}

/**
 * The entity's variant over its exposure rows of a stream (`_build_variant_expr_for_mean`):
 * `exclude` answers `$multiple` for an entity seen in several variants; `first_seen` the variant of
 * its earliest exposure. `v` is the variant property on exposure rows and NULL on the others.
 */
function variantOf(scope: ResultsScope, rows: "s" | "f"): Prisma.Sql {
  const r = Prisma.raw(rows);
  return scope.exposure.multipleVariantHandling === "first_seen"
    ? Prisma.sql`(array_agg(${r}.v ORDER BY ${r}.ts, ${r}.id) FILTER (WHERE ${r}.v IS NOT NULL))[1]`
    : Prisma.sql`CASE WHEN count(DISTINCT ${r}.v) > 1 THEN ${MULTIPLE_VARIANT_KEY}::text ELSE min(${r}.v) END`;
}

/** The exposure rows of a stream: `(entity_id, ts, id, kind 0, v, num NULL, txt NULL)`. */
function exposureRows(scope: ResultsScope): Prisma.Sql {
  return Prisma.sql`SELECT ${entityOf(scope)} AS entity_id, e.timestamp AS ts, e.uuid AS id, 0 AS kind,
      e.properties ->> ${variantProperty(scope)}::text AS v, NULL::float8 AS num, NULL::text AS txt
    FROM events e ${personJoin(scope.exposureJoinsPerson)}
    WHERE e.project_id = ${scope.projectId}::int AND ${exposurePredicate(scope)}`;
}

/**
 * An event's value for a source's math (`_build_value_expr`): a number (`num`, coalesced to 0 as
 * PostHog does, so an event without the property counts 0 in avg/min/max) or, for the distinct
 * maths, the text counted (`txt`: session id, person, group key; empty counts as none).
 */
function eventValue(scope: ResultsScope, source: MetricSource): { num: Prisma.Sql; txt: Prisma.Sql } {
  const none = { num: Prisma.sql`NULL::float8`, txt: Prisma.sql`NULL::text` };
  switch (source.math) {
    case "unique_session":
      return { ...none, txt: Prisma.sql`NULLIF(e.properties ->> '$session_id', '')` };
    case "dau":
      return { ...none, txt: Prisma.sql`COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id)` };
    case "unique_group":
      return { ...none, txt: groupKey(scope.projectId, source.mathGroupTypeIndex ?? 0) };
    case "total":
      return { ...none, num: Prisma.sql`1::float8` };
    default:
      return {
        ...none,
        num: Prisma.sql`COALESCE(${numericProperty(Prisma.sql`e.properties`, source.mathProperty ?? "")}, 0)::float8`,
      };
  }
}

/** `e.event = <name>` (TRUE for every event when the source names none). */
function eventMatch(source: MetricSource): Prisma.Sql {
  return source.event === null ? Prisma.sql`TRUE` : Prisma.sql`e.event = ${source.event}::text`;
}

/** Step `k`'s bit in an event's step mask (bit 0: the exposure), as text for a bigint parameter. */
const bit = (k: number) => (1n << BigInt(k)).toString();

const seconds = (value: number) => Prisma.sql`(${value}::float8 * interval '1 second')`;

/**
 * A source's rows of a stream (`metric_events`, `kind` as given): events in `[from, to + window)`
 * matching the source's event and properties (`_build_metric_predicate`).
 */
function sourceRows(scope: ResultsScope, s: SourceSql, kind: number, windowSeconds: number): Prisma.Sql {
  const value = eventValue(scope, s.source);
  return Prisma.sql`SELECT ${entityOf(scope)} AS entity_id, e.timestamp AS ts, e.uuid AS id, ${kind}::int AS kind,
      NULL::text AS v, ${value.num} AS num, ${value.txt} AS txt
    FROM events e ${personJoin(s.joinsPerson)}
    WHERE e.project_id = ${scope.projectId}::int AND ${eventMatch(s.source)}
      AND e.timestamp >= ${iso(scope.from)}::timestamptz
      AND e.timestamp < ${iso(scope.to)}::timestamptz + ${seconds(windowSeconds)}
      AND ${s.where}`;
}

/**
 * The per-entity aggregate of a source's rows of `kind` (`_build_value_aggregation_expr`) that fall
 * after the entity's first exposure and, with a window, before its *last* exposure + window
 * [newer]; 0 for an entity without any.
 */
function entityValue(source: MetricSource, kind: number, windowSeconds: number): Prisma.Sql {
  const upper =
    windowSeconds > 0
      ? Prisma.sql` AND f.ts < f.last_exposure_time + ${seconds(windowSeconds)}`
      : Prisma.empty;
  const filter = Prisma.sql`FILTER (WHERE f.kind = ${kind}::int AND f.ts >= f.first_exposure_time${upper})`;
  if (DISTINCT_MATH.has(source.math)) return Prisma.sql`(count(DISTINCT f.txt) ${filter})::float8`;
  const agg = { avg: "avg", min: "min", max: "max" }[source.math as string] ?? "sum";
  return Prisma.sql`COALESCE(${Prisma.raw(agg)}(f.num) ${filter}, 0)::float8`;
}

/**
 * One value (or several) per exposed entity, without a join: exposure rows and metric rows of every
 * entity in one stream, each row given its entity's first and last exposure times (a window over
 * the entity), then grouped per entity. Joining two derived sets would leave the plan to row
 * estimates the planner cannot make for JSON filters (it guesses one row, and picks nested loops).
 * Entities without an exposure are dropped; `$multiple` ones are kept until the final step, as in
 * PostHog (winsorization bounds are computed over them too).
 */
function entityMetrics(
  scope: ResultsScope,
  parts: Prisma.Sql[],
  values: Prisma.Sql[],
  name = "entity_metrics",
): Prisma.Sql {
  return Prisma.sql`stream AS (${Prisma.join(
    [exposureRows(scope), ...parts].map((part) => Prisma.sql`(${part})`),
    " UNION ALL ",
  )}),
    framed AS (
      SELECT s.*, min(s.ts) FILTER (WHERE s.kind = 0) OVER w AS first_exposure_time,
        max(s.ts) FILTER (WHERE s.kind = 0) OVER w AS last_exposure_time
      FROM stream s WHERE s.entity_id IS NOT NULL
      WINDOW w AS (PARTITION BY s.entity_id)),
    ${Prisma.raw(name)} AS (
      SELECT f.entity_id, ${variantOf(scope, "f")} AS variant,
        ${Prisma.join(values)}
      FROM framed f WHERE f.first_exposure_time IS NOT NULL
      GROUP BY f.entity_id)`;
}

/** A per-variant aggregate row as every statement answers it. */
export interface AggregateRow {
  variant: string;
  n: number;
  total: number;
  squares: number;
  den_total?: number;
  den_squares?: number;
  products?: number;
  steps?: number[];
}

/** Options of a mean metric's statement. */
export interface MeanOptions {
  windowSeconds: number;
  lowerBoundPercentile: number | null;
  upperBoundPercentile: number | null;
  ignoreZeros: boolean;
}

/**
 * A mean metric (`_build_mean_query`, `_build_mean_query_with_winsorization`): one value per
 * exposed entity (0 without metric events), optionally clamped to bounds computed over every
 * exposed entity (pooled across variants, `$multiple` ones included, as PostHog's `percentiles`
 * CTE reads `entity_metrics`), then count, Σ value and Σ value² per variant.
 */
export function meanStatement(scope: ResultsScope, s: SourceSql, options: MeanOptions): Prisma.Sql {
  const winsorize = options.lowerBoundPercentile !== null || options.upperBoundPercentile !== null;
  const lower =
    options.lowerBoundPercentile !== null
      ? Prisma.sql`percentile_cont(${options.lowerBoundPercentile}::float8) WITHIN GROUP (ORDER BY em.value)`
      : Prisma.sql`min(em.value)`;
  const upper =
    options.upperBoundPercentile !== null
      ? options.ignoreZeros
        ? Prisma.sql`percentile_cont(${options.upperBoundPercentile}::float8) WITHIN GROUP (ORDER BY em.value) FILTER (WHERE em.value <> 0)`
        : Prisma.sql`percentile_cont(${options.upperBoundPercentile}::float8) WITHIN GROUP (ORDER BY em.value)`
      : Prisma.sql`max(em.value)`;
  const valued = winsorize
    ? Prisma.sql`, bounds AS (SELECT ${lower} AS lo, ${upper} AS hi FROM entity_metrics em),
      valued AS (SELECT em.variant, LEAST(GREATEST(b.lo, em.value), b.hi) AS value
        FROM entity_metrics em CROSS JOIN bounds b)`
    : Prisma.sql`, valued AS (SELECT em.variant, em.value FROM entity_metrics em)`;
  const metric = entityMetrics(
    scope,
    [sourceRows(scope, s, 1, options.windowSeconds)],
    [Prisma.sql`${entityValue(s.source, 1, options.windowSeconds)} AS value`],
  );
  return Prisma.sql`WITH ${metric} ${valued}
    SELECT v.variant, count(*)::int AS n, COALESCE(sum(v.value), 0)::float8 AS total,
      COALESCE(sum(v.value * v.value), 0)::float8 AS squares
    FROM valued v WHERE v.variant = ANY(${scope.variants}::text[])
    GROUP BY v.variant`;
}

/**
 * A ratio metric (`_build_ratio_query`): numerator and denominator aggregated per exposed entity
 * within the window, 0 for entities without events, then count, Σ num, Σ num², Σ den, Σ den² and
 * Σ num·den per variant.
 */
export function ratioStatement(
  scope: ResultsScope,
  numerator: SourceSql,
  denominator: SourceSql,
  windowSeconds: number,
): Prisma.Sql {
  const metric = entityMetrics(
    scope,
    [sourceRows(scope, numerator, 1, windowSeconds), sourceRows(scope, denominator, 2, windowSeconds)],
    [
      Prisma.sql`${entityValue(numerator.source, 1, windowSeconds)} AS num`,
      Prisma.sql`${entityValue(denominator.source, 2, windowSeconds)} AS den`,
    ],
  );
  return Prisma.sql`WITH ${metric}
    SELECT em.variant, count(*)::int AS n,
      COALESCE(sum(em.num), 0)::float8 AS total, COALESCE(sum(em.num * em.num), 0)::float8 AS squares,
      COALESCE(sum(em.den), 0)::float8 AS den_total, COALESCE(sum(em.den * em.den), 0)::float8 AS den_squares,
      COALESCE(sum(em.num * em.den), 0)::float8 AS products
    FROM entity_metrics em WHERE em.variant = ANY(${scope.variants}::text[])
    GROUP BY em.variant`;
}

/**
 * An ordered funnel (`_build_funnel_query` with PostHog's `aggregate_funnel_array` UDF, `ordered`,
 * funnel-udf/src/steps.rs): the exposure is step 0, then each series step. Per entity, its events
 * (exposures and step matches, as bit masks) in (timestamp, uuid) order; a chain starts at each of
 * its exposure events, and each next step takes the earliest event matching it at or after the
 * previous step's time, not already used by the chain, and within `window` of the chain's start
 * (the UDF's `<=`). The entity's depth is its longest chain: greedy earliest-next is the longest
 * for a given start, and the UDF keeps, per step, the latest start that reached it, which reaches
 * the same maximum. Where several events share a timestamp, the UDF's permutation rules are
 * approximated by taking them in uuid order. Chains read only their entity's arrays: no join.
 *
 * Per variant: `n` exposed entities, `total` = `squares` = entities completing every step, and
 * `steps[i]` = entities reaching at least series step i+1.
 */
export function funnelStatement(scope: ResultsScope, steps: SourceSql[], windowSeconds: number): Prisma.Sql {
  const joinsPerson = scope.exposureJoinsPerson || steps.some((s) => s.joinsPerson);
  const stepMatch = (s: SourceSql) => Prisma.sql`(${eventMatch(s.source)} AND ${s.where})`;
  const mask = Prisma.join(
    [
      Prisma.sql`(CASE WHEN ${exposurePredicate(scope)} THEN 1 ELSE 0 END)::bigint`,
      ...steps.map(
        (s, i) => Prisma.sql`(CASE WHEN ${stepMatch(s)} THEN ${bit(i + 1)}::bigint ELSE 0::bigint END)`,
      ),
    ],
    " | ",
  );
  const window = seconds(windowSeconds);
  const chain: Prisma.Sql[] = [];
  const used: Prisma.Sql[] = [Prisma.sql`st.ord`];
  for (let k = 1; k <= steps.length; k++) {
    const previous = k === 1 ? Prisma.sql`st.ts` : Prisma.sql`${Prisma.raw(`s${k - 1}`)}.ts`;
    const alias = Prisma.raw(`s${k}`);
    chain.push(Prisma.sql`LEFT JOIN LATERAL (
        SELECT u.ts, u.ord FROM unnest(pe.ts_arr, pe.mask_arr) WITH ORDINALITY AS u(ts, mask, ord)
        WHERE u.mask & ${bit(k)}::bigint <> 0 AND u.ts >= ${previous} AND u.ts <= st.ts + ${window}
          AND u.ord <> ALL(ARRAY[${Prisma.join(used)}])
        ORDER BY u.ord LIMIT 1) ${alias} ON TRUE`);
    used.push(Prisma.sql`${alias}.ord`);
  }
  const depth = Prisma.join(
    steps.map((_, i) => Prisma.sql`(${Prisma.raw(`s${i + 1}`)}.ord IS NOT NULL)::int`),
    " + ",
  );
  const reached = steps.map((_, i) => Prisma.sql`count(*) FILTER (WHERE d.depth >= ${i + 1}::int)`);
  const complete = Prisma.sql`count(*) FILTER (WHERE d.depth = ${steps.length}::int)`;
  const anyStep = Prisma.join(steps.map(stepMatch), " OR ");
  return Prisma.sql`WITH s AS (
      SELECT ${entityOf(scope)} AS entity_id, e.timestamp AS ts, e.uuid AS id,
        CASE WHEN ${exposurePredicate(scope)} THEN e.properties ->> ${variantProperty(scope)}::text END AS v,
        ${mask} AS mask
      FROM events e ${personJoin(joinsPerson)}
      WHERE e.project_id = ${scope.projectId}::int AND (${exposurePredicate(scope)}
        OR (e.timestamp >= ${iso(scope.from)}::timestamptz
          AND e.timestamp <= ${iso(scope.to)}::timestamptz + ${window} AND (${anyStep})))),
    pe AS (
      SELECT s.entity_id, ${variantOf(scope, "s")} AS variant,
        array_agg(s.ts ORDER BY s.ts, s.id) AS ts_arr, array_agg(s.mask ORDER BY s.ts, s.id) AS mask_arr
      FROM s WHERE s.entity_id IS NOT NULL
      GROUP BY s.entity_id HAVING bool_or(s.mask & 1 <> 0)),
    d AS (
      SELECT pe.variant, max(${depth}) AS depth
      FROM pe
      CROSS JOIN LATERAL unnest(pe.ts_arr, pe.mask_arr) WITH ORDINALITY AS st(ts, mask, ord)
      ${Prisma.join(chain, "\n")}
      WHERE st.mask & 1 <> 0
      GROUP BY pe.entity_id, pe.variant)
    SELECT d.variant, count(*)::int AS n, ${complete}::float8 AS total, ${complete}::float8 AS squares,
      ARRAY[${Prisma.join(reached)}]::int[] AS steps
    FROM d WHERE d.variant = ANY(${scope.variants}::text[])
    GROUP BY d.variant`;
}

/** Options of a retention metric's statement. */
export interface RetentionOptions {
  windowSeconds: number;
  retentionWindowStart: number;
  retentionWindowEnd: number;
  retentionWindowUnit: keyof typeof WINDOW_UNIT_SECONDS;
  startHandling: "first_seen" | "last_seen";
}

/** `n` units of a retention window as an interval (a month is a calendar month, `toIntervalMonth`). */
function unitInterval(n: number, unit: RetentionOptions["retentionWindowUnit"]): Prisma.Sql {
  if (unit === "month") return Prisma.sql`(${n}::int * interval '1 month')`;
  return seconds(n * WINDOW_UNIT_SECONDS[unit]);
}

/**
 * A retention metric (`_build_retention_query`): per exposed entity with a start event after its
 * first exposure (within the conversion window of it, when set), the start is its first or last
 * such event (`start_handling`); the entity is retained (1) when a completion event falls in
 * `[start + retention_window_start, start + retention_window_end]` units, compared on times
 * truncated to the day or hour in the project's zone for those units (the session zone), and at most
 * `retention_window_end` (+ one day or hour for those units) after the start. Entities without a
 * start event are left out (PostHog's INNER JOIN). Per variant: `n`, Σ value = Σ value², and the
 * denominator sums (each entity 1), as PostHog's RatioStatistic input.
 */
export function retentionStatement(
  scope: ResultsScope,
  start: SourceSql,
  completion: SourceSql,
  options: RetentionOptions,
): Prisma.Sql {
  const unit = options.retentionWindowUnit;
  const endSeconds = options.retentionWindowEnd * WINDOW_UNIT_SECONDS[unit];
  const buffer = unit === "day" ? 86_400 : unit === "hour" ? 3600 : 0;
  const startFilter =
    options.windowSeconds > 0
      ? Prisma.sql` AND f.ts <= f.first_exposure_time + ${seconds(options.windowSeconds)}`
      : Prisma.empty;
  const pick = options.startHandling === "first_seen" ? Prisma.raw("min") : Prisma.raw("max");
  const truncate = (value: Prisma.Sql) =>
    unit === "day" || unit === "hour" ? Prisma.sql`date_trunc(${unit}::text, ${value})` : value;
  const metric = entityMetrics(
    scope,
    [
      sourceRows(scope, start, 1, options.windowSeconds),
      sourceRows(scope, completion, 2, options.windowSeconds + endSeconds),
    ],
    [
      Prisma.sql`${pick}(f.ts) FILTER (WHERE f.kind = 1 AND f.ts >= f.first_exposure_time${startFilter}) AS start_ts`,
      Prisma.sql`array_agg(f.ts) FILTER (WHERE f.kind = 2) AS completions`,
    ],
    "starts",
  );
  return Prisma.sql`WITH ${metric},
    entity_metrics AS (
      SELECT st.variant, CASE WHEN EXISTS (
          SELECT 1 FROM unnest(st.completions) AS c(ts)
          WHERE c.ts >= st.start_ts AND c.ts <= st.start_ts + ${seconds(endSeconds + buffer)}
            AND ${truncate(Prisma.sql`c.ts`)} >= ${truncate(Prisma.sql`st.start_ts`)} + ${unitInterval(options.retentionWindowStart, unit)}
            AND ${truncate(Prisma.sql`c.ts`)} <= ${truncate(Prisma.sql`st.start_ts`)} + ${unitInterval(options.retentionWindowEnd, unit)})
        THEN 1 ELSE 0 END::float8 AS value
      FROM starts st WHERE st.start_ts IS NOT NULL)
    SELECT em.variant, count(*)::int AS n, COALESCE(sum(em.value), 0)::float8 AS total,
      COALESCE(sum(em.value), 0)::float8 AS squares, count(*)::float8 AS den_total,
      count(*)::float8 AS den_squares, COALESCE(sum(em.value), 0)::float8 AS products
    FROM entity_metrics em WHERE em.variant = ANY(${scope.variants}::text[])
    GROUP BY em.variant`;
}
