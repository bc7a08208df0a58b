/**
 * The migrations layer against its drift guarantees: prisma/migrations matches schema.prisma, the
 * generated client matches schema.prisma, and migrating a fresh PGlite or PostgreSQL database
 * leaves nothing pending or failed. Also pins the fixes for the traps of offline-prisma.md: the
 * shadow database is never the main one, and a failing migration is never recorded as applied.
 */
import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyMigrations,
  createMigration,
  DEFAULT_MIGRATIONS_DIR,
  DEFAULT_SCHEMA_PATH,
  diffMigrationsToSchema,
  type MigrationTarget,
  migrationStatus,
} from "../../src/db/migrations.js";
import { NO_FILTERS, readMigrationsDir, withSchemaEngine } from "../../src/db/schema-engine.js";

const ROOT = path.dirname(path.dirname(DEFAULT_MIGRATIONS_DIR));
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** Names of the migrations on disk, in the order they apply. */
async function migrationNames(dir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
}

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

async function adminQuery<R extends pg.QueryResultRow>(sql: string, url = ADMIN_URL): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function postgresAnswers(): Promise<boolean> {
  try {
    await adminQuery("SELECT 1");
    return true;
  } catch {
    return false;
  }
}

const hasPostgres = await postgresAnswers();
if (!hasPostgres) {
  console.warn(
    `\n!!! No PostgreSQL answers at ${ADMIN_URL}: the PostgreSQL migration tests are SKIPPED. !!!\n`,
  );
}

