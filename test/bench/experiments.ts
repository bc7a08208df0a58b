/**
 * The experiment-results figure of `npm run bench` (issue 11): a mean metric (Σ `amount` of
 * `purchase` per exposed person, PostHog's default exposure handling) over `BENCH_EXPOSURES`
 * exposed persons (default 100,000) on PostgreSQL, one computation at a time, the median of
 * `BENCH_EXPERIMENT_RUNS` runs (default 5) of:
 * - `ours`: `computeVariantAggregates` (src/experiments/results/), its one statement through the
 *   query engine's executor (read-only transaction, statement timeout, session time zone);
 * - `hand-written SQL`: the same aggregate written by hand as one statement for this metric
 *   (exposures, LEFT JOIN of the purchases after each person's first exposure, per-variant sums),
 *   through the same executor and driver.
 * Both answers must agree (checked). Each person has one exposure (a tenth of them a second one,
 * a twentieth in the other variant, so `$multiple` is exercised) and a third of them 1–3 purchases,
 * the first half an hour before the exposure (never counted), the others after it;
 * a second project holds 20,000 exposures of its own with the same flag, which neither may count.
 * The two alternate round by round; the ratio is the median of the rounds' hand-written time /
 * ours (higher is better).
 *
 * Environment: BENCH_ONLY (runs when it names `experiments`), BENCH_EXPOSURES, BENCH_EXPERIMENT_RUNS.
 * PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432; skipped loudly when none answers.
 */
import os from "node:os";
import { loadConfig } from "../../src/config.js";
import { authenticate } from "../../src/core/auth/authenticate.js";
import { createServiceContext, dataAccessOf } from "../../src/core/context.js";
import { computeVariantAggregates } from "../../src/experiments/results/compute-results.js";
import { Prisma } from "../../src/generated/prisma/client.js";
import type { QueryRunDeps } from "../../src/queries/query-kinds.js";
import { runReadOnly } from "../../src/queries/run-sql.js";
import { openBootstrappedBench, type RawRows, runPostgresBench, timedPair } from "./sequential.js";

const EXPOSURES = Number(process.env["BENCH_EXPOSURES"] ?? 100_000);
const OTHER_EXPOSURES = Math.max(1, Math.floor(EXPOSURES / 5));
const RUNS = Number(process.env["BENCH_EXPERIMENT_RUNS"] ?? 5);
const FLAG = "bench-flag";
const START = new Date("2026-01-01T00:00:00Z");
const END = new Date("2026-01-31T00:00:00Z");
const TIMEOUT_MS = 600_000;

/** Exposures, second exposures, cross-variant exposures and purchases for `count` persons of `projectId`. */
async function seed(raw: RawRows, projectId: number, count: number): Promise<void> {
  const person = "md5(($1::int)::text || ':' || g)::uuid";
  const variant = "(CASE WHEN g % 2 = 0 THEN 'control' ELSE 'test' END)";
  const other = "(CASE WHEN g % 2 = 0 THEN 'test' ELSE 'control' END)";
  const exposureAt = "(timestamptz '2026-01-02T00:00:00Z' + (g % 20000) * interval '1 minute')";
  const insert = (select: string) =>
    raw(
      `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp) ${select}`,
      [projectId, count, FLAG],
    );
  await insert(
    `SELECT $1::int, gen_random_uuid(), '$feature_flag_called', 'user-' || g, ${person},
       jsonb_build_object('$feature_flag', $3::text, '$feature_flag_response', ${variant}), ${exposureAt}
     FROM generate_series(1, $2::int) AS g`,
  );
  await insert(
    `SELECT $1::int, gen_random_uuid(), '$feature_flag_called', 'user-' || g, ${person},
       jsonb_build_object('$feature_flag', $3::text, '$feature_flag_response',
         CASE WHEN g % 20 = 0 THEN ${other} ELSE ${variant} END), ${exposureAt} + interval '2 days'
     FROM generate_series(1, $2::int) AS g WHERE g % 10 = 0`,
  );
  await insert(
    `SELECT $1::int, gen_random_uuid(), 'purchase', 'user-' || g, ${person},
       jsonb_build_object('amount', (g * 7 + k) % 100, 'plan', 'pro'),
       ${exposureAt} + k * interval '1 hour' - interval '90 minutes'
     FROM generate_series(1, $2::int) AS g, generate_series(1, 1 + (g / 3) % 3) AS k
     WHERE g % 3 = 0 AND $3::text <> ''`,
  );
}

