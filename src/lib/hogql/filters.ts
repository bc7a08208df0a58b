/**
 * The `{filters}` placeholder of a HogQLQuery (`filters: {properties, dateRange, filterTestAccounts}`,
 * PostHog `posthog/hogql/filters.py`) as SQL over an events row and its current person: the
 * property filters through the shared filter-to-SQL translation (src/lib/property-filters/to-sql.ts, PostHog's
 * null semantics), AND the date range (`date_from` inclusive, `date_to` exclusive, as filters.py compares them; relative values
 * such as `-7d` in the project's timezone; `all` or absent: unbounded). `filterTestAccounts` adds
 * nothing: projects here have no test-account filters configured. With nothing set it is TRUE.
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";
import { loadCohortDefinitions } from "../property-filters/cohort-definitions.js";
import { parseIsoDate } from "../property-filters/filter-dates.js";
import { type PropertyGroup, propertyGroupSchema } from "../property-filters/property-filters.js";
import { checkRegexPatterns } from "../property-filters/regex-check.js";
import { toSql } from "../property-filters/to-sql.js";
import { parseRelativeDate, relativeDateSql } from "./relative-dates.js";

/** PostHog's `HogQLFilters`. */
export const hogqlFiltersSchema = z.looseObject({
  properties: z.array(z.unknown()).nullish(),
  dateRange: z
    .looseObject({
      date_from: z.string().nullish(),
      date_to: z.string().nullish(),
      explicitDate: z.boolean().nullish(),
    })
    .nullish(),
  filterTestAccounts: z.boolean().nullish(),
});

/** A HogQLQuery's `filters`. */
export type HogQLFilters = z.output<typeof hogqlFiltersSchema>;

/** `{filters}` as the printer takes it: SQL over fixed row aliases. */
export type FiltersSql = (targets: { event: string; person: string }) => Prisma.Sql;

function dateBound(text: string, attr: string): Prisma.Sql {
  const relative = parseRelativeDate(text);
  if (relative) return relativeDateSql(relative);
  const trimmed = text.trim();
  // Naive date-times are read in the session's timezone, which is the project's.
  if (
    !/^\d{4}-\d{2}-\d{2}/.test(trimmed) ||
    parseIsoDate(trimmed.replace(/([+-]\d{2}:?\d{2}|Z)$/, "Z")) === null
  ) {
    throw new ValidationError(`Invalid date: ${text}`, { attr });
  }
  return Prisma.sql`${trimmed}::timestamptz`;
}

/**
 * Prepares `{filters}`: validates the filters, checks their regex patterns and reads the cohorts
 * they name (the statements these need), and returns the SQL builder; undefined when `filters`
 * is absent (the placeholder is then TRUE).
 * @throws ValidationError (`attr` under `filters`) for filters of another shape, bad dates or patterns.
 */
export async function prepareFilters(
  db: PrismaClient,
  projectId: number,
  filters: HogQLFilters | null | undefined,
  now: Date,
): Promise<FiltersSql | undefined> {
  if (!filters) return undefined;
  let group: PropertyGroup | null = null;
  if (filters.properties && filters.properties.length > 0) {
    const parsed = propertyGroupSchema.safeParse({ type: "AND", values: filters.properties });
    if (!parsed.success) {
      throw new ValidationError(parsed.error.issues[0]?.message ?? "Invalid property filters.", {
        attr: "filters__properties",
      });
    }
    group = parsed.data;
    await checkRegexPatterns(db, group, "filters__properties");
  }
  const cohorts = group ? await loadCohortDefinitions(db, projectId, group) : new Map();
  const from = filters.dateRange?.date_from;
  const to = filters.dateRange?.date_to;
  const fromSql = from && from !== "all" ? dateBound(from, "filters__dateRange__date_from") : null;
  const toSqlBound = to ? dateBound(to, "filters__dateRange__date_to") : null;
  return ({ event, person }) => {
    const parts: Prisma.Sql[] = [];
    if (group)
      parts.push(toSql(group, { projectId, now, targets: { event, person }, cohorts, semantics: "query" }));
    if (fromSql) parts.push(Prisma.sql`${Prisma.raw(event)}.timestamp >= ${fromSql}`);
    if (toSqlBound) parts.push(Prisma.sql`${Prisma.raw(event)}.timestamp < ${toSqlBound}`);
    return parts.length === 0 ? Prisma.sql`TRUE` : Prisma.join(parts, " AND ");
  };
}
