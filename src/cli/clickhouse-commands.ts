/**
 * The command line's ClickHouse work (issue 30, src/main.ts calls it): `migrate`'s ClickHouse part
 * and `copy-to-clickhouse`. Progress goes to stderr, a line per migration or page, since stdout
 * carries each command's JSON.
 */
import { openClickHouse } from "../analytics/clickhouse/client.js";
import { copyToClickHouse } from "../analytics/clickhouse/copy.js";
import { applyClickHouseMigrations } from "../analytics/clickhouse/migrations.js";
import { type Database, redactUrl } from "../db/database.js";

/**
 * Applies the ClickHouse analytics tables' pending migrations (src/analytics/clickhouse/migrations.ts)
 * at `url`, naming each on stderr as it is recorded, then the summary line (`report`: `migrate`'s);
 * answers the database (its URL's password hidden) and the migrations applied.
 * @throws the client's ClickHouseError (e.g. the URL's database does not exist).
 */
export async function migrateClickHouse(
  url: string,
  report: (count: number, target: string, started: number) => void,
): Promise<{ database: string; applied: string[] }> {
  const started = performance.now();
  const description = `ClickHouse at ${redactUrl(url)}`;
  const client = openClickHouse(url);
  try {
    const applied = await applyClickHouseMigrations(client, undefined, (name) =>
      process.stderr.write(`applied ${name} to ClickHouse\n`),
    );
    report(applied.length, description, started);
    return { database: description, applied };
  } finally {
    await client.close();
  }
}

/**
 * `copy-to-clickhouse`: ClickHouse's tables migrated at `url` (`report` as `migrateClickHouse`'s), then every project's history copied
 * from `database` (src/analytics/clickhouse/copy.ts), each table's running count on stderr; answers
 * the command's JSON report.
 */
export async function copyHistoryToClickHouse(
  database: Database,
  url: string,
  report: (count: number, target: string, started: number) => void,
) {
  const clickhouse = await migrateClickHouse(url, report);
  const client = openClickHouse(url);
  try {
    const copied = await copyToClickHouse(database.reader, client, {
      onPage: (table, rows) => process.stderr.write(`${table}: ${rows} rows copied\n`),
    });
    return { database: database.description, clickhouse: clickhouse.database, copied };
  } finally {
    await client.close();
  }
}
