/**
 * One query run's statement: in a read-only transaction, with `statement_timeout` and the session
 * `TimeZone` (the project's, so that HogQL's dates, truncations and naive timestamps are the
 * project's) set for that transaction only. A database error is the query's fault (a type
 * mismatch, a bad regular expression, a cast) and answers 400 `Query execution failed: ...`, as
 * PostHog's endpoint run does (posthog-behavior.md §4.7); a timeout answers 400 naming the limit.
 *
 * One caller's run takes one core of the database: no parallel workers
 * (`max_parallel_workers_per_gather` 0), so a run that lasts until its timeout leaves the other
 * cores to everyone else. With a cost limit (`QUERY_MAX_COST`), the statement is first planned
 * (`EXPLAIN`, no execution) and refused when the planner's estimated total cost is above it: on the
 * embedded database a statement holds the only session until it ends, so the work the planner can
 * see coming is refused before it starts, and the timeout bounds what it cannot.
 */
import { ValidationError } from "../core/errors.js";
import { databaseErrorOf } from "../db/database-error.js";
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";

/** A statement as sent: its text with `$n` placeholders and the values bound to them. */
export interface BoundStatement {
  text: string;
  values: unknown[];
}

/**
 * `query` with each distinct value bound once (equal values of the same JS type share one `$n`).
 * PostgreSQL matches a SELECT expression with its GROUP BY expression only when they are the same
 * text, so `properties ->> $1` must not become `properties ->> $2` the second time the key appears.
 * Values stay bound parameters.
 */
export function bindOnce(query: Prisma.Sql): BoundStatement {
  const values: unknown[] = [];
  const indexByKey = new Map<string, number>();
  let text = query.strings[0] ?? "";
  query.values.forEach((value, i) => {
    const key = `${typeof value}:${typeof value === "bigint" ? value.toString() : JSON.stringify(value)}`;
    let index = indexByKey.get(key);
    if (index === undefined) {
      values.push(value);
      index = values.length;
      indexByKey.set(key, index);
    }
    text += `$${index}${query.strings[i + 1] ?? ""}`;
  });
  return { text, values };
}

/** How one query run's statement is bounded and read. */
export interface RunOptions {
  /** Statement timeout, in ms. */
  timeoutMs: number;
  /** Session TimeZone (IANA name). */
  timezone: string;
  /** Highest estimated cost (PostgreSQL's cost units) the statement may have; 0 or absent: no limit. */
  maxCost?: number;
}

/**
 * Runs `query` read-only with a statement timeout of `timeoutMs`, the session TimeZone `timezone`
 * and, when `maxCost` is set, no more than that estimated cost (see the module comment).
 * @throws ValidationError `Query execution failed: <database message>` for errors of the query,
 *   `Query exceeded the statement timeout of <n> ms.` (code `query_timeout`), or
 *   `Query is too expensive to run: …` (code `query_too_expensive`).
 */
export async function runReadOnly<R>(db: PrismaClient, query: Prisma.Sql, options: RunOptions): Promise<R[]> {
  try {
    return await db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe("SET TRANSACTION READ ONLY");
        await tx.$queryRaw`SELECT set_config('statement_timeout', ${String(options.timeoutMs)}, true),
          set_config('TimeZone', ${options.timezone}, true),
          set_config('max_parallel_workers_per_gather', '0', true)`;
        const statement = bindOnce(query);
        if (options.maxCost) {
          const [plan] = await tx.$queryRawUnsafe<Array<{ "QUERY PLAN": unknown }>>(
            `EXPLAIN (FORMAT JSON) ${statement.text}`,
            ...statement.values,
          );
          refuseCost(estimatedCost(plan?.["QUERY PLAN"]), options.maxCost);
        }
        return tx.$queryRawUnsafe<R[]>(statement.text, ...statement.values);
      },
      { timeout: options.timeoutMs + 10_000, maxWait: 10_000 },
    );
  } catch (error) {
    const cause = databaseErrorOf(error);
    if (cause?.code === "57014") {
      throw new ValidationError(`Query exceeded the statement timeout of ${options.timeoutMs} ms.`, {
        code: "query_timeout",
      });
    }
    // Connection, resource and shutdown failures (classes 08, 53, 57P) are the server's, not the query's.
    if (cause && !/^(08|53|57P)/.test(cause.code ?? "")) {
      throw new ValidationError(`Query execution failed: ${cause.message}`, { code: "query_error" });
    }
    throw error;
  }
}

/** The total cost `EXPLAIN (FORMAT JSON)` estimated for its statement (its top plan node's). */
function estimatedCost(plan: unknown): number {
  const root = (typeof plan === "string" ? JSON.parse(plan) : plan) as Array<{
    Plan: { "Total Cost": number };
  }>;
  return root[0]?.Plan["Total Cost"] ?? 0;
}

/** @throws ValidationError (code `query_too_expensive`) when `cost` is above `maxCost`. */
function refuseCost(cost: number, maxCost: number): void {
  if (cost <= maxCost) return;
  throw new ValidationError(
    `Query is too expensive to run: its estimated cost is ${Math.round(cost).toLocaleString("en-US")}, above the limit of ${maxCost.toLocaleString("en-US")} (QUERY_MAX_COST). Filter or aggregate more before joining.`,
    { code: "query_too_expensive" },
  );
}
