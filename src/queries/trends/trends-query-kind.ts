/**
 * The `TrendsQuery` kind of the query service (../query-kinds.ts): the Trends engine
 * (./run-trends.ts) run with the service's read statements (read-only transaction, the run's
 * statement timeout, the project's session time zone), the caller's database client for cohorts
 * and regex checks, and the query workers for formulas. Given the ClickHouse analytics store's
 * client (issue 30), events are read there instead (./clickhouse-store.ts), each statement bounded
 * by the run's timeout.
 */
import type { ClickHouseClient } from "../../analytics/clickhouse/client.js";
import type { QueryKind } from "../query-kinds.js";
import type { QueryWorkers } from "../query-workers.js";
import { clickHouseTrendsStore } from "./clickhouse-store.js";
import { runTrendsQuery } from "./run-trends.js";

/**
 * The `TrendsQuery` kind, evaluating formulas in `workers`, reading events from `clickhouse` when
 * given (src/core/services.ts `ServiceDeps.clickhouse`), else from PostgreSQL.
 */
export const createTrendsQueryKind = (workers: QueryWorkers, clickhouse?: ClickHouseClient): QueryKind => ({
  kind: "TrendsQuery",
  run: (deps, project, query, options) =>
    runTrendsQuery(
      {
        reader: { rows: (sql) => deps.execute(sql, project.timezone) },
        db: deps.ctx.db,
        formulas: workers,
        ...(clickhouse
          ? {
              store: clickHouseTrendsStore({
                client: clickhouse,
                db: deps.ctx.db,
                timeoutSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
              }),
            }
          : {}),
      },
      project,
      query,
      { now: deps.now() },
    ) as unknown as Promise<Record<string, unknown>>,
});
