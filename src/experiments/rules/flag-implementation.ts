/**
 * `GET requires_flag_implementation` (`ee/clickhouse/queries/experiments/utils.py`
 * `requires_flag_warning`): which event names to sample, read from the legacy insight filter in the
 * query string as PostHog's `Filter(request=request)` reads it, only the parts that function uses:
 * `events` and `actions` (JSON text of entity lists) and `limit` (events sampled per name, default
 * 20). The date range is forced to the last 7 days by the view, so `date_from`/`date_to` are not read.
 *
 * Actions: this service has none, so an action entity names no event (as a PostHog action without
 * steps adds none); with only actions, no events are sampled and the answer is `true`.
 */
import { ValidationError } from "../../core/errors.js";
import { legacyEntities } from "./exposure-cohort.js";

/** Events sampled per event name when `limit` is absent (PostHog's `filter.limit or 20`). */
export const DEFAULT_SAMPLE = 20;
/** The most events sampled per event name (our bound on the work; PostHog sets none). */
export const MAX_SAMPLE = 100;
/** The window sampled, back from now (the view's `date_from: "-7d"`). */
export const SAMPLE_DAYS = 7;

/** What to sample: the distinct event names of the filter's event entities, and how many of each. */
export interface FlagImplementationSample {
  events: string[];
  limit: number;
}

/**
 * The sample `query` asks for.
 * @throws ValidationError attr `events`/`actions` for lists that are not JSON lists of entities,
 *   attr `limit` for a limit that is not a non-negative integer.
 */
export function flagImplementationSample(query: URLSearchParams): FlagImplementationSample {
  const filter: Record<string, unknown> = {};
  for (const name of ["events", "actions"]) {
    const raw = query.get(name);
    if (raw !== null && raw !== "") filter[name] = raw;
  }
  const events = new Set<string>();
  for (const attr of ["actions", "events"]) {
    const only = filter[attr] === undefined ? {} : { [attr]: filter[attr] };
    for (const entity of legacyEntities(only, attr)) {
      // Actions name no events here; an event entity without an id names none (PostHog: `entity.id is not None`).
      if (entity.type === "events" && entity.id !== null) events.add(String(entity.id));
    }
  }
  let limit = DEFAULT_SAMPLE;
  const rawLimit = query.get("limit");
  if (rawLimit !== null && rawLimit !== "") {
    if (!/^\s*\d+\s*$/.test(rawLimit)) {
      throw new ValidationError("A valid integer is required.", { attr: "limit" });
    }
    // 0 is no limit given (`filter.limit or 20`).
    limit = Math.min(Number(rawLimit) || DEFAULT_SAMPLE, MAX_SAMPLE);
  }
  return { events: [...events].sort(), limit };
}
