/**
 * Readiness: the database answers and every migration on disk is recorded as applied. Reads
 * Prisma's `_prisma_migrations` table directly so a probe costs one cheap statement.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import { DEFAULT_MIGRATIONS_DIR } from "./migrations.js";
import { readMigrationsDir } from "./schema-engine.js";

/** The outcome of a readiness check. */
export interface Readiness {
  ready: boolean;
  /** Why not ready (database unreachable, migrations pending). */
  reason: string | null;
  /** Migrations on disk not yet applied. */
  pending: string[];
}

/** Names of the migrations on disk, in the order they apply (as the schema engine reads them). */
export async function migrationNamesOnDisk(migrationsDir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  const list = await readMigrationsDir(migrationsDir);
  return list.migrationDirectories.map((directory) => directory.path);
}

/** Checks the database and the applied migrations against `expected` (names on disk). */
export async function checkReadiness(db: PrismaClient, expected: readonly string[]): Promise<Readiness> {
  let applied: Set<string>;
  try {
    const rows = await db.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    applied = new Set(rows.map((r) => r.migration_name));
  } catch (error) {
    const message = (error as Error).message;
    const reason = /_prisma_migrations/.test(message) ? "no migrations applied" : "database unreachable";
    return { ready: false, reason, pending: [...expected] };
  }
  const pending = expected.filter((name) => !applied.has(name));
  return { ready: pending.length === 0, reason: pending.length ? "migrations pending" : null, pending };
}
