/**
 * The dialect-free half of translating PostHog's property filters to SQL: the walk over a property
 * tree, and every decision that does not depend on the database. Each SQL dialect (`./to-sql.ts`
 * for PostgreSQL, `./to-clickhouse.ts` for ClickHouse) implements `SqlDialect`, which only writes
 * the SQL of decisions made here, so both stores give the same answers by construction:
 *
 * - Groups: AND/OR of their children; an empty group is TRUE.
 * - Operators (posthog-behavior.md §3.5; `posthog/hogql/property.py` `property_to_expr`;
 *   `posthog-python posthog/feature_flags.py` `match_property`): a negative operator (`is_not`,
 *   `not_icontains`, `not_regex`) is its positive twin negated, with a missing or JSON-null property
 *   matching it (`PropertyCheck.negative`); a list value is "any of" for positive operators and
 *   "none of" for negative ones; values as Python's `str()` (`True`, `5`); `exact` in its flag
 *   (lower-cased text forms) or query (HogQL's `=`, a boolean as `true`/`false`) forms; `gt|gte|lt|lte`
 *   numerically only when the value reads as a Python float; date values resolved at the
 *   translation's clock (`./filter-dates.ts`), and versions as ranges (`./semver.ts`), a value
 *   that reads as neither matching nothing.
 * - Cohorts: a dynamic cohort is its criteria, expanded recursively; a static one (or one without
 *   criteria) its stored members; a deleted or unknown one nobody; a cycle is refused
 *   (ValidationError `cohort_cycle`), never followed.
 * - Behavioral criteria: `./behavioral.ts` `behavioralSpec` resolves them; their event filters are
 *   translated here, with the query engine's `exact` semantics, over the criterion's events row.
 * - Rows: only the caller's fixed aliases (`SqlTargets`) are ever raw text; a filter on a row that
 *   is not a target is refused (ValidationError `invalid_property_type`).
 */
import { ValidationError } from "../../core/errors.js";
import { Prisma } from "../../generated/prisma/client.js";
import { type BehavioralSpec, type BehavioralSqlContext, behavioralSpec } from "./behavioral.js";
import { parseFilterDate } from "./filter-dates.js";
import {
  type BehavioralFilter,
  cohortIdOf,
  isPropertyGroup,
  type PropertyFilter,
  type PropertyGroup,
  type PropertyNode,
} from "./property-filters.js";
import { parseSemver, type SemverRange } from "./semver.js";

/**
 * The rows an expression reads, by the fixed SQL aliases of the caller's query (never input):
 * `person` a persons row, `group` a groups row, `event` an events row. A filter whose type
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

/** The comparison operators of `gt|gte|lt|lte`. */
export type Comparison = "gt" | "gte" | "lt" | "lte";
/** The date operators. */
export type DateOperator = "is_date_exact" | "is_date_before" | "is_date_after";

/**
 * What a positive operator asks of the property's text for one value. A dialect answers TRUE or
 * FALSE when the property is present and NULL when it is missing (the check decides what missing
 * means); it may also answer NULL where the property cannot be read the way the test needs
 * (a date or a version that does not parse), which counts as no match.
 */
export type ValueTest =
  /** A literal case-insensitive substring; `needle` is already lower-cased. */
  | { kind: "icontains"; needle: string }
  /** The dialect's regular expression match of `pattern` (PostgreSQL `~`, ClickHouse `match`). */
  | { kind: "regex"; pattern: string }
  /**
   * `text` is the value's Python `str()`, compared in code-point order; `number` (the value's
   * trimmed text) is set when the value reads as a Python float, and then a number property (or a
   * boolean as 0/1) compares numerically and a string property as text.
   */
  | { kind: "compare"; op: Comparison; text: string; number: string | null }
  /** The property read as an instant compared with `at`; `day` (UTC, `YYYY-MM-DD`) for `is_date_exact`. */
  | { kind: "date"; op: DateOperator; at: Date; day: string }
  /** The property's leading version (`./semver.ts` `VERSION_PATTERN`) inside `range`. */
  | { kind: "semver"; range: SemverRange }
  /** A value that reads as no date or no version: matches nothing. */
  | { kind: "never" };

