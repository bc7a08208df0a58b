/**
 * Relative dates in HogQL: a Date variable's value (`posthog/hogql/variables.py`: a value matching
 * `is_relative_date_value` becomes `relative_date_parse(value, team.timezone_info)`) and a
 * `{filters}` date range (`posthog/hogql/filters.py`, the same call). Grammar and rules are the
 * shared ones of `src/lib/relative-dates.ts`, with PostHog's arguments for these call sites: no
 * `always_truncate` (`-7d` keeps the time of day, `mStart` is the 1st at the current time of day)
 * and no `team_week_start_day` (weeks start on Sunday).
 *
 * The instant is computed by the database at run time, on the wall clock of the session's
 * timezone, which the query runner sets to the project's: the SQL applies the shared
 * `RelativeDatePlan` step by step to `now()::timestamp` and reads the result back as a
 * `timestamptz`. PostgreSQL reads a wall time that occurs twice (DST fall-back) as its second
 * occurrence, where Python takes the first.
 *
 * Signalbox guards beyond PostHog: a bare unit letter (`d`, `s`) is not read as a date, since our
 * variables carry no type (any string value of that form would otherwise become a date), and
 * counts above 100,000 are not relative dates.
 */
import { Prisma } from "../../generated/prisma/client.js";
import {
  parseRelativeDate as parseShared,
  planRelativeDate,
  type RelativeDate,
  type RelativeDatePlan,
} from "../relative-dates.js";

const MAX_COUNT = 100_000;

/**
 * The relative date `text` (trimmed) names, by the shared insights grammar, or null when it is not
 * one or is refused by the guards above.
 */
export function parseRelativeDate(text: string): RelativeDate | null {
  const date = parseShared(text.trim());
  if (!date || (date.count === null && date.position === null)) return null;
  return date.count !== null && date.count > MAX_COUNT ? null : date;
}

/** One step: `expr` over the column `x` of the previous step's row. */
function step(previous: Prisma.Sql, expr: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT ${expr} AS x FROM (${previous}) AS s`;
}

const TIMES: Record<NonNullable<RelativeDatePlan["time"]>, string> = {
  hourStart: "date_trunc('hour', x)",
  hourEnd: "date_trunc('hour', x) + interval '59 minutes 59.999999 seconds'",
  dayStart: "date_trunc('day', x)",
  dayEnd: "date_trunc('day', x) + interval '23:59:59.999999'",
};

/**
 * The instant of `date` as SQL (`timestamptz`), resolved from `anchor` (default `now()`) on the
 * session timezone's wall clock by the shared plan. Units and snaps are fixed SQL text; counts
 * are bound parameters.
 */
export function relativeDateSql(date: RelativeDate, anchor: Prisma.Sql = Prisma.sql`now()`): Prisma.Sql {
  const plan = planRelativeDate(date);
  let row = Prisma.sql`SELECT (${anchor})::timestamp AS x`;
  if (plan.weekSnap) {
    const index = Prisma.raw(
      plan.weekStartDay === 1 ? "((extract(isodow from x)::int + 6) % 7)" : "extract(dow from x)::int",
    );
    row = step(
      row,
      plan.weekSnap === "Start"
        ? Prisma.sql`x - ${index} * interval '1 day'`
        : Prisma.sql`x + (6 - ${index}) * interval '1 day'`,
    );
  }
  if (plan.months !== 0 || plan.month !== null || plan.day !== null) {
    // relativedelta: the absolute month, the months back, the day clamped to the month's length.
    const start =
      plan.month === null
        ? Prisma.sql`date_trunc('month', x)`
        : Prisma.sql`date_trunc('year', x) + ${plan.month - 1}::int * interval '1 month'`;
    const day = plan.day === null ? Prisma.sql`extract(day from x)::int` : Prisma.sql`${plan.day}::int`;
    row = Prisma.sql`SELECT m + (least(${day}, extract(day from m + interval '1 month' - interval '1 day')::int) - 1)
        * interval '1 day' + (x - date_trunc('day', x)) AS x
      FROM (SELECT x, ${start} - ${plan.months}::int * interval '1 month' AS m FROM (${row}) AS s) AS s`;
  }
  if (plan.time) row = step(row, Prisma.raw(TIMES[plan.time]));
  if (plan.shiftMs !== 0) {
    row = step(row, Prisma.sql`x - ${plan.shiftMs}::bigint * interval '1 millisecond'`);
  }
  if (plan.quarterSnap) {
    const end = plan.quarterSnap === "End" ? " + interval '3 months' - interval '1 day'" : "";
    row = step(row, Prisma.raw(`date_trunc('quarter', x)${end} + (x - date_trunc('day', x))`));
  }
  if (plan.truncate) row = step(row, Prisma.raw(`date_trunc('${plan.truncate}', x)`));
  return Prisma.sql`(SELECT x::timestamptz FROM (${row}) AS r)`;
}
