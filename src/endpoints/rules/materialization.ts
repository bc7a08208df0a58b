/**
 * Whether an endpoint's query could be materialized (PostHog's `EndpointVersion.can_materialize()`,
 * `products/endpoints/backend/models.py`, `products/endpoints/backend/materialization.py`
 * `analyze_variables_for_materialization`; posthog-behavior.md §4.6, query-and-experiments.md 1e),
 * the sync intervals PostHog offers, and what this service materializes of it
 * (`canMaterializeHere`): these rules decide enabling and feed `materialization_status`.
 */
import { ownValue } from "../../core/own-keys.js";
import type { HogQLNode } from "../../lib/hogql/parser.js";
import { INSIGHT_QUERY_KINDS } from "./query.js";

/** PostHog's `DataWarehouseSyncInterval` values, shortest first; `24hour` is the default. */
export const SYNC_FREQUENCIES = [
  "5min",
  "30min",
  "1hour",
  "6hour",
  "12hour",
  "24hour",
  "7day",
  "30day",
] as const;

/** One of `SYNC_FREQUENCIES`. */
export type SyncFrequency = (typeof SYNC_FREQUENCIES)[number];

/** The frequency a materialization gets when none is given (PostHog's default). */
export const DEFAULT_SYNC_FREQUENCY: SyncFrequency = "24hour";

const MINUTE_MS = 60_000;

/** Each frequency's interval in ms (`DataWarehouseSyncInterval` → `sync_frequency_interval`). */
const SYNC_INTERVAL_MS: Record<SyncFrequency, number> = {
  "5min": 5 * MINUTE_MS,
  "30min": 30 * MINUTE_MS,
  "1hour": 60 * MINUTE_MS,
  "6hour": 6 * 60 * MINUTE_MS,
  "12hour": 12 * 60 * MINUTE_MS,
  "24hour": 24 * 60 * MINUTE_MS,
  "7day": 7 * 24 * 60 * MINUTE_MS,
  "30day": 30 * 24 * 60 * MINUTE_MS,
};

/** `frequency`'s interval in ms; an unknown value (never stored: validated on write) counts as the default. */
export function syncIntervalMs(frequency: string): number {
  return ownValue(SYNC_INTERVAL_MS, frequency) ?? SYNC_INTERVAL_MS[DEFAULT_SYNC_FREQUENCY];
}

/** Query kinds PostHog can materialize. */
export const MATERIALIZABLE_KINDS = ["HogQLQuery", ...INSIGHT_QUERY_KINDS] as const;

/** Comparison operators a variable may stand behind to be materialized (`col <op> {variables.x}`). */
const MATERIALIZABLE_OPS = new Set(["==", ">=", ">", "<", "<=", "like", "ilike", "not like"]);

/** `can_materialize()`'s answer: yes, or no with the reason. */
export interface MaterializationCheck {
  canMaterialize: boolean;
  /** Why not; null when it can. */
  reason: string | null;
}

const yes: MaterializationCheck = { canMaterialize: true, reason: null };
const no = (reason: string): MaterializationCheck => ({ canMaterialize: false, reason });

/**
 * Whether `query` can be materialized, by PostHog's rules in order:
 * 1. its kind is one of `MATERIALIZABLE_KINDS`, else `Query type '<kind>' cannot be materialized. Supported types: ...`;
 * 2. an insight query has at most one breakdown, else `Multiple breakdowns not supported for materialization`;
 * 3. a HogQL query has non-empty text, else `Query is empty or invalid.`;
 * 4. each `{variables.x}` placeholder of a HogQL query stands on one side of a comparison
 *    (`=`, `>=`, `>`, `<`, `<=`, `like`, `ilike`, `not like`) with a column in the top-level `WHERE`,
 *    joined by `AND`, else `Variables not supported: <why>` (the shape PostHog's transform rewrites
 *    into a column of the materialized table).
 * `ast` is the parsed HogQL text (for rule 4), or null when the query is not HogQL.
 */
export function canMaterialize(query: Record<string, unknown>, ast: HogQLNode | null): MaterializationCheck {
  const kind = query["kind"];
  if (typeof kind !== "string" || !(MATERIALIZABLE_KINDS as readonly string[]).includes(kind)) {
    return no(
      `Query type '${String(kind)}' cannot be materialized. Supported types: ${MATERIALIZABLE_KINDS.join(", ")}`,
    );
  }
  if (kind !== "HogQLQuery") {
    return breakdownCount(query) > 1 ? no("Multiple breakdowns not supported for materialization") : yes;
  }
  const text = query["query"];
  if (typeof text !== "string" || text.trim() === "" || ast === null) return no("Query is empty or invalid.");
  const problem = variableProblem(ast);
  return problem === null ? yes : no(`Variables not supported: ${problem}`);
}

