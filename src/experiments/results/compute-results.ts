/**
 * Per-variant aggregates of one experiment metric, computed in SQL over the project's events
 * (query-and-experiments.md 2b Steps 1–3; PostHog's `ExperimentQueryRunner` up to the statistics):
 * what `src/experiments/stats/` consumes.
 *
 * Cost: one statement per computation, whatever the number of variants or entities, run through the
 * query engine's executor (`QueryRunDeps.execute`: read-only, the run's statement timeout, the
 * project's time zone), so the caller's per-project cap and timeout apply. Only when the filters
 * need them: one statement per level of cohort nesting (cohort definitions) and one to check regex
 * patterns, as Trends.
 *
 * `filterTestAccounts`: PostHog applies the team's `test_account_filters`; projects here have none
 * (no such setting is stored), so it is accepted and filters nothing, as in Trends (run-trends.ts).
 */
import { z } from "zod";
import { parseInput } from "../../core/validation.js";
import { Prisma } from "../../generated/prisma/client.js";
import { loadCohortDefinitions } from "../../lib/property-filters/cohort-definitions.js";
import {
  type PropertyGroup,
  referencedCohortIds,
  walkNodes,
} from "../../lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../../lib/property-filters/regex-check.js";
import { type CohortDefinition, toSql } from "../../lib/property-filters/to-sql.js";
import type { QueryRunDeps } from "../../queries/query-kinds.js";
import type { VariantAggregates } from "../stats/variant-aggregates.js";
import {
  type MetricSource,
  type ParsedMetric,
  parseExperimentMetric,
  parseExposureCriteria,
} from "./experiment-metric.schema.js";
import {
  type AggregateRow,
  funnelStatement,
  meanStatement,
  type ResultsScope,
  ratioStatement,
  retentionStatement,
  type SourceSql,
} from "./results-sql.js";

/** What one results computation needs: the experiment's context and one of its metrics. */
export interface ExperimentResultsInput {
  projectId: number;
  /** The project's IANA time zone (the session zone of the statement). */
  timezone: string;
  /** The experiment's flag key. */
  flagKey: string;
  /** The flag's variant keys in the flag's order, plus `holdout-<id>` when a holdout is attached. */
  variants: string[];
  /** The flag's `aggregation_group_type_index` (0–4): entities are groups; null: persons. */
  aggregationGroupTypeIndex: number | null;
  /** The experiment's start (exact). */
  startDate: Date;
  /** The experiment's end; null while it runs (then: now). */
  endDate: Date | null;
  /** The experiment's `exposure_criteria` as stored (validated here). */
  exposureCriteria: unknown;
  /** One `ExperimentMetric` as stored (validated here). */
  metric: unknown;
}

const contextSchema = z.object({
  projectId: z.int().positive(),
  timezone: z.string().min(1),
  flagKey: z.string().min(1),
  variants: z.array(z.string().min(1)).min(1),
  aggregationGroupTypeIndex: z.int().min(0).max(4).nullable(),
  startDate: z.date(),
  endDate: z.date().nullable(),
});

function needsPerson(tree: PropertyGroup | null): boolean {
  if (tree === null) return false;
  for (const node of walkNodes(tree)) if (node.type === "person" || node.type === "cohort") return true;
  return false;
}

function sourcesOf(metric: ParsedMetric): Array<{ source: MetricSource; attr: string }> {
  switch (metric.type) {
    case "mean":
      return [{ source: metric.source, attr: "metric__source__properties" }];
    case "funnel":
      return metric.steps.map((source, i) => ({ source, attr: `metric__series__${i}__properties` }));
    case "ratio":
      return [
        { source: metric.numerator, attr: "metric__numerator__properties" },
        { source: metric.denominator, attr: "metric__denominator__properties" },
      ];
    case "retention":
      return [
        { source: metric.start, attr: "metric__start_event__properties" },
        { source: metric.completion, attr: "metric__completion_event__properties" },
      ];
  }
}

function toNumber(value: unknown): number {
  return typeof value === "bigint" ? Number(value) : Number(value ?? 0);
}