/** What a property filter asks, its null semantics decided. */
export type PropertyCheck =
  /** `is_set`: present and not JSON null. */
  | { kind: "set" }
  /** `is_not_set`: missing or JSON null. */
  | { kind: "not_set" }
  /**
   * `exact` (or, `negative`, `is_not`) with any of `forms`: the property's text equal to one of
   * them, lower-cased first when `lowerCase` (the forms already are).
   */
  | { kind: "exact"; forms: string[]; lowerCase: boolean; negative: boolean }
  /** Any of `tests` (or, `negative`, none of them), a missing property matching only when `negative`. */
  | { kind: "any"; tests: ValueTest[]; negative: boolean };

/** One property filter as a dialect writes it. */
export interface PropertyTest {
  /** The row's fixed alias (raw text). */
  row: Prisma.Sql;
  /** The row's JSON column: `properties` (persons, events) or `group_properties` (groups). */
  column: "properties" | "group_properties";
  key: string;
  check: PropertyCheck;
  /** For a group filter, the group type index the row must also have (-1 when the filter has none). */
  groupTypeIndex: number | null;
}

/**
 * A SQL dialect's leaves. Every expression a dialect returns is TRUE or FALSE, never NULL, except
 * `ValueTest`s inside `property` (see there), so `not` and `OR` mean what they say.
 */
export interface SqlDialect {
  readonly true: Prisma.Sql;
  readonly false: Prisma.Sql;
  /** AND or OR of one or more parts. */
  group(type: "AND" | "OR", parts: Prisma.Sql[]): Prisma.Sql;
  not(sql: Prisma.Sql): Prisma.Sql;
  /** A person/group/event property filter, with PostHog's null semantics as `test.check` says. */
  property(test: PropertyTest): Prisma.Sql;
  /** Membership of the person row `person` in static cohort `cohortId` of `projectId`. */
  staticCohort(person: Prisma.Sql, projectId: number, cohortId: number): Prisma.Sql;
  /** One calculable behavioral criterion (its `negation` included) over the person row. */
  behavioral(spec: BehavioralSpec, ctx: BehavioralSqlContext): Prisma.Sql;
}

const ALIAS = /^[a-z_][a-z0-9_]*$/;

/** Negative operators and their positive twins (§3.5: a missing property matches them). */
const POSITIVE_OF: Record<string, string> = {
  is_not: "exact",
  not_icontains: "icontains",
  not_regex: "regex",
};
const COMPARISONS: ReadonlySet<string> = new Set(["gt", "gte", "lt", "lte"]);
const DATE_OPERATORS: ReadonlySet<string> = new Set(["is_date_exact", "is_date_before", "is_date_after"]);
const PYTHON_FLOAT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A caller's fixed alias as raw SQL. @throws ValidationError when the filter's row is not a target. */
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

/** What a positive operator other than `exact` asks of one value at `now`. */
function valueTest(operator: string, value: string | number | boolean, now: Date): ValueTest {
  const text = pythonText(value);
  if (operator === "icontains") return { kind: "icontains", needle: text.toLowerCase() };
  if (operator === "regex") return { kind: "regex", pattern: text };
  if (COMPARISONS.has(operator)) {
    const numeric = typeof value !== "boolean" && PYTHON_FLOAT.test(text);
    return { kind: "compare", op: operator as Comparison, text, number: numeric ? text.trim() : null };
  }
  if (DATE_OPERATORS.has(operator)) {
    const at = parseFilterDate(text, now);
    if (at === null) return { kind: "never" };
    return { kind: "date", op: operator as DateOperator, at, day: at.toISOString().slice(0, 10) };
  }
  const range = parseSemver(operator, text);
  return range === null ? { kind: "never" } : { kind: "semver", range };
}

/**
 * The text forms `exact` compares with: lower-cased Python `str()` for flag semantics, exactly as
 * HogQL compares for query semantics (a boolean as the JSON text `true`/`false`).
 */
function exactForms(
  values: ReadonlyArray<string | number | boolean>,
  semantics: "flags" | "query",
): string[] {
  return semantics === "flags"
    ? values.map((v) => pythonText(v).toLowerCase())
    : values.map((v) => (typeof v === "boolean" ? String(v) : pythonText(v)));
}

