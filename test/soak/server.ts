/**
 * The soak's server process (forked by soak.ts, so the load generator never shares its event loop
 * and the memory it reports is the server's alone): the real app (`buildApp`, job queue included,
 * as `signalbox serve` runs it) on the PostgreSQL database named by argv[2], which the parent
 * created and drops. It migrates the database, bootstraps the soak's user, organization and project,
 * listens on a free port and sends `SoakReady` to the parent. On `"memory"` it runs a full garbage
 * collection (the process is started with `--expose-gc`) and answers `process.memoryUsage()`, so
 * the heap the parent judges is what the server keeps, not garbage waiting for the collector. On
 * `"close"` it closes the app and the database and exits. Warnings and errors the app logs go to
 * stderr. The app reads its settings from the environment, as `signalbox serve` does.
 */
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { applyMigrations } from "../../src/db/migrations.js";
import { bootstrap } from "../../src/users/bootstrap.js";

/**
 * Rate limits stay on (core/rate-limit.ts), so their per-key and per-token state is part of what
 * is soaked, at rates far above what the load generator sends (one key and one token for all).
 */
const SOAK_RATE_LIMITS = {
  RATE_LIMIT_BURST: "1000000/minute",
  RATE_LIMIT_SUSTAINED: "100000000/hour",
  RATE_LIMIT_LOCAL_EVALUATION: "1000000/minute",
  RATE_LIMIT_REMOTE_CONFIG: "1000000/minute",
  RATE_LIMIT_CAPTURE: "1000000/minute",
  RATE_LIMIT_FLAGS: "1000000/minute",
} as const;

/** What the server process tells the parent once it listens. */
export interface SoakReady {
  /** The app's base URL. */
  url: string;
  /** A personal API key with every scope. */
  key: string;
  projectId: number;
  /** The project's public token (capture's `api_key`, `/flags`' `token`). */
  projectToken: string;
}

async function main(url: string): Promise<void> {
  const database = await openDatabase({ kind: "postgres", url });
  await applyMigrations(database.migrationTarget);
  const boot = await bootstrap(database.prisma, {
    email: "soak@example.com",
    organizationName: "Soak",
    projectName: "Soak",
  });
  const app = await buildApp({
    // The environment configures the app as it does `signalbox serve` (to soak another setting),
    // except the port and, unless set there, the rate limits.
    config: loadConfig({ ...SOAK_RATE_LIMITS, ...process.env, PORT: "0" }),
    database,
    logger: pino({ level: "warn" }, pino.destination(2)),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const ready: SoakReady = {
    url: `http://127.0.0.1:${address.port}`,
    key: boot.personal_api_key,
    projectId: boot.project_id,
    projectToken: boot.project_api_token,
  };
  process.send?.(ready);
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("the soak server needs --expose-gc");
  process.on("message", async (message: unknown) => {
    if (message === "memory") {
      collect();
      process.send?.(process.memoryUsage());
    } else if (message === "close") {
      await app.close();
      await database.close();
      process.exit(0);
    }
  });
}

main(process.argv[2] ?? "").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
