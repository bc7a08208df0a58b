/**
 * The query work whose cost a caller controls, as the request thread asks for it: each call makes
 * the cheap checks first, here (HogQL text: ./hogql/text-limits.ts; formulas: length and depth),
 * then hands the work to the query worker pool (./query-worker.ts on src/core/worker-pool.ts) and
 * only awaits. The composition root builds one per process (`createQueryWorkers`) and closes it at
 * shutdown.
 *
 * A HogQL run takes two tasks, because printing needs what only the database knows: `prepareHogQL`
 * (parse, placeholders, LIMIT rules; answers the names the query mentions), then the request
 * thread reads the property types of those names and prepares `{filters}`, then `printHogQL`.
 * Each task costs one message each way (about 0.1 ms) and a copy of the AST's JSON text.
 */
import path from "node:path";
import type { Config } from "../config.js";
import { NotImplementedError, ValidationError } from "../core/errors.js";
import { createWorkerPool } from "../core/worker-pool.js";
import { Prisma } from "../generated/prisma/client.js";
import type { PrintedClickHouse } from "../lib/hogql/clickhouse/printer.js";
import type { FiltersSql } from "../lib/hogql/filters.js";
import type { HogQLNode } from "../lib/hogql/parser.js";
import type { PlaceholderInputs } from "../lib/hogql/placeholders.js";
import {
  type PrintedQuery,
  type PropertyTypes,
  printedBytes,
  refusePrintedSize,
} from "../lib/hogql/printer.js";
import { checkHogQLText } from "../lib/hogql/text-limits.js";
import {
  isFiltersMarker,
  type PreparedHogQL,
  type PrintedHogQL,
  type QueryTask,
  type QueryTaskResult,
} from "./query-tasks.js";
import { checkFormulaText } from "./trends/formula.js";

declare module "../core/services.js" {
  interface Services {
    queryWorkers: QueryWorkers;
  }
}

/** A HogQL query printed for a run. */
export interface PrintedRun extends PrintedQuery {
  /** The query as HogQL text (the response's `hogql`). */
  hogql: string;
}

/** The query work of the worker pool (see the module comment). */
export interface QueryWorkers {
  /**
   * Parses HogQL text (an endpoint's query) into PostHog's AST.
   * @throws ValidationError for the text limits (`attr`), `Invalid HogQL query: …`, the pool's budgets.
   */
  parseHogQL(text: string, attr?: string): Promise<HogQLNode>;
  /**
   * First stage of a run: parses `text`, replaces its placeholders, applies the LIMIT rules for `page`.
   * @throws ValidationError for the text limits, the parser, placeholders, the pool's budgets.
   */
  prepareHogQL(
    text: string,
    placeholders: PlaceholderInputs,
    page: { limit?: number | undefined; offset?: number | undefined },
  ): Promise<PreparedHogQL>;
  /**
   * Second stage: prints a prepared query for `projectId`, `{filters}` as `filters` gives it.
   * @throws ValidationError for unsupported constructs, `max_depth`, `max_size` (the filters' SQL
   *   counted at each use), PostHog's CTE loop error, the pool's budgets.
   */
  printHogQL(
    prepared: PreparedHogQL,
    options: {
      projectId: number;
      timezone: string;
      propertyTypes: PropertyTypes;
      filters?: FiltersSql | undefined;
    },
  ): Promise<PrintedRun>;
  /**
   * Second stage for the ClickHouse store (issue 30): prints a prepared query for ClickHouse
   * (src/lib/hogql/clickhouse/printer.ts), relative dates resolved from `now`.
   * @throws ValidationError as `printHogQL`, and for `{filters}` when the query has filters.
   */
  printHogQLClickHouse(
    prepared: PreparedHogQL,
    options: {
      projectId: number;
      timezone: string;
      propertyTypes: PropertyTypes;
      filters: boolean;
      now: Date;
    },
  ): Promise<PrintedClickHouse>;
  /**
   * Parses Trends formulas and checks them against `seriesCount` series.
   * @throws ValidationError for the formula limits and PostHog's formula errors.
   */
  checkFormulas(formulas: readonly string[], seriesCount: number): Promise<void>;
  /**
   * Evaluates Trends formulas over series columns (`series[i][p]`: series `i` at point `p`); one
   * column per formula.
   * @throws ValidationError as `checkFormulas`, the pool's budgets.
   */
  evaluateFormulas(formulas: readonly string[], series: Float64Array[]): Promise<Float64Array[]>;
  /** Stops the workers (at shutdown). */
  close(): Promise<void>;
}