/** The check of a property filter: its operator resolved, its values read, its null semantics set. */
function propertyCheck(filter: PropertyFilter, ctx: TranslationContext): PropertyCheck {
  const operator = filter.operator ?? "exact";
  if (operator === "is_set") return { kind: "set" };
  if (operator === "is_not_set") return { kind: "not_set" };
  const negative = Object.hasOwn(POSITIVE_OF, operator);
  const base = POSITIVE_OF[operator] ?? operator;
  const values = Array.isArray(filter.value) ? filter.value : [filter.value as string | number | boolean];
  const semantics = ctx.semantics ?? "flags";
  if (base === "exact") {
    return {
      kind: "exact",
      forms: exactForms(values, semantics),
      lowerCase: semantics === "flags",
      negative,
    };
  }
  return { kind: "any", tests: values.map((v) => valueTest(base, v, ctx.now)), negative };
}

/** The row and column a property filter reads. */
function propertySource(
  filter: PropertyFilter,
  ctx: TranslationContext,
): Pick<PropertyTest, "row" | "column"> {
  switch (filter.type) {
    case "person":
      return { row: alias(ctx.targets.person, "person"), column: "properties" };
    case "event":
      return { row: alias(ctx.targets.event, "event"), column: "properties" };
    default:
      return { row: alias(ctx.targets.group, "group"), column: "group_properties" };
  }
}

/**
 * A translator over one dialect: `translate(root, ctx)` is the dialect's boolean expression of the
 * tree (`toSql`, `toClickHouse`).
 * @throws ValidationError `invalid_property_type` for a filter whose row is not a target here;
 *   `cohort_cycle` when cohorts reach themselves; malformed behavioral parameters (`./behavioral.ts`).
 * @throws NotImplementedError for behavioral criteria not calculated (`./behavioral.ts`).
 */
export function translator(dialect: SqlDialect): (root: PropertyNode, ctx: TranslationContext) => Prisma.Sql {
  function cohortFilter(
    filter: PropertyFilter,
    ctx: TranslationContext,
    path: readonly number[],
  ): Prisma.Sql {
    const person = alias(ctx.targets.person, "cohort");
    const id = cohortIdOf(filter.value);
    const cohort = id === null ? undefined : ctx.cohorts.get(id);
    let member: Prisma.Sql;
    if (!cohort || cohort.deleted) {
      member = dialect.false;
    } else if (path.includes(cohort.id)) {
      throw new ValidationError(
        `Cohorts cannot depend on themselves: cohort ${cohort.id} is part of a cycle.`,
        { code: "cohort_cycle" },
      );
    } else if (cohort.isStatic || cohort.criteria === null) {
      member = dialect.staticCohort(person, ctx.projectId, cohort.id);
    } else {
      member = node(cohort.criteria, ctx, [...path, cohort.id]);
    }
    return filter.operator === "not_in" ? dialect.not(member) : member;
  }

  function node(item: PropertyNode, ctx: TranslationContext, path: readonly number[]): Prisma.Sql {
    if (isPropertyGroup(item)) {
      if (item.values.length === 0) return dialect.true;
      return dialect.group(
        item.type,
        item.values.map((child) => node(child, ctx, path)),
      );
    }
    if (item.type === "behavioral") {
      const person = alias(ctx.targets.person, "behavioral");
      return dialect.behavioral(behavioralSpec(item as BehavioralFilter, ctx.now), {
        projectId: ctx.projectId,
        person,
        // Event filters read the criterion's own events row, compared as HogQL compares.
        eventFilterSql: (filters, event) =>
          node(filters, { ...ctx, targets: { event }, semantics: "query" }, path),
      });
    }
    const filter = item as PropertyFilter;
    let sql: Prisma.Sql;
    if (filter.type === "cohort") {
      sql = cohortFilter(filter, ctx, path);
    } else {
      const source = propertySource(filter, ctx);
      sql = dialect.property({
        ...source,
        key: filter.key,
        check: propertyCheck(filter, ctx),
        groupTypeIndex: filter.type === "group" ? (filter.group_type_index ?? -1) : null,
      });
    }
    return filter.negation ? dialect.not(sql) : sql;
  }

  return (root, ctx) => node(root, ctx, []);
}
