/**
 * The ClickHouse schema's migrations (issue 30): SQL files in `prisma/clickhouse/migrations/`, beside
 * Prisma's, applied in name order, each once, and recorded in the table `signalbox_migrations` of the
 * database, as PostHog records its own (`infi_clickhouse_orm_migrations`,
 * posthog/clickhouse/migrations/). ClickHouse runs one statement per request and has no
 * transactional DDL, so a file is split into statements (each ending with `;` at the end of a line)
 * written to be rerun safely (`CREATE TABLE IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`): a file that
 * stopped half-way is applied again whole, and is recorded only once every statement ran.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { PACKAGE_ROOT } from "../../db/package-root.js";
import type { ClickHouseClient } from "./client.js";

/** `prisma/clickhouse/migrations` of the package, whether running from src/ (tsx) or from dist/src/. */
export const CLICKHOUSE_MIGRATIONS_DIR: string = path.join(
  PACKAGE_ROOT,
  "prisma",
  "clickhouse",
  "migrations",
);

/** The statements of a migration file: its text split after each `;` that ends a line, comments kept out. */
export function migrationStatements(text: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim().startsWith("--") || (current.length === 0 && line.trim() === "")) continue;
    current.push(line);
    if (line.trimEnd().endsWith(";")) {
      statements.push(current.join("\n").trimEnd().replace(/;$/, ""));
      current = [];
    }
  }
  if (current.join("").trim() !== "") throw new Error("A ClickHouse migration ends without `;`");
  return statements;
}

/**
 * Applies the migrations of `dir` that the database of `client` has not recorded, in name order,
 * telling `onApplied` each name as it is recorded; returns the names applied.
 * @throws the client's ClickHouseError of the statement that failed (the file is not recorded).
 */
export async function applyClickHouseMigrations(
  client: ClickHouseClient,
  dir: string = CLICKHOUSE_MIGRATIONS_DIR,
  onApplied: (name: string) => void = () => {},
): Promise<string[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS signalbox_migrations
      (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = MergeTree ORDER BY name`,
  });
  const recorded = await client.query({
    query: "SELECT name FROM signalbox_migrations",
    format: "JSONEachRow",
  });
  const done = new Set((await recorded.json<{ name: string }>()).map((row) => row.name));
  const files = (await readdir(dir)).filter((file) => file.endsWith(".sql")).sort();
  const applied: string[] = [];
  for (const file of files) {
    const name = file.slice(0, -".sql".length);
    if (done.has(name)) continue;
    for (const query of migrationStatements(await readFile(path.join(dir, file), "utf8"))) {
      await client.command({ query });
    }
    await client.insert({ table: "signalbox_migrations", values: [{ name }], format: "JSONEachRow" });
    applied.push(name);
    onApplied(name);
  }
  return applied;
}
