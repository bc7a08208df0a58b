/**
 * The `HogQLQuery` kind (query-and-experiments.md 1a–1c): the text parsed by PostHog's parser,
 * placeholders replaced in the AST, PostHog's LIMIT rules applied, printed to parameterised
 * PostgreSQL over the project's events and persons, run read-only, and answered as PostHog's
 * `HogQLQueryResponse`:
 * `{results, columns, types, hasMore?, limit?, offset?, query, hogql, clickhouse, timings, modifiers,
 *   query_status: null, error: null, + cached-response fields}`.
 * `clickhouse` holds the printed SQL (PostgreSQL here; PostHog's field for the printed query).
 */
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { parseInput } from "../core/validation.js";
import { Prisma } from "../generated/prisma/client.js";
import { hogqlFiltersSchema, prepareFilters } from "./hogql/filters.js";
import { hogqlText } from "./hogql/hogql-text.js";
import { applyLimits } from "./hogql/limits.js";
import { parseHogQLSelect } from "./hogql/parser.js";
import { replacePlaceholders } from "./hogql/placeholders.js";
import { printHogQL } from "./hogql/printer.js";
import { loadPropertyTypes } from "./hogql/property-types.js";
import { checkHogQLText } from "./hogql/text-limits.js";
import { clickHouseTypeName, type HogQLType, jsonValue } from "./hogql/types.js";
import { cachedResponseFields, type QueryKind } from "./query-kinds.js";
import { bindOnce } from "./run-sql.js";

/** PostHog's `HogQLQuery` node (fields not read here are accepted and ignored). */
export const hogqlQuerySchema = z.looseObject({
  kind: z.literal("HogQLQuery"),
  query: z.string().min(1),
  variables: z
    .record(
      z.string(),
      z.looseObject({
        variableId: z.string().optional(),
        code_name: z.string().min(1),
        value: z.unknown().optional(),
        isNull: z.boolean().nullish(),
      }),
    )
    .nullish(),
  values: z.record(z.string(), z.unknown()).nullish(),
  filters: hogqlFiltersSchema.nullish(),
  modifiers: z.record(z.string(), z.unknown()).nullish(),
});

/** A validated HogQLQuery. */
export type HogQLQuery = z.output<typeof hogqlQuerySchema>;

/** The type of a column the printer could not type, from its first non-null value. */
function typeFromValues(rows: unknown[][], index: number): HogQLType {
  for (const row of rows) {
    const value = row[index];
    if (value === null || value === undefined) continue;
    if (typeof value === "number") return Number.isInteger(value) ? "Int64" : "Float64";
    if (typeof value === "boolean") return "Bool";
    if (Array.isArray(value)) return "Array";
    return "String";
  }
  return "String";
}

/** The `HogQLQuery` kind. */
export const hogqlQueryKind: QueryKind = {
  kind: "HogQLQuery",
  async run(deps, project, input, options) {
    const started = performance.now();
    const timings: Array<{ k: string; t: number }> = [];
    const time = async <T>(phase: string, work: () => Promise<T> | T): Promise<T> => {
      const start = performance.now();
      try {
        return await work();
      } finally {
        timings.push({ k: `./${phase}`, t: (performance.now() - start) / 1000 });
      }
    };
    const query = parseInput(hogqlQuerySchema, input, deps.ctx.limits);
    const { limits } = deps.ctx;
    checkHogQLText(query.query, {
      maxLength: limits.hogqlMaxQueryLength,
      maxTokens: limits.hogqlMaxTokens,
      maxNesting: limits.hogqlMaxNesting,
      maxExpressionDepth: limits.hogqlMaxExpressionDepth,
    });
    const now = deps.now();
    const parsed = await time("parse", () => parseHogQLSelect(query.query));
    const replaced = replacePlaceholders(parsed, {
      variables: query.variables ?? null,
      values: query.values ?? null,
    });
    const { ast, plan } = applyLimits(replaced, options);
    const propertyTypes = await time("property_types", () => loadPropertyTypes(deps.ctx.db, project.id, ast));
    const filters = await time("filters", () => prepareFilters(deps.ctx.db, project.id, query.filters, now));
    const printed = await time("print", () =>
      printHogQL(ast, {
        projectId: project.id,
        timezone: project.timezone,
        propertyTypes,
        limits: { maxDepth: limits.hogqlMaxExpressionDepth, maxPrintedBytes: limits.hogqlMaxPrintedBytes },
        ...(filters ? { filters } : {}),
      }),
    );
    const statement =
      plan.kind === "paginated" && ast.node !== "SelectQuery"
        ? Prisma.sql`${printed.sql} LIMIT ${plan.limit + 1}::bigint OFFSET ${plan.offset}::bigint`
        : printed.sql;
    const rows = await time("execute", () =>
      deps.execute<Record<string, unknown>>(statement, project.timezone),
    );
    const page = plan.kind === "paginated" ? rows.slice(0, plan.limit) : rows;
    const results = page.map((row) =>
      printed.columns.map((column, index) => jsonValue(row[`_${index}`], column.type, project.timezone)),
    );
    const types = printed.columns.map((column, index) => [
      column.name,
      clickHouseTypeName(
        column.type === "Unknown" ? typeFromValues(results, index) : column.type,
        column.nullable,
        project.timezone,
      ),
    ]);
    timings.push({ k: ".", t: (performance.now() - started) / 1000 });
    return {
      results,
      columns: printed.columns.map((column) => column.name),
      types,
      ...(plan.kind === "paginated"
        ? { hasMore: rows.length > plan.limit, limit: plan.limit, offset: plan.offset }
        : {}),
      query: query.query,
      hogql: hogqlText(ast),
      clickhouse: bindOnce(statement).text,
      timings,
      modifiers: query.modifiers ?? {},
      error: null,
      query_status: null,
      ...cachedResponseFields(project, query, now),
    };
  },
};
