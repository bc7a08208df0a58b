/**
 * An experiment metric and the experiment's exposure criteria as the results engine reads them
 * (PostHog's `ExperimentMetric`, `ExperimentExposureCriteria` in `schema-general.ts`;
 * query-and-experiments.md 2a). Both are stored JSON written by users, so both are validated here
 * with zod before any SQL is built; defaults are PostHog's newest query builder's
 * (`experiment_query_builder.py`, `get_exposure_config_params_for_builder`).
 *
 * Objects are loose: fields PostHog defines that do not change the aggregates (`uuid`, `name`,
 * `goal`, `fingerprint`, `isSharedMetric`, ...) are accepted and ignored. A construct this engine
 * does not compute answers a clear error naming it: NotImplementedError (501) for what needs
 * something this service does not have or build (actions, data-warehouse nodes, strict and
 * unordered funnels, breakdowns, ratio outlier handling, session-property math), ValidationError
 * (400) for a `math` the engine refuses by name (`hogql`, as the Trends engine does) or a bad value.
 */
import { z } from "zod";
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import type { PropertyGroup } from "../../lib/property-filters/property-filters.js";
import { andTrees, parseAt, propertyTree } from "../../queries/trends/trends-query.schema.js";

/** PostHog's exposure event (`$feature_flag_called`), whose variant is `$feature_flag_response`. */
export const FEATURE_FLAG_CALLED = "$feature_flag_called";
/** PostHog's `MULTIPLE_VARIANT_KEY`: an entity exposed to more than one variant (`exclude` mode). */
export const MULTIPLE_VARIANT_KEY = "$multiple";
/** Seconds per conversion-window unit (`conversion_window_to_seconds`; a month is 30 days). */
export const WINDOW_UNIT_SECONDS = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
} as const;
/** A funnel's window when the metric sets none: 3 years (`funnel_evaluation_expr`). */
export const DEFAULT_FUNNEL_WINDOW_SECONDS = 3 * 365 * 24 * 60 * 60;

/** Most series steps of a funnel: each step is one bit of a bigint mask beside the exposure's. */
export const MAX_FUNNEL_STEPS = 62;

/** Math the engine computes per entity (`ExperimentMetricMathType` minus `hogql`). */
export const EXPERIMENT_MATH = [
  "total",
  "sum",
  "avg",
  "min",
  "max",
  "unique_session",
  "dau",
  "unique_group",
] as const;
/** One of `EXPERIMENT_MATH`. */
export type ExperimentMath = (typeof EXPERIMENT_MATH)[number];
/** Math that reads `math_property` as a number. */
export const PROPERTY_MATH: ReadonlySet<ExperimentMath> = new Set(["sum", "avg", "min", "max"]);
/** Math that counts distinct values (sessions, persons, groups) per entity. */
export const DISTINCT_MATH: ReadonlySet<ExperimentMath> = new Set(["unique_session", "dau", "unique_group"]);

/** The events a metric (or one funnel step) counts: an EventsNode after validation. */
export interface MetricSource {
  /** The event name; null matches every event (PostHog's `event: null`). */
  event: string | null;
  math: ExperimentMath;
  /** The event property `sum`/`avg`/`min`/`max` read. */
  mathProperty: string | null;
  /** The group type `unique_group` counts. */
  mathGroupTypeIndex: number | null;
  /** The node's `properties` (AND-ed); null when none. */
  properties: PropertyGroup | null;
}

/** A validated metric: its kind, its sources and its conversion window (0 = none). */
export type ParsedMetric =
  | {
      type: "mean";
      source: MetricSource;
      windowSeconds: number;
      lowerBoundPercentile: number | null;
      upperBoundPercentile: number | null;
      ignoreZeros: boolean;
    }
  | { type: "funnel"; steps: MetricSource[]; windowSeconds: number }
  | { type: "ratio"; numerator: MetricSource; denominator: MetricSource; windowSeconds: number }
  | {
      type: "retention";
      start: MetricSource;
      completion: MetricSource;
      /** Conversion window after the first exposure in which the start event must fall (0 = none). */
      windowSeconds: number;
      retentionWindowStart: number;
      retentionWindowEnd: number;
      retentionWindowUnit: keyof typeof WINDOW_UNIT_SECONDS;
      startHandling: "first_seen" | "last_seen";
    };

