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
  if (scope.groupTypeIndex !== null) return groupKey(scope.projectId, scope.groupTypeIndex);
  return Prisma.sql`COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id)`;
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
 * The `exposures` CTE body: one row per exposed entity with its variant (`exclude`: `$multiple`
 * when it saw several; `first_seen`: the variant of its earliest exposure) and its first and last
 * exposure times (`_build_exposure_select_query`).
 */
function exposuresSelect(scope: ResultsScope): Prisma.Sql {
  const variant =
    scope.exposure.multipleVariantHandling === "first_seen"
      ? Prisma.sql`(array_agg(x.v ORDER BY x.ts, x.id))[1]`
      : Prisma.sql`CASE WHEN count(DISTINCT x.v) > 1 THEN ${MULTIPLE_VARIANT_KEY}::text ELSE min(x.v) END`;
  return Prisma.sql`SELECT x.entity_id, ${variant} AS variant,
      min(x.ts) AS first_exposure_time, max(x.ts) AS last_exposure_time
    FROM (SELECT ${entityOf(scope)} AS entity_id, e.properties ->> ${variantProperty(scope)}::text AS v,
            e.timestamp AS ts, e.uuid AS id
          FROM events e ${personJoin(scope.exposureJoinsPerson)}
          WHERE e.project_id = ${scope.projectId}::int AND ${exposurePredicate(scope)}) x
    WHERE x.entity_id IS NOT NULL
    GROUP BY x.entity_id`;
}

/** An event's per-event value for a source's math (`_build_value_expr`, coalesced to 0 for numbers). */
function eventValue(scope: ResultsScope, source: MetricSource): Prisma.Sql {
  switch (source.math) {
    case "unique_session":
      return Prisma.sql`NULLIF(e.properties ->> '$session_id', '')`;
    case "dau":
      return Prisma.sql`COALESCE(e.person_id::text, 'distinct_id:' || e.distinct_id)`;
    case "unique_group":
      return groupKey(scope.projectId, source.mathGroupTypeIndex ?? 0);
    case "total":
      return Prisma.sql`1::float8`;
    default:
      return Prisma.sql`COALESCE(${numericProperty(Prisma.sql`e.properties`, source.mathProperty ?? "")}, 0)::float8`;
  }
}

/** The per-entity aggregate of the values `m.value` (`_build_value_aggregation_expr`); 0 without events. */
function aggregateOf(source: MetricSource): Prisma.Sql {
  if (DISTINCT_MATH.has(source.math)) return Prisma.sql`count(DISTINCT m.value)::float8`;
  switch (source.math) {
    case "avg":
      return Prisma.sql`COALESCE(avg(m.value), 0)::float8`;
    case "min":
      return Prisma.sql`COALESCE(min(m.value), 0)::float8`;
    case "max":
      return Prisma.sql`COALESCE(max(m.value), 0)::float8`;
    default:
      return Prisma.sql`COALESCE(sum(m.value), 0)::float8`;
  }
}

/** `e.event = <name>` (TRUE for every event when the source names none). */
function eventMatch(source: MetricSource): Prisma.Sql {
  return source.event === null ? Prisma.sql`TRUE` : Prisma.sql`e.event = ${source.event}::text`;
}

const seconds = (value: number) => Prisma.sql`(${value}::float8 * interval '1 second')`;

/**
 * A source's events as `(entity_id, ts, value)` (`metric_events`): in `[from, to + window)` and
 * matching the source's event and properties (`_build_metric_predicate`).
 */
function sourceEvents(scope: ResultsScope, s: SourceSql, windowSeconds: number): Prisma.Sql {
  return Prisma.sql`SELECT ${entityOf(scope)} AS entity_id, e.timestamp AS ts, ${eventValue(scope, s.source)} AS value
    FROM events e ${personJoin(s.joinsPerson)}
    WHERE e.project_id = ${scope.projectId}::int AND ${eventMatch(s.source)}
      AND e.timestamp >= ${iso(scope.from)}::timestamptz
      AND e.timestamp < ${iso(scope.to)}::timestamptz + ${seconds(windowSeconds)}
      AND ${s.where}`;
}

