/**
 * The seam between the Trends engine's orchestration (./run-trends.ts: dates, buckets, cohorts,
 * formulas, response shape) and the analytics store its events are read from (issue 30): the store
 * finds a project's earliest event, checks the filters' regex patterns in its own dialect, and
 * answers one series' rows (`SeriesRow`: bucket, breakdown values, aggregate) for one period.
 * Two stores: PostgreSQL (`postgresTrendsStore`, ./series-sql.ts, the default) and ClickHouse
 * (./clickhouse-store.ts).
 *
 * PostHog's one store is ClickHouse: posthog/hogql_queries/insights/trends/trends_query_runner.py
 * runs the orchestration, trends_query_builder.py builds each series' statement.
 */
import type { DateTime } from "luxon";
import type { SqlReader } from "../../db/sql-reader.js";
import { Prisma, type PrismaClient } from "../../generated/prisma/client.js";
import type { PropertyGroup } from "../../lib/property-filters/property-filters.js";
import { checkRegexPatterns } from "../../lib/property-filters/regex-check.js";
import { type CohortDefinition, toSql } from "../../lib/property-filters/to-sql.js";
import type { DateRange } from "./date-range.js";
import { type SeriesRow, type SeriesShape, seriesStatement } from "./series-sql.js";
import type { Breakdown, TrendsSeries } from "./trends-query.schema.js";

/** What one run tells its store once, before its series. */
export interface TrendsRun {
  projectId: number;
  /** The project's IANA timezone (buckets are computed in it by the caller). */
  timezone: string;
  /** The clock relative dates of filters count from. */
  now: Date;
  /** Every cohort the filters reach (../../lib/property-filters/cohort-definitions.ts). */
  cohorts: ReadonlyMap<number, CohortDefinition>;
  breakdowns: Breakdown[];
}

/** One series over one period, as the orchestration hands it to the store. */
export interface SeriesInput {
  series: TrendsSeries;
  /** The series' and the query's filters, combined (null: none). */
  tree: PropertyGroup | null;
  range: DateRange;
  /** The bucket starts of `range`, in the project zone (./buckets.ts `bucketStarts`). */
  buckets: DateTime[];
  shape: SeriesShape;
  /** Whether person properties are read (person filters or cohorts, breakdowns, math properties). */
  joinPerson: boolean;
  breakdownLimit: number;
}

/** Answers the rows of one series (./series-sql.ts `SeriesRow`; `v` null without breakdowns). */
export type SeriesReader = (input: SeriesInput) => Promise<SeriesRow[]>;

/** An analytics store Trends reads from. */
export interface TrendsStore {
  /** The store's name, for refusals ("ClickHouse"). */
  readonly name: string;
  /** The project's earliest event, null when it has none (`date_from: "all"`). */
  earliestEvent(projectId: number): Promise<Date | null>;
  /**
   * Refuses a tree holding a regex pattern the store cannot compile.
   * @throws ValidationError code `invalid_regex` with `attr`.
   */
  checkRegexPatterns(tree: PropertyGroup, attr: string): Promise<void>;
  /**
   * Prepares a run (reads what every series of it shares) and answers its series reader.
   * @throws NotImplementedError for what the store does not evaluate.
   */
  begin(run: TrendsRun): Promise<SeriesReader>;
}

/** What the PostgreSQL store reads with: hot SQL on the driver, Prisma for regex checks. */
export interface PostgresTrendsDeps {
  reader: SqlReader;
  db: Pick<PrismaClient, "$queryRaw">;
}

/**
 * The PostgreSQL store: ./series-sql.ts `seriesStatement` with the filters of `toSql` over the
 * event `e` and its person `p`, one statement per series and period.
 */
export function postgresTrendsStore(deps: PostgresTrendsDeps): TrendsStore {
  return {
    name: "PostgreSQL",
    async earliestEvent(projectId) {
      const [row] = await deps.reader.rows<{ first: Date | string | null }>(
        Prisma.sql`SELECT min(timestamp) AS first FROM events WHERE project_id = ${projectId}::int`,
      );
      return row?.first ? new Date(row.first) : null;
    },
    checkRegexPatterns: (tree, attr) => checkRegexPatterns(deps.db, tree, attr),
    async begin(run) {
      return (input) => {
        const where = input.tree
          ? toSql(input.tree, {
              projectId: run.projectId,
              now: run.now,
              targets: { event: "e", person: "p" },
              cohorts: run.cohorts,
              semantics: "query",
            })
          : Prisma.sql`TRUE`;
        return deps.reader.rows<SeriesRow>(
          seriesStatement({
            projectId: run.projectId,
            series: input.series,
            range: input.range,
            buckets: input.buckets,
            shape: input.shape,
            where,
            joinPerson: input.joinPerson,
            breakdowns: run.breakdowns,
            breakdownLimit: input.breakdownLimit,
          }),
        );
      };
    },
  };
}