/** Validated exposure criteria, PostHog's defaults applied. */
export interface ParsedExposureCriteria {
  /** The exposure event (`$feature_flag_called` unless a custom event is configured). */
  event: string;
  /** The exposure config's property filters (AND-ed); null when none. */
  properties: PropertyGroup | null;
  multipleVariantHandling: "exclude" | "first_seen";
  /** PostHog's effective default is true; projects here have no test-account filters (see compute). */
  filterTestAccounts: boolean;
}

const properties = z
  .union([z.array(z.unknown()), z.looseObject({ type: z.enum(["AND", "OR"]) })])
  .nullable()
  .optional();

const eventsNode = z.looseObject({
  kind: z.literal("EventsNode"),
  event: z.string().nullable().optional(),
  math: z.string().nullable().optional(),
  math_property: z.string().nullable().optional(),
  math_property_type: z.string().nullable().optional(),
  math_group_type_index: z.int().min(0).max(4).nullable().optional(),
  math_hogql: z.string().nullable().optional(),
  properties,
});

const windowUnit = z.enum(Object.keys(WINDOW_UNIT_SECONDS) as [keyof typeof WINDOW_UNIT_SECONDS]);

const metricBase = z.looseObject({
  kind: z.literal("ExperimentMetric"),
  metric_type: z.enum(["mean", "funnel", "ratio", "retention"]),
  conversion_window: z.number().min(0).nullable().optional(),
  conversion_window_unit: windowUnit.nullable().optional(),
  breakdownFilter: z.unknown().optional(),
});

const percentile = z.number().min(0).max(1).nullable().optional();

const meanMetric = metricBase.extend({
  metric_type: z.literal("mean"),
  source: z.looseObject({ kind: z.string() }),
  lower_bound_percentile: percentile,
  upper_bound_percentile: percentile,
  ignore_zeros: z.boolean().nullable().optional(),
});

const funnelMetric = metricBase.extend({
  metric_type: z.literal("funnel"),
  series: z
    .array(z.looseObject({ kind: z.string() }))
    .min(1)
    .max(MAX_FUNNEL_STEPS),
  funnel_order_type: z.string().nullable().optional(),
});

const ratioMetric = metricBase.extend({
  metric_type: z.literal("ratio"),
  numerator: z.looseObject({ kind: z.string() }),
  denominator: z.looseObject({ kind: z.string() }),
  numerator_outlier_handling: z.unknown().optional(),
  denominator_outlier_handling: z.unknown().optional(),
});

const retentionMetric = metricBase.extend({
  metric_type: z.literal("retention"),
  start_event: z.looseObject({ kind: z.string() }),
  completion_event: z.looseObject({ kind: z.string() }),
  retention_window_start: z.int().min(0),
  retention_window_end: z.int().min(0),
  retention_window_unit: windowUnit,
  start_handling: z.enum(["first_seen", "last_seen"]).nullable().optional(),
});

const exposureCriteria = z.looseObject({
  filterTestAccounts: z.boolean().nullable().optional(),
  exposure_config: z.looseObject({ kind: z.string() }).nullable().optional(),
  multiple_variant_handling: z.enum(["exclude", "first_seen"]).nullable().optional(),
});

const eventExposureConfig = z.looseObject({
  kind: z.literal("ExperimentEventExposureConfig"),
  event: z.string().min(1),
  properties,
});

