/**
 * PostHog's `TrendsQueryResponse` pieces (query-and-experiments.md 1c; `trends_query_runner.py`
 * `build_series_response`, `apply_formula`, `_is_breakdown_field_boolean`; `breakdown.py`):
 * one `TrendResult` per series, breakdown value and period, their order, and formula outputs.
 */

import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type SeriesRow } from "./series-sql.js";
import type { TrendsSeries } from "./trends-query.schema.js";

/** One series (or formula) of the response. */
export interface TrendResult {
  /** One value per bucket; `[]` for total-value displays (`null` for their formulas). */
  data: number[] | null;
  labels: string[];
  days: string[];
  /** `sum(data)`; the last value for cumulative displays; 0 for total-value displays. */
  count: number;
  label: string;
  filter: Record<string, unknown>;
  /** The series echo; null for formulas. */
  action: Record<string, unknown> | null;
  /** A string, or an array for several breakdowns. */
  breakdown_value?: string | string[];
  compare?: boolean;
  compare_label?: "current" | "previous";
  /** The one number of total-value displays. */
  aggregated_value?: number;
}

/** A computed series before it is shaped: its values per bucket, or its total. */
export interface SeriesValues {
  seriesIndex: number;
  /** The breakdown values (null without a breakdown). */
  breakdown: string[] | null;
  data: number[];
  /** Total-value displays: the one aggregate. */
  total: number | null;
}

/** The common per-period parts of results. */
export interface PeriodInfo {
  labels: string[];
  days: string[];
  compareLabel: "current" | "previous" | null;
}

/**
 * One series' statement rows as values per breakdown value: every bucket present (0 when no row),
 * the one total of total-value rows (`b` null). Without a breakdown there is always one entry.
 */
export function seriesValues(
  rows: SeriesRow[],
  seriesIndex: number,
  bucketCount: number,
  hasBreakdown: boolean,
): SeriesValues[] {
  const byValue = new Map<string, SeriesValues>();
  const entry = (breakdown: string[] | null) => {
    const key = JSON.stringify(breakdown);
    let item = byValue.get(key);
    if (!item) {
      item = { seriesIndex, breakdown, data: new Array<number>(bucketCount).fill(0), total: null };
      byValue.set(key, item);
    }
    return item;
  };
  if (!hasBreakdown) entry(null);
  for (const row of rows) {
    const item = entry(row.v);
    const value = Number(row.value);
    if (row.b === null) item.total = value;
    else if (row.b >= 1 && row.b <= bucketCount) item.data[row.b - 1] = value;
  }
  return [...byValue.values()];
}

/** The series echo PostHog puts in `action` (its label source, math and the bucket days). */
export function actionOf(series: TrendsSeries, index: number, days: string[]): Record<string, unknown> {
  return {
    id: series.event,
    type: "events",
    order: index,
    name: series.event ?? "All events",
    custom_name: series.customName,
    math: series.raw["math"] ?? "total",
    math_property: series.mathProperty,
    math_hogql: null,
    math_group_type_index: series.mathGroupTypeIndex,
    properties: {},
    days,
  };
}

/** A series' label: its event (`All events` for any event). */
export function seriesLabel(series: TrendsSeries): string {
  return series.event ?? "All events";
}

function breakdownValueOf(values: string[] | null): string | string[] | undefined {
  if (values === null) return undefined;
  return values.length === 1 ? values[0] : values;
}

function breakdownRank(values: string[] | null): number {
  if (values === null) return 0;
  if (values.every((v) => v === BREAKDOWN_OTHER)) return 2;
  if (values.every((v) => v === BREAKDOWN_NULL)) return 1;
  return 0;
}

const totalOf = (item: { data: number[]; total: number | null }) =>
  item.total ?? item.data.reduce((sum, value) => sum + value, 0);

/**
 * Orders one series' breakdown values as PostHog does: by total descending, then value ascending;
 * the null bucket next to last and Other last.
 */
