/**
 * The one translation of PostHog's property filters to SQL: a `Prisma.Sql` boolean expression over
 * a persons row (and a groups or events row) that persons lists, cohort membership, flag blast
 * radius and the query engine all put in their `WHERE`.
 *
 * Guarantees:
 * - Every value is a bound parameter; the only raw text is the caller's fixed row aliases.
 * - Every expression is TRUE or FALSE, never NULL, so `NOT` and `OR` mean what they say.
 * - PostHog's null semantics (posthog-behavior.md §3.5): a property that is missing or JSON `null`
 *   matches no positive operator (`exact`, `icontains`, `regex`, `gt`, dates, semver, ...) and
 *   matches every negative one (`is_not`, `not_icontains`, `not_regex`, `is_not_set`).
 * - A list value means "any of" for positive operators and "none of" for negative ones
 *   (`posthog/hogql/property.py` `property_to_expr`).
 * - Dynamic cohorts are expanded into their own criteria, recursively; static ones read
 *   `cohort_people`. A cycle of cohorts is refused (ValidationError), never followed.
 * - Behavioral criteria (events the person performed) are `./behavioral.ts`'s SQL over the person
 *   row: one translation for cohort counts, members, persons lists and query filters.
 *
 * Operator semantics (§3.5, from `posthog-python posthog/feature_flags.py` `match_property`):
 * `exact`/`is_not` compare text forms case-insensitively (`true`, `5`, `a@b.c`), except in a
 * query's filters (`semantics: "query"`: Trends, HogQL `{filters}`), where they compare exactly as
 * HogQL's `=`/`!=` do (`posthog/hogql/property.py` `property_to_expr`, a boolean as JSON's
 * `true`/`false`); `icontains` is a
 * case-insensitive substring; `regex` is PostgreSQL's `~` (patterns are checked beforehand by
 * `./regex-check.ts`); `gt|gte|lt|lte` compare numerically when the value parses as a number and
 * the property is a number (booleans count as 0/1, as in Python), and compare text (code-point
 * order) otherwise; date operators parse the property with `property_timestamp` (migration
 * `property_filter_functions`: ISO text, UTC unless it says otherwise, else no match).
 */
import { ValidationError } from "../../core/errors.js";
import { Prisma } from "../../generated/prisma/client.js";
import { behavioralSql } from "./behavioral.js";
import { parseFilterDate } from "./filter-dates.js";
import {
  type BehavioralFilter,
  cohortIdOf,
  isPropertyGroup,
  type PropertyFilter,
  type PropertyGroup,
  type PropertyNode,
} from "./property-filters.js";
import { parseSemver, VERSION_PATTERN, type Version } from "./semver.js";

/**
 * The rows an expression reads, by the fixed SQL aliases of the caller's query (never input):
 * `person` a `persons` row, `group` a `groups` row, `event` an `events` row. A filter whose type
 * has no row here is refused.
 */
export interface SqlTargets {
  person?: string;
  group?: string;
  event?: string;
}

/** A cohort as the translation needs it. */
export interface CohortDefinition {
  id: number;
  name: string | null;
  deleted: boolean;
  isStatic: boolean;
  /** The criteria of a dynamic cohort (`filters.properties`); null for a static one. */
  criteria: PropertyGroup | null;
}

/** What a translation needs besides the filters. */
export interface TranslationContext {
  /** The project every cohort read belongs to. */
  projectId: number;
  /** The clock relative dates (`-7d`) count back from. */
  now: Date;
  targets: SqlTargets;
  /**
   * Every cohort the filters reach, directly or through other cohorts (`./cohort-definitions.ts`
   * loads them). A cohort not here, or deleted, matches nobody.
   */
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /**
   * Whose rules `exact`/`is_not` follow: `flags` (default) compares case-insensitively as flag
   * matching does; `query` case-sensitively as HogQL does (the query engine's filters).
   */
  semantics?: "flags" | "query";
}

const ALIAS = /^[a-z_][a-z0-9_]*$/;
const TRUE = Prisma.sql`TRUE`;
const FALSE = Prisma.sql`FALSE`;

/** Operators that match when the property is missing (§3.5's negative operators). */
const NEGATIVE_OPERATORS = new Set(["is_not", "not_icontains", "not_regex", "is_not_set"]);
/** A negative operator's positive twin. */
const POSITIVE_OF: Record<string, string> = {
  is_not: "exact",
  not_icontains: "icontains",
  not_regex: "regex",
};
const COMPARISONS: Record<string, Prisma.Sql> = {
  gt: Prisma.raw(">"),
  gte: Prisma.raw(">="),
  lt: Prisma.raw("<"),
  lte: Prisma.raw("<="),
};
const PYTHON_FLOAT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

function alias(name: string | undefined, type: string): Prisma.Sql {
  if (name === undefined) {
    throw new ValidationError(`Filters on ${type} properties cannot be used here.`, {
      code: "invalid_property_type",
    });
  }
  if (!ALIAS.test(name)) throw new Error(`not a fixed SQL alias: ${name}`);
  return Prisma.raw(name);
}

