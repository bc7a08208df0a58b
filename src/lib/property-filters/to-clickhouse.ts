/**
 * PostHog's property filters translated to ClickHouse (issue 30): the same `PropertyNode` tree and
 * `TranslationContext` as PostgreSQL's `./to-sql.ts`, walked by the same `./translate.ts` (operators,
 * lists, null semantics, cohort expansion and cycle refusal, date and version values, behavioral
 * criteria), written as a ClickHouse boolean expression over the caller's fixed row aliases:
 * a person row exposes `id` (UUID) and `properties` (JSON text), an events row `properties`,
 * `event`, `distinct_id`, `timestamp`, a groups row `group_properties` and `group_type_index`.
 * Static cohorts read `person_static_cohort`; behavioral criteria read `events FINAL` joined to
 * each distinct id's current person in `person_distinct_id2` (latest `version`, not deleted), as
 * PostHog's `posthog/hogql_queries/hogql_cohort_query.py` does.
 *
 * Guarantees (as `./to-sql.ts`'s):
 * - Every value is a bound parameter (`./params.ts` of the ClickHouse printer, `{p0:String}` once
 *   rendered by `renderClickHouse`); the only raw text is the caller's fixed aliases.
 * - Every expression is true or false, never NULL, so `NOT` and `OR` mean what they say.
 * - The property's text is what PostgreSQL's `->>` gives: a string unescaped (`JSONExtractString`),
 *   anything else its JSON text, missing or JSON null NULL (`JSONType` = 'Null').
 *
 * Intended differences from PostgreSQL's answers (each shown by a case of
 * test/lib/property-filters/filter-cases.ts or stated here as out of the fixtures' reach):
 * 1. `regex` is ClickHouse's `match`, re2 syntax, where PostgreSQL's `~` is POSIX ARE: re2 has no
 *    backreferences (`(a)\1`) and no lookaround (`(?=`, `(?!`, `(?<=`), and reads `\b` as a word
 *    boundary where ARE reads a backspace (ARE's `\m`, `\M`, `\y` are re2 errors). A pattern re2
 *    cannot compile fails the statement (`checkClickHouseRegexPatterns` refuses it up front, as
 *    `./regex-check.ts` does for PostgreSQL). Alike: case-sensitive, `.` matches a newline
 *    (ClickHouse sets re2's `dot_nl`), `^`/`$` anchor at the text's ends, UTF-8 characters.
 * 2. `gt|gte|lt|lte` on a number property compare Float64s (Python's `float()`, as PostHog's flag
 *    matching does) where PostgreSQL compares exact numerics: numbers that differ only past a
 *    double's 15–17 significant digits compare equal.
 * 3. A number's text (for `exact`, `icontains`, `regex`) is ClickHouse's shortest form of the
 *    parsed double (`1e21`, `1e-7`) where PostgreSQL writes jsonb's (`1000000000000000000000`,
 *    `0.0000001`); integers and JSON.stringify's decimals read alike. An object or array's text is
 *    compact JSON (`{"a":1}`) where PostgreSQL's adds spaces (`{"a": 1}`).
 * 4. Date properties: the same ISO 8601 shapes and ranges as `property_timestamp` (migration
 *    `property_filter_functions`), checked by a pattern before `parseDateTime64BestEffortOrNull`,
 *    whose own reading is looser; a fraction past microseconds is truncated where PostgreSQL rounds.
 * 5. Case-insensitive text (`exact` for flags, `icontains`) lower-cases the property with
 *    `lowerUTF8` (Unicode), as PostgreSQL's `lower` does under our databases' UTF-8 collations (a
 *    case shows `ÉVORA`); under a C collation PostgreSQL would lower ASCII only. JavaScript lowers
 *    the value's side for both.
 * 6. A version part of more than 77 digits (beyond UInt256) reads as no version.
 * PostHog's own ClickHouse printing of filters (`posthog/models/property/util.py`
 * `prop_filter_json_extract`, `posthog/hogql/property.py` `property_to_expr`) guided the shapes
 * (`match`, `JSONExtractRaw`, `has`, `person_static_cohort`, `IN (SELECT person_id ...)`), not the
 * semantics where ours are PostgreSQL's: util.py's `icontains` is `ILIKE '%v%'` (its `%` and `_`
 * wildcards; ours are literal), its `is_set` is `JSONHas` (a JSON null counts as set; here not),
 * its `gt` is `toFloat64OrNull` of any text (here a string compares as text, PostHog's flag rule),
 * and it prints a bad regex as `1 = 2` (here refused up front).
 *
 * Not a translation difference but the store's: ClickHouse's default JSON reader (simdjson) reads
 * a whole properties text as empty when it holds an integer literal beyond 64 bits
 * (`18446744073709552000`, JSON.stringify's 2^64), so every property of that row reads as missing;
 * a query can set `allow_simdjson = 0` to read such rows.
 */
