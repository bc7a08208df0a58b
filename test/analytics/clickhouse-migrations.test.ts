/**
 * The ClickHouse schema's migrations (src/analytics/clickhouse/migrations.ts) on the real engine:
 * applied once, in order, recorded; the tables as PostHog keeps them; a rerun applies nothing; a
 * file cut at a statement is refused; `signalbox migrate` applies them where CLICKHOUSE_URL says, and
 * `serve` refuses CLICKHOUSE_URL until the store is complete.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyClickHouseMigrations,
  CLICKHOUSE_MIGRATIONS_DIR,
  migrationStatements,
} from "../../src/analytics/clickhouse/migrations.js";
import { cli } from "../support/cli.js";
import { chdbInstalled, openTestClickHouse, type TestClickHouse } from "../support/clickhouse.js";

describe("migrationStatements", () => {
  it("splits a file after each `;` ending a line, leaving comments and blank lines out", () => {
    expect(
      migrationStatements("-- a comment\nCREATE TABLE a (x Int8)\nENGINE = Memory;\n\nSELECT ';';\n"),
    ).toEqual(["CREATE TABLE a (x Int8)\nENGINE = Memory", "SELECT ';'"]);
  });

  it("refuses a file whose last statement has no `;`", () => {
    expect(() => migrationStatements("SELECT 1;\nSELECT 2\n")).toThrow(/ends without `;`/);
  });
});

describe.skipIf(!chdbInstalled)("ClickHouse migrations on chdb", () => {
  let clickhouse: TestClickHouse;
  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
  });
  afterAll(async () => {
    await clickhouse?.close();
  });

  it("creates PostHog's analytics tables with their engines and sorting keys, recorded once", async () => {
    const tables = await clickhouse.client.query({
      query: `SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() ORDER BY name`,
      format: "JSONEachRow",
    });
    expect(await tables.json()).toEqual([
      {
        name: "events",
        engine: "ReplacingMergeTree",
        sorting_key: "team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid)",
      },
      { name: "groups", engine: "ReplacingMergeTree", sorting_key: "team_id, group_type_index, group_key" },
      { name: "person", engine: "ReplacingMergeTree", sorting_key: "team_id, id" },
      { name: "person_distinct_id2", engine: "ReplacingMergeTree", sorting_key: "team_id, distinct_id" },
      {
        name: "person_static_cohort",
        engine: "ReplacingMergeTree",
        sorting_key: "team_id, cohort_id, person_id, id",
      },
      { name: "signalbox_migrations", engine: "MergeTree", sorting_key: "name" },
    ]);
    const files = (await fs.readdir(CLICKHOUSE_MIGRATIONS_DIR)).map((file) => file.replace(/\.sql$/, ""));
    const recorded = await clickhouse.client.query({
      query: "SELECT name FROM signalbox_migrations ORDER BY name",
      format: "JSONEachRow",
    });
    expect((await recorded.json<{ name: string }>()).map((row) => row.name)).toEqual(files.sort());
  });

  it("applies nothing the second time", async () => {
    expect(await applyClickHouseMigrations(clickhouse.client)).toEqual([]);
  });

  it("applies a new file in name order, and leaves unrecorded one whose statement fails", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-ch-migrations-"));
    try {
      for (const file of await fs.readdir(CLICKHOUSE_MIGRATIONS_DIR)) {
        await fs.copyFile(path.join(CLICKHOUSE_MIGRATIONS_DIR, file), path.join(dir, file));
      }
      await fs.writeFile(
        path.join(dir, "29990101000000_extra.sql"),
        "CREATE TABLE IF NOT EXISTS extra (x Int8) ENGINE = MergeTree ORDER BY x;\n",
      );
      await fs.writeFile(
        path.join(dir, "29990102000000_broken.sql"),
        "CREATE TABLE broken (x Nope) ENGINE = Memory;\n",
      );
      const applied: string[] = [];
      await expect(
        applyClickHouseMigrations(clickhouse.client, dir, (name) => applied.push(name)),
      ).rejects.toThrow(/Nope/);
      expect(applied).toEqual(["29990101000000_extra"]);
      const recorded = await clickhouse.client.query({
        query: "SELECT name FROM signalbox_migrations WHERE name LIKE '2999%' ORDER BY name",
        format: "JSONEachRow",
      });
      expect(await recorded.json()).toEqual([{ name: "29990101000000_extra" }]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!chdbInstalled)("signalbox migrate and serve with CLICKHOUSE_URL", () => {
  let clickhouse: TestClickHouse;
  let dataDir: string;
  beforeAll(async () => {
    clickhouse = await openTestClickHouse();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-migrate-ch-"));
    // A database the command creates its tables in, beside the migrated one of the file.
    await clickhouse.client.command({ query: "CREATE DATABASE cli" });
  });
  afterAll(async () => {
    await clickhouse?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("migrate creates the analytics tables in the URL's database, then finds them current", async () => {
    const url = clickhouse.url.replace(/\/signalbox$/, "/cli");
    const first = await cli(["migrate"], { DATA_DIR: dataDir, CLICKHOUSE_URL: url });
    expect(first.code, first.stderr).toBe(0);
    const names = (await fs.readdir(CLICKHOUSE_MIGRATIONS_DIR))
      .map((file) => file.replace(/\.sql$/, ""))
      .sort();
    expect(JSON.parse(first.stdout).clickhouse).toEqual({ database: `ClickHouse at ${url}`, applied: names });
    for (const name of names) expect(first.stderr).toContain(`applied ${name} to ClickHouse\n`);
    const tables = await clickhouse.client.query({
      query: "SELECT name FROM system.tables WHERE database = 'cli' ORDER BY name",
      format: "JSONEachRow",
    });
    expect((await tables.json<{ name: string }>()).map((row) => row.name)).toEqual([
      "events",
      "groups",
      "person",
      "person_distinct_id2",
      "person_static_cohort",
      "signalbox_migrations",
    ]);

    const again = await cli(["migrate"], { DATA_DIR: dataDir, CLICKHOUSE_URL: url });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).clickhouse.applied).toEqual([]);
    expect(again.stderr).toContain(`no pending migrations: ClickHouse at ${url} is up to date\n`);
  });

  it("migrate fails, naming ClickHouse's error, where the URL's database does not exist", async () => {
    const url = clickhouse.url.replace(/\/signalbox$/, "/nowhere");
    const run = await cli(["migrate"], { DATA_DIR: dataDir, CLICKHOUSE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/nowhere/);
  });

  it("serve refuses CLICKHOUSE_URL while the store is incomplete, as a configuration error", async () => {
    const run = await cli(["serve"], { DATA_DIR: dataDir, CLICKHOUSE_URL: clickhouse.url, PORT: "0" });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "CLICKHOUSE_URL: the ClickHouse analytics store is not complete yet (issue 30)",
    );
  });

  it("refuses a CLICKHOUSE_URL that is not http(s)", async () => {
    const run = await cli(["migrate"], { DATA_DIR: dataDir, CLICKHOUSE_URL: "tcp://localhost:9000" });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("CLICKHOUSE_URL must be an http:// or https:// URL");
  });
});