/** The same aggregate written by hand for this metric (PostHog's semantics, person entities). */
function handWritten(projectId: number): Prisma.Sql {
  return Prisma.sql`WITH x AS (
      SELECT person_id,
        CASE WHEN count(DISTINCT properties ->> '$feature_flag_response') > 1 THEN '$multiple'
          ELSE min(properties ->> '$feature_flag_response') END AS variant,
        min(timestamp) AS first_ts
      FROM events
      WHERE project_id = ${projectId}::int AND event = '$feature_flag_called'
        AND properties ->> '$feature_flag' = ${FLAG}::text
        AND timestamp >= ${START.toISOString()}::timestamptz AND timestamp <= ${END.toISOString()}::timestamptz
        AND properties ->> '$feature_flag_response' IN ('control', 'test')
      GROUP BY person_id),
    v AS (
      SELECT x.variant, COALESCE(sum((m.properties ->> 'amount')::float8), 0) AS value
      FROM x LEFT JOIN events m ON m.project_id = ${projectId}::int AND m.event = 'purchase'
        AND m.person_id = x.person_id AND m.timestamp >= x.first_ts
        AND m.timestamp < ${END.toISOString()}::timestamptz
      GROUP BY x.person_id, x.variant)
    SELECT variant, count(*)::int AS n, sum(value)::float8 AS total, sum(value * value)::float8 AS squares
    FROM v WHERE variant IN ('control', 'test') GROUP BY variant ORDER BY variant`;
}

async function benchPostgres(): Promise<void> {
  const { database, raw, close, boot, otherProject } = await openBootstrappedBench("postgres");
  try {
    const projectId = boot.project_id;
    await seed(raw, projectId, EXPOSURES);
    await seed(raw, await otherProject(), OTHER_EXPOSURES);
    await raw("ANALYZE events", []);

    const data = dataAccessOf(database);
    const actor = await authenticate(data, { key: boot.personal_api_key, source: "Authorization header" });
    const ctx = createServiceContext(data, actor, loadConfig({}).limits);
    const execute: QueryRunDeps["execute"] = (sql, timezone) =>
      runReadOnly(ctx.db, sql, { timeoutMs: TIMEOUT_MS, timezone });
    const deps: QueryRunDeps = { ctx, now: () => END, execute };
    const input = {
      projectId,
      timezone: "UTC",
      flagKey: FLAG,
      variants: ["control", "test"],
      aggregationGroupTypeIndex: null,
      startDate: START,
      endDate: END,
      exposureCriteria: null,
      metric: {
        kind: "ExperimentMetric",
        metric_type: "mean",
        source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" },
      },
    };

    const { ours, hand, ratio } = await timedPair(
      RUNS,
      () => computeVariantAggregates(deps, input),
      () =>
        execute<{ variant: string; n: number; total: number; squares: number }>(
          handWritten(projectId),
          "UTC",
        ),
    );
    const oursRows = ours.last.map((r) => [r.key, r.number_of_samples, r.sum, r.sum_squares]);
    const handRows = hand.last.map((r) => [r.variant, r.n, r.total, r.squares]);
    if (JSON.stringify(oursRows) !== JSON.stringify(handRows)) {
      throw new Error(
        `results disagree: ours ${JSON.stringify(oursRows)} vs hand ${JSON.stringify(handRows)}`,
      );
    }
    const exposed = oursRows.reduce((sum, row) => sum + Number(row[1]), 0);

    const [load1] = os.loadavg();
    console.log(
      `\nPostgreSQL 127.0.0.1: experiment results, mean metric (Σ amount per person) over ${EXPOSURES.toLocaleString("en")} exposed persons ` +
        `(${exposed.toLocaleString("en")} counted, the others seen in both variants; ${OTHER_EXPOSURES.toLocaleString("en")} in another project), ` +
        `median of ${RUNS} runs, one at a time; load average ${load1!.toFixed(1)} on ${os.availableParallelism()} CPUs`,
    );
    console.log(`answer: ${oursRows.map((row) => `${row[0]} n ${row[1]} sum ${row[2]}`).join(", ")}`);
    console.log(
      `${"mean metric, one statement".padEnd(40)} ${ours.ms.toFixed(1).padStart(8)} ms | hand-written SQL ${hand.ms
        .toFixed(1)
        .padStart(8)} ms | ratio ${ratio.toFixed(2)}×`,
    );
  } finally {
    await close();
  }
}

runPostgresBench("experiments", "experiment results", benchPostgres);
