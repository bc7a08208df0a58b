/**
 * Runs once per test run, for all of vitest.config.ts's projects: migrates one template database
 * per backend, so that each test file gets a fresh, migrated database cheaply: PGlite opens a copy
 * of the template's data directory (as a server restarting on its directory does: about 0.7 s,
 * where loading a 40 MB dump took 2 to 4 s); PostgreSQL copies it with CREATE DATABASE ... TEMPLATE.
 * It also compiles src/ once (support/compiled-server.ts) for the tests that spawn `signalbox`.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { migrateJobQueue } from "../../src/core/jobs/postgres-queue.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { compileServer } from "./compiled-server.js";
import { adminQuery, databaseUrl, postgresAnswers } from "./postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Path of the migrated PGlite template's data directory (closed cleanly: copy it, never open it). */
    pgliteTemplate: string;
    /** Name of the migrated PostgreSQL template database, or null when no PostgreSQL answers. */
    postgresTemplate: string | null;
    /**
     * src/main.ts compiled for this run (support/compiled-server.ts): what the tests that spawn
     * `signalbox` run (support/cli.ts), starting in a fraction of tsx's time.
     */
    signalboxMain: string;
  }
}

/** graphile-worker's migration log: its progress silent, its problems on the console. */
const migrationLogger = {
  debug() {},
  info() {},
  warn: (_fields: object, message: string) => console.warn(message),
  error: (_fields: object, message: string) => console.error(message),
};

/** The templates of this run, made once for all its projects (vitest.config.ts). */
interface Templates {
  pgliteTemplate: string;
  postgresTemplate: string | null;
  signalboxMain: string;
  drop(): Promise<void>;
}

/** Makes the migrated templates (see the module comment). */
async function makeTemplates(): Promise<Templates> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-test-"));
  const pgliteTemplate = path.join(dir, "pglite-template");
  const pglite = new PGlite(pgliteTemplate);
  await applyMigrations({ kind: "pglite", pglite });
  await pglite.close();

  let postgresTemplate: string | null = null;
  if (await postgresAnswers()) {
    postgresTemplate = `sbx_template_${process.pid}`;
    await adminQuery(`DROP DATABASE IF EXISTS ${postgresTemplate}`);
    await adminQuery(`CREATE DATABASE ${postgresTemplate}`);
    await applyMigrations({ kind: "postgres", url: databaseUrl(postgresTemplate) });
    // graphile-worker's schema too, as `signalbox migrate` does: each server's queue then finds it current.
    await migrateJobQueue(databaseUrl(postgresTemplate), migrationLogger);
  } else {
    console.warn(
      "\n!!! No PostgreSQL answers at TEST_DATABASE_URL or 127.0.0.1:5432: the PostgreSQL half of the suite is SKIPPED. !!!\n",
    );
  }
  const server = await compileServer("signalbox-test");
  return {
    pgliteTemplate,
    postgresTemplate,
    signalboxMain: server.main,
    async drop() {
      await server.remove();
      if (postgresTemplate) await adminQuery(`DROP DATABASE IF EXISTS ${postgresTemplate} WITH (FORCE)`);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The run's templates and how many projects use them, kept on the runner's global object: vitest
 * runs this setup once per project, side by side, each from a module instance of its own.
 */
const run = globalThis as typeof globalThis & {
  signalboxTemplates?: { made: Promise<Templates>; users: number };
};

export default async function setup(project: TestProject) {
  run.signalboxTemplates ??= { made: makeTemplates(), users: 0 };
  const shared = run.signalboxTemplates;
  shared.users += 1;
  const templates = await shared.made;
  project.provide("pgliteTemplate", templates.pgliteTemplate);
  project.provide("postgresTemplate", templates.postgresTemplate);
  project.provide("signalboxMain", templates.signalboxMain);

  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    run.signalboxTemplates = undefined;
    await templates.drop();
  };
}
