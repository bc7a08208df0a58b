/**
 * The `TrendsQuery` kind of the query service (../query-kinds.ts): the Trends engine
 * (./run-trends.ts) run with the service's read statements (read-only transaction, the run's
 * statement timeout, the project's session time zone), the caller's database client for cohorts
 * and regex checks, and the query workers for formulas.
 */
import type { QueryKind } from "../query-kinds.js";
import type { QueryWorkers } from "../query-workers.js";
import { runTrendsQuery } from "./run-trends.js";

/** The `TrendsQuery` kind, evaluating formulas in `workers`. */
export const createTrendsQueryKind = (workers: QueryWorkers): QueryKind => ({
  kind: "TrendsQuery",
  run: (deps, project, query) =>
    runTrendsQuery(
      { reader: { rows: (sql) => deps.execute(sql, project.timezone) }, db: deps.ctx.db, formulas: workers },
      project,
      query,
      { now: deps.now() },
    ) as unknown as Promise<Record<string, unknown>>,
});
