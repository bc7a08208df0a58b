/**
 * How a run's `variables` reach the stored query (query-and-experiments.md 1a "How a run turns
 * request variables into the query"; posthog-behavior.md §4.7 [newer]). Pure: the stored query is
 * never changed, a copy is returned.
 *
 * - HogQL endpoints: each key is the `code_name` of an entry of the query's `variables` map; that
 *   entry is replaced by `{variableId, code_name, value, isNull}` (override, not merge). The value
 *   then reaches the printer as a bound constant (placeholders are AST substitution, never text).
 * - Insight endpoints (TrendsQuery): `date_from`/`date_to` go into `dateRange`, and the single
 *   breakdown property's name filters the breakdown to that value (an `exact` property filter
 *   AND-ed with the query's own), as PostHog turns them into a DashboardFilter.
 * Unknown keys → 400 `Unknown variable(s): a, b` (sorted, attr `variables`).
 * Source: `products/endpoints/backend/api.py` (`_get_allowed_variables`, `_parse_variables`,
 * `_variables_to_filters`, `_get_single_breakdown_info`), `posthog/hogql_queries/query_runner.py`
 * (`apply_dashboard_filters`).
 */
import { ValidationError } from "../../core/errors.js";

/** Query kinds whose single breakdown property may be given as a variable (PostHog's `BREAKDOWN_SUPPORTED_QUERY_TYPES`). */
const BREAKDOWN_KINDS: ReadonlySet<string> = new Set(["TrendsQuery", "FunnelsQuery", "RetentionQuery"]);

/** Date variables every (non-materialized) insight endpoint accepts. */
const DATE_VARIABLES = ["date_from", "date_to"] as const;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The single breakdown of an insight's `breakdownFilter` (legacy `breakdown` or one `breakdowns` item): property and type. */
export function singleBreakdown(query: Json): { property: string; type: string } | null {
  const filter = isObject(query["breakdownFilter"]) ? query["breakdownFilter"] : {};
  const legacy = filter["breakdown"];
  if (typeof legacy === "string" && legacy !== "") {
    const type = filter["breakdown_type"];
    return { property: legacy, type: typeof type === "string" && type ? type : "event" };
  }
  const list = Array.isArray(filter["breakdowns"]) ? filter["breakdowns"] : [];
  if (list.length === 1 && isObject(list[0]) && typeof list[0]["property"] === "string") {
    const type = list[0]["type"];
    return { property: list[0]["property"], type: typeof type === "string" && type ? type : "event" };
  }
  return null;
}

/** The variable names a run of `query` accepts (PostHog's `_get_allowed_variables`, not materialized). */
export function allowedVariables(query: Json): Set<string> {
  if (query["kind"] === "HogQLQuery") {
    const variables = isObject(query["variables"]) ? query["variables"] : {};
    return new Set(
      Object.values(variables).flatMap((entry) =>
        isObject(entry) && typeof entry["code_name"] === "string" && entry["code_name"]
          ? [entry["code_name"]]
          : [],
      ),
    );
  }
  const allowed = new Set<string>(DATE_VARIABLES);
  if (BREAKDOWN_KINDS.has(String(query["kind"]))) {
    const breakdown = singleBreakdown(query);
    if (breakdown) allowed.add(breakdown.property);
  }
  return allowed;
}

/** @throws ValidationError `Unknown variable(s): a, b` (attr `variables`) for keys `query` does not accept. */
export function checkVariables(query: Json, variables: Json | null | undefined): void {
  if (!variables || Object.keys(variables).length === 0) return;
  const allowed = allowedVariables(query);
  const unknown = Object.keys(variables)
    .filter((key) => !allowed.has(key))
    .sort();
  if (unknown.length > 0) {
    throw new ValidationError(`Unknown variable(s): ${unknown.join(", ")}`, { attr: "variables" });
  }
}

/** A HogQL query with the run's variable values in place of the stored ones (step 3 of 1a). */
function withHogQLVariables(query: Json, variables: Json): Json {
  const stored = isObject(query["variables"]) ? query["variables"] : {};
  const next: Json = { ...stored };
  for (const [code, value] of Object.entries(variables)) {
    for (const [id, entry] of Object.entries(stored)) {
      if (!isObject(entry) || entry["code_name"] !== code) continue;
      next[id] = {
        variableId: typeof entry["variableId"] === "string" ? entry["variableId"] : id,
        code_name: code,
        value,
        ...(value === null ? { isNull: true } : {}),
      };
    }
  }
  return { ...query, variables: next };
}

/** An insight query with the date and breakdown variables applied (PostHog's DashboardFilter on the query). */
function withInsightVariables(query: Json, variables: Json): Json {
  const next: Json = { ...query };
  const dates: Json = {};
  for (const key of DATE_VARIABLES) {
    const value = variables[key];
    if (value === undefined || value === null || value === "") continue;
    if (typeof value !== "string") {
      throw new ValidationError(`Variable ${key} must be a date string (e.g. "-7d" or "2024-01-31").`, {
        attr: "variables",
      });
    }
    dates[key] = value;
  }
  if (Object.keys(dates).length > 0) {
    next["dateRange"] = { ...(isObject(query["dateRange"]) ? query["dateRange"] : {}), ...dates };
  }
  const breakdown = BREAKDOWN_KINDS.has(String(query["kind"])) ? singleBreakdown(query) : null;
  if (breakdown && Object.hasOwn(variables, breakdown.property)) {
    const filter = {
      key: breakdown.property,
      value: variables[breakdown.property],
      type: breakdown.type,
      operator: "exact",
    };
    const own = query["properties"];
    next["properties"] =
      own === undefined || own === null || (Array.isArray(own) && own.length === 0)
        ? [filter]
        : Array.isArray(own)
          ? [...own, filter]
          : { type: "AND", values: [own, { type: "AND", values: [filter] }] };
  }
  return next;
}

/**
 * The query a run executes: `query` with `variables` applied (see the module comment); `query`
 * itself when none are given. Call `checkVariables` first.
 * @throws ValidationError for a date variable that is not a string.
 */
export function applyVariables(query: Json, variables: Json | null | undefined): Json {
  if (!variables || Object.keys(variables).length === 0) return query;
  return query["kind"] === "HogQLQuery"
    ? withHogQLVariables(query, variables)
    : withInsightVariables(query, variables);
}
