/**
 * The `TrendsQuery` node as this engine accepts it (PostHog's `schema-general.ts` `TrendsQuery`,
 * `EventsNode`, `BreakdownFilter`, `TrendsFilter`, `CompareFilter`; query-and-experiments.md 1d).
 *
 * Every object is strict: a field PostHog does not define, or one this engine does not evaluate with
 * a value that would change the answer, is a ValidationError naming it (`attr` the path joined by
 * `__`). Display-only `trendsFilter` fields (legend, axis format, colours...) are accepted and do not
 * change the result, as in PostHog. `ActionsNode` series answer 501: there are no actions here.
 */
import { z } from "zod";
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import { parseInput } from "../../core/validation.js";
import {
  type PropertyFilter,
  type PropertyGroup,
  propertyFilterSchema,
  propertyGroupSchema,
} from "../../lib/property-filters/property-filters.js";

/** Bucket widths (`IntervalType`). */
export const INTERVALS = ["minute", "hour", "day", "week", "month"] as const;
/** One of `INTERVALS`. */
export type Interval = (typeof INTERVALS)[number];

/** PostHog's `ChartDisplayType` values. */
export const DISPLAYS = [
  "ActionsLineGraph",
  "ActionsLineGraphCumulative",
  "ActionsAreaGraph",
  "ActionsBar",
  "ActionsStackedBar",
  "ActionsUnstackedBar",
  "ActionsBarValue",
  "ActionsTable",
  "ActionsPie",
  "BoldNumber",
  "WorldMap",
  "CalendarHeatmap",
] as const;
/** One of `DISPLAYS`. */
export type Display = (typeof DISPLAYS)[number];

/** Displays that show one number per series (`aggregated_value`), PostHog's `is_total_value`. */
export const TOTAL_VALUE_DISPLAYS: ReadonlySet<Display> = new Set([
  "ActionsBarValue",
  "ActionsTable",
  "ActionsPie",
  "BoldNumber",
  "WorldMap",
  "CalendarHeatmap",
]);

/** Math that aggregates `math_property` (sum/avg/min/max and percentiles). */
const PROPERTY_MATH_VALUES = ["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"] as const;

/** Math this engine evaluates (aggregation_operations.py); others are refused by name. */
export const SUPPORTED_MATH = [
  "total",
  "dau",
  "weekly_active",
  "monthly_active",
  "unique_session",
  "unique_group",
  ...PROPERTY_MATH_VALUES,
] as const;
/** One of `SUPPORTED_MATH`. */
export type TrendsMath = (typeof SUPPORTED_MATH)[number];
/** Math that reads `math_property`. */
export const PROPERTY_MATH: ReadonlySet<string> = new Set(PROPERTY_MATH_VALUES);

/** PostHog math values this engine knows but does not evaluate (refused with a 400 naming them). */
const KNOWN_UNSUPPORTED_MATH = [
  "hogql",
  "first_time_for_user",
  "first_matching_event_for_user",
  "avg_count_per_actor",
  "min_count_per_actor",
  "max_count_per_actor",
  "median_count_per_actor",
  "p75_count_per_actor",
  "p90_count_per_actor",
  "p95_count_per_actor",
  "p99_count_per_actor",
];

const properties = z
  .union([z.array(z.unknown()), z.looseObject({ type: z.enum(["AND", "OR"]) })])
  .nullable()
  .optional();

const eventsNode = z.strictObject({
  kind: z.literal("EventsNode"),
  event: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  custom_name: z.string().nullable().optional(),
  math: z.string().nullable().optional(),
  math_property: z.string().nullable().optional(),
  math_property_type: z.string().nullable().optional(),
  math_group_type_index: z.int().min(0).max(4).nullable().optional(),
  math_hogql: z.string().nullable().optional(),
  math_multiplier: z.number().nullable().optional(),
  properties,
  fixedProperties: properties,
  response: z.unknown().optional(),
  version: z.unknown().optional(),
});

