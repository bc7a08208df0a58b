/**
 * The `HogQLQuery` kind (query-and-experiments.md 1a–1c): the text parsed by PostHog's parser,
 * placeholders replaced in the AST, PostHog's LIMIT rules applied, printed to parameterised
 * PostgreSQL over the project's events and persons, run read-only, and answered as PostHog's
 * `HogQLQueryResponse`. Parsing and printing run in the query workers (./query-workers.ts), with
 * the reads they need (property types, `{filters}`) made here between the two tasks:
 * `{results, columns, types, hasMore?, limit?, offset?, query, hogql, clickhouse, timings, modifiers,
 *   query_status: null, error: null, + cached-response fields}`.
 * `clickhouse` holds the printed SQL (PostgreSQL here; PostHog's field for the printed query).
 */
import { performance } from "node:perf_hooks";
import { z } from "zod";
import type { ClickHouseClient } from "../analytics/clickhouse/client.js";
import { readClickHouse } from "../analytics/clickhouse/query.js";
import { parseInput } from "../core/validation.js";
import { Prisma } from "../generated/prisma/client.js";
import { hogqlFiltersSchema, prepareFilters } from "../lib/hogql/filters.js";
import { loadPropertyTypes } from "../lib/hogql/property-types.js";
import { clickHouseTypeName, type HogQLType, jsonValue, type PrintedColumn } from "../lib/hogql/types.js";
import { cachedResponseFields, type QueryKind } from "./query-kinds.js";
import type { QueryWorkers } from "./query-workers.js";
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

/**
 * The `HogQLQuery` kind, parsing and printing in `workers`; run on `clickhouse` when given (the
 * ClickHouse analytics store, src/core/services.ts `ServiceDeps.clickhouse`: printed for it, read
 * there read-only within the run's timeout), else on PostgreSQL.
 */
export const createHogQLQueryKind = (workers: QueryWorkers, clickhouse?: ClickHouseClient): QueryKind => ({
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
    const now = deps.now();
    const prepared = await time("parse", () =>
      workers.prepareHogQL(
        query.query,
        { variables: query.variables ?? null, values: query.values ?? null },
        { limit: options.limit, offset: options.offset },
      ),
    );
    const { plan } = prepared;
    const propertyTypes = await time("property_types", () =>
      loadPropertyTypes(deps.ctx.db, project.id, prepared.names),
    );
    const filters = await time("filters", () => prepareFilters(deps.ctx.db, project.id, query.filters, now));
    const paginatedSet = plan.kind === "paginated" && prepared.root !== "SelectQuery";
    let rows: Record<string, unknown>[];
    let printed: { columns: PrintedColumn[]; hogql: string };
    let printedSql: string;
    if (clickhouse) {
      // Events in ClickHouse (issue 30): printed for it, run there.
      const onClickHouse = await time("print", () =>
        workers.printHogQLClickHouse(prepared, {
          projectId: project.id,
          timezone: project.timezone,
          propertyTypes,
          filters: filters !== undefined,
          now,
        }),
      );
      const statement = paginatedSet
        ? {
            sql: `SELECT * FROM (${onClickHouse.sql}) LIMIT {sbx_limit:Int64} OFFSET {sbx_offset:Int64}`,
            params: { ...onClickHouse.params, sbx_limit: plan.limit + 1, sbx_offset: plan.offset },
          }
        : onClickHouse;
      rows = await time("execute", () =>
        readClickHouse<Record<string, unknown>>(clickhouse, statement, {
          timeoutSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
        }),
      );
      printed = onClickHouse;
      printedSql = statement.sql;
    } else {
      const onPostgres = await time("print", () =>
        workers.printHogQL(prepared, {
          projectId: project.id,
          timezone: project.timezone,
          propertyTypes,
          filters,
        }),
      );
      const statement = paginatedSet
        ? Prisma.sql`${onPostgres.sql} LIMIT ${plan.limit + 1}::bigint OFFSET ${plan.offset}::bigint`
        : onPostgres.sql;
      rows = await time("execute", () => deps.execute<Record<string, unknown>>(statement, project.timezone));
      printed = onPostgres;
      printedSql = bindOnce(statement).text;
    }
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
      hogql: printed.hogql,
      clickhouse: printedSql,
      timings,
      modifiers: query.modifiers ?? {},
      error: null,
      query_status: null,
      ...cachedResponseFields(project, query, now),
    };
  },
});