import { ValidationError } from "../../core/errors.js";
import { Prisma } from "../../generated/prisma/client.js";
import { clickHouseDateTime, param } from "../hogql/clickhouse/params.js";
import {
  BEHAVIORAL_EVENT_ALIAS,
  type BehavioralSpec,
  type BehavioralSqlContext,
  COUNT_OPERATORS,
} from "./behavioral.js";
import type { PropertyNode } from "./property-filters.js";
import { regexPatterns } from "./regex-check.js";
import { type SemverRange, VERSION_PATTERN, type Version } from "./semver.js";
import {
  type PropertyTest,
  type SqlDialect,
  type TranslationContext,
  translator,
  type ValueTest,
} from "./translate.js";

const sql = Prisma.sql;
const raw = Prisma.raw;
const TRUE = sql`true`;
const FALSE = sql`false`;
const DATETIME = "DateTime64(6, 'UTC')";
const DAY_MS = 86_400_000;
/** The first and last instants a `DateTime64` holds: a window's ends are clamped to them. */
const FIRST_INSTANT = Date.UTC(1900, 0, 1);
const LAST_INSTANT = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

/** Milliseconds since 1970 as an Int64 parameter of microseconds (digit text: exact past 2^53). */
function micros(ms: number): Prisma.Sql {
  return param((BigInt(ms) * 1000n).toString(), "Int64");
}

/** An instant as a `DateTime64(6, 'UTC')` parameter, clamped to the type's range. */
function instant(date: Date): Prisma.Sql {
  const clamped = new Date(Math.min(Math.max(date.getTime(), FIRST_INSTANT), LAST_INSTANT));
  return param(clickHouseDateTime(clamped), DATETIME);
}

const COMPARISONS: Record<string, Prisma.Sql> = {
  gt: raw(">"),
  gte: raw(">="),
  lt: raw("<"),
  lte: raw("<="),
};

/**
 * The ISO 8601 texts `property_timestamp` reads as instants (its shape, and the ranges
 * PostgreSQL's `timestamptz` input accepts within it: year 0001–9999, month, day 01–31 (the month's
 * own length is `parseDateTime64BestEffortOrNull`'s check), hour 00–23 or 24:00:00, minute 00–59,
 * second 00–59 or 60 (a leap second, read as the next minute's first), offset ±00–15 hours and
 * 00–59 minutes), in re2 syntax.
 */
export const CLICKHOUSE_DATE_PATTERN =
  "^\\s*(000[1-9]|00[1-9]\\d|0[1-9]\\d\\d|[1-9]\\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])" +
  "([T ](([01]\\d|2[0-3]):[0-5]\\d(:([0-5]\\d(\\.\\d+)?|60(\\.0+)?))?|24:00(:00(\\.0+)?)?)" +
  "(Z|[+-](0\\d|1[0-5])(:?[0-5]\\d)?)?)?\\s*$";

/**
 * A property's text as an instant (`DateTime64(6, 'UTC')`), NULL when it is not one of the ISO 8601
 * texts PostgreSQL's `property_timestamp` reads (`CLICKHOUSE_DATE_PATTERN`); without an offset, UTC.
 */
export function propertyTimestamp(text: Prisma.Sql): Prisma.Sql {
  return sql`if(match(${text}, ${param(CLICKHOUSE_DATE_PATTERN, "String")}), parseDateTime64BestEffortOrNull(${text}, 6, 'UTC'), NULL)`;
}

/** The JSON type and text of one property (`JSONType`, and `->>`'s text: NULL when missing or null). */
function propertyOf(test: PropertyTest) {
  const column = sql`${test.row}.${raw(test.column)}`;
  const key = param(test.key, "String");
  const type = sql`JSONType(${column}, ${key})`;
  const text = sql`multiIf(${type} = 'Null', NULL, ${type} = 'String', JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key}))`;
  return { column, key, type, text };
}

/** A version's parts as UInt256 parameters (bound as digit text: UInt256 takes no JSON number). */
function versionTuple(version: Version): Prisma.Sql {
  return sql`(${Prisma.join(
    version.map((part) => param(BigInt(part).toString(), "UInt256")),
    ", ",
  )})`;
}