const breakdownItem = z.strictObject({
  property: z.union([z.string(), z.int()]),
  type: z.string().nullable().optional(),
  normalize_url: z.boolean().nullable().optional(),
  histogram_bin_count: z.null().optional(),
  group_type_index: z.int().nullable().optional(),
});

const breakdownFilter = z.strictObject({
  breakdown_type: z.string().nullable().optional(),
  breakdown: z
    .union([z.string(), z.int(), z.array(z.union([z.string(), z.int()]))])
    .nullable()
    .optional(),
  breakdown_limit: z.int().min(1).max(10000).nullable().optional(),
  breakdowns: z.array(breakdownItem).max(3).nullable().optional(),
  breakdown_group_type_index: z.int().nullable().optional(),
  breakdown_histogram_bin_count: z.null().optional(),
  breakdown_hide_other_aggregation: z.boolean().nullable().optional(),
  breakdown_normalize_url: z.boolean().nullable().optional(),
});

const formulaNode = z.strictObject({
  formula: z.string(),
  custom_name: z.string().nullable().optional(),
});

/** Display-only trendsFilter fields: accepted, they do not change the numbers. */
const DISPLAY_ONLY = [
  "showLegend",
  "showValuesOnSeries",
  "showPercentStackView",
  "showLabelsOnSeries",
  "showMultipleYAxes",
  "showAlertThresholdLines",
  "showTrendLines",
  "showConfidenceIntervals",
  "showMovingAverage",
  "confidenceLevel",
  "movingAverageIntervals",
  "aggregationAxisFormat",
  "aggregationAxisPrefix",
  "aggregationAxisPostfix",
  "decimalPlaces",
  "minDecimalPlaces",
  "yAxisScaleType",
  "hiddenLegendIndexes",
  "resultCustomizations",
  "resultCustomizationBy",
  "goalLines",
] as const;

const trendsFilter = z.strictObject({
  display: z.enum(DISPLAYS).nullable().optional(),
  formula: z.string().nullable().optional(),
  formulas: z.array(z.string()).nullable().optional(),
  formulaNodes: z.array(formulaNode).nullable().optional(),
  /** Only 1 (no smoothing) is evaluated. */
  smoothingIntervals: z.literal(1).nullable().optional(),
  ...Object.fromEntries(DISPLAY_ONLY.map((key) => [key, z.unknown().optional()])),
});

