/**
 * The query worker: the module each thread of the query worker pool runs (./query-workers.ts builds
 * the pool; src/core/worker-pool.ts runs it). It does the query work whose cost the caller
 * controls: parsing HogQL (PostHog's WebAssembly parser), replacing placeholders, applying the
 * LIMIT rules, printing PostgreSQL, and parsing and evaluating Trends formulas.
 *
 * Tasks and results are plain data (./query-tasks.ts). An expected refusal comes back as
 * `{ok: false, error}` (a ValidationError's detail, code and attr), since thrown errors lose their
 * class on the way; anything else thrown is a bug and reaches the caller as such.
 *
 * A parser that trapped (`HogQLParserTrap`) ends this thread with `WORKER_TRAP_EXIT_CODE`: the pool
 * answers the task 400 and starts a fresh thread, so the broken instance is never used again. The
 * thread runs at a lowered CPU priority (nice 10), so untrusted work takes only the cores that serving
 * leaves. The parser's instantiation starts as the module loads (piscina loads it before handing a new thread
 * a task), so a fresh thread's first task mostly finds it ready. No top-level await: under tsx the
 * workers load this module through `require`, which cannot wait.
 */
import { NotImplementedError, ValidationError } from "../core/errors.js";
import { lowerThreadPriority, WORKER_TRAP_EXIT_CODE, WORKER_WARM_UP } from "../core/worker-pool.js";
import { Prisma } from "../generated/prisma/client.js";
import { printClickHouse } from "../lib/hogql/clickhouse/printer.js";
import { hogqlText } from "../lib/hogql/hogql-text.js";
import { applyLimits } from "../lib/hogql/limits.js";
import { type HogQLNode, HogQLParserTrap, hogqlParser, parseHogQLSelect } from "../lib/hogql/parser.js";
import { replacePlaceholders } from "../lib/hogql/placeholders.js";
import { printedBytes, printHogQL } from "../lib/hogql/printer.js";
import { mentionedNames } from "../lib/hogql/property-types.js";
import type {
  FiltersMarker,
  PreparedHogQL,
  PrintedHogQL,
  QueryTask,
  QueryTaskResult,
} from "./query-tasks.js";
import { checkFormula, evaluateFormulaColumns, parseFormula } from "./trends/formula.js";

/**
 * The nice value of query worker threads: work whose cost a caller controls yields the CPU to
 * request serving and the database (core/worker-pool.ts `lowerThreadPriority`).
 */
const QUERY_WORKER_NICENESS = 10;

lowerThreadPriority(QUERY_WORKER_NICENESS);
void hogqlParser();

async function perform(task: QueryTask): Promise<unknown> {
  switch (task.kind) {
    case "parse":
      return parseHogQLSelect(task.text, task.attr);
    case "prepare": {
      const parsed = await parseHogQLSelect(task.text);
      const { ast, plan } = applyLimits(replacePlaceholders(parsed, task.placeholders), task.page);
      const prepared: PreparedHogQL = {
        astJson: JSON.stringify(ast),
        root: ast.node,
        plan,
        names: mentionedNames(ast),
      };
      return prepared;
    }
    case "print": {
      const ast = JSON.parse(task.astJson) as HogQLNode;
      const marker = (filtersTargets: FiltersMarker["filtersTargets"]) =>
        Prisma.sql`${{ filtersTargets } satisfies FiltersMarker}`;
      const printed = printHogQL(ast, {
        projectId: task.projectId,
        timezone: task.timezone,
        propertyTypes: task.propertyTypes,
        limits: task.limits,
        ...(task.filters ? { filters: marker } : {}),
      });
      const result: PrintedHogQL = {
        strings: [...printed.sql.strings],
        values: [...printed.sql.values],
        columns: printed.columns,
        bytes: printedBytes(printed.sql),
        hogql: hogqlText(ast),
      };
      return result;
    }
    case "print-clickhouse":
      return printClickHouse(JSON.parse(task.astJson) as HogQLNode, {
        projectId: task.projectId,
        timezone: task.timezone,
        propertyTypes: task.propertyTypes,
        filters: task.filters,
        limits: task.limits,
        now: new Date(task.now),
      });
    case "check-formulas":
      for (const formula of task.formulas) checkFormula(parseFormula(formula), task.seriesCount);
      return null;
    case "evaluate-formulas":
      return task.formulas.map((formula) => evaluateFormulaColumns(parseFormula(formula), task.series));
  }
}

/**
 * Runs one task (the pool's entry point). The warm-up instantiates the parser.
 * @returns The task's `QueryTaskResult`; exits the thread on a parser trap.
 */
export default async function runQueryTask(
  task: QueryTask | typeof WORKER_WARM_UP,
): Promise<QueryTaskResult> {
  if (task === WORKER_WARM_UP) {
    await hogqlParser();
    return { ok: true, value: null };
  }
  try {
    return { ok: true, value: await perform(task) };
  } catch (error) {
    if (error instanceof HogQLParserTrap) process.exit(WORKER_TRAP_EXIT_CODE);
    if (error instanceof ValidationError || error instanceof NotImplementedError) {
      return { ok: false, error: { detail: error.detail, code: error.code, attr: error.attr } };
    }
    throw error;
  }
}
