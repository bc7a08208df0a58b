/**
 * Every allowed HogQL function, run through the query service on real rows and checked against
 * PostgreSQL's own answer to the hand-written SQL with ClickHouse's semantics (the project's
 * timezone Europe/Paris set as the runner sets it), plus literal checks of the ClickHouse semantics
 * the translation must keep (dateDiff boundaries, Sunday weeks, division by zero, sums over no rows,
 * JSONExtract defaults, safe casts). A second project's rows are always present.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../../src/generated/prisma/client.js";
import { FUNCTIONS } from "../../../src/lib/hogql/functions.js";
import { describeEachBackend, type TestServer } from "../../support/server.js";
import { runHogQL, seed } from "./fixtures.js";

/** A timestamp expression of the hand-written SQL as the runner writes it: ISO 8601 with Paris' November offset. */
const iso = (expr: string) =>
  `to_char((${expr}) AT TIME ZONE 'Europe/Paris', 'YYYY-MM-DD"T"HH24:MI:SS.MS') || '+01:00'`;

/** The `price` property as PostgreSQL reads it safely (`abc` is NULL, as ClickHouse's toFloat/toInt say). */
const PRICE_FLOAT =
  "(CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN (e.properties->>'price')::float8 END)";
const PRICE_INT = "(CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN (e.properties->>'price')::int END)";