/** The property's leading version inside `range`: NULL when the text holds no version. */
function semver(range: SemverRange, text: Prisma.Sql): Prisma.Sql {
  const groups = sql`extractGroups(ifNull(${text}, ''), ${param(VERSION_PATTERN, "String")})`;
  const property = sql`(toUInt256OrNull(${groups}[1]), toUInt256OrZero(${groups}[2]), toUInt256OrZero(${groups}[3]))`;
  const bounds: Prisma.Sql[] = [];
  if (range.lower) {
    const op = raw(range.lower.inclusive ? ">=" : ">");
    bounds.push(sql`${property} ${op} ${versionTuple(range.lower.version)}`);
  }
  if (range.upper) {
    const op = raw(range.upper.inclusive ? "<=" : "<");
    bounds.push(sql`${property} ${op} ${versionTuple(range.upper.version)}`);
  }
  const inRange = sql`(${Prisma.join(bounds, " AND ")})`;
  return sql`if(empty(${groups}), NULL, ${range.negate ? sql`NOT ${inRange}` : inRange})`;
}

/** A positive operator on one value: true/false when the property is present, NULL when missing. */
function positive(test: ValueTest, property: ReturnType<typeof propertyOf>): Prisma.Sql {
  const { column, key, type, text } = property;
  switch (test.kind) {
    case "icontains":
      return sql`(position(lowerUTF8(${text}), ${param(test.needle, "String")}) > 0)`;
    case "regex":
      return sql`match(${text}, ${param(test.pattern, "String")})`;
    case "compare": {
      const op = COMPARISONS[test.op]!;
      const value = param(test.text, "String");
      // Python `str()` of the property: booleans as True/False, everything else its JSON text.
      const pythonProperty = sql`if(${type} = 'Bool', if(${text} = 'true', 'True', 'False'), ${text})`;
      if (test.number === null) return sql`(${pythonProperty} ${op} ${value})`;
      // As text: JSON (and so `renderClickHouse`'s sharing of equal values) has no infinities.
      const number = param(String(Number(test.number)), "Float64");
      return sql`multiIf(${type} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${column}, ${key}) ${op} ${number},
        ${type} = 'Bool', if(${text} = 'true', 1, 0) ${op} ${number},
        ${type} = 'String', ${text} ${op} ${value}, NULL)`;
    }
    case "date": {
      // Compared in microseconds since 1970 (Int64), so that any instant a value names binds.
      const stamp = sql`toUnixTimestamp64Micro(${propertyTimestamp(text)})`;
      const ms = test.at.getTime();
      if (test.op === "is_date_exact") {
        const start = Math.floor(ms / DAY_MS) * DAY_MS;
        return sql`(${stamp} >= ${micros(start)} AND ${stamp} < ${micros(start + DAY_MS)})`;
      }
      return sql`(${stamp} ${raw(test.op === "is_date_before" ? "<" : ">")} ${micros(ms)})`;
    }
    case "semver":
      return semver(test.range, text);
    case "never":
      return FALSE;
  }
}

/** A person/group/event property filter, with PostHog's null semantics applied. */
function property(test: PropertyTest): Prisma.Sql {
  const prop = propertyOf(test);
  const groupMatch =
    test.groupTypeIndex === null
      ? Prisma.empty
      : sql` AND ${test.row}.group_type_index = ${param(test.groupTypeIndex, "Int64")}`;
  const { check } = test;
  if (check.kind === "set") return sql`(${prop.type} != 'Null'${groupMatch})`;
  if (check.kind === "not_set") return sql`(${prop.type} = 'Null'${groupMatch})`;

  let anyOf: Prisma.Sql;
  if (check.kind === "exact") {
    const text = check.lowerCase ? sql`lowerUTF8(${prop.text})` : prop.text;
    // `IN` of a NULL is NULL, as `=` is: a missing property stays undecided until below.
    anyOf =
      check.forms.length === 1
        ? sql`(${text} = ${param(check.forms[0], "String")})`
        : sql`(${text} IN ${param(check.forms, "Array(String)")})`;
  } else {
    anyOf = sql`(${Prisma.join(
      check.tests.map((t) => positive(t, prop)),
      " OR ",
    )})`;
  }
  // Missing: false for a positive operator, true for a negative one (§3.5).
  const decided = check.negative ? sql`ifNull(NOT ${anyOf}, true)` : sql`ifNull(${anyOf}, false)`;
  return test.groupTypeIndex === null ? decided : sql`(${decided}${groupMatch})`;
}

/** Each distinct id's current person: its latest `person_distinct_id2` row, unless that row deletes it. */
function currentDistinctIds(projectId: number): Prisma.Sql {
  return sql`(SELECT d.distinct_id AS distinct_id, argMax(d.person_id, d.version) AS person_id
      FROM person_distinct_id2 AS d WHERE d.team_id = ${param(projectId, "Int64")}
      GROUP BY d.distinct_id HAVING argMax(d.is_deleted, d.version) = 0)`;
}

