/**
 * The one translation of PostHog's property filters to SQL: a `Prisma.Sql` boolean expression over
 * a persons row (and a groups or events row) that persons lists, cohort membership, flag blast
 * radius and the query engine all put in their `WHERE`.
 *
 * The walk and every dialect-free decision (operators, lists, null semantics, cohorts, behavioral
 * criteria) are `./translate.ts`'s, shared with ClickHouse's translation (`./to-clickhouse.ts`);
 * this module writes PostgreSQL's leaves.
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
import { Prisma } from "../../generated/prisma/client.js";
import { behavioralSql } from "./behavioral.js";
import type { PropertyNode } from "./property-filters.js";
import { VERSION_PATTERN, type Version } from "./semver.js";
import {
  type PropertyTest,
  type SqlDialect,
  type TranslationContext,
  translator,
  type ValueTest,
} from "./translate.js";

export type { CohortDefinition, SqlTargets, TranslationContext } from "./translate.js";

const TRUE = Prisma.sql`TRUE`;
const FALSE = Prisma.sql`FALSE`;

const COMPARISONS: Record<string, Prisma.Sql> = {
  gt: Prisma.raw(">"),
  gte: Prisma.raw(">="),
  lt: Prisma.raw("<"),
  lte: Prisma.raw("<="),
};

/**
 * A positive operator on one value: TRUE/FALSE when the property is present, NULL when it
 * is missing (the caller decides what missing means).
 */
function positive(test: ValueTest, json: Prisma.Sql, text: Prisma.Sql): Prisma.Sql {
  switch (test.kind) {
    case "icontains":
      return Prisma.sql`strpos(lower(${text}), ${test.needle}) > 0`;
    case "regex":
      return Prisma.sql`(${text} ~ ${test.pattern})`;
    case "compare": {
      const op = COMPARISONS[test.op]!;
      // Python `str()` of the property: booleans as True/False, everything else its JSON text.
      const pythonProperty = Prisma.sql`(CASE jsonb_typeof(${json}) WHEN 'boolean' THEN initcap(${text}) ELSE ${text} END)`;
      const textCompare = Prisma.sql`(${pythonProperty} COLLATE "C" ${op} ${test.text}::text COLLATE "C")`;
      if (test.number === null) return textCompare;
      return Prisma.sql`(CASE jsonb_typeof(${json})
        WHEN 'number' THEN (${json})::numeric ${op} ${test.number}::numeric
        WHEN 'boolean' THEN (CASE WHEN ${json} = 'true'::jsonb THEN 1 ELSE 0 END) ${op} ${test.number}::numeric
        WHEN 'string' THEN (${text} COLLATE "C" ${op} ${test.text}::text COLLATE "C")
        ELSE NULL END)`;
    }
    case "date": {
      const stamp = Prisma.sql`property_timestamp(${text})`;
      if (test.op === "is_date_before") return Prisma.sql`(${stamp} < ${test.at}::timestamptz)`;
      if (test.op === "is_date_after") return Prisma.sql`(${stamp} > ${test.at}::timestamptz)`;
      return Prisma.sql`((${stamp} AT TIME ZONE 'UTC')::date = ${test.day}::date)`;
    }
    case "semver":
      return semver(test, text);
    case "never":
      return FALSE;
  }
}

function versionArray(version: Version): string {
  return `{${version.join(",")}}`;
}

/** A semver operator: the property's leading version compared with the value's range. */
function semver({ range }: Extract<ValueTest, { kind: "semver" }>, text: Prisma.Sql): Prisma.Sql {
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

/** A person/group/event property filter, with PostHog's null semantics applied. */
function property(test: PropertyTest): Prisma.Sql {
  const properties = Prisma.sql`${test.row}.${Prisma.raw(test.column)}`;
  const json = Prisma.sql`(${properties} -> ${test.key}::text)`;
  const text = Prisma.sql`(${properties} ->> ${test.key}::text)`;
  const isGroup = test.groupTypeIndex !== null;
  const groupMatch = isGroup
    ? Prisma.sql` AND ${test.row}.group_type_index = ${test.groupTypeIndex}`
    : Prisma.empty;
  const { check } = test;
  if (check.kind === "set") return Prisma.sql`(${text} IS NOT NULL${groupMatch})`;
  if (check.kind === "not_set") return Prisma.sql`(${text} IS NULL${groupMatch})`;

  let anyOf: Prisma.Sql;
  if (check.kind === "exact") {
    // `exact` with any of the forms over the property's text (lower-cased for flag semantics).
    const prop = check.lowerCase ? Prisma.sql`lower(${text})` : text;
    anyOf =
      check.forms.length === 1
        ? Prisma.sql`${prop} = ${check.forms[0]}::text`
        : Prisma.sql`${prop} = ANY(${check.forms}::text[])`;
  } else {
    anyOf = Prisma.sql`(${Prisma.join(
      check.tests.map((t) => positive(t, json, text)),
      " OR ",
    )})`;
  }
  // Missing: FALSE for a positive operator, TRUE for a negative one (§3.5).
  const decided = check.negative
    ? Prisma.sql`COALESCE(NOT ${anyOf}, TRUE)`
    : Prisma.sql`COALESCE(${anyOf}, FALSE)`;
  return isGroup ? Prisma.sql`(${decided}${groupMatch})` : decided;
}

/** PostgreSQL's leaves of the translation. */
const POSTGRES: SqlDialect = {
  true: TRUE,
  false: FALSE,
  group: (type, parts) => Prisma.sql`(${Prisma.join(parts, type === "AND" ? " AND " : " OR ")})`,
  not: (sql) => Prisma.sql`(NOT ${sql})`,
  property,
  // Membership of a static cohort: its `cohort_people` rows.
  staticCohort: (person, projectId, cohortId) => Prisma.sql`EXISTS (SELECT 1 FROM cohort_people cp
      WHERE cp.project_id = ${projectId} AND cp.cohort_id = ${cohortId} AND cp.person_id = ${person}.id)`,
  behavioral: behavioralSql,
};

const translate = translator(POSTGRES);

/**
 * The SQL boolean expression of a property tree (or one filter) over `ctx.targets`.
 * @throws ValidationError `invalid_property_type` for a filter whose row is not a target here;
 *   `cohort_cycle` when cohorts reach themselves; malformed behavioral parameters (`./behavioral.ts`).
 * @throws NotImplementedError for behavioral criteria not calculated here (`./behavioral.ts`).
 */
export function toSql(root: PropertyNode, ctx: TranslationContext): Prisma.Sql {
  return translate(root, ctx);
}