/** [function, HogQL expression per $pageview row, hand-written SQL over `e`] */
const ROW_CASES: Array<[string, string, string]> = [
  [
    "if",
    "if(properties.$browser = 'Chrome', 1, 0)",
    "CASE WHEN e.properties->>'$browser' = 'Chrome' THEN 1 ELSE 0 END",
  ],
  [
    "multiIf",
    "multiIf(properties.price = '10', 'ten', properties.price = '9', 'nine', 'other')",
    "CASE e.properties->>'price' WHEN '10' THEN 'ten' WHEN '9' THEN 'nine' ELSE 'other' END",
  ],
  ["coalesce", "coalesce(properties.$browser, 'none')", "COALESCE(e.properties->>'$browser', 'none')"],
  ["ifNull", "ifNull(properties.$browser, 'none')", "COALESCE(e.properties->>'$browser', 'none')"],
  ["nullIf", "nullIf(properties.$browser, 'Chrome')", "NULLIF(e.properties->>'$browser', 'Chrome')"],
  ["isNull", "isNull(properties.$browser)", "e.properties->>'$browser' IS NULL"],
  ["isNotNull", "isNotNull(properties.$browser)", "e.properties->>'$browser' IS NOT NULL"],
  ["assumeNotNull", "assumeNotNull(event)", "e.event"],
  [
    "toString",
    "toString(toFloat(properties.price))",
    `CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN ${PRICE_FLOAT}::text END`,
  ],
  [
    "toInt",
    "toInt(properties.price)",
    "CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN (e.properties->>'price')::bigint END",
  ],
  [
    "toFloat",
    "toFloat(properties.price)",
    `CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN ${PRICE_FLOAT} END`,
  ],
  [
    "toBool",
    "toBool(toInt(properties.price) - 9)",
    `CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN ${PRICE_INT} - 9 <> 0 END`,
  ],
  [
    "toDateTime",
    "toDateTime('2026-11-20 10:00:00')",
    iso("'2026-11-20 10:00:00'::timestamp AT TIME ZONE 'Europe/Paris'"),
  ],
  ["toDate", "toDate(timestamp)", "(e.timestamp AT TIME ZONE 'Europe/Paris')::date::text"],
  ["toStartOfMinute", "toStartOfMinute(timestamp)", iso("date_trunc('minute', e.timestamp)")],
  ["toStartOfHour", "toStartOfHour(timestamp)", iso("date_trunc('hour', e.timestamp)")],
  [
    "toStartOfDay",
    "toStartOfDay(timestamp)",
    iso("date_trunc('day', e.timestamp AT TIME ZONE 'Europe/Paris') AT TIME ZONE 'Europe/Paris'"),
  ],
  [
    "toStartOfWeek",
    "toStartOfWeek(timestamp)",
    "(date_trunc('week', (e.timestamp AT TIME ZONE 'Europe/Paris')::date + 1)::date - 1)::text",
  ],
  [
    "toMonday",
    "toMonday(timestamp)",
    "date_trunc('week', e.timestamp AT TIME ZONE 'Europe/Paris')::date::text",
  ],
  [
    "toStartOfMonth",
    "toStartOfMonth(timestamp)",
    "date_trunc('month', e.timestamp AT TIME ZONE 'Europe/Paris')::date::text",
  ],
  [
    "toStartOfQuarter",
    "toStartOfQuarter(timestamp)",
    "date_trunc('quarter', e.timestamp AT TIME ZONE 'Europe/Paris')::date::text",
  ],
  [
    "toStartOfYear",
    "toStartOfYear(timestamp)",
    "date_trunc('year', e.timestamp AT TIME ZONE 'Europe/Paris')::date::text",
  ],
  [
    "toStartOfInterval",
    "toStartOfInterval(timestamp, INTERVAL 6 HOUR)",
    iso(
      "date_bin('6 hours', e.timestamp AT TIME ZONE 'Europe/Paris', '1970-01-01') AT TIME ZONE 'Europe/Paris'",
    ),
  ],
  [
    "dateDiff",
    "dateDiff('day', timestamp, toDateTime('2026-11-25 00:00:00'))",
    "'2026-11-25'::date - (e.timestamp AT TIME ZONE 'Europe/Paris')::date",
  ],
  ["dateAdd", "dateAdd('month', 1, timestamp)", iso("e.timestamp + interval '1 month'")],
  ["dateSub", "dateSub('day', 2, timestamp)", iso("e.timestamp - interval '2 days'")],
  ["toIntervalSecond", "timestamp + toIntervalSecond(30)", iso("e.timestamp + interval '30 seconds'")],
  ["toIntervalMinute", "timestamp - toIntervalMinute(30)", iso("e.timestamp - interval '30 minutes'")],
  ["toIntervalHour", "timestamp + INTERVAL 3 HOUR", iso("e.timestamp + interval '3 hours'")],
  ["toIntervalDay", "timestamp - INTERVAL 1 DAY", iso("e.timestamp - interval '1 day'")],
  ["toIntervalWeek", "timestamp + toIntervalWeek(1)", iso("e.timestamp + interval '1 week'")],
  ["toIntervalMonth", "timestamp + toIntervalMonth(2)", iso("e.timestamp + interval '2 months'")],
  ["toIntervalQuarter", "timestamp + toIntervalQuarter(1)", iso("e.timestamp + interval '3 months'")],
  ["toIntervalYear", "timestamp - toIntervalYear(1)", iso("e.timestamp - interval '1 year'")],
  ["toYear", "toYear(timestamp)", "EXTRACT(YEAR FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  ["toQuarter", "toQuarter(timestamp)", "EXTRACT(QUARTER FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  ["toMonth", "toMonth(timestamp)", "EXTRACT(MONTH FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  [
    "toDayOfMonth",
    "toDayOfMonth(timestamp)",
    "EXTRACT(DAY FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int",
  ],
  [
    "toDayOfWeek",
    "toDayOfWeek(timestamp)",
    "EXTRACT(ISODOW FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int",
  ],
  ["toDayOfYear", "toDayOfYear(timestamp)", "EXTRACT(DOY FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  ["toHour", "toHour(timestamp)", "EXTRACT(HOUR FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  ["toMinute", "toMinute(timestamp)", "EXTRACT(MINUTE FROM e.timestamp AT TIME ZONE 'Europe/Paris')::int"],
  ["toSecond", "toSecond(timestamp)", "EXTRACT(SECOND FROM e.timestamp)::int"],
  ["toUnixTimestamp", "toUnixTimestamp(timestamp)", "EXTRACT(EPOCH FROM e.timestamp)::bigint"],
  [
    "formatDateTime",
    "formatDateTime(timestamp, '%Y-%m-%d %H:%i:%S (%a)')",
    "to_char(e.timestamp AT TIME ZONE 'Europe/Paris', 'YYYY-MM-DD HH24:MI:SS (Dy)')",
  ],
  [
    "JSONExtractString",
    "JSONExtractString(properties, '$browser')",
    "COALESCE(CASE WHEN jsonb_typeof(e.properties->'$browser') = 'string' THEN e.properties->>'$browser' END, '')",
  ],
  [
    "JSONExtractInt",
    "JSONExtractInt(properties, 'n')",
    "COALESCE(trunc((e.properties->>'n')::numeric)::bigint, 0)",
  ],
  ["JSONExtractFloat", "JSONExtractFloat(properties, 'n')", "COALESCE((e.properties->>'n')::float8, 0)"],
  ["JSONExtractBool", "JSONExtractBool(properties, 'n')", "false"],
  ["JSONExtractRaw", "JSONExtractRaw(properties, 'price')", "COALESCE((e.properties->'price')::text, '')"],
  ["JSONHas", "JSONHas(properties, '$browser')", "e.properties ? '$browser'"],
  [
    "JSONExtractKeys",
    "arrayStringConcat(JSONExtractKeys(properties), ',')",
    "(SELECT string_agg(k, ',') FROM jsonb_object_keys(e.properties) k)",
  ],
  ["JSONExtractArrayRaw", "length(JSONExtractArrayRaw(properties, 'price'))", "0"],
  ["lower", "lower(properties.$browser)", "lower(e.properties->>'$browser')"],
  ["upper", "upper(properties.$browser)", "upper(e.properties->>'$browser')"],
  ["trim", "trim(concat('  ', event, ' '))", "btrim('  ' || e.event || ' ')"],
  ["trimLeft", "trimLeft(concat('  ', event))", "ltrim('  ' || e.event)"],
  ["trimRight", "trimRight(concat(event, '  '))", "rtrim(e.event || '  ')"],
  ["reverse", "reverse(distinct_id)", "reverse(e.distinct_id)"],
  ["length", "length(distinct_id)", "char_length(e.distinct_id)"],
  ["empty", "empty(properties.$browser)", "e.properties->>'$browser' = ''"],
  ["notEmpty", "notEmpty(distinct_id)", "e.distinct_id <> ''"],
  ["concat", "concat(event, '-', properties.$browser)", "e.event || '-' || (e.properties->>'$browser')"],
  ["substring", "substring(distinct_id, 2, 3)", "substr(e.distinct_id, 2, 3)"],
  ["position", "position(distinct_id, 'i')", "strpos(e.distinct_id, 'i')"],
  ["startsWith", "startsWith(distinct_id, 'al')", "starts_with(e.distinct_id, 'al')"],
  ["endsWith", "endsWith(distinct_id, 'ob')", "e.distinct_id LIKE '%ob'"],
  ["replaceAll", "replaceAll(distinct_id, 'a', 'A')", "replace(e.distinct_id, 'a', 'A')"],
  [
    "replaceRegexpAll",
    "replaceRegexpAll(distinct_id, '[aeiou]', '_')",
    "regexp_replace(e.distinct_id, '[aeiou]', '_', 'g')",
  ],
  [
    "replaceRegexpOne",
    "replaceRegexpOne(distinct_id, '[aeiou]', '_')",
    "regexp_replace(e.distinct_id, '[aeiou]', '_')",
  ],
  [
    "splitByChar",
    "arrayStringConcat(splitByChar('l', distinct_id), '|')",
    "array_to_string(string_to_array(e.distinct_id, 'l'), '|')",
  ],
  [
    "splitByString",
    "length(splitByString('li', distinct_id))",
    "cardinality(string_to_array(e.distinct_id, 'li'))",
  ],
  ["match", "match(distinct_id, '^a')", "e.distinct_id ~ '^a'"],
  ["extract", "extract(distinct_id, 'l(.)')", "COALESCE((regexp_match(e.distinct_id, 'l(.)'))[1], '')"],
  ["like", "like(distinct_id, 'a%')", "e.distinct_id LIKE 'a%'"],
  ["ilike", "ilike(distinct_id, 'A%')", "e.distinct_id ILIKE 'A%'"],
  ["has", "has(['alice', 'carol'], distinct_id)", "e.distinct_id = ANY(ARRAY['alice', 'carol'])"],
  ["arrayStringConcat", "arrayStringConcat([event, distinct_id], '/')", "e.event || '/' || e.distinct_id"],
  ["round", "round(toFloat(properties.price) / 3, 2)", `round(${PRICE_FLOAT} / 3 * 100) / 100`],
  ["floor", "floor(toFloat(properties.price) / 3)", `floor(${PRICE_FLOAT} / 3)`],
  ["ceil", "ceil(toFloat(properties.price) / 3)", `ceil(${PRICE_FLOAT} / 3)`],
  ["abs", "abs(toInt(properties.price) - 20)", `abs(${PRICE_INT} - 20)`],
  ["sqrt", "sqrt(toFloat(properties.price))", `sqrt(${PRICE_FLOAT})`],
  ["exp", "exp(toFloat(properties.price) / 10)", `exp(${PRICE_FLOAT} / 10)`],
  ["log", "log(toFloat(properties.price))", `ln(${PRICE_FLOAT})`],
  ["log10", "log10(toFloat(properties.price))", `log(${PRICE_FLOAT})`],
  ["pow", "pow(toFloat(properties.price), 2)", `power(${PRICE_FLOAT}, 2)`],
  ["sign", "sign(toInt(properties.price) - 10)", `sign(${PRICE_INT} - 10)::int`],
  ["intDiv", "intDiv(toInt(properties.price), 4)", `${PRICE_INT} / 4`],
  ["greatest", "greatest(toInt(properties.price), 9.5)", `greatest(${PRICE_INT}, 9.5)`],
  ["least", "least(toInt(properties.price), 9.5)", `least(${PRICE_INT}, 9.5)`],
  ["now", "dateDiff('second', now(), now())", "0"],
  ["today", "today() = toDate(now())", "true"],
  ["yesterday", "dateDiff('day', yesterday(), today())", "1"],
  ["arrayJoin", "length(distinct_id)", "char_length(e.distinct_id)"],
];

/** [function, HogQL aggregate over $pageview rows, hand-written SQL aggregate over `e`] */
const AGGREGATE_CASES: Array<[string, string, string]> = [
  ["count", "count()", "count(*)"],
  ["count", "count(DISTINCT distinct_id)", "count(DISTINCT e.distinct_id)"],
  [
    "countIf",
    "countIf(properties.$browser = 'Chrome')",
    "count(*) FILTER (WHERE e.properties->>'$browser' = 'Chrome')",
  ],
  ["uniq", "uniq(distinct_id)", "count(DISTINCT e.distinct_id)"],
  ["uniq", "uniqExact(distinct_id)", "count(DISTINCT e.distinct_id)"],
  [
    "sum",
    "sum(toFloat(properties.price))",
    "sum((CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN e.properties->>'price' END)::float8)",
  ],
  [
    "sumIf",
    "sumIf(toFloat(properties.price), distinct_id = 'alice')",
    `sum(${PRICE_FLOAT}) FILTER (WHERE e.distinct_id = 'alice')`,
  ],
  [
    "avg",
    "avg(toFloat(properties.price))",
    "avg((CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN e.properties->>'price' END)::float8)",
  ],
  [
    "avgIf",
    "avgIf(toFloat(properties.price), distinct_id = 'alice')",
    `avg(${PRICE_FLOAT}) FILTER (WHERE e.distinct_id = 'alice')`,
  ],
  ["min", "min(properties.$browser)", "min(e.properties->>'$browser')"],
  ["max", "max(properties.$browser)", "max(e.properties->>'$browser')"],
  [
    "minIf",
    "minIf(timestamp, distinct_id = 'bob')",
    iso("min(e.timestamp) FILTER (WHERE e.distinct_id = 'bob')"),
  ],
  [
    "maxIf",
    "maxIf(timestamp, distinct_id = 'alice')",
    iso("max(e.timestamp) FILTER (WHERE e.distinct_id = 'alice')"),
  ],
  ["any", "any(properties.$browser) IS NOT NULL", "bool_and(true)"],
  [
    "argMax",
    "argMax(properties.$browser, timestamp)",
    "min((SELECT x.properties->>'$browser' FROM events x WHERE x.project_id = $1 AND x.event = '$pageview' ORDER BY x.timestamp DESC LIMIT 1))",
  ],
  [
    "argMin",
    "argMin(distinct_id, timestamp)",
    "min((SELECT x.distinct_id FROM events x WHERE x.project_id = $1 AND x.event = '$pageview' ORDER BY x.timestamp LIMIT 1))",
  ],
  [
    "quantile",
    "quantile(0.9)(toFloat(properties.price))",
    "percentile_cont(0.9) WITHIN GROUP (ORDER BY (CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN e.properties->>'price' END)::float8)",
  ],
  [
    "median",
    "median(toFloat(properties.price))",
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY (CASE WHEN e.properties->>'price' ~ '^[0-9]+$' THEN e.properties->>'price' END)::float8)",
  ],
  [
    "groupArray",
    "arrayStringConcat(groupArray(properties.$browser), ',')",
    "string_agg(e.properties->>'$browser', ',')",
  ],
  ["groupUniqArray", "length(groupUniqArray(distinct_id))", "count(DISTINCT e.distinct_id)"],
];

function normalize(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Prisma.Decimal) return value.toNumber();
  if (typeof value === "number") return Math.round(value * 1e9) / 1e9;
  if (Array.isArray(value)) return value.map(normalize);
  return value;
}

/** PostgreSQL's answer to `sql` (with `$1` the project id) in the project's timezone, one value per row. */
async function postgresAnswer(server: TestServer, sql: string, projectId: number): Promise<unknown[]> {
  const rows = await server.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("SET LOCAL TimeZone = 'Europe/Paris'");
    return tx.$queryRawUnsafe<Array<{ v: unknown }>>(sql, projectId);
  });
  return rows.map((row) => normalize(row.v));
}

