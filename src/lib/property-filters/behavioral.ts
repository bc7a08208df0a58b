/**
 * Behavioral cohort criteria (`type: "behavioral"`): which ones are calculable, their parameters
 * checked by PostHog's rules, and their SQL over `events` joined to the person through
 * `person_distinct_ids` (the person a distinct id belongs to now, as PostHog's cohort calculation
 * reads `person_distinct_id2`/overrides). The translation (`./translate.ts`) resolves every behavioral
 * node with `behavioralSpec`, and PostgreSQL writes it with `behavioralSql` (ClickHouse with
 * `./to-clickhouse.ts`), so cohort calculation, members, persons lists and the query engine's cohort
 * filters share it.
 *
 * Calculated (PostHog `posthog/hogql_queries/hogql_cohort_query.py`
 * `get_performed_event_condition`, `get_performed_event_multiple`):
 * - `performed_event`: the person has at least one event `key` in the window;
 * - `performed_event_multiple`: the person's count of such events compares to `operator_value` by
 *   `operator` (`gt|gte|lt|lte|eq|exact`, none = exact). Only persons with at least one event are
 *   counted, as PostHog's `EventsQuery ... GROUP BY person_id` never yields a count of 0.
 *
 * The window: `explicit_datetime` (relative `-30d` or ISO, PostHog's analytics date convention)
 * up to `explicit_datetime_to` or now; otherwise `time_value` `time_interval`s back from now. Ends
 * are inclusive; relative dates count back from the translation's clock exactly (PostHog's trends
 * range rounds a relative start to the day's start in the project time zone; we do not).
 * `event_filters`: event property filters on the counted events, with the query engine's
 * (HogQL's) `exact` semantics, as PostHog runs them through HogQL. `negation` negates the criterion.
 *
 * Refused with a NotImplementedError naming them: the other behavioral values (first time,
 * sequences, regularly, stopped/restarted performing) and `event_type: "actions"` (this service
 * has no actions).
 */
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import { Prisma } from "../../generated/prisma/client.js";
import { parseFilterDate } from "./filter-dates.js";
import {
  type BehavioralFilter,
  isPropertyGroup,
  type PropertyGroup,
  propertyGroupSchema,
  walkNodes,
} from "./property-filters.js";

/** The behavioral values calculated here. */
export const CALCULATED_BEHAVIORAL_VALUES = ["performed_event", "performed_event_multiple"] as const;

/**
 * Marks the stand-in criterion of stored criteria that no longer parse (or legacy `groups` about
 * events): behavioral, so flags refuse the cohort, and never calculated.
 */
export const UNREADABLE_CRITERIA = "$unreadable";

/** PostHog's `INTERVAL_TO_SECONDS` keys: the `time_interval`s a relative window takes. */
const INTERVALS = ["minute", "hour", "day", "week", "month", "year"] as const;
type Interval = (typeof INTERVALS)[number];
const INTERVAL_UNIT: Record<Exclude<Interval, "minute">, string> = {
  hour: "h",
  day: "d",
  week: "w",
  month: "m",
  year: "y",
};
/** `performed_event_multiple`'s count operators and their SQL (the same in PostgreSQL and ClickHouse). */
export const COUNT_OPERATORS: Readonly<Record<string, string>> = {
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  eq: "=",
  exact: "=",
};

/** A calculable behavioral criterion, its parameters resolved at `now`. */
export interface BehavioralSpec {
  event: string;
  from: Date;
  to: Date;
  /** For `performed_event_multiple`: the count's comparison. */
  count: { operator: string; value: number } | null;
  /** Event property filters on the counted events; null when none. */
  eventFilters: PropertyGroup | null;
  negation: boolean;
}

const invalid = (detail: string) => new ValidationError(detail, { attr: "filters" });

/** PostHog's `parse_and_validate_positive_integer` (Python's `int()` of an int or digit string). */
function positiveInteger(value: unknown, name: string): number {
  if (value === undefined || value === null) throw invalid(`${name} cannot be None`);
  const parsed =
    typeof value === "number" && Number.isInteger(value)
      ? value
      : typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)
        ? Number(value.trim())
        : Number.NaN;
  if (!Number.isSafeInteger(parsed)) throw invalid(`${name} must be an integer, got ${String(value)}`);
  if (parsed <= 0) throw invalid(`${name} must be greater than 0, got ${String(value)}`);
  return parsed;
}

/** A date of the window (`explicit_datetime[_to]`): relative or ISO. @throws ValidationError */
function windowDate(value: unknown, name: string, now: Date): Date {
  const date = typeof value === "string" ? parseFilterDate(value, now) : null;
  if (date === null)
    throw invalid(`${name} must be a relative date (-7d) or an ISO 8601 date, got ${String(value)}`);
  return date;
}

/** The start of a relative window `amount` `interval`s back from `now`. */
function relativeStart(amount: number, interval: Interval, now: Date): Date {
  if (interval === "minute") return new Date(now.getTime() - amount * 60_000);
  const date = parseFilterDate(`-${amount}${INTERVAL_UNIT[interval]}`, now);
  if (date === null) throw invalid(`time_value must be below 10000, got ${amount}`);
  return date;
}

/**
 * A criterion's `event_filters` as a property group: PostHog's `Filter(data={"properties": ...})`
 * takes a list (AND) or a group. Only event property filters apply to events.
 * @throws ValidationError for filters that do not parse or are not on event properties.
 */