/** Python's `str()` of a scalar filter value (`True`, `5`, `a`): what PostHog compares text with. */
function pythonText(value: string | number | boolean): string {
  if (typeof value === "boolean") return value ? "True" : "False";
  return String(value);
}

/** The JSON object of properties a filter reads. */
function propertiesColumn(filter: PropertyFilter, ctx: TranslationContext): Prisma.Sql {
  switch (filter.type) {
    case "person":
      return Prisma.sql`${alias(ctx.targets.person, "person")}.properties`;
    case "event":
      return Prisma.sql`${alias(ctx.targets.event, "event")}.properties`;
    default:
      return Prisma.sql`${alias(ctx.targets.group, "group")}.group_properties`;
  }
}

/**
 * A positive operator on one scalar value: TRUE/FALSE when the property is present, NULL when it
 * is missing (the caller decides what missing means).
 */
function positive(
  operator: string,
  value: string | number | boolean,
  json: Prisma.Sql,
  text: Prisma.Sql,
  now: Date,
): Prisma.Sql {
  const valueText = pythonText(value);
  switch (operator) {
    case "exact":
      return Prisma.sql`lower(${text}) = ${valueText.toLowerCase()}`;
    case "icontains":
      return Prisma.sql`strpos(lower(${text}), ${valueText.toLowerCase()}) > 0`;
    case "regex":
      return Prisma.sql`(${text} ~ ${valueText})`;
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const op = COMPARISONS[operator]!;
      // Python `str()` of the property: booleans as True/False, everything else its JSON text.
      const pythonProperty = Prisma.sql`(CASE jsonb_typeof(${json}) WHEN 'boolean' THEN initcap(${text}) ELSE ${text} END)`;
      const textCompare = Prisma.sql`(${pythonProperty} COLLATE "C" ${op} ${valueText}::text COLLATE "C")`;
      if (typeof value === "boolean" || !PYTHON_FLOAT.test(valueText)) return textCompare;
      const number = valueText.trim();
      return Prisma.sql`(CASE jsonb_typeof(${json})
        WHEN 'number' THEN (${json})::numeric ${op} ${number}::numeric
        WHEN 'boolean' THEN (CASE WHEN ${json} = 'true'::jsonb THEN 1 ELSE 0 END) ${op} ${number}::numeric
        WHEN 'string' THEN (${text} COLLATE "C" ${op} ${valueText}::text COLLATE "C")
        ELSE NULL END)`;
    }
    case "is_date_exact":
    case "is_date_before":
    case "is_date_after": {
      const date = parseFilterDate(valueText, now);
      if (date === null) return FALSE;
      const stamp = Prisma.sql`property_timestamp(${text})`;
      if (operator === "is_date_before") return Prisma.sql`(${stamp} < ${date}::timestamptz)`;
      if (operator === "is_date_after") return Prisma.sql`(${stamp} > ${date}::timestamptz)`;
      const day = date.toISOString().slice(0, 10);
      return Prisma.sql`((${stamp} AT TIME ZONE 'UTC')::date = ${day}::date)`;
    }
    default:
      return semver(operator, valueText, text);
  }
}

function versionArray(version: Version): string {
  return `{${version.join(",")}}`;
}

/** A semver operator: the property's leading version compared with the value's range. */
function semver(operator: string, valueText: string, text: Prisma.Sql): Prisma.Sql {
  const range = parseSemver(operator, valueText);
  if (range === null) return FALSE;
  const property = Prisma.sql`(SELECT CASE WHEN m IS NULL THEN NULL
      ELSE ARRAY[m[1], coalesce(m[2], '0'), coalesce(m[3], '0')]::numeric[] END
    FROM regexp_match(${text}, ${VERSION_PATTERN}) AS m)`;
  const bounds: Prisma.Sql[] = [];
  if (range.lower) {
    const op = Prisma.raw(range.lower.inclusive ? ">=" : ">");
    bounds.push(Prisma.sql`${property} ${op} ${versionArray(range.lower.version)}::numeric[]`);
  }
  if (range.upper) {
    const op = Prisma.raw(range.upper.inclusive ? "<=" : "<");
    bounds.push(Prisma.sql`${property} ${op} ${versionArray(range.upper.version)}::numeric[]`);
  }
  const inRange = Prisma.sql`(${Prisma.join(bounds, " AND ")})`;
  return range.negate ? Prisma.sql`(NOT ${inRange})` : inRange;
}

/**
 * `exact` with any of `values` over the property's text: lower-cased text forms for flag semantics,
 * the text exactly for query semantics (a boolean as the JSON text `->>` gives: `true`/`false`).
 */