describeEachBackend("HogQL functions against PostgreSQL", (server) => {
  let project: number;
  beforeAll(async () => {
    project = (await seed(server())).project;
  });

  async function hogql(query: string): Promise<unknown[]> {
    const response = await runHogQL(server(), query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return (response.body.results as unknown[][]).map((row) => normalize(row[0]));
  }

  it("covers every function of the allow-list", () => {
    const covered = new Set([...ROW_CASES, ...AGGREGATE_CASES].map(([name]) => name));
    expect([...FUNCTIONS.keys()].filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(ROW_CASES)("%s: %s", async (_name, expression, sql) => {
    const ours = await hogql(`SELECT ${expression} FROM events WHERE event = '$pageview' ORDER BY timestamp`);
    const theirs = await postgresAnswer(
      server(),
      `SELECT (${sql}) AS v FROM events e WHERE e.project_id = $1 AND e.event = '$pageview' ORDER BY e.timestamp`,
      project,
    );
    expect(ours).toEqual(theirs);
  });

  it.each(AGGREGATE_CASES)("%s: %s", async (_name, expression, sql) => {
    const ours = await hogql(`SELECT ${expression} FROM events WHERE event = '$pageview'`);
    const theirs = await postgresAnswer(
      server(),
      `SELECT (${sql}) AS v FROM events e WHERE e.project_id = $1 AND e.event = '$pageview'`,
      project,
    );
    expect(ours).toEqual(theirs);
  });

  describe("ClickHouse semantics", () => {
    it.each([
      ["dateDiff('day', toDateTime('2020-01-01 23:59:00'), toDateTime('2020-01-02 00:01:00'))", 1],
      ["dateDiff('hour', toDateTime('2020-01-01 10:59:00'), toDateTime('2020-01-01 11:00:00'))", 1],
      ["dateDiff('month', toDateTime('2020-01-31 00:00:00'), toDateTime('2020-02-01 00:00:00'))", 1],
      ["dateDiff('year', toDateTime('2020-12-31 23:00:00'), toDateTime('2021-01-01 00:00:00'))", 1],
      ["dateDiff('week', toDateTime('2026-11-22 12:00:00'), toDateTime('2026-11-23 12:00:00'))", 1],
      ["toStartOfWeek(toDateTime('2026-11-25 12:00:00'))", "2026-11-22"],
      ["toStartOfWeek(toDateTime('2026-11-25 12:00:00'), 1)", "2026-11-23"],
      ["toStartOfDay(toDateTime('2026-11-20 00:30:00'))", "2026-11-20T00:00:00.000+01:00"],
      ["1 / 0", null],
      ["7 / 2", 3.5],
      ["intDiv(7, 2)", 3],
      ["7 % 0", null],
      ["toInt('12abc')", null],
      ["toInt('99999999999999999999')", null],
      ["toFloat('nope')", null],
      ["toFloat(' 1.5e3 ')", 1500],
      ["toDateTime('not a date')", null],
      ["toDate('2026-02-30')", null],
      ["JSONExtractString('{\"a\": 1}', 'a')", ""],
      ["JSONExtractString('{\"a\": {\"b\": \"x\"}}', 'a', 'b')", "x"],
      ["JSONExtractInt('{\"a\": \"7\"}', 'a')", 0],
      ["JSONExtractInt('[10, 20]', 2)", 20],
      ["JSONExtractFloat('not json', 'a')", 0],
      ["JSONExtractBool('{\"a\": true}', 'a')", true],
      ["JSONExtractRaw('{\"a\": [1, 2]}', 'a')", "[1, 2]"],
      ["concat('a', NULL)", null],
      ["extract('abc', 'z')", ""],
      ["round(2.5)", 2],
      ["round(3.5)", 4],
      [
        "formatDateTime(toDateTime('2026-01-05 07:08:09'), '%Y/%m/%d %H:%i:%S %% %j')",
        "2026/01/05 07:08:09 % 005",
      ],
      ["length('héllo')", 5],
      ["has([1, 2], 3)", false],
      ["[10, 20, 30][-1]", 30],
    ])("%s = %j", async (expression, expected) => {
      expect(await hogql(`SELECT ${expression}`)).toEqual([expected]);
    });

    it("sums over no rows: 0 for a column that cannot be NULL, NULL for one that can", async () => {
      expect(await hogql("SELECT sum(toUnixTimestamp(timestamp)) FROM events WHERE event = 'none'")).toEqual([
        0,
      ]);
      expect(await hogql("SELECT sum(toFloat(properties.price)) FROM events WHERE event = 'none'")).toEqual([
        null,
      ]);
      expect(await hogql("SELECT length(groupArray(event)) FROM events WHERE event = 'none'")).toEqual([0]);
    });

    it("expands arrayJoin into rows", async () => {
      expect(await hogql("SELECT arrayJoin(['a', 'b', 'c'])")).toEqual(["a", "b", "c"]);
    });
  });
});