export function sortBreakdowns(items: SeriesValues[]): SeriesValues[] {
  return [...items].sort((a, b) => {
    const rank = breakdownRank(a.breakdown) - breakdownRank(b.breakdown);
    if (rank !== 0) return rank;
    const total = totalOf(b) - totalOf(a);
    if (total !== 0) return total;
    const x = (a.breakdown ?? []).join("::");
    const y = (b.breakdown ?? []).join("::");
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** Running sum (cumulative displays). */
export function cumulative(data: number[]): number[] {
  let sum = 0;
  return data.map((value) => (sum += value));
}

/** One series result. */
export function seriesResult(
  values: SeriesValues,
  series: TrendsSeries,
  seriesCount: number,
  period: PeriodInfo,
  filter: Record<string, unknown>,
  options: { totalValue: boolean; cumulative: boolean },
): TrendResult {
  const base = seriesLabel(series);
  const breakdown = breakdownValueOf(values.breakdown);
  const breakdownLabel = values.breakdown?.join("::");
  const label =
    breakdownLabel === undefined ? base : seriesCount > 1 ? `${base} - ${breakdownLabel}` : breakdownLabel;
  const result: TrendResult = options.totalValue
    ? {
        data: [],
        labels: [],
        days: [],
        count: 0,
        label,
        filter,
        action: actionOf(series, values.seriesIndex, period.days),
        aggregated_value: values.total ?? 0,
      }
    : {
        data: values.data,
        labels: period.labels,
        days: period.days,
        count: options.cumulative ? (values.data.at(-1) ?? 0) : values.data.reduce((s, v) => s + v, 0),
        label,
        filter,
        action: actionOf(series, values.seriesIndex, period.days),
      };
  if (breakdown !== undefined) result.breakdown_value = breakdown;
  if (period.compareLabel !== null) {
    result.compare = true;
    result.compare_label = period.compareLabel;
  }
  return result;
}

/**
 * Evaluates formulas over series columns (`series[i][p]`: series `i` at point `p`), one column per
 * formula (the query workers' `evaluateFormulas`).
 */
export type FormulaEvaluator = (
  formulas: readonly string[],
  series: Float64Array[],
) => Promise<Float64Array[]>;

/**
 * The results of formulas over one period's series values: per breakdown value (a series missing
 * for a value counts as zeros), ordered as PostHog orders them (values before the null bucket before
 * Other, then total, then the values, descending). Every formula is evaluated at every point of every
 * breakdown value in one call of `evaluate`.
 */
export async function formulaResults(
  formulas: Array<{ text: string; customName: string | null }>,
  evaluate: FormulaEvaluator,
  values: SeriesValues[],
  seriesCount: number,
  bucketCount: number,
  period: PeriodInfo,
  filter: Record<string, unknown>,
  options: { totalValue: boolean; cumulative: boolean; breakdown: boolean },
): Promise<TrendResult[]> {
  const groups = new Map<string, { breakdown: string[] | null; bySeries: Map<number, SeriesValues> }>();
  for (const item of values) {
    const key = JSON.stringify(item.breakdown);
    let group = groups.get(key);
    if (!group) {
      group = { breakdown: item.breakdown, bySeries: new Map() };
      groups.set(key, group);
    }
    group.bySeries.set(item.seriesIndex, item);
  }
  // Without a breakdown there is always one group (all zeros when nothing matched); with one, a
  // range without events has no values and so no results, as PostHog answers.
  if (groups.size === 0 && !options.breakdown) groups.set("null", { breakdown: null, bySeries: new Map() });
  // One column per series: each group's points (its total, or one value per bucket) one after the other.
  const groupList = [...groups.values()];
  const points = options.totalValue ? 1 : bucketCount;
  const series = Array.from({ length: seriesCount }, () => new Float64Array(groupList.length * points));
  groupList.forEach((group, g) => {
    for (let i = 0; i < seriesCount; i++) {
      const item = group.bySeries.get(i);
      if (!item) continue;
      if (options.totalValue) series[i]![g] = item.total ?? 0;
      else for (let b = 0; b < points; b++) series[i]![g * points + b] = item.data[b] ?? 0;
    }
  });
  const columns = await evaluate(
    formulas.map((formula) => formula.text),
    series,
  );
  const results: TrendResult[] = [];
  for (const [f, formula] of formulas.entries()) {
    const label = formula.customName ?? `Formula (${formula.text})`;
    const column = columns[f]!;
    const outputs: Array<{ result: TrendResult; breakdown: string[] | null; total: number }> = [];
    for (const [g, group] of groupList.entries()) {
      let result: TrendResult;
      if (options.totalValue) {
        result = {
          data: null,
          labels: [],
          days: [],
          count: 0,
          label,
          filter,
          action: null,
          aggregated_value: column[g]!,
        };
      } else {
        const data = Array.from(column.subarray(g * points, (g + 1) * points));
        // Series values are already cumulative on a cumulative display.
        const shown = data;
        result = {
          data: shown,
          labels: period.labels,
          days: period.days,
          count: options.cumulative ? (shown.at(-1) ?? 0) : shown.reduce((s, v) => s + v, 0),
          label,
          filter,
          action: null,
        };
      }
      const breakdown = breakdownValueOf(group.breakdown);
      if (breakdown !== undefined) result.breakdown_value = breakdown;
      if (period.compareLabel !== null) {
        result.compare = true;
        result.compare_label = period.compareLabel;
      }
      const total = result.aggregated_value ?? (result.data ?? []).reduce((s, v) => s + v, 0);
      outputs.push({ result, breakdown: group.breakdown, total });
    }
    outputs.sort((a, b) => {
      const rank = breakdownRank(a.breakdown) - breakdownRank(b.breakdown);
      if (rank !== 0) return rank;
      if (b.total !== a.total) return b.total - a.total;
      const x = JSON.stringify(a.breakdown);
      const y = JSON.stringify(b.breakdown);
      return x < y ? 1 : x > y ? -1 : 0;
    });
    results.push(...outputs.map((o) => o.result));
  }
  return results;
}