function exactAnyOf(
  values: ReadonlyArray<string | number | boolean>,
  text: Prisma.Sql,
  semantics: "flags" | "query",
): Prisma.Sql {
  const forms =
    semantics === "flags"
      ? values.map((v) => pythonText(v).toLowerCase())
      : values.map((v) => (typeof v === "boolean" ? String(v) : pythonText(v)));
  const property = semantics === "flags" ? Prisma.sql`lower(${text})` : text;
  return forms.length === 1
    ? Prisma.sql`${property} = ${forms[0]}::text`
    : Prisma.sql`${property} = ANY(${forms}::text[])`;
}

/** A person/group/event property filter, with PostHog's null semantics applied. */
function propertyFilter(filter: PropertyFilter, ctx: TranslationContext): Prisma.Sql {
  const properties = propertiesColumn(filter, ctx);
  const json = Prisma.sql`(${properties} -> ${filter.key}::text)`;
  const text = Prisma.sql`(${properties} ->> ${filter.key}::text)`;
  const operator = filter.operator ?? "exact";
  const isGroup = filter.type === "group";
  const groupMatch = isGroup
    ? Prisma.sql` AND ${alias(ctx.targets.group, "group")}.group_type_index = ${filter.group_type_index ?? -1}`
    : Prisma.empty;

  if (operator === "is_set") return Prisma.sql`(${text} IS NOT NULL${groupMatch})`;
  if (operator === "is_not_set") return Prisma.sql`(${text} IS NULL${groupMatch})`;

  const negative = NEGATIVE_OPERATORS.has(operator);
  const base = POSITIVE_OF[operator] ?? operator;
  const values = Array.isArray(filter.value) ? filter.value : [filter.value as string | number | boolean];
  const anyOf =
    base === "exact"
      ? exactAnyOf(values, text, ctx.semantics ?? "flags")
      : Prisma.sql`(${Prisma.join(
          values.map((v) => positive(base, v, json, text, ctx.now)),
          " OR ",
        )})`;
  // Missing: FALSE for a positive operator, TRUE for a negative one (§3.5).
  const decided = negative ? Prisma.sql`COALESCE(NOT ${anyOf}, TRUE)` : Prisma.sql`COALESCE(${anyOf}, FALSE)`;
  return isGroup ? Prisma.sql`(${decided}${groupMatch})` : decided;
}

/** Membership of a cohort: its criteria for a dynamic one, its `cohort_people` rows for a static one. */
function cohortFilter(filter: PropertyFilter, ctx: TranslationContext, path: readonly number[]): Prisma.Sql {
  const person = alias(ctx.targets.person, "cohort");
  const id = cohortIdOf(filter.value);
  const cohort = id === null ? undefined : ctx.cohorts.get(id);
  let member: Prisma.Sql;
  if (!cohort || cohort.deleted) {
    member = FALSE;
  } else if (path.includes(cohort.id)) {
    throw new ValidationError(
      `Cohorts cannot depend on themselves: cohort ${cohort.id} is part of a cycle.`,
      {
        code: "cohort_cycle",
      },
    );
  } else if (cohort.isStatic || cohort.criteria === null) {
    member = Prisma.sql`EXISTS (SELECT 1 FROM cohort_people cp
      WHERE cp.project_id = ${ctx.projectId} AND cp.cohort_id = ${cohort.id} AND cp.person_id = ${person}.id)`;
  } else {
    member = node(cohort.criteria, ctx, [...path, cohort.id]);
  }
  return filter.operator === "not_in" ? Prisma.sql`(NOT ${member})` : member;
}

function node(item: PropertyNode, ctx: TranslationContext, path: readonly number[]): Prisma.Sql {
  if (isPropertyGroup(item)) {
    if (item.values.length === 0) return TRUE;
    const parts = item.values.map((child) => node(child, ctx, path));
    return Prisma.sql`(${Prisma.join(parts, item.type === "AND" ? " AND " : " OR ")})`;
  }
  if (item.type === "behavioral") {
    return behavioralSql(item as BehavioralFilter, {
      projectId: ctx.projectId,
      now: ctx.now,
      person: alias(ctx.targets.person, "behavioral"),
      // Event filters read the criterion's own events row, compared as HogQL compares.
      eventFilterSql: (filters, event) =>
        node(filters, { ...ctx, targets: { event }, semantics: "query" }, path),
    });
  }
  const filter = item as PropertyFilter;
  const sql = filter.type === "cohort" ? cohortFilter(filter, ctx, path) : propertyFilter(filter, ctx);
  return filter.negation ? Prisma.sql`(NOT ${sql})` : sql;
}

/**
 * The SQL boolean expression of a property tree (or one filter) over `ctx.targets`.
 * @throws ValidationError `invalid_property_type` for a filter whose row is not a target here;
 *   `cohort_cycle` when cohorts reach themselves; malformed behavioral parameters (`./behavioral.ts`).
 * @throws NotImplementedError for behavioral criteria not calculated here (`./behavioral.ts`).
 */
export function toSql(root: PropertyNode, ctx: TranslationContext): Prisma.Sql {
  return node(root, ctx, []);
}
