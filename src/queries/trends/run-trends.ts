/**
 * Runs a `TrendsQuery` over the project's events and answers PostHog's `TrendsQueryResponse`
 * (query-and-experiments.md 1c, 1d; posthog/hogql_queries/insights/trends/trends_query_runner.py).
 * The query registry of `src/queries/` registers it for `kind: "TrendsQuery"`. This module is the
 * orchestration every analytics store shares (dates, buckets, cohorts, formulas, the response);
 * the events are read by a store (./store.ts): PostgreSQL (PGlite or a server, the default,
 * ./series-sql.ts) or ClickHouse (./clickhouse-store.ts).
 *
 * Cost: one statement per series and period (two periods with compare), each bounded by the
 * project and the range; plus one to find the earliest event for `date_from: "all"`, and, only when
 * filters use them, one per level of cohort nesting and one to check regex patterns. Never one per
 * bucket or per breakdown value.
 *
 * `filterTestAccounts`: PostHog applies the team's `test_account_filters`; projects here have none
 * (no such setting is stored), so it is accepted, echoed, and filters nothing.
 * Person properties (filters, breakdowns, math properties) are the person's current ones, joined
 * through the event's `person_id` (capture keeps it pointing at the surviving person after merges;
 * on ClickHouse, through the distinct id's current person), PostHog's "joined" persons mode.
 */
import { DateTime } from "luxon";
import { ValidationError } from "../../core/errors.js";
import type { SqlReader } from "../../db/sql-reader.js";
import type { PrismaClient } from "../../generated/prisma/client.js";
import { loadCohortDefinitions } from "../../lib/property-filters/cohort-definitions.js";
import {
  type PropertyGroup,
  referencedCohortIds,
  walkNodes,
} from "../../lib/property-filters/property-filters.js";
import type { CohortDefinition } from "../../lib/property-filters/to-sql.js";
import { bucketStarts, dayOf, labelOf } from "./buckets.js";
import { type DateRange, isoInZone, previousRange, resolveDateRange } from "./date-range.js";
import { isDistinctMath } from "./math.js";
import {
  cumulative,
  type FormulaEvaluator,
  formulaResults,
  type PeriodInfo,
  type SeriesValues,
  seriesResult,
  seriesValues,
  sortBreakdowns,
  type TrendResult,
} from "./response.js";
import { BREAKDOWN_OTHER, type SeriesShape } from "./series-sql.js";
import { postgresTrendsStore, type TrendsStore } from "./store.js";
import { andTrees, parseTrendsQuery, TOTAL_VALUE_DISPLAYS, type TrendsQuery } from "./trends-query.schema.js";

/**
 * What the engine reads with: hot SQL on the driver, and Prisma for cohorts and regex checks; and
 * where formulas are checked and evaluated (the query workers: ../query-workers.ts).
 */
export interface TrendsDeps {
  reader: SqlReader;
  db: Pick<PrismaClient, "cohort" | "$queryRaw">;
  /**
   * The analytics store events are read from (./store.ts): default PostgreSQL's through `reader`
   * and `db`; ClickHouse's is ./clickhouse-store.ts `clickHouseTrendsStore`. Cohort definitions are
   * read with `db` either way (configuration stays in PostgreSQL).
   */
  store?: TrendsStore;
  formulas: {
    /** Parses formulas and checks them against `seriesCount` series. @throws ValidationError. */
    checkFormulas(formulas: readonly string[], seriesCount: number): Promise<void>;
    /** Evaluates formulas over series columns (`FormulaEvaluator`). */
    evaluateFormulas: FormulaEvaluator;
  };
}

/** The project a query runs in: its id (the guard on every read) and its IANA timezone. */
export interface TrendsProject {
  id: number;
  timezone: string;
}

/** Run options. */
export interface TrendsOptions {
  /** The clock relative dates count from (default: the wall clock). */
  now?: Date;
}

/** PostHog's `TrendsQueryResponse` with the cached-response fields of a fresh run. */
export interface TrendsQueryResponse {
  results: TrendResult[];
  /** True when a breakdown produced an "Other" bucket. */
  hasMore: boolean;
  timezone: string;
  /** The range the run counted, ISO 8601 in the project zone. */
  resolved_date_range: { date_from: string; date_to: string };
  /** When this result was computed (ISO 8601). */
  last_refresh: string;
  is_cached: false;
}

function needsPerson(tree: PropertyGroup | null): boolean {
  if (tree === null) return false;
  for (const node of walkNodes(tree)) if (node.type === "person" || node.type === "cohort") return true;
  return false;
}

/** The legacy filter echo of every result (`to_legacy_filter`), nulls dropped. */
function filterEcho(query: TrendsQuery, range: DateRange): Record<string, unknown> {
  const raw = query.raw;
  const echo: Record<string, unknown> = {
    insight: "TRENDS",
    properties: raw.properties ?? [],
    filter_test_accounts: query.filterTestAccounts,
    date_from: isoInZone(range.lower),
    date_to: isoInZone(range.upper),
    entity_type: "events",
    interval: query.interval,
    display: query.display,
    ...(raw.trendsFilter?.formula ? { formula: raw.trendsFilter.formula } : {}),
    ...(raw.compareFilter?.compare ? { compare: true } : {}),
    ...(raw.compareFilter?.compare_to ? { compare_to: raw.compareFilter.compare_to } : {}),
  };
  for (const [key, value] of Object.entries(raw.breakdownFilter ?? {})) {
    if (value !== null && value !== undefined) echo[key] = value;
  }
  return echo;
}

