/**
 * PostHog's LIMIT rules for a HogQLQuery (`posthog/hogql/constants.py`, `HogQLHasMorePaginator`;
 * query-and-experiments.md 1c): a top-level SELECT without LIMIT is paginated (run with
 * `LIMIT limit + 1 OFFSET offset`, `limit` default 100, and `hasMore` says whether the extra row came);
 * a LIMIT of the query's own is kept but capped at `MAX_SELECT_RETURNED_ROWS` (50,000).
 */
import type { HogQLNode } from "./parser.js";

/** Rows returned when neither the query nor the caller says (PostHog's `DEFAULT_RETURNED_ROWS`). */
export const DEFAULT_RETURNED_ROWS = 100;
/** Most rows one SELECT returns (PostHog's `MAX_SELECT_RETURNED_ROWS`, newer value). */
export const MAX_SELECT_RETURNED_ROWS = 50_000;

/** How the top-level SELECT was limited. */
export type LimitPlan =
  | { kind: "paginated"; limit: number; offset: number }
  /** The query's own LIMIT (capped): no `hasMore/limit/offset` in the response. */
  | { kind: "own" };

function constant(value: number): HogQLNode {
  return { node: "Constant", value };
}

/**
 * The AST with PostHog's LIMIT rules applied to its top level, and the plan. A set of SELECTs
 * (`UNION ALL`) is paginated as a whole: the caller appends `LIMIT/OFFSET` to its SQL.
 */
export function applyLimits(
  ast: HogQLNode,
  request: { limit?: number | undefined; offset?: number | undefined },
): { ast: HogQLNode; plan: LimitPlan } {
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_RETURNED_ROWS, 1), MAX_SELECT_RETURNED_ROWS);
  const offset = Math.max(request.offset ?? 0, 0);
  if (ast.node !== "SelectQuery") return { ast, plan: { kind: "paginated", limit, offset } };
  const own = ast["limit"] as HogQLNode | null | undefined;
  if (!own) {
    const ownOffset = ast["offset"] as HogQLNode | null | undefined;
    const offsetNode = request.offset !== undefined || !ownOffset ? constant(offset) : ownOffset;
    return {
      ast: { ...ast, limit: constant(limit + 1), offset: offsetNode },
      plan: { kind: "paginated", limit, offset },
    };
  }
  const capped =
    own.node === "Constant" && typeof own["value"] === "number"
      ? constant(Math.min(own["value"] as number, MAX_SELECT_RETURNED_ROWS))
      : { node: "Call", name: "least", args: [constant(MAX_SELECT_RETURNED_ROWS), own], distinct: false };
  return { ast: { ...ast, limit: capped }, plan: { kind: "own" } };
}
