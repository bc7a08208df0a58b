/**
 * `npm run migrate:create -- <name>`: writes the migration that brings prisma/migrations to
 * prisma/schema.prisma (see createMigration in ./migrations.ts) and prints its folder, or
 * "No schema changes.". Exits 1 on failure, 2 on bad usage.
 */
import path from "node:path";
import { createMigration } from "./migrations.js";

async function main(args: string[]): Promise<number> {
  const [name, ...extra] = args;
  if (!name || extra.length > 0) {
    console.error("Usage: npm run migrate:create -- <name>");
    return 2;
  }
  try {
    const dir = await createMigration(name);
    console.log(dir ? path.relative(process.cwd(), dir) : "No schema changes.");
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  }
}

// PGlite resets `process.exitCode` when an instance closes (offline-prisma.md, trap 4): exit
// explicitly with the code once everything is closed.
process.exit(await main(process.argv.slice(2)));