/**
 * Runs `input` (a TrendsQuery node) for `project`.
 * @throws ValidationError for an invalid query (unknown fields, unsupported math or breakdown,
 *   bad dates, formulas), NotImplementedError for actions.
 */
export async function runTrendsQuery(
  deps: TrendsDeps,
  project: TrendsProject,
  input: unknown,
  options: TrendsOptions = {},
): Promise<TrendsQueryResponse> {
  const query = parseTrendsQuery(input);
  const store = deps.store ?? postgresTrendsStore(deps);
  const now = options.now ?? new Date();
  if (!DateTime.now().setZone(project.timezone).isValid) {
    throw new ValidationError(`The project's timezone '${project.timezone}' is not a known IANA zone.`);
  }
  const formulas = query.formulas.map((f) => ({ text: f.formula, customName: f.customName }));
  if (formulas.length > 0) {
    await deps.formulas.checkFormulas(
      formulas.map((f) => f.text),
      query.series.length,
    );
  }
  const totalValue = TOTAL_VALUE_DISPLAYS.has(query.display);
  const isCumulative = query.display === "ActionsLineGraphCumulative";
  // Total-value displays read the range as a day interval (PostHog).
  const interval = totalValue ? "day" : query.interval;

  const trees = query.series.map((series) => andTrees(series.properties, query.properties));
  const all: PropertyGroup = { type: "AND", values: trees.filter((t): t is PropertyGroup => t !== null) };
  let cohorts: ReadonlyMap<number, CohortDefinition> = new Map();
  if (referencedCohortIds(all).length > 0) cohorts = await loadCohortDefinitions(deps.db, project.id, all);
  await store.checkRegexPatterns(all, "properties");

  const earliest = query.dateFrom === "all" ? await store.earliestEvent(project.id) : null;
  const current = resolveDateRange({
    dateFrom: query.dateFrom,
    dateTo: query.dateTo,
    explicitDate: query.explicitDate,
    interval,
    now,
    zone: project.timezone,
    earliest,
  });
  const periods: Array<{ range: DateRange; label: PeriodInfo["compareLabel"] }> = [
    { range: current, label: query.compare ? "current" : null },
  ];
  if (query.compare) periods.push({ range: previousRange(current, query.compareTo), label: "previous" });

  const filter = filterEcho(query, current);
  const breakdownPerson = query.breakdowns.some((b) => b.type === "person");
  const results: TrendResult[] = [];
  let hasMore = false;
  const readSeries = await store.begin({
    projectId: project.id,
    timezone: project.timezone,
    now,
    cohorts,
    breakdowns: query.breakdowns,
  });

  for (const period of periods) {
    let buckets: DateTime[];
    try {
      buckets = bucketStarts(period.range);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new ValidationError(`The date range holds too many ${interval} intervals: ${error.message}.`, {
        attr: "interval",
      });
    }
    const info: PeriodInfo = {
      labels: buckets.map((b) => labelOf(b, interval)),
      days: buckets.map((b) => dayOf(b, interval)),
      compareLabel: period.label,
    };
    const values: SeriesValues[] = [];
    for (const [index, series] of query.series.entries()) {
      const tree = trees[index] ?? null;
      const shape: SeriesShape = totalValue
        ? "total"
        : isCumulative && isDistinctMath(series.math)
          ? "cumulative-distinct"
          : "buckets";
      const rows = await readSeries({
        series,
        tree,
        range: period.range,
        buckets,
        shape,
        joinPerson: needsPerson(tree) || breakdownPerson || series.mathPropertyType === "person",
        breakdownLimit: query.breakdownLimit,
      });
      let items = seriesValues(rows, index, buckets.length, query.breakdowns.length > 0);
      if (items.some((item) => item.breakdown?.every((v) => v === BREAKDOWN_OTHER))) hasMore = true;
      if (query.hideOther)
        items = items.filter((item) => !item.breakdown?.every((v) => v === BREAKDOWN_OTHER));
      if (isCumulative) for (const item of items) item.data = cumulative(item.data);
      values.push(...sortBreakdowns(items));
    }
    const shapeOptions = { totalValue, cumulative: isCumulative };
    if (formulas.length > 0) {
      results.push(
        ...(await formulaResults(
          formulas,
          deps.formulas.evaluateFormulas,
          values,
          query.series.length,
          buckets.length,
          info,
          filter,
          { ...shapeOptions, breakdown: query.breakdowns.length > 0 },
        )),
      );
    } else {
      for (const item of values) {
        results.push(
          seriesResult(
            item,
            query.series[item.seriesIndex]!,
            query.series.length,
            info,
            filter,
            shapeOptions,
          ),
        );
      }
    }
  }

  return {
    results,
    hasMore,
    timezone: project.timezone,
    resolved_date_range: { date_from: isoInZone(current.lower), date_to: isoInZone(current.upper) },
    last_refresh: now.toISOString(),
    is_cached: false,
  };
}