/**
 * Computes the per-variant aggregates of `input.metric` for the experiment described by `input`:
 * ordered by `input.variants`, a variant without exposures answered with zeros; entities seen in
 * several variants (`$multiple`) left out.
 * @throws ValidationError for an invalid metric or exposure criteria (`attr` names the field), a bad
 *   regex filter, or a failed or timed-out statement (`Query execution failed: …`);
 *   NotImplementedError for constructs not computed here (experiment-metric.schema.ts).
 */
export async function computeVariantAggregates(
  deps: QueryRunDeps,
  input: ExperimentResultsInput,
): Promise<VariantAggregates[]> {
  const context = parseInput(contextSchema, {
    projectId: input.projectId,
    timezone: input.timezone,
    flagKey: input.flagKey,
    variants: input.variants,
    aggregationGroupTypeIndex: input.aggregationGroupTypeIndex,
    startDate: input.startDate,
    endDate: input.endDate,
  });
  const metric = parseExperimentMetric(input.metric);
  const exposure = parseExposureCriteria(input.exposureCriteria);
  // An experiment that ends before it starts (or has not started yet) has an empty range: zeros.
  const to = context.endDate ?? deps.now();

  const sources = sourcesOf(metric);
  const trees = [exposure.properties, ...sources.map((s) => s.source.properties)].filter(
    (tree): tree is PropertyGroup => tree !== null,
  );
  const all: PropertyGroup = { type: "AND", values: trees };
  let cohorts: ReadonlyMap<number, CohortDefinition> = new Map();
  if (referencedCohortIds(all).length > 0)
    cohorts = await loadCohortDefinitions(deps.ctx.db, context.projectId, all);
  if (exposure.properties) {
    await checkRegexPatterns(
      deps.ctx.db,
      exposure.properties,
      "exposure_criteria__exposure_config__properties",
    );
  }
  for (const { source, attr } of sources) {
    if (source.properties) await checkRegexPatterns(deps.ctx.db, source.properties, attr);
  }
  const now = deps.now();
  const translate = (tree: PropertyGroup | null): Prisma.Sql =>
    tree === null
      ? Prisma.sql`TRUE`
      : toSql(tree, {
          projectId: context.projectId,
          now,
          targets: { event: "e", person: "p" },
          cohorts,
          semantics: "query",
        });
  const sourceSql = (source: MetricSource): SourceSql => ({
    source,
    where: translate(source.properties),
    joinsPerson: needsPerson(source.properties),
  });

  const scope: ResultsScope = {
    projectId: context.projectId,
    flagKey: context.flagKey,
    variants: context.variants,
    groupTypeIndex: context.aggregationGroupTypeIndex,
    from: context.startDate,
    to,
    exposure,
    exposureWhere: translate(exposure.properties),
    exposureJoinsPerson: needsPerson(exposure.properties),
  };

  let statement: Prisma.Sql;
  switch (metric.type) {
    case "mean":
      statement = meanStatement(scope, sourceSql(metric.source), metric);
      break;
    case "ratio":
      statement = ratioStatement(
        scope,
        sourceSql(metric.numerator),
        sourceSql(metric.denominator),
        metric.windowSeconds,
      );
      break;
    case "funnel":
      statement = funnelStatement(scope, metric.steps.map(sourceSql), metric.windowSeconds);
      break;
    case "retention":
      statement = retentionStatement(scope, sourceSql(metric.start), sourceSql(metric.completion), metric);
      break;
  }
  const rows = await deps.execute<AggregateRow>(statement, context.timezone);
  const byVariant = new Map(rows.map((row) => [row.variant, row]));

  return context.variants.map((key): VariantAggregates => {
    const row = byVariant.get(key);
    const result: VariantAggregates = {
      key,
      number_of_samples: toNumber(row?.n),
      sum: toNumber(row?.total),
      sum_squares: toNumber(row?.squares),
    };
    if (metric.type === "funnel") {
      result.step_counts = row?.steps?.map(toNumber) ?? metric.steps.map(() => 0);
    }
    if (metric.type === "ratio" || metric.type === "retention") {
      result.denominator_sum = toNumber(row?.den_total);
      result.denominator_sum_squares = toNumber(row?.den_squares);
      result.numerator_denominator_sum_product = toNumber(row?.products);
    }
    return result;
  });
}
