/**
 * The query-engine figures of `npm run bench` (issue 10): over 1,000,000 events on PostgreSQL,
 * one request at a time, the median of `BENCH_QUERY_RUNS` runs (default 5) of
 * - `trends daily`: a TrendsQuery (`$pageview`, total per day, the last 30 days, project in UTC)
 *   through the query door `POST /api/projects/:id/query/`, beside the same daily counts written by
 *   hand (one `GROUP BY` day over the same rows, on the raw driver);
 * - `hogql group-by`: `SELECT properties.$browser AS browser, count() AS c FROM events WHERE
 *   timestamp > now() - INTERVAL 30 DAY GROUP BY browser ORDER BY c DESC, browser` (ties in name
 *   order, so that both answers list them alike) through the same door,
 *   beside the same statement written by hand.
 * Every run through the door computes (it keeps no cache): these are the cold figures. The cached
 * figures run the same two queries as saved-query endpoints (`POST …/endpoints/:name/run/`, not
 * materialized), whose result cache answers every run after the first (`is_cached: true`, checked).
 * The cold figures alternate ours and the hand-written query round by round; their ratio is the median
 * of the rounds' ratios. Ours and the hand-written answers must agree (checked). A second project holds 100,000 events of its own, which neither
 * may count. The ratio is hand-written time / ours (higher is better; the goal is ≥ 0.80).
 *
 * Environment: BENCH_ONLY (runs when it names `queries`), BENCH_QUERY_RUNS. PostgreSQL at
 * TEST_DATABASE_URL or 127.0.0.1:5432; skipped loudly when none answers.
 */
import os from "node:os";
import pino from "pino";
import { copyToClickHouse } from "../../src/analytics/clickhouse/copy.js";
import { buildApp } from "../../src/app.js";
import { createServices } from "../../src/composition.js";
import { loadConfig } from "../../src/config.js";
import { dataAccessOf } from "../../src/core/context.js";
import type { Database } from "../../src/db/database.js";
import { chdbInstalled, openTestClickHouse } from "../support/clickhouse.js";
import { RATE_LIMITS_OFF } from "../support/rate-limits.js";
import { openBootstrappedBench, type RawRows, runPostgresBench, timed, timedPair } from "./sequential.js";

/** Events of the bench project (`BENCH_QUERY_EVENTS`, default 1,000,000; issue 30 asks 10,000,000). */
const EVENTS = Number(process.env["BENCH_QUERY_EVENTS"] ?? 1_000_000);
const OTHER_EVENTS = 100_000;
const RUNS = Number(process.env["BENCH_QUERY_RUNS"] ?? 5);

/** Inserts `count` events for `projectId` over the last 29 days (inside every 30-day window however long the run): 4 names, 5 browsers, 10,000 users. */
function seedEvents(raw: RawRows, projectId: number, count: number) {
  return raw(
    `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
     SELECT $1, gen_random_uuid(),
            (ARRAY['$pageview', '$pageleave', 'signed up', 'button clicked'])[1 + g % 4],
            'user-' || (g % 10000),
            jsonb_build_object('$browser', (ARRAY['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'])[1 + g % 5],
                               'plan', CASE WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END),
            now() - (g % (29 * 24 * 60)) * interval '1 minute'
     FROM generate_series(1, $2::int) AS g`,
    [projectId, count],
  );
}

const TRENDS = {
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "$pageview" }],
  interval: "day",
  dateRange: { date_from: "-30d" },
};
const HOGQL =
  "SELECT properties.$browser AS browser, count() AS c FROM events WHERE timestamp > now() - INTERVAL 30 DAY GROUP BY browser ORDER BY c DESC, browser";

