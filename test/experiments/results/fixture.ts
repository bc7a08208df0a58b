/**
 * Experiment results on a test server: the query engine's executor bound to it (counting its
 * statements), PostHog's runner fixtures (`test/experiment_query_runner/base.py`,
 * `test_mean_metric.py`) sent through capture (`/batch/`), and an input builder.
 */
import { loadConfig } from "../../../src/config.js";
import { authenticate } from "../../../src/core/auth/authenticate.js";
import { createServiceContext, dataAccessOf } from "../../../src/core/context.js";
import {
  computeVariantAggregates,
  type ExperimentResultsInput,
} from "../../../src/experiments/results/compute-results.js";
import type { VariantAggregates } from "../../../src/experiments/stats/variant-aggregates.js";
import type { QueryRunDeps } from "../../../src/queries/query-kinds.js";
import { runReadOnly } from "../../../src/queries/run-sql.js";
import { type CaptureEvent, capture } from "../../queries/trends/fixture.js";
import type { TestServer } from "../../support/server.js";

export { type CaptureEvent, capture };

/** The executor of the query service on `s` (read-only, 10 s timeout), counting statements. */
export async function depsOf(
  s: TestServer,
  now = new Date("2020-01-20T00:00:00Z"),
): Promise<{ deps: QueryRunDeps; statements: () => number }> {
  const data = dataAccessOf(s.database);
  const actor = await authenticate(data, { key: s.key, source: "Authorization header" });
  const ctx = createServiceContext(data, actor, loadConfig({}).limits);
  let statements = 0;
  return {
    deps: {
      ctx,
      now: () => now,
      execute: (sql, timezone) => {
        statements += 1;
        return runReadOnly(ctx.db, sql, { timeoutMs: 10_000, timezone });
      },
    },
    statements: () => statements,
  };
}

/** An input for `flagKey` on the server's project: PostHog's test experiment (control/test, 14 days from 2020-01-01 12:00Z). */
export function inputOf(
  s: TestServer,
  flagKey: string,
  metric: Record<string, unknown>,
  extra: Partial<ExperimentResultsInput> = {},
): ExperimentResultsInput {
  return {
    projectId: s.projectId,
    timezone: "UTC",
    flagKey,
    variants: ["control", "test"],
    aggregationGroupTypeIndex: null,
    startDate: new Date("2020-01-01T12:00:00Z"),
    endDate: new Date("2020-01-15T12:00:00Z"),
    exposureCriteria: null,
    metric,
    ...extra,
  };
}

/** Runs a computation on `s`, answering the aggregates and the statements it cost. */
export async function compute(
  s: TestServer,
  input: ExperimentResultsInput,
): Promise<{ results: VariantAggregates[]; statements: number }> {
  const { deps, statements } = await depsOf(s);
  const results = await computeVariantAggregates(deps, input);
  return { results, statements: statements() };
}

/** A `$feature_flag_called` of `flagKey` answering `variant`, as posthog-js sends it. */
export function exposure(
  distinctId: string,
  flagKey: string,
  variant: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): CaptureEvent {
  return {
    event: "$feature_flag_called",
    distinct_id: distinctId,
    timestamp,
    properties: {
      $feature_flag: flagKey,
      $feature_flag_response: variant,
      [`$feature/${flagKey}`]: variant,
      ...properties,
    },
  };
}

/** Another event of `distinctId`. */
export function event(
  name: string,
  distinctId: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): CaptureEvent {
  return { event: name, distinct_id: distinctId, timestamp, properties };
}

/**
 * PostHog's `create_standard_test_events`: 10 control and 10 test persons exposed at
 * 2020-01-02T12:00Z; 6 control and 8 test persons purchase at 12:01 with `amount` 10 for the first
 * two of each variant and `''` for the others.
 */
export function standardEvents(flagKey: string, prefix: string): CaptureEvent[] {
  const events: CaptureEvent[] = [];
  for (const [variant, purchases] of [
    ["control", 6],
    ["test", 8],
  ] as const) {
    for (let i = 0; i < 10; i++) {
      const id = `${prefix}_${variant}_${i}`;
      events.push(exposure(id, flagKey, variant, "2020-01-02T12:00:00Z"));
      if (i < purchases) {
        events.push(
          event("purchase", id, "2020-01-02T12:01:00Z", {
            [`$feature/${flagKey}`]: variant,
            amount: i < 2 ? 10 : "",
          }),
        );
      }
    }
  }
  return events;
}

/** A mean metric on `purchase` with `math` (and `amount` for property math). */
export function meanMetric(
  math: string,
  extra: Record<string, unknown> = {},
  source: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    kind: "ExperimentMetric",
    metric_type: "mean",
    source: {
      kind: "EventsNode",
      event: "purchase",
      math,
      ...(["sum", "avg", "min", "max"].includes(math) ? { math_property: "amount" } : {}),
      ...source,
    },
    ...extra,
  };
}
