/**
 * The ClickHouse the analytics store keeps events in (issue 30), reached with ClickHouse's official
 * client (`@clickhouse/client`) over its HTTP interface: a URL names the server, and its path the
 * database (`http://user:password@host:8123/analytics`). The same client runs the suite on chdb, the
 * ClickHouse engine embedded, behind test/clickhouse/chdb-http.ts.
 */
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from "@clickhouse/client";

/** ClickHouse's settings for every statement the store sends. */
const SESSION_SETTINGS = {
  // Int64 and UInt64 as JSON numbers, as servers since 25.8 send them by default (earlier ones quote them).
  output_format_json_quote_64bit_integers: 0,
  // DateTime64 as ISO 8601 in JSON answers' text.
  date_time_output_format: "iso",
} as const;

/**
 * A client of the ClickHouse at `url` (its path the database; `default` when none). Its own console
 * log is off: every failure reaches the caller as a thrown `ClickHouseError`, logged where handled.
 */
export function openClickHouse(url: string): ClickHouseClient {
  return createClient({
    url,
    clickhouse_settings: SESSION_SETTINGS,
    application: "signalbox",
    log: { level: ClickHouseLogLevel.OFF },
  });
}

export type { ClickHouseClient } from "@clickhouse/client";
