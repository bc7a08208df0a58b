/**
 * PostHog's relative date strings (`relative_date_parse` in `posthog/utils.py`): `-7d` (seven days
 * ago, at the start of that day), `-24h` (24 hours ago), `mStart` (the start of this month),
 * `-1wEnd` (the end of last week). Units: h hour, d day, w week, m month, q quarter, y year,
 * M minute, s second. They are resolved by the database at run time, in the session's timezone,
 * which the query runner sets to the project's, so "start of day" is the project's midnight.
 */
import { Prisma } from "../../generated/prisma/client.js";

/** A parsed relative date. */
export interface RelativeDate {
  text: string;
  amount: number;
  /** PostgreSQL unit name (`day`, `month`, ...). */
  unit: string;
  position: "Start" | "End" | null;
}

const PATTERN = /^-?(\d*)([hdwmqysHDWMQYS])(Start|End)?$/;
const UNITS: Record<string, string> = {
  h: "hour",
  H: "hour",
  d: "day",
  D: "day",
  w: "week",
  W: "week",
  m: "month",
  q: "quarter",
  Q: "quarter",
  y: "year",
  Y: "year",
  M: "minute",
  s: "second",
  S: "second",
};

/** The relative date `text` names, or null when it is not one (a bare unit letter is not one). */
export function parseRelativeDate(text: string): RelativeDate | null {
  const match = PATTERN.exec(text.trim());
  if (!match || (match[1] === "" && match[3] === undefined)) return null;
  const amount = match[1] === "" ? 0 : Number(match[1]);
  if (amount > 100_000) return null;
  return {
    text,
    amount,
    unit: UNITS[match[2]!]!,
    position: (match[3] as "Start" | "End" | undefined) ?? null,
  };
}

/** The instant as SQL (`timestamptz`); the unit is from the fixed table above, the amount a parameter. */
export function relativeDateSql(date: RelativeDate): Prisma.Sql {
  const unit = Prisma.raw(date.unit);
  // PostgreSQL has no quarter interval: three months.
  const step = Prisma.raw(date.unit === "quarter" ? "3 months" : `1 ${date.unit}`);
  const shifted = Prisma.sql`(now() - ${date.amount}::int * interval '${step}')`;
  if (date.position === "Start") return Prisma.sql`date_trunc('${unit}', ${shifted})`;
  if (date.position === "End") {
    return Prisma.sql`(date_trunc('${unit}', ${shifted}) + interval '${step}' - interval '1 microsecond')`;
  }
  if (["day", "week", "month", "quarter", "year"].includes(date.unit)) {
    return Prisma.sql`date_trunc('day', ${shifted})`;
  }
  return shifted;
}