/** The worker module beside this one: TypeScript under tsx, JavaScript in `dist/`. */
const WORKER_MODULE = new URL(`./query-worker${path.extname(import.meta.url)}`, import.meta.url);

/** Builds the query workers of `config` (`queryWorkers` budgets, `limits`); no thread starts before the first task. */
export function createQueryWorkers(config: Pick<Config, "limits" | "queryWorkers">): QueryWorkers {
  const { limits } = config;
  const pool = createWorkerPool<QueryTask, QueryTaskResult>({
    module: WORKER_MODULE,
    threads: config.queryWorkers.threads,
    timeoutMs: config.queryWorkers.timeoutMs,
    maxMemoryMb: config.queryWorkers.maxMemoryMb,
    maxWaiting: config.queryWorkers.maxWaiting,
    subject: "Processing the query",
  });
  const run = async <T>(task: QueryTask): Promise<T> => {
    const result = await pool.run(task);
    if (!result.ok) {
      // What is not built (the ClickHouse printer's `{filters}`: NotImplementedError's code) is 501,
      // not the query's fault.
      if (result.error.code === "not_implemented") throw new NotImplementedError(result.error.detail);
      throw new ValidationError(result.error.detail, { code: result.error.code, attr: result.error.attr });
    }
    return result.value as T;
  };
  /** The printers' bounds (src/config.ts `HOGQL_MAX_EXPRESSION_DEPTH`, `HOGQL_MAX_PRINTED_BYTES`). */
  const printLimits = {
    maxDepth: limits.hogqlMaxExpressionDepth,
    maxPrintedBytes: limits.hogqlMaxPrintedBytes,
  };
  const textLimits = {
    maxLength: limits.hogqlMaxQueryLength,
    maxTokens: limits.hogqlMaxTokens,
    maxNesting: limits.hogqlMaxNesting,
    maxExpressionDepth: limits.hogqlMaxExpressionDepth,
  };
  const checkFormulaTexts = (formulas: readonly string[]) => {
    for (const formula of formulas) {
      checkFormulaText(formula, { maxLength: limits.formulaMaxLength, maxDepth: limits.formulaMaxDepth });
    }
  };

  return {
    parseHogQL(text, attr = "query") {
      checkHogQLText(text, textLimits, attr);
      return run<HogQLNode>({ kind: "parse", text, attr });
    },
    prepareHogQL(text, placeholders, page) {
      checkHogQLText(text, textLimits);
      return run<PreparedHogQL>({ kind: "prepare", text, placeholders, page });
    },
    async printHogQL(prepared, options) {
      const printed = await run<PrintedHogQL>({
        kind: "print",
        astJson: prepared.astJson,
        projectId: options.projectId,
        timezone: options.timezone,
        propertyTypes: options.propertyTypes,
        filters: options.filters !== undefined,
        limits: printLimits,
      });
      let values = printed.values;
      const filters = options.filters;
      const uses = values.filter(isFiltersMarker);
      if (filters && uses.length > 0) {
        // Measured before it is spliced in: `{filters}` used at every level must not multiply.
        const each = printedBytes(filters(uses[0]!.filtersTargets));
        refusePrintedSize(printed.bytes + uses.length * each, limits.hogqlMaxPrintedBytes);
        values = values.map((value) => (isFiltersMarker(value) ? filters(value.filtersTargets) : value));
      }
      return { sql: new Prisma.Sql(printed.strings, values), columns: printed.columns, hogql: printed.hogql };
    },
    printHogQLClickHouse(prepared, options) {
      return run<PrintedClickHouse>({
        kind: "print-clickhouse",
        astJson: prepared.astJson,
        projectId: options.projectId,
        timezone: options.timezone,
        propertyTypes: options.propertyTypes,
        filters: options.filters,
        limits: printLimits,
        now: options.now.getTime(),
      });
    },
    async checkFormulas(formulas, seriesCount) {
      checkFormulaTexts(formulas);
      await run<null>({ kind: "check-formulas", formulas: [...formulas], seriesCount });
    },
    evaluateFormulas(formulas, series) {
      checkFormulaTexts(formulas);
      return run<Float64Array[]>({ kind: "evaluate-formulas", formulas: [...formulas], series });
    },
    close: () => pool.close(),
  };
}