/** A source node (EventsNode) as the engine reads it; `attr` is its path for errors. */
function sourceOf(node: { kind: string }, attr: string): MetricSource {
  if (node.kind === "ActionsNode") {
    throw new NotImplementedError(
      `Actions are not supported in experiment metrics: this service has no actions (${attr} is an ActionsNode).`,
    );
  }
  if (node.kind === "ExperimentDataWarehouseNode") {
    throw new NotImplementedError(
      `Data warehouse metrics are not supported: this service has no data warehouse (${attr} is an ExperimentDataWarehouseNode).`,
    );
  }
  if (node.kind !== "EventsNode") {
    throw new ValidationError(`Metric source kind '${node.kind}' is not supported: only EventsNode is.`, {
      attr: `${attr}__kind`,
      code: "invalid_choice",
    });
  }
  const parsed = parseAt(eventsNode, node, attr);
  const math = parsed.math ?? "total";
  if (math === "hogql") {
    throw new ValidationError(
      `Math 'hogql' is not supported by this service. Supported: ${EXPERIMENT_MATH.join(", ")}.`,
      { attr: `${attr}__math`, code: "unsupported" },
    );
  }
  if (!(EXPERIMENT_MATH as readonly string[]).includes(math)) {
    throw new ValidationError(`"${math}" is not a valid choice.`, {
      attr: `${attr}__math`,
      code: "invalid_choice",
    });
  }
  const propertyType = parsed.math_property_type ?? "event_properties";
  if (propertyType !== "event_properties") {
    throw new NotImplementedError(
      `math_property_type '${propertyType}' is not supported in experiment metrics (${attr}): only event properties are read.`,
    );
  }
  if (PROPERTY_MATH.has(math as ExperimentMath) && !parsed.math_property) {
    throw new ValidationError(`Math '${math}' needs a math_property.`, {
      attr: `${attr}__math_property`,
      code: "required",
    });
  }
  if (math === "unique_group" && (parsed.math_group_type_index ?? null) === null) {
    throw new ValidationError("Math 'unique_group' needs a math_group_type_index.", {
      attr: `${attr}__math_group_type_index`,
      code: "required",
    });
  }
  return {
    event: parsed.event ?? null,
    math: math as ExperimentMath,
    mathProperty: parsed.math_property ?? null,
    mathGroupTypeIndex: parsed.math_group_type_index ?? null,
    properties: propertyTree(parsed.properties, `${attr}__properties`),
  };
}

function windowSecondsOf(metric: z.output<typeof metricBase>): number {
  if (!metric.conversion_window || !metric.conversion_window_unit) return 0;
  return metric.conversion_window * WINDOW_UNIT_SECONDS[metric.conversion_window_unit];
}

function refuseBreakdown(metric: z.output<typeof metricBase>): void {
  const breakdown = metric.breakdownFilter as
    | { breakdowns?: unknown[]; breakdown?: unknown }
    | null
    | undefined;
  if (breakdown && ((breakdown.breakdowns?.length ?? 0) > 0 || (breakdown.breakdown ?? null) !== null)) {
    throw new NotImplementedError(
      "Metric breakdowns (breakdownFilter) are not supported by this service yet.",
    );
  }
}

/**
 * Validates a stored metric (`ExperimentMetric`, PostHog's mean, funnel, ratio or retention shape).
 * @throws ValidationError naming the first invalid field (`attr` under `metric`);
 *   NotImplementedError for legacy metric kinds (`ExperimentTrendsQuery`, `ExperimentFunnelsQuery`),
 *   strict or unordered funnels, actions, data-warehouse
 *   nodes, breakdowns, ratio outlier handling and session-property math.
 */