/** Metric events count from the first exposure, and with a window until the *last* exposure + window [newer]. */
function windowCondition(events: string, windowSeconds: number): Prisma.Sql {
  const alias = Prisma.raw(events);
  const upper =
    windowSeconds > 0
      ? Prisma.sql` AND ${alias}.ts < x.last_exposure_time + ${seconds(windowSeconds)}`
      : Prisma.empty;
  return Prisma.sql`${alias}.ts >= x.first_exposure_time${upper}`;
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
 * A mean metric (`_build_mean_query`, `_build_mean_query_with_winsorization`): exposed entities
 * LEFT JOIN their metric events, one value per entity, optionally clamped to bounds computed over
 * every exposed entity (pooled across variants, `$multiple` ones included, as PostHog's
 * `percentiles` CTE reads `entity_metrics`), then count, Σ value and Σ value² per variant.
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
  const final = winsorize
    ? Prisma.sql`, bounds AS (SELECT ${lower} AS lo, ${upper} AS hi FROM entity_metrics em),
      valued AS (SELECT em.entity_id, em.variant, LEAST(GREATEST(b.lo, em.value), b.hi) AS value
        FROM entity_metrics em CROSS JOIN bounds b)`
    : Prisma.sql`, valued AS (SELECT * FROM entity_metrics)`;
  return Prisma.sql`WITH exposures AS (${exposuresSelect(scope)}),
    metric_events AS (${sourceEvents(scope, s, options.windowSeconds)}),
    entity_metrics AS (
      SELECT x.entity_id, x.variant, ${aggregateOf(s.source)} AS value
      FROM exposures x
      LEFT JOIN metric_events m ON m.entity_id = x.entity_id AND ${windowCondition("m", options.windowSeconds)}
      GROUP BY x.entity_id, x.variant)
    ${final}
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
  const agg = (events: string, s: SourceSql) =>
    Prisma.sql`SELECT x.entity_id, ${aggregateOf(s.source)} AS value
      FROM ${Prisma.raw(events)} m JOIN exposures x ON x.entity_id = m.entity_id
      WHERE ${windowCondition("m", windowSeconds)}
      GROUP BY x.entity_id`;
  return Prisma.sql`WITH exposures AS (${exposuresSelect(scope)}),
    numerator_events AS (${sourceEvents(scope, numerator, windowSeconds)}),
    denominator_events AS (${sourceEvents(scope, denominator, windowSeconds)}),
    numerator_agg AS (${agg("numerator_events", numerator)}),
    denominator_agg AS (${agg("denominator_events", denominator)}),
    entity_metrics AS (
      SELECT x.entity_id, x.variant, COALESCE(na.value, 0) AS num, COALESCE(da.value, 0) AS den
      FROM exposures x
      LEFT JOIN numerator_agg na ON na.entity_id = x.entity_id
      LEFT JOIN denominator_agg da ON da.entity_id = x.entity_id)
    SELECT em.variant, count(*)::int AS n,
      COALESCE(sum(em.num), 0)::float8 AS total, COALESCE(sum(em.num * em.num), 0)::float8 AS squares,
      COALESCE(sum(em.den), 0)::float8 AS den_total, COALESCE(sum(em.den * em.den), 0)::float8 AS den_squares,
      COALESCE(sum(em.num * em.den), 0)::float8 AS products
    FROM entity_metrics em WHERE em.variant = ANY(${scope.variants}::text[])
    GROUP BY em.variant`;
}

/**
 * An ordered funnel (`_build_funnel_query` with PostHog's `aggregate_funnel_array` UDF, `ordered`,
 * funnel-udf/src/steps.rs): the exposure is step 0, then each series step. A chain starts at each
 * exposure event of the entity; each next step takes the earliest event matching it at or after the
 * previous step's time, not already used by the chain, and within `window` of the chain's start
 * (the UDF's `<=`). The entity's depth is the longest chain; greedy earliest-next is the longest
 * for a given start, and the UDF keeps, per step, the latest start that reached it, which is the
 * same maximum. Where several events share a timestamp, the UDF's permutation rules are
 * approximated by taking them in (timestamp, uuid) order.
 *
 * Per variant: `n` exposed entities, `total` = `squares` = entities completing every step, and
 * `steps[i]` = entities reaching at least series step i+1.
 */
export function funnelStatement(scope: ResultsScope, steps: SourceSql[], windowSeconds: number): Prisma.Sql {
  const joinsPerson = scope.exposureJoinsPerson || steps.some((s) => s.joinsPerson);
  const stepMatch = (s: SourceSql) => Prisma.sql`(${eventMatch(s.source)} AND ${s.where})`;
  const anyStep = Prisma.join(steps.map(stepMatch), " OR ");
  const flags = steps.map((s, i) => Prisma.sql`${stepMatch(s)} AS ${Prisma.raw(`s${i + 1}`)}`);
  const chains: Prisma.Sql[] = [];
  for (let k = 1; k <= steps.length; k++) {
    const previous = Prisma.raw(`c${k - 1}`);
    chains.push(Prisma.sql`${Prisma.raw(`c${k}`)} AS (
      SELECT DISTINCT ON (c.start_seq) c.entity_id, c.start_seq, c.start_ts, f.ts AS t, c.used || f.seq AS used
      FROM ${previous} c JOIN fe f ON f.entity_id = c.entity_id AND f.${Prisma.raw(`s${k}`)}
        AND f.ts >= c.t AND f.ts <= c.start_ts + ${seconds(windowSeconds)} AND f.seq <> ALL(c.used)
      ORDER BY c.start_seq, f.ts, f.seq)`);
  }
  const reached = steps.map(
    (_, i) =>
      Prisma.sql`count(*) FILTER (WHERE x.entity_id IN (SELECT ${Prisma.raw(`c${i + 1}`)}.entity_id FROM ${Prisma.raw(`c${i + 1}`)}))`,
  );
  const last = Prisma.raw(`c${steps.length}`);
  return Prisma.sql`WITH exposures AS (${exposuresSelect(scope)}),
    raw_events AS (
      SELECT ${entityOf(scope)} AS entity_id, e.timestamp AS ts, e.uuid AS id,
        ${exposurePredicate(scope)} AS s0, ${Prisma.join(flags)}
      FROM events e ${personJoin(joinsPerson)}
      WHERE e.project_id = ${scope.projectId}::int AND (${exposurePredicate(scope)}
        OR (e.timestamp >= ${iso(scope.from)}::timestamptz
          AND e.timestamp <= ${iso(scope.to)}::timestamptz + ${seconds(windowSeconds)} AND (${anyStep})))),
    fe AS (
      SELECT r.*, row_number() OVER (ORDER BY r.entity_id, r.ts, r.id) AS seq
      FROM raw_events r WHERE r.entity_id IN (SELECT entity_id FROM exposures)),
    c0 AS (SELECT f.entity_id, f.seq AS start_seq, f.ts AS start_ts, f.ts AS t, ARRAY[f.seq] AS used
      FROM fe f WHERE f.s0),
    ${Prisma.join(chains, ",\n")}
    SELECT x.variant, count(*)::int AS n,
      count(*) FILTER (WHERE x.entity_id IN (SELECT ${last}.entity_id FROM ${last}))::float8 AS total,
      count(*) FILTER (WHERE x.entity_id IN (SELECT ${last}.entity_id FROM ${last}))::float8 AS squares,
      ARRAY[${Prisma.join(reached)}]::int[] AS steps
    FROM exposures x WHERE x.variant = ANY(${scope.variants}::text[])
    GROUP BY x.variant`;
}