/** Runs `test` on a new, empty scratch database of the test server, dropped afterwards. */
async function withScratchDatabase(test: (url: string) => Promise<void>): Promise<void> {
  const name = `sbx_mig_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    await test(url.toString());
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** Shadow databases on the test server (Prisma's adapter-pg names or ours). */
async function shadowDatabases(): Promise<string[]> {
  const rows = await adminQuery<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'sbx_mig_shadow_%' OR datname LIKE 'prisma_migrate_shadow_db_%'",
  );
  return rows.map((row) => row.datname);
}

/** Migrates a fresh database, then checks status and a second apply; the drift test (3) and (4). */
async function expectCleanMigration(target: MigrationTarget): Promise<void> {
  const names = await migrationNames();
  expect(await migrationStatus(target)).toEqual({ pending: names, failed: [], appliedCount: 0 });
  expect(await applyMigrations(target)).toEqual({ applied: names });
  expect(await migrationStatus(target)).toEqual({ pending: [], failed: [], appliedCount: names.length });
  expect(await applyMigrations(target)).toEqual({ applied: [] });
}

/** `_prisma_migrations` rows as Prisma writes them: checksum = SHA-256 hex of migration.sql. */
async function expectRecordedLikePrisma(rows: { migration_name: string; checksum: string }[]): Promise<void> {
  const expected = await Promise.all(
    (await migrationNames()).map(async (name) => ({
      migration_name: name,
      checksum: createHash("sha256")
        .update(await readFile(path.join(DEFAULT_MIGRATIONS_DIR, name, "migration.sql")))
        .digest("hex"),
    })),
  );
  expect(rows).toEqual(expected);
}

/**
 * The failing-migration guarantee (drift test 6): a migration with a `;` inside a literal applies
 * (scripts run whole, not split on `;`), the next one fails halfway, and then the call throws
 * naming it, `_prisma_migrations` records it as failed, its first statement is not kept (one
 * implicit transaction per script), and Prisma refuses to go on (P3009).
 */
async function expectFailingMigrationRecordedAsFailed(
  target: MigrationTarget,
  rowsOf: (sql: string) => Promise<unknown[]>,
): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sbx-mig-failing-"));
  try {
    const migrations = {
      "20200101000000_ok": `CREATE TABLE "ok" ("id" INTEGER);\nCOMMENT ON TABLE "ok" IS 'one; two';\n`,
      "20200102000000_bad": `CREATE TABLE "half" ("id" INTEGER);\nSELECT * FROM "no_such_table";\n`,
    };
    for (const [name, sql] of Object.entries(migrations)) {
      await mkdir(path.join(dir, name));
      await writeFile(path.join(dir, name, "migration.sql"), sql);
    }

    await expect(applyMigrations(target, dir)).rejects.toThrow(
      /^Migration 20200102000000_bad failed to apply .*no_such_table/,
    );
    expect(await migrationStatus(target, dir)).toEqual({
      pending: [],
      failed: ["20200102000000_bad"],
      appliedCount: 1,
    });
    expect(
      await rowsOf(
        "SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name",
      ),
    ).toEqual([
      { migration_name: "20200101000000_ok", finished: true },
      { migration_name: "20200102000000_bad", finished: false },
    ]);
    expect(await rowsOf("SELECT tablename FROM pg_tables WHERE tablename IN ('ok', 'half')")).toEqual([
      { tablename: "ok" },
    ]);
    await expect(applyMigrations(target, dir)).rejects.toThrow(/P3009/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Each test here runs Prisma's schema engine (WebAssembly) over shadow databases, each a fresh PGlite
 * (`initdb`, then every migration replayed): 5 to 20 s alone, and past a minute on a loaded 2-core
 * machine beside the other worker (seen on 2026-11-29), so they get a longer hang guard.
 */
const SCHEMA_ENGINE_TEST_TIMEOUT_MS = 180_000;

const RECORDED_SQL = `SELECT migration_name, checksum FROM _prisma_migrations
  WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`;

describe("migrations folder", { timeout: SCHEMA_ENGINE_TEST_TIMEOUT_MS }, () => {
  it("has Prisma's PostgreSQL lockfile and at least one migration", async () => {
    const lockfile = await readFile(path.join(DEFAULT_MIGRATIONS_DIR, "migration_lock.toml"), "utf8");
    expect(lockfile).toMatch(/^provider = "postgresql"$/m);
    expect((await migrationNames()).length).toBeGreaterThan(0);
  });

  it("matches schema.prisma: the diff from the migrations to the schema is empty", async () => {
    const sql = await diffMigrationsToSchema();
    expect(sql, "schema.prisma changed without a migration: run `npm run migrate:create -- <name>`").toBe("");
  });

  it("createMigration writes Prisma's layout from an empty history, then nothing for an unchanged schema", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "sbx-mig-create-"));
    try {
      const created = await createMigration("First Step!", dir);
      expect(created).not.toBeNull();
      expect(path.dirname(created!)).toBe(dir);
      expect(path.basename(created!)).toMatch(/^\d{14}_first_step$/);
      expect(await readFile(path.join(created!, "migration.sql"), "utf8")).toMatch(
        /^CREATE TABLE "feature_flags"/m,
      );
      expect(await readFile(path.join(dir, "migration_lock.toml"), "utf8")).toMatch(
        /^provider = "postgresql"$/m,
      );
      // null: the migration just written brings the history to the schema.
      expect(await createMigration("again", dir)).toBeNull();
      expect(await migrationNames(dir)).toEqual([path.basename(created!)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("generated client", { timeout: SCHEMA_ENGINE_TEST_TIMEOUT_MS }, () => {
  it("matches schema.prisma: regenerating from it reproduces src/generated", async () => {
    // Regenerate into a scratch copy of the layout (the generators' outputs are relative to the
    // schema file), offline: the schema-engine stub stands in for the native engine (offline-prisma.md).
    const scratch = await mkdtemp(path.join(os.tmpdir(), "sbx-mig-generate-"));
    try {
      await mkdir(path.join(scratch, "prisma"));
      await cp(DEFAULT_SCHEMA_PATH, path.join(scratch, "prisma", "schema.prisma"));
      const bin = path.join(ROOT, "node_modules", ".bin");
      await promisify(execFile)(path.join(bin, "prisma"), ["generate", "--schema", "prisma/schema.prisma"], {
        cwd: scratch,
        env: {
          ...process.env,
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
          PRISMA_SCHEMA_ENGINE_BINARY: path.join(ROOT, "prisma", "schema-engine-stub.sh"),
          CHECKPOINT_DISABLE: "1",
          PRISMA_HIDE_UPDATE_MESSAGE: "1",
        },
      });
      const fresh = path.join(scratch, "src", "generated");
      const current = path.join(ROOT, "src", "generated");
      const outputs = await filesUnder(fresh);
      expect(outputs.length).toBeGreaterThan(0);
      for (const file of outputs) {
        const actual = await readFile(path.join(current, file), "utf8").catch(() => null);
        expect(
          actual === (await readFile(path.join(fresh, file), "utf8")),
          `${file} is stale: run \`npm run generate\``,
        ).toBe(true);
      }
      const prismaOutputs = outputs.filter((file) => file.startsWith(`prisma${path.sep}`));
      expect(
        (await filesUnder(path.join(current, "prisma"))).map((file) => path.join("prisma", file)),
      ).toEqual(prismaOutputs);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it("shares its engine hash with the WebAssembly schema engine that runs the migrations", async () => {
    const classFile = await readFile(
      path.join(ROOT, "src", "generated", "prisma", "internal", "class.ts"),
      "utf8",
    );
    const clientEngine = /"engineVersion": "([0-9a-f]{40})"/.exec(classFile)?.[1];
    const wasmPackage = JSON.parse(
      await readFile(
        path.join(ROOT, "node_modules", "@prisma", "schema-engine-wasm", "package.json"),
        "utf8",
      ),
    ) as { version: string };
    expect(clientEngine).toBeDefined();
    expect(wasmPackage.version.endsWith(`.${clientEngine}`)).toBe(true);
  });
});

