/**
 * Read statements on the ClickHouse analytics store (issue 30): a statement built as a `Prisma.Sql`
 * template whose values are ClickHouse-typed parameters (src/lib/hogql/clickhouse/params.ts
 * `param`), rendered with `{p0:Type}` placeholders and sent with its values as `query_params`, so no
 * value is spliced into the text. Every read runs with `readonly = 2` (reads only; settings may be
 * changed per query) and a time bound, its rows answered as JSON objects (`JSONEachRow`, 64-bit
 * integers as numbers).
 */
import type { ClickHouseSettings } from "@clickhouse/client";
import { Prisma } from "../../generated/prisma/client.js";
import { type ClickHouseStatement, renderClickHouse } from "../../lib/hogql/clickhouse/params.js";
import type { ClickHouseClient } from "./client.js";

/** Options of one read. */
export interface ClickHouseReadOptions {
  /** ClickHouse's `max_execution_time`, in seconds (default 60). */
  timeoutSeconds?: number;
  /** Further settings of this statement (`session_timezone`, ...). */
  settings?: ClickHouseSettings;
}

/**
 * Runs the read statement `statement` on `client` (a template of typed parameters, or one already
 * rendered with its values by name) and answers its rows.
 * @throws the client's `ClickHouseError` (e.g. code 159 TIMEOUT_EXCEEDED past the time bound, 164
 *   READONLY for a write), or a connection error; Error for a value `renderClickHouse` cannot bind.
 */
export async function readClickHouse<R>(
  client: ClickHouseClient,
  statement: Prisma.Sql | ClickHouseStatement,
  options: ClickHouseReadOptions = {},
): Promise<R[]> {
  const { sql, params } = statement instanceof Prisma.Sql ? renderClickHouse(statement) : statement;
  const result = await client.query({
    query: sql,
    query_params: params,
    format: "JSONEachRow",
    clickhouse_settings: {
      readonly: "2",
      max_execution_time: options.timeoutSeconds ?? 60,
      output_format_json_quote_64bit_integers: 0,
      ...options.settings,
    },
  });
  return result.json<R>();
}