export function parseExperimentMetric(input: unknown): ParsedMetric {
  const kind = input !== null && typeof input === "object" ? (input as { kind?: unknown }).kind : undefined;
  if (kind === "ExperimentTrendsQuery" || kind === "ExperimentFunnelsQuery") {
    throw new NotImplementedError(
      `Legacy experiment metrics (${kind}) are not supported by this service: use an ExperimentMetric.`,
    );
  }
  const base = parseAt(metricBase, input, "metric");
  refuseBreakdown(base);
  switch (base.metric_type) {
    case "mean": {
      const metric = parseAt(meanMetric, input, "metric");
      return {
        type: "mean",
        source: sourceOf(metric.source, "metric__source"),
        windowSeconds: windowSecondsOf(metric),
        lowerBoundPercentile: metric.lower_bound_percentile ?? null,
        upperBoundPercentile: metric.upper_bound_percentile ?? null,
        ignoreZeros: metric.ignore_zeros ?? false,
      };
    }
    case "funnel": {
      const metric = parseAt(funnelMetric, input, "metric");
      const order = metric.funnel_order_type ?? "ordered";
      if (order !== "ordered") {
        if (order === "strict" || order === "unordered") {
          throw new NotImplementedError(
            `Funnel order '${order}' is not supported by this service yet: only ordered funnels are computed.`,
          );
        }
        throw new ValidationError(`"${order}" is not a valid choice.`, {
          attr: "metric__funnel_order_type",
          code: "invalid_choice",
        });
      }
      return {
        type: "funnel",
        steps: metric.series.map((node, i) => sourceOf(node, `metric__series__${i}`)),
        windowSeconds: windowSecondsOf(metric) || DEFAULT_FUNNEL_WINDOW_SECONDS,
      };
    }
    case "ratio": {
      const metric = parseAt(ratioMetric, input, "metric");
      for (const side of ["numerator_outlier_handling", "denominator_outlier_handling"] as const) {
        if (metric[side] !== undefined && metric[side] !== null) {
          throw new NotImplementedError(`Ratio metric ${side} is not supported by this service yet.`);
        }
      }
      return {
        type: "ratio",
        numerator: sourceOf(metric.numerator, "metric__numerator"),
        denominator: sourceOf(metric.denominator, "metric__denominator"),
        windowSeconds: windowSecondsOf(metric),
      };
    }
    case "retention": {
      const metric = parseAt(retentionMetric, input, "metric");
      if (metric.retention_window_end < metric.retention_window_start) {
        throw new ValidationError("retention_window_end must not be before retention_window_start.", {
          attr: "metric__retention_window_end",
        });
      }
      return {
        type: "retention",
        start: sourceOf(metric.start_event, "metric__start_event"),
        completion: sourceOf(metric.completion_event, "metric__completion_event"),
        windowSeconds: windowSecondsOf(metric),
        retentionWindowStart: metric.retention_window_start,
        retentionWindowEnd: metric.retention_window_end,
        retentionWindowUnit: metric.retention_window_unit,
        startHandling: metric.start_handling ?? "first_seen",
      };
    }
  }
}

/**
 * Validates an experiment's `exposure_criteria` (null or `{}` means PostHog's defaults:
 * `$feature_flag_called`, `exclude`, test accounts filtered).
 * @throws ValidationError for an invalid field (`attr` under `exposure_criteria`);
 *   NotImplementedError for an ActionsNode exposure.
 */
export function parseExposureCriteria(input: unknown): ParsedExposureCriteria {
  if (input === null || input === undefined) {
    return {
      event: FEATURE_FLAG_CALLED,
      properties: null,
      multipleVariantHandling: "exclude",
      filterTestAccounts: true,
    };
  }
  const criteria = parseAt(exposureCriteria, input, "exposure_criteria");
  let event = FEATURE_FLAG_CALLED;
  let filters: PropertyGroup | null = null;
  const config = criteria.exposure_config;
  if (config) {
    if (config.kind === "ActionsNode") {
      throw new NotImplementedError(
        "Action exposures are not supported: this service has no actions (exposure_config is an ActionsNode).",
      );
    }
    const parsed = parseAt(eventExposureConfig, config, "exposure_criteria__exposure_config");
    event = parsed.event;
    filters = propertyTree(parsed.properties, "exposure_criteria__exposure_config__properties");
  }
  return {
    event,
    properties: andTrees(filters),
    multipleVariantHandling: criteria.multiple_variant_handling ?? "exclude",
    filterTestAccounts: criteria.filterTestAccounts ?? true,
  };
}