const trendsQuery = z.strictObject({
  kind: z.literal("TrendsQuery"),
  series: z.array(z.looseObject({ kind: z.string() })).min(1),
  interval: z.enum(INTERVALS).nullable().optional(),
  dateRange: z
    .strictObject({
      date_from: z.string().nullable().optional(),
      date_to: z.string().nullable().optional(),
      explicitDate: z.boolean().nullable().optional(),
    })
    .nullable()
    .optional(),
  properties,
  filterTestAccounts: z.boolean().nullable().optional(),
  breakdownFilter: breakdownFilter.nullable().optional(),
  trendsFilter: trendsFilter.nullable().optional(),
  compareFilter: z
    .strictObject({
      compare: z.boolean().nullable().optional(),
      compare_to: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  /** Only 1 (no sampling) is evaluated: PostgreSQL reads every row. */
  samplingFactor: z.literal(1).nullable().optional(),
  aggregation_group_type_index: z.null().optional(),
  modifiers: z.record(z.string(), z.unknown()).nullable().optional(),
  response: z.unknown().optional(),
  version: z.unknown().optional(),
  tags: z.unknown().optional(),
});

/** One series after validation. */
export interface TrendsSeries {
  event: string | null;
  name: string | null;
  customName: string | null;
  math: TrendsMath;
  mathProperty: string | null;
  /** Where `mathProperty` is read: the event's or the person's properties. */
  mathPropertyType: "event" | "person";
  mathGroupTypeIndex: number | null;
  /** The series' own filters and fixed filters, AND-ed; null when none. */
  properties: PropertyGroup | null;
  /** The node as sent (echoed in `action`). */
  raw: Record<string, unknown>;
}

/** One breakdown: a property of the event or of its person. */
export interface Breakdown {
  property: string;
  type: "event" | "person";
}

/** A validated TrendsQuery, defaults applied. */
export interface TrendsQuery {
  series: TrendsSeries[];
  interval: Interval;
  dateFrom: string | null;
  dateTo: string | null;
  explicitDate: boolean;
  properties: PropertyGroup | null;
  filterTestAccounts: boolean;
  breakdowns: Breakdown[];
  breakdownLimit: number;
  hideOther: boolean;
  display: Display;
  formulas: Array<{ formula: string; customName: string | null }>;
  compare: boolean;
  compareTo: string | null;
  /** The query as sent, for the `filter` echo. */
  raw: z.output<typeof trendsQuery>;
}

/** PostHog's `BREAKDOWN_VALUES_LIMIT`. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;
/** PostHog's default breakdown limit of the WorldMap display (one value per country). */
export const WORLD_MAP_BREAKDOWN_LIMIT = 300;

/** A property list or group as the shared translation takes it (a list is an AND group); null when empty. */
export function propertyTree(value: unknown, attr: string): PropertyGroup | null {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    const values = value.map(
      (item, i) => parseAt(propertyFilterSchema, item, `${attr}__${i}`) as PropertyFilter,
    );
    return { type: "AND", values };
  }
  return parseAt(propertyGroupSchema, value, attr);
}

/** `parseInput` of a nested value: the error's `attr` is prefixed with the value's path. */
export function parseAt<S extends z.ZodType>(schema: S, value: unknown, attr: string): z.output<S> {
  try {
    return parseInput(schema, value);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(error.detail, {
      attr: error.attr ? `${attr}__${error.attr}` : attr,
      code: error.code,
    });
  }
}

/** The AND of the trees given (null ones left out); null when none is left. */
export function andTrees(...trees: Array<PropertyGroup | null>): PropertyGroup | null {
  const present = trees.filter((tree): tree is PropertyGroup => tree !== null);
  if (present.length === 0) return null;
  return present.length === 1 ? present[0]! : { type: "AND", values: present };
}

function seriesOf(node: Record<string, unknown>, index: number): TrendsSeries {
  const attr = `series__${index}`;
  if (node["kind"] === "ActionsNode") {
    throw new NotImplementedError(
      `Actions are not supported: this service has no actions (series ${index} is an ActionsNode).`,
    );
  }
  if (node["kind"] !== "EventsNode") {
    throw new ValidationError(`Series kind '${String(node["kind"])}' is not supported: only EventsNode is.`, {
      attr: `${attr}__kind`,
      code: "invalid_choice",
    });
  }
  const parsed = parseAt(eventsNode, node, attr);
  const math = parsed.math ?? "total";
  if (!(SUPPORTED_MATH as readonly string[]).includes(math)) {
    const known = KNOWN_UNSUPPORTED_MATH.includes(math);
    throw new ValidationError(
      known
        ? `Math '${math}' is not supported by this service. Supported: ${SUPPORTED_MATH.join(", ")}.`
        : `"${math}" is not a valid choice.`,
      { attr: `${attr}__math`, code: known ? "unsupported" : "invalid_choice" },
    );
  }
  if (PROPERTY_MATH.has(math) && !parsed.math_property) {
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
  if (
    parsed.math_multiplier !== undefined &&
    parsed.math_multiplier !== null &&
    parsed.math_multiplier !== 1
  ) {
    throw new ValidationError("math_multiplier is not supported by this service.", {
      attr: `${attr}__math_multiplier`,
      code: "unsupported",
    });
  }
  const propertyType = parsed.math_property_type ?? "event_properties";
  if (propertyType !== "event_properties" && propertyType !== "person_properties") {
    throw new ValidationError(
      `math_property_type '${propertyType}' is not supported: only event_properties and person_properties are.`,
      { attr: `${attr}__math_property_type`, code: "unsupported" },
    );
  }
  return {
    event: parsed.event ?? null,
    name: parsed.name ?? null,
    customName: parsed.custom_name ?? null,
    math: math as TrendsMath,
    mathProperty: parsed.math_property ?? null,
    mathPropertyType: propertyType === "person_properties" ? "person" : "event",
    mathGroupTypeIndex: parsed.math_group_type_index ?? null,
    properties: andTrees(
      propertyTree(parsed.properties, `${attr}__properties`),
      propertyTree(parsed.fixedProperties, `${attr}__fixedProperties`),
    ),
    raw: node,
  };
}

function breakdownType(type: string | null | undefined, attr: string): "event" | "person" {
  const value = type ?? "event";
  if (value === "event" || value === "person") return value;
  throw new ValidationError(
    `Breakdown type '${value}' is not supported by this service: only event and person properties are.`,
    { attr, code: "unsupported" },
  );
}

function breakdownsOf(filter: z.output<typeof breakdownFilter> | null | undefined): Breakdown[] {
  if (!filter) return [];
  if (filter.breakdown_normalize_url) {
    throw new ValidationError("breakdown_normalize_url is not supported by this service.", {
      attr: "breakdownFilter__breakdown_normalize_url",
      code: "unsupported",
    });
  }
  if (filter.breakdowns && filter.breakdowns.length > 0) {
    return filter.breakdowns.map((item, i) => {
      if (item.normalize_url) {
        throw new ValidationError("normalize_url is not supported by this service.", {
          attr: `breakdownFilter__breakdowns__${i}__normalize_url`,
          code: "unsupported",
        });
      }
      return {
        property: String(item.property),
        type: breakdownType(item.type, `breakdownFilter__breakdowns__${i}__type`),
      };
    });
  }
  const breakdown = filter.breakdown;
  if (breakdown === undefined || breakdown === null || breakdown === "") return [];
  const type = breakdownType(filter.breakdown_type, "breakdownFilter__breakdown_type");
  if (Array.isArray(breakdown)) {
    throw new ValidationError("A list breakdown is only valid for cohorts, which are not supported here.", {
      attr: "breakdownFilter__breakdown",
      code: "unsupported",
    });
  }
  return [{ property: String(breakdown), type }];
}

/**
 * Validates a TrendsQuery node and applies PostHog's defaults (interval `day`, display
 * `ActionsLineGraph`, breakdown limit 25, 300 for WorldMap).
 * @throws ValidationError naming the first unknown or invalid field; NotImplementedError for ActionsNode.
 */
export function parseTrendsQuery(input: unknown): TrendsQuery {
  const raw = parseInput(trendsQuery, input);
  const series = raw.series.map((node, i) => seriesOf(node, i));
  const filter = raw.trendsFilter ?? {};
  const formulas: TrendsQuery["formulas"] = [];
  if (filter.formulaNodes && filter.formulaNodes.length > 0) {
    for (const node of filter.formulaNodes)
      formulas.push({ formula: node.formula, customName: node.custom_name ?? null });
  } else if (filter.formulas && filter.formulas.length > 0) {
    for (const formula of filter.formulas) formulas.push({ formula, customName: null });
  } else if (filter.formula) {
    formulas.push({ formula: filter.formula, customName: null });
  }
  return {
    series,
    interval: raw.interval ?? "day",
    dateFrom: raw.dateRange?.date_from ?? null,
    dateTo: raw.dateRange?.date_to ?? null,
    explicitDate: raw.dateRange?.explicitDate ?? false,
    properties: propertyTree(raw.properties, "properties"),
    filterTestAccounts: raw.filterTestAccounts ?? false,
    breakdowns: breakdownsOf(raw.breakdownFilter),
    breakdownLimit:
      raw.breakdownFilter?.breakdown_limit ??
      (filter.display === "WorldMap" ? WORLD_MAP_BREAKDOWN_LIMIT : DEFAULT_BREAKDOWN_LIMIT),
    hideOther: raw.breakdownFilter?.breakdown_hide_other_aggregation ?? false,
    display: filter.display ?? "ActionsLineGraph",
    formulas,
    compare: raw.compareFilter?.compare ?? false,
    compareTo: raw.compareFilter?.compare_to ?? null,
    raw,
  };
}