/**
 * One behavioral criterion: the person's id among those with matching events in the window (and,
 * for `performed_event_multiple`, whose count compares as asked; persons without events are never
 * counted, as on PostgreSQL). Events are read `FINAL`, so a resent event counts once.
 */
function behavioral(spec: BehavioralSpec, ctx: BehavioralSqlContext): Prisma.Sql {
  const event = raw(BEHAVIORAL_EVENT_ALIAS);
  const filters = spec.eventFilters
    ? sql` AND ${ctx.eventFilterSql(spec.eventFilters, BEHAVIORAL_EVENT_ALIAS)}`
    : Prisma.empty;
  const having = spec.count
    ? sql` HAVING count() ${raw(COUNT_OPERATORS[spec.count.operator]!)} ${param(spec.count.value, "Int64")}`
    : Prisma.empty;
  const performed = sql`${ctx.person}.id IN (SELECT bhv_pdi.person_id
      FROM events AS ${event} FINAL
      INNER JOIN ${currentDistinctIds(ctx.projectId)} AS bhv_pdi ON bhv_pdi.distinct_id = ${event}.distinct_id
      WHERE ${event}.team_id = ${param(ctx.projectId, "Int64")} AND ${event}.event = ${param(spec.event, "String")}
        AND ${event}.timestamp >= ${instant(spec.from)} AND ${event}.timestamp <= ${instant(spec.to)}${filters}
      GROUP BY bhv_pdi.person_id${having})`;
  return spec.negation ? sql`(NOT (${performed}))` : sql`(${performed})`;
}

/** ClickHouse's leaves of the translation. */
const CLICKHOUSE: SqlDialect = {
  true: TRUE,
  false: FALSE,
  group: (type, parts) => sql`(${Prisma.join(parts, type === "AND" ? " AND " : " OR ")})`,
  not: (expression) => sql`(NOT ${expression})`,
  property,
  staticCohort: (
    person,
    projectId,
    cohortId,
  ) => sql`(${person}.id IN (SELECT sc.person_id FROM person_static_cohort AS sc
      WHERE sc.team_id = ${param(projectId, "Int64")} AND sc.cohort_id = ${param(cohortId, "Int64")}))`,
  behavioral,
};

const translate = translator(CLICKHOUSE);

/**
 * The ClickHouse boolean expression of a property tree (or one filter) over `ctx.targets`, as a
 * `Prisma.Sql` whose values are `ClickHouseParam`s: put it in a statement and send it through
 * `renderClickHouse` (src/lib/hogql/clickhouse/params.ts). PostHog's own printing of the same:
 * `posthog/hogql/property.py` `property_to_expr`, `posthog/models/property/util.py`.
 * @throws as `./to-sql.ts` `toSql`: ValidationError `invalid_property_type`, `cohort_cycle`, malformed
 *   behavioral parameters; NotImplementedError for behavioral criteria not calculated.
 */
export function toClickHouse(root: PropertyNode, ctx: TranslationContext): Prisma.Sql {
  return translate(root, ctx);
}

/** What `checkClickHouseRegexPatterns` needs of a ClickHouse client (`@clickhouse/client`'s `query`). */
export interface ClickHouseQueryRunner {
  query(params: { query: string; query_params: Record<string, unknown>; format: "JSONEachRow" }): Promise<{
    json(): Promise<unknown>;
  }>;
}

/**
 * Refuses a tree holding a regex ClickHouse's re2 cannot compile (`./regex-check.ts`'s rule for
 * PostgreSQL): each pattern compiled by the engine, one statement per pattern (re2 reports a bad
 * pattern only as a failed statement).
 * @throws ValidationError code `invalid_regex`, `attr` as given, naming the first bad pattern;
 *   the client's error for a failure that is not the pattern's.
 */
export async function checkClickHouseRegexPatterns(
  client: ClickHouseQueryRunner,
  root: PropertyNode,
  attr: string,
): Promise<void> {
  for (const pattern of regexPatterns(root)) {
    try {
      const result = await client.query({
        query: "SELECT match('', {pattern:String}) AS ok",
        query_params: { pattern },
        format: "JSONEachRow",
      });
      await result.json();
    } catch (error) {
      // ClickHouse's error 427, CANNOT_COMPILE_REGEXP (`@clickhouse/client`'s `ClickHouseError`).
      const { code, type } = (error ?? {}) as { code?: unknown; type?: unknown };
      if (code !== "427" && type !== "CANNOT_COMPILE_REGEXP") throw error;
      throw new ValidationError(`Invalid regular expression: ${pattern}`, { attr, code: "invalid_regex" });
    }
  }
}