describe("on PGlite", { timeout: SCHEMA_ENGINE_TEST_TIMEOUT_MS }, () => {
  it("migrates a fresh database: nothing pending or failed after, nothing applied twice", async () => {
    const pglite = new PGlite();
    try {
      await expectCleanMigration({ kind: "pglite", pglite });
      await expectRecordedLikePrisma(
        (await pglite.query<{ migration_name: string; checksum: string }>(RECORDED_SQL)).rows,
      );
      expect(pglite.closed, "the caller's PGlite stays open").toBe(false);
    } finally {
      await pglite.close();
    }
  });

  it("throws on a failing migration, records it as failed and never as applied, and keeps no half of it", async () => {
    const pglite = new PGlite();
    try {
      await expectFailingMigrationRecordedAsFailed(
        { kind: "pglite", pglite },
        async (sql) => (await pglite.query(sql)).rows,
      );
    } finally {
      await pglite.close();
    }
  });
});

describe.skipIf(!hasPostgres)("on PostgreSQL", { timeout: SCHEMA_ENGINE_TEST_TIMEOUT_MS }, () => {
  let shadowsBefore: string[];
  beforeAll(async () => {
    shadowsBefore = await shadowDatabases();
  });
  afterAll(async () => {
    // Whatever the tests did, no shadow database may outlive them.
    const shadowsAfter = await shadowDatabases();
    expect(shadowsAfter.filter((name) => !shadowsBefore.includes(name))).toEqual([]);
  });

  it("migrates a fresh database: nothing pending or failed after, nothing applied twice", async () => {
    await withScratchDatabase(async (url) => {
      await expectCleanMigration({ kind: "postgres", url });
      await expectRecordedLikePrisma(await adminQuery(RECORDED_SQL, url));
    });
  });

  it("throws on a failing migration, records it as failed and never as applied, and keeps no half of it", async () => {
    await withScratchDatabase((url) =>
      expectFailingMigrationRecordedAsFailed({ kind: "postgres", url }, (sql) => adminQuery(sql, url)),
    );
  });

  it("never uses the main database as the shadow: diffs and diagnostics leave a real table and its row alone", async () => {
    await withScratchDatabase(async (url) => {
      const target: MigrationTarget = { kind: "postgres", url };
      await applyMigrations(target);
      await adminQuery('CREATE TABLE "keep_me" ("id" INTEGER PRIMARY KEY, "note" TEXT)', url);
      await adminQuery("INSERT INTO \"keep_me\" VALUES (1, 'still here')", url);

      // Both calls replay the migrations into a shadow database; had the shadow been the main
      // database, the replay would hit the tables already there and the diff would drop keep_me.
      const migrationsList = await readMigrationsDir(DEFAULT_MIGRATIONS_DIR);
      const schema = await readFile(DEFAULT_SCHEMA_PATH, "utf8");
      const { diff, diagnostic } = await withSchemaEngine(target, async (engine) => ({
        diff: await engine.diff({
          from: { tag: "migrations", ...migrationsList },
          to: { tag: "schemaDatamodel", files: [{ path: DEFAULT_SCHEMA_PATH, content: schema }] },
          script: true,
          exitCode: true,
          filters: NO_FILTERS,
        }),
        // Compares the replayed shadow with the main database, which the engine introspects
        // through adapter-pg (so this also needs the `"char"` fix); keep_me is only reported.
        diagnostic: await engine.devDiagnostic({ migrationsList, filters: NO_FILTERS }),
      }));
      expect(diff.exitCode).toBe(0);
      expect(diagnostic.action.tag).toBe("reset");
      expect(await migrationStatus(target)).toMatchObject({ pending: [], failed: [] });

      expect(await adminQuery('SELECT "id", "note" FROM "keep_me"', url)).toEqual([
        { id: 1, note: "still here" },
      ]);
    });
  });

  it("with SHADOW_DATABASE_URL, replays into a throwaway database on that server and drops it", async () => {
    const previous = process.env.SHADOW_DATABASE_URL;
    process.env.SHADOW_DATABASE_URL = ADMIN_URL;
    try {
      expect(await diffMigrationsToSchema()).toBe("");
    } finally {
      if (previous === undefined) delete process.env.SHADOW_DATABASE_URL;
      else process.env.SHADOW_DATABASE_URL = previous;
    }
  });
});