/** A query run through the door (`POST /api/projects/:id/query/`) of the app at `base`: its answer. */
function queryDoor(base: string, projectId: number, headers: Record<string, string>) {
  return async <T>(body: unknown): Promise<T> => {
    const response = await fetch(`${base}/api/projects/${projectId}/query/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ query: body }),
    });
    if (response.status !== 200)
      throw new Error(`${base}'s query door answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
}

async function benchPostgres(): Promise<void> {
  const { database, raw, close, boot, otherProject } = await openBootstrappedBench("postgres");
  try {
    const projectId = boot.project_id;
    await seedEvents(raw, projectId, EVENTS);
    await seedEvents(raw, await otherProject(), OTHER_EVENTS);
    await raw("ANALYZE events", []);

    const app = await buildApp({
      config: loadConfig({ PORT: "0", ...RATE_LIMITS_OFF }),
      database,
      logger: pino({ level: "silent" }),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      if (!address || typeof address === "string") throw new Error("no port");
      const headers = {
        authorization: `Bearer ${boot.personal_api_key}`,
        "content-type": "application/json",
      };
      const query = queryDoor(`http://127.0.0.1:${address.port}`, projectId, headers);

      type TrendsAnswer = {
        results: Array<{ data: number[]; days: string[] }>;
        resolved_date_range: { date_from: string; date_to: string };
      };
      // The hand-written query counts over the range ours resolved "-30d" to (asked once first).
      const range = (await query<TrendsAnswer>(TRENDS)).resolved_date_range;
      const trends = await timedPair(
        RUNS,
        () => query<TrendsAnswer>(TRENDS),
        () =>
          raw<{ day: string; count: string }>(
            `SELECT to_char(date_trunc('day', timestamp AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*) AS count
             FROM events WHERE project_id = $1 AND event = '$pageview' AND timestamp >= $2 AND timestamp <= $3
             GROUP BY 1 ORDER BY 1`,
            [projectId, range.date_from, range.date_to],
          ),
      );
      const series = trends.ours.last.results[0]!;
      const byDay = new Map(trends.hand.last.map((row) => [row.day, Number(row.count)]));
      const handData = series.days.map((day) => byDay.get(day) ?? 0);
      if (JSON.stringify(handData) !== JSON.stringify(series.data)) {
        throw new Error(`trends disagree: ours ${series.data.join(",")} vs hand ${handData.join(",")}`);
      }

      const hogql = await timedPair(
        RUNS,
        () => query<{ results: unknown[][] }>({ kind: "HogQLQuery", query: HOGQL }),
        () =>
          raw<{ browser: string; c: string }>(
            `SELECT properties ->> '$browser' AS browser, count(*) AS c FROM events
             WHERE project_id = $1 AND timestamp > now() - interval '30 days' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 101`,
            [projectId],
          ),
      );
      const ours = JSON.stringify(hogql.ours.last.results.map(([browser, c]) => [browser, Number(c)]));
      const hand = JSON.stringify(hogql.hand.last.map((row) => [row.browser, Number(row.c)]));
      if (ours !== hand) throw new Error(`hogql disagrees: ours ${ours} vs hand ${hand}`);

      const endpoint = async (name: string, query: unknown) => {
        const base = `http://127.0.0.1:${address.port}/api/projects/${projectId}/endpoints/`;
        const created = await fetch(base, {
          method: "POST",
          headers,
          body: JSON.stringify({ name, query, is_materialized: false }),
        });
        if (created.status !== 201)
          throw new Error(`endpoint create answered ${created.status}: ${await created.text()}`);
        return async <T>(): Promise<T> => {
          const response = await fetch(`${base}${name}/run/`, { method: "POST", headers, body: "{}" });
          if (response.status !== 200)
            throw new Error(`run answered ${response.status}: ${await response.text()}`);
          return (await response.json()) as T;
        };
      };
      const runTrends = await endpoint("bench_trends", TRENDS);
      const trendsCached = await timed(RUNS, () =>
        runTrends<{ is_cached: boolean; results: Array<{ data: number[] }> }>(),
      );
      const runHogql = await endpoint("bench_hogql", { kind: "HogQLQuery", query: HOGQL });
      const hogqlCached = await timed(RUNS, () => runHogql<{ is_cached: boolean; results: unknown[][] }>());
      if (!trendsCached.last.is_cached || !hogqlCached.last.is_cached)
        throw new Error("a cached run was not answered from the cache");
      if (JSON.stringify(trendsCached.last.results[0]!.data) !== JSON.stringify(series.data)) {
        throw new Error("the cached trends answer differs from the computed one");
      }
      if (JSON.stringify(hogqlCached.last.results.map(([browser, c]) => [browser, Number(c)])) !== hand) {
        throw new Error("the cached hogql answer differs from the hand-written one");
      }

      const [load1] = os.loadavg();
      console.log(
        `\nPostgreSQL 127.0.0.1: queries over ${EVENTS.toLocaleString("en")} events (and ${OTHER_EVENTS.toLocaleString("en")} of another project), ` +
          `median of ${RUNS} runs, one at a time; load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
      );
      const row = (name: string, ms: number, handMs: number, ratio = handMs / ms) =>
        console.log(
          `${name.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms | hand-written SQL ${handMs.toFixed(1).padStart(8)} ms | ratio ${ratio.toFixed(2)}×`,
        );
      row("trends daily $pageview, 30 days (cold)", trends.ours.ms, trends.hand.ms, trends.ratio);
      row("hogql group-by $browser, 30 days (cold)", hogql.ours.ms, hogql.hand.ms, hogql.ratio);
      row("trends daily, endpoint run (cached)", trendsCached.ms, trends.hand.ms);
      row("hogql group-by, endpoint run (cached)", hogqlCached.ms, hogql.hand.ms);
      await benchClickHouse(database, projectId, headers, query, series.data, hand);
    } finally {
      await app.close();
    }
  } finally {
    await close();
  }
}

/**
 * The same two cold queries on the ClickHouse store (issue 30): the PostgreSQL events copied into
 * chdb (`copyToClickHouse`, as `signalbox copy-to-clickhouse` moves a history), then each query
 * through the door of an app whose events are in ClickHouse, beside the door on PostgreSQL (`query`),
 * alternating round by round; both must answer alike. The ratio is PostgreSQL's time / ClickHouse's.
 */
async function benchClickHouse(
  database: Database,
  projectId: number,
  headers: Record<string, string>,
  onPostgres: <T>(body: unknown) => Promise<T>,
  trendsData: number[],
  hogqlRows: string,
): Promise<void> {
  if (!chdbInstalled) {
    console.warn(
      "!! chdb is not installed (npm ci --prefix test/clickhouse): the ClickHouse query figures SKIPPED",
    );
    return;
  }
  const clickhouse = await openTestClickHouse();
  try {
    const copyStarted = performance.now();
    const copied = await copyToClickHouse(database.reader, clickhouse.client);
    const copyMs = performance.now() - copyStarted;
    const config = loadConfig({ PORT: "0", ...RATE_LIMITS_OFF });
    const app = await buildApp({
      config,
      database,
      logger: pino({ level: "silent" }),
      services: createServices({
        now: () => new Date(),
        config,
        data: dataAccessOf(database),
        clickhouse: clickhouse.client,
      }),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      if (!address || typeof address === "string") throw new Error("no port");
      const onClickHouse = queryDoor(`http://127.0.0.1:${address.port}`, projectId, headers);
      type Trends = { results: Array<{ data: number[] }> };
      type HogQL = { results: unknown[][] };
      const trends = await timedPair(
        RUNS,
        () => onClickHouse<Trends>(TRENDS),
        () => onPostgres<Trends>(TRENDS),
      );
      const hogql = await timedPair(
        RUNS,
        () => onClickHouse<HogQL>({ kind: "HogQLQuery", query: HOGQL }),
        () => onPostgres<HogQL>({ kind: "HogQLQuery", query: HOGQL }),
      );
      if (JSON.stringify(trends.ours.last.results[0]!.data) !== JSON.stringify(trendsData))
        throw new Error(`ClickHouse's trends disagree: ${trends.ours.last.results[0]!.data.join(",")}`);
      const rows = JSON.stringify(hogql.ours.last.results.map(([browser, c]) => [browser, Number(c)]));
      if (rows !== hogqlRows) throw new Error(`ClickHouse's hogql disagrees: ${rows}`);
      const [load1] = os.loadavg();
      console.log(
        `\nClickHouse (chdb ${CHDB_ENGINE}, behind test/clickhouse/chdb-http.ts): the same events, ` +
          `${copied.events.toLocaleString("en")} copied in ${(copyMs / 1000).toFixed(1)} s; load average ${load1!.toFixed(1)}`,
      );
      for (const [name, pair] of [
        ["trends daily $pageview, 30 days (cold)", trends],
        ["hogql group-by $browser, 30 days (cold)", hogql],
      ] as const) {
        console.log(
          `${name.padEnd(40)} ${pair.ours.ms.toFixed(1).padStart(8)} ms | PostgreSQL ${pair.hand.ms.toFixed(1).padStart(8)} ms | ratio ${pair.ratio.toFixed(2)}×`,
        );
      }
    } finally {
      await app.close();
    }
  } finally {
    await clickhouse.close();
  }
}

/** The ClickHouse engine chdb embeds (test/clickhouse/package.json pins it). */
const CHDB_ENGINE = "26.7";

runPostgresBench("queries", "query engine", benchPostgres);