/** Breakdowns of an insight query: `breakdownFilter.breakdowns` entries, or 1 for a legacy `breakdown`. */
function breakdownCount(query: Record<string, unknown>): number {
  const filter = query["breakdownFilter"];
  if (filter === null || typeof filter !== "object") return 0;
  const { breakdowns, breakdown } = filter as { breakdowns?: unknown; breakdown?: unknown };
  if (Array.isArray(breakdowns)) return breakdowns.length;
  return breakdown === undefined || breakdown === null ? 0 : 1;
}

/** The code name of a `{variables.x}` placeholder node, or null for any other node. */
function variableOf(node: unknown): string | null {
  if (node === null || typeof node !== "object") return null;
  const { node: type, expr } = node as { node?: string; expr?: { node?: string; chain?: unknown[] } };
  if (type !== "Placeholder" || expr?.node !== "Field" || !Array.isArray(expr.chain)) return null;
  const [head, name] = expr.chain;
  return head === "variables" && typeof name === "string" ? name : null;
}

/** Every `{variables.x}` placeholder anywhere under `node`, by code name. */
function variablesUnder(node: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) variablesUnder(item, found);
  } else if (node !== null && typeof node === "object") {
    const name = variableOf(node);
    if (name !== null) found.add(name);
    else for (const value of Object.values(node)) variablesUnder(value, found);
  }
  return found;
}

/** The variables the top-level `WHERE` compares with a column in a materializable way. */
function materializableVariables(where: unknown, found: Set<string> = new Set()): Set<string> {
  if (where === null || typeof where !== "object") return found;
  const node = where as { node?: string; exprs?: unknown[]; op?: string; left?: unknown; right?: unknown };
  if (node.node === "And" && Array.isArray(node.exprs)) {
    for (const expr of node.exprs) materializableVariables(expr, found);
  } else if (node.node === "CompareOperation" && node.op !== undefined && MATERIALIZABLE_OPS.has(node.op)) {
    const isField = (side: unknown) => (side as { node?: string } | null)?.node === "Field";
    const right = variableOf(node.right);
    const left = variableOf(node.left);
    if (right !== null && isField(node.left)) found.add(right);
    if (left !== null && isField(node.right)) found.add(left);
  }
  return found;
}

/** Why the variables of a parsed HogQL `SELECT` cannot be materialized, or null when they can. */
function variableProblem(ast: HogQLNode): string | null {
  const used = variablesUnder(ast);
  if (used.size === 0) return null;
  if (ast.node !== "SelectQuery") return "variables are only supported in a single SELECT";
  const allowed = materializableVariables(ast["where"]);
  const other = [...used].filter((name) => !allowed.has(name)).sort();
  if (other.length === 0) return null;
  return `variable(s) ${other.join(", ")} must be compared with a column in the WHERE clause (=, >=, >, <, <=, like, ilike, not like)`;
}

/**
 * What this service can materialize: PostHog's `canMaterialize`, narrowed to what is built here.
 * - Insight queries (PostHog converts them to HogQL before materializing; that conversion is not
 *   built): `Query type '<kind>' cannot be materialized here: ...`.
 * - HogQL with `{variables.x}` placeholders: PostHog's newer rewrite of the variable predicates into
 *   columns (query-and-experiments.md 1e [newer]) is not built, so such queries keep PostHog's older
 *   answer, `Variables not supported: ...`.
 */
export function canMaterializeHere(
  query: Record<string, unknown>,
  ast: HogQLNode | null,
): MaterializationCheck {
  const check = canMaterialize(query, ast);
  if (!check.canMaterialize) return check;
  if (query["kind"] !== "HogQLQuery") {
    return no(
      `Query type '${String(query["kind"])}' cannot be materialized here: only HogQLQuery endpoints are ` +
        "materialized (converting insight queries to HogQL is not built).",
    );
  }
  if (ast !== null && variablesUnder(ast).size > 0) {
    return no(
      "Variables not supported: materializing a query with variables (rewriting its variable " +
        "predicates into columns) is not built.",
    );
  }
  return yes;
}