export function eventFiltersOf(value: unknown): PropertyGroup | null {
  if (value === undefined || value === null) return null;
  const raw = Array.isArray(value) ? { type: "AND", values: value } : value;
  const parsed = propertyGroupSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(`Invalid event_filters: ${parsed.error.issues[0]?.message ?? "not property filters"}`);
  }
  for (const node of walkNodes(parsed.data)) {
    if (!isPropertyGroup(node) && node.type !== "event") throw invalid("Property type not supported");
  }
  return parsed.data.values.length === 0 ? null : parsed.data;
}

/**
 * The calculable form of `filter` at `now`.
 * @throws NotImplementedError for behavioral values or event types not calculated here.
 * @throws ValidationError (attr `filters`) for missing or malformed parameters, with PostHog's messages.
 */
export function behavioralSpec(filter: BehavioralFilter, now: Date): BehavioralSpec {
  if (filter[UNREADABLE_CRITERIA]) {
    throw new NotImplementedError(
      "This cohort's stored criteria no longer parse, or are legacy criteria on events (action_id, event_id): they are not calculated.",
    );
  }
  if (!(CALCULATED_BEHAVIORAL_VALUES as readonly string[]).includes(filter.value)) {
    throw new NotImplementedError(
      `Behavioral cohort criteria '${filter.value}' are not calculated by this service: only ` +
        `${CALCULATED_BEHAVIORAL_VALUES.join(" and ")} are.`,
    );
  }
  const eventType = filter["event_type"];
  if (eventType === "actions") {
    throw new NotImplementedError(
      "Behavioral cohort criteria on actions are not calculated: this service has no actions.",
    );
  }
  if (eventType !== "events") throw invalid("Event type must be 'events' or 'actions'");
  let from: Date;
  let to = now;
  if (filter["explicit_datetime"]) {
    from = windowDate(filter["explicit_datetime"], "explicit_datetime", now);
    if (filter["explicit_datetime_to"]) {
      to = windowDate(filter["explicit_datetime_to"], "explicit_datetime_to", now);
    }
  } else {
    const amount = positiveInteger(filter["time_value"], "time_value");
    const interval = filter["time_interval"];
    if (typeof interval !== "string" || !(INTERVALS as readonly string[]).includes(interval)) {
      throw invalid(`Invalid interval: ${String(interval ?? "None")}`);
    }
    from = relativeStart(amount, interval as Interval, now);
  }
  let count: BehavioralSpec["count"] = null;
  if (filter.value === "performed_event_multiple") {
    const value = positiveInteger(filter["operator_value"], "operator_value");
    const operator = (filter["operator"] ?? "exact") as string;
    if (typeof operator !== "string" || !Object.hasOwn(COUNT_OPERATORS, operator)) {
      throw invalid("count_operator must be gt(e), lt(e), exact, or None");
    }
    count = { operator, value };
  }
  return {
    event: String(filter.key),
    from,
    to,
    count,
    eventFilters: eventFiltersOf(filter["event_filters"]),
    negation: filter.negation === true,
  };
}

/** What a dialect's behavioral SQL needs from the translation (`./translate.ts`). */
export interface BehavioralSqlContext {
  projectId: number;
  /** The fixed SQL alias of the persons row the criterion is about. */
  person: Prisma.Sql;
  /** The SQL of event property filters over the events row aliased `event`. */
  eventFilterSql: (filters: PropertyGroup, event: string) => Prisma.Sql;
}

/** The events row's alias inside a criterion's subquery (fixed text, not input), in both dialects. */
export const BEHAVIORAL_EVENT_ALIAS = "bhv_event";
/** The distinct ids' alias inside the subquery. */
const DISTINCT_ID = "bhv_pdi";

/**
 * PostgreSQL's boolean (TRUE/FALSE, never NULL) of one behavioral criterion (`behavioralSpec`'s
 * form) over the person row: an `EXISTS` over `person_distinct_ids` joined to `events`.
 */
export function behavioralSql(spec: BehavioralSpec, ctx: BehavioralSqlContext): Prisma.Sql {
  const event = Prisma.raw(BEHAVIORAL_EVENT_ALIAS);
  const pdi = Prisma.raw(DISTINCT_ID);
  const filters = spec.eventFilters
    ? Prisma.sql` AND ${ctx.eventFilterSql(spec.eventFilters, BEHAVIORAL_EVENT_ALIAS)}`
    : Prisma.empty;
  const having = spec.count
    ? Prisma.sql` HAVING count(*) > 0 AND count(*) ${Prisma.raw(COUNT_OPERATORS[spec.count.operator]!)} ${spec.count.value}::bigint`
    : Prisma.empty;
  const performed = Prisma.sql`EXISTS (SELECT 1 FROM person_distinct_ids ${pdi}
    JOIN events ${event} ON ${event}.project_id = ${pdi}.project_id AND ${event}.distinct_id = ${pdi}.distinct_id
    WHERE ${pdi}.project_id = ${ctx.projectId} AND ${pdi}.person_id = ${ctx.person}.id
      AND ${event}.event = ${spec.event}
      AND ${event}.timestamp >= ${spec.from}::timestamptz AND ${event}.timestamp <= ${spec.to}::timestamptz${filters}${having})`;
  return spec.negation ? Prisma.sql`(NOT ${performed})` : performed;
}
