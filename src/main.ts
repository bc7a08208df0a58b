#!/usr/bin/env node
/**
 * The `signalbox` command line: `serve`, `migrate`, `copy-to-clickhouse`, `bootstrap`, `keys create`,
 * `keys list`, `keys revoke`, `projects create`, `users create`, `users list`, `config`.
 * With no DATABASE_URL every command uses the embedded database in DATA_DIR (migrated automatically);
 * with DATABASE_URL, PostgreSQL (migrated by `signalbox migrate`). Configuration: src/config.ts.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import type { Logger } from "pino";
import type { AdminCommand, AdminResult } from "./cli/admin-commands.js";
import { type Config, ConfigurationError, loadConfig } from "./config.js";
import { settingRows } from "./config-settings.js";
import { DomainError } from "./core/errors.js";
import { createLogger, logDestination } from "./core/logger.js";
import { DataDirectoryLockedError } from "./db/data-dir-lock.js";
import type { Database, DatabaseSource } from "./db/database.js";
import type { MigrationReport } from "./db/migrations.js";
import { startTracingForCommand } from "./observability/tracing.js";
import { NEW_USER_LEVELS } from "./users/users.schemas.js";
import { buildInfo } from "./version.js";

// Traces (src/observability/, off unless OTEL_* asks) hook http, fastify and pg as they load, so
// they start before any module that loads those. Those modules (the server, the database driver, the
// job queue) are imported dynamically, after, and only by the commands that use them: `--help`,
// `--version` and `config` load none of them and answer at once.
const tracing = await startTracingForCommand(process.argv);

/** An error the CLI reports as one line, without a stack. */
class CliError extends Error {}

/** The process's logger (core/logger.ts: no credential in any line) on stdout, or stderr for CLI commands. */
function logger(config: Config, toStderr: boolean): Logger {
  return createLogger(config.logLevel, logDestination(toStderr ? 2 : 1));
}

/** The configured database: PostgreSQL at `DATABASE_URL`, else the embedded one in `DATA_DIR`. */
function databaseSource(config: Config): DatabaseSource {
  const { statementTimeoutMs } = config;
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl, statementTimeoutMs }
    : { kind: "embedded", dataDir: config.dataDir, statementTimeoutMs };
}

/** Opens the configured database; the embedded one is migrated, PostgreSQL must already be. */
async function open(config: Config, log: Logger, requireMigrated: boolean): Promise<Database> {
  const { openDatabase } = await import("./db/database.js");
  const { applyMigrations, migrationStatus } = await import("./db/migrations.js");
  const database = await openDatabase(databaseSource(config), log);
  try {
    if (database.kind === "embedded") {
      const { applied } = await applyMigrations(database.migrationTarget);
      if (applied.length) log.info({ applied }, "applied migrations");
    } else if (requireMigrated) {
      const status = await migrationStatus(database.migrationTarget);
      if (status.pending.length || status.failed.length) {
        throw new CliError(
          `The database at ${database.description} is not migrated (pending: ${status.pending.join(", ") || "none"}; failed: ${status.failed.join(", ") || "none"}). Run 'signalbox migrate' first.`,
        );
      }
    }
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Longest a graceful stop waits for the last spans to reach the collector (ms). */
const TRACES_FLUSH_TIMEOUT_MS = 3000;

async function serve(): Promise<void> {
  const { buildApp } = await import("./app.js");
  const { listenAdminSocket } = await import("./cli/admin-socket.js");
  const { migrationStatus } = await import("./db/migrations.js");
  const config = loadConfig();
  if (config.clickhouseUrl) {
    throw new ConfigurationError(
      "CLICKHOUSE_URL: the ClickHouse analytics store is not complete yet (issue 30): capture, persons and the queries still use PostgreSQL, so a server cannot run on it; 'signalbox migrate' creates its tables. Unset it to serve.",
    );
  }
  const log = logger(config, false);
  const database = await open(config, log, false);
  if (database.kind === "postgres") {
    const status = await migrationStatus(database.migrationTarget);
    if (status.pending.length)
      log.warn(
        { pending: status.pending },
        "migrations pending: /readyz reports not ready until 'signalbox migrate' runs",
      );
  }
  const app = await buildApp({ config, database, logger: log });
  await app.listen({ port: config.port, host: config.host });
  // The embedded database admits only this process: CLI commands reach it through the admin socket.
  const closeAdminSocket =
    database.kind === "embedded" ? await listenAdminSocket(config.dataDir, database.prisma) : null;
  log.info({ ...buildInfo(), database: database.description, graphql: "/graphql" }, "signalbox serving");
  if (tracing) {
    tracing.logTo(log);
    log.info({ destination: tracing.destination }, "traces on");
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing in-flight requests");
    const timer = setTimeout(() => {
      log.error("shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await app.close();
    await closeAdminSocket?.();
    await database.close();
    // The spans not yet sent, the last requests' included; a collector that does not answer is not awaited.
    await tracing?.shutdown(TRACES_FLUSH_TIMEOUT_MS);
    log.info("stopped");
    // PGlite resets process.exitCode on close (offline-prisma.md trap 4): exit explicitly.
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/**
 * Runs an administrative command on the configured database; when a running server holds the
 * embedded data directory, the server runs it instead (src/cli/admin-socket.ts).
 */
async function admin(command: AdminCommand): Promise<AdminResult> {
  const { runAdminCommand } = await import("./cli/admin-commands.js");
  const { AdminCommandError, sendAdminCommand } = await import("./cli/admin-socket.js");
  const config = loadConfig();
  const log = logger(config, true);
  let database: Database;
  try {
    database = await open(config, log, true);
  } catch (error) {
    if (error instanceof DataDirectoryLockedError) {
      const result = await sendAdminCommand(config.dataDir, command).catch((failure: unknown) => {
        // The server's message, reported as the command's own.
        throw failure instanceof AdminCommandError ? new CliError(failure.message) : failure;
      });
      if (result) return result;
    }
    throw error;
  }
  try {
    return await runAdminCommand(database.prisma, command);
  } finally {
    await database.close();
  }
}

/** The summary line of a migration run of `target`, on stderr. */
function reportApplied(count: number, target: string, started: number): void {
  const ms = Math.round(performance.now() - started);
  process.stderr.write(
    count
      ? `applied ${count} migration${count === 1 ? "" : "s"} to ${target} in ${ms} ms\n`
      : `no pending migrations: ${target} is up to date\n`,
  );
}

/**
 * Applies `database`'s pending migrations (then, on PostgreSQL, the job queue's schema, which is
 * graphile-worker's: src/core/jobs/), writing progress on stderr, as stdout carries the command's
 * JSON: `applying <name> … done (<ms> ms)` as each migration runs (`… failed` before the error of
 * one that fails), then `applied <n> migration(s) to <database> in <ms> ms`, or
 * `no pending migrations: <database> is up to date`.
 */
async function migrate(database: Database, log: Logger): Promise<MigrationReport> {
  const { applyMigrations, DEFAULT_MIGRATIONS_DIR } = await import("./db/migrations.js");
  const { migrateJobQueue } = await import("./core/jobs/postgres-queue.js");
  const started = performance.now();
  let running = false;
  const report = await applyMigrations(database.migrationTarget, DEFAULT_MIGRATIONS_DIR, (step) => {
    running = step.phase === "applying";
    process.stderr.write(step.phase === "applying" ? `applying ${step.name} … ` : `done (${step.ms} ms)\n`);
  }).catch((error: unknown) => {
    if (running) process.stderr.write("failed\n");
    throw error;
  });
  if (database.migrationTarget.kind === "postgres") await migrateJobQueue(database.migrationTarget.url, log);
  reportApplied(report.applied.length, database.description, started);
  return report;
}

function integerList(value: string): number[] {
  return value.split(",").map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`"${part}" is not a project id.`);
    return n;
  });
}

function stringList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The exit codes (README, "Command line"): a command line commander refuses 2, a setting that does
 * not parse 3, an embedded data directory another process holds 4, anything else that fails 1.
 */
const EXIT = { failure: 1, usage: 2, configuration: 3, dataDirectoryLocked: 4 } as const;

const { version, commit } = buildInfo();
const program = new Command()
  .name("signalbox")
  .description("PostHog-compatible feature flags and analytics configuration, over REST and GraphQL.")
  .version(commit ? `${version} (${commit})` : version, "-V, --version", "print the version (and commit)")
  .showHelpAfterError()
  // Commander's refusals come back as errors (subcommands inherit this), for exit code 2.
  .exitOverride()
  .addHelpText(
    "after",
    `
Settings are environment variables: 'signalbox config' lists each with its default, meaning and
effective value (docs/configuration.md). Exit codes: 0 done, ${EXIT.usage} usage, ${EXIT.configuration} configuration, ${EXIT.dataDirectoryLocked} data directory in use, ${EXIT.failure} other failures.`,
  );

program
  .command("config")
  .description(
    "Print every setting with its effective value (secrets masked), its default and its meaning; --json for JSON.",
  )
  .option("--json", "print a JSON array of {name, value, default, source, description}")
  .action((options: { json?: boolean }) => {
    loadConfig();
    const rows = settingRows();
    if (options.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    const width = Math.max(...rows.map((row) => row.name.length));
    for (const row of rows) {
      const value = row.value ?? "(unset)";
      const note = row.source === "environment" ? ` (default ${row.default ?? "unset"})` : "";
      process.stdout.write(
        `${row.name.padEnd(width)}  ${value}${note}\n${" ".repeat(width + 2)}${row.description}\n`,
      );
    }
  });

program
  .command("serve")
  .description("Serve REST (/api/...) and GraphQL (/graphql) on HOST:PORT (default 127.0.0.1:8000).")
  .action(serve);

program
  .command("migrate")
  .description(
    "Apply pending migrations to the database (DATABASE_URL, or the embedded one in DATA_DIR), and to ClickHouse's analytics tables when CLICKHOUSE_URL is set, naming each on stderr as it runs, then a summary line. Prints JSON: database, applied (and clickhouse: database, applied).",
  )
  .option(
    "--status",
    "only report applied and pending migrations (JSON: database, pending, failed, appliedCount)",
  )
  .action(async (options: { status?: boolean }) => {
    const config = loadConfig();
    const log = logger(config, true);
    const { openDatabase } = await import("./db/database.js");
    const { migrationStatus } = await import("./db/migrations.js");
    const database = await openDatabase(databaseSource(config), log);
    try {
      const report = options.status
        ? await migrationStatus(database.migrationTarget)
        : await migrate(database, log);
      // ClickHouse's tables too, when configured (its status is not reported by --status yet).
      const clickhouse =
        config.clickhouseUrl && !options.status
          ? {
              clickhouse: await (await import("./cli/clickhouse-commands.js")).migrateClickHouse(
                config.clickhouseUrl,
                reportApplied,
              ),
            }
          : {};
      process.stdout.write(
        `${JSON.stringify({ database: database.description, ...report, ...clickhouse })}\n`,
      );
    } finally {
      await database.close();
    }
  });

program
  .command("copy-to-clickhouse")
  .description(
    "Copy every project's events, persons, distinct ids, groups and static cohort members from the database (DATABASE_URL, or the embedded one in DATA_DIR) into ClickHouse at CLICKHOUSE_URL, its tables created first; safe to run again. Run it with capture stopped. Prints JSON: the rows copied per table.",
  )
  .action(async () => {
    const config = loadConfig();
    if (!config.clickhouseUrl)
      throw new CliError("copy-to-clickhouse needs CLICKHOUSE_URL (where to copy to).");
    const log = logger(config, true);
    const { copyHistoryToClickHouse } = await import("./cli/clickhouse-commands.js");
    const database = await open(config, log, true);
    try {
      const report = await copyHistoryToClickHouse(database, config.clickhouseUrl, reportApplied);
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } finally {
      await database.close();
    }
  });

program
  .command("bootstrap")
  .description(
    "Create an organization, a project and a user on first run (reused after) and issue a new personal API key with all scopes. Prints JSON: project_id, project_api_token, personal_api_key.",
  )
  .option("--email <email>", "the user's e-mail", "admin@signalbox.local")
  .option("--organization <name>", "organization name on first run", "Default organization")
  .option("--project <name>", "project name on first run", "Default project")
  .action(async (options: { email: string; organization: string; project: string }) => {
    const result = await admin({
      name: "bootstrap",
      options: { email: options.email, organizationName: options.organization, projectName: options.project },
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });

const keys = program.command("keys").description("Manage personal API keys.");
keys
  .command("create")
  .description(
    "Issue a personal API key for a user (the bootstrap user by default) and print it. It is shown only once.",
  )
  .requiredOption(
    "--scopes <scopes>",
    "comma-separated scopes, e.g. feature_flag:read,activity_log:read or *",
    stringList,
  )
  .option("--projects <ids>", "comma-separated project ids the key is limited to", integerList)
  .option("--organizations <ids>", "comma-separated organization ids the key is limited to", stringList)
  .option("--label <label>", "a label for the key (at most 40 characters)", "cli")
  .option("--email <email>", "the key's user", "admin@signalbox.local")
  .action(
    async (options: {
      scopes: string[];
      projects?: number[];
      organizations?: string[];
      label: string;
      email: string;
    }) => {
      const result = await admin({
        name: "keys-create",
        options: {
          email: options.email,
          label: options.label,
          scopes: options.scopes,
          projects: options.projects ?? [],
          organizations: options.organizations ?? [],
        },
      });
      if ("personal_api_key" in result) process.stdout.write(`${result.personal_api_key}\n`);
    },
  );
keys
  .command("list")
  .description(
    "Print a user's personal API keys as a JSON array, newest first: id, label, mask_value, scopes, scoped_teams, scoped_organizations, created_at, last_used_at (never the key itself).",
  )
  .requiredOption("--email <email>", "the keys' user")
  .action(async (options: { email: string }) => {
    const result = await admin({ name: "keys-list", options: { email: options.email } });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });
keys
  .command("revoke")
  .description(
    "Delete a personal API key; running servers refuse it from then on. Prints JSON: revoked (the key's id). An unknown id is refused.",
  )
  .requiredOption("--id <id>", "the key's id (as 'keys list' prints it)")
  .option("--email <email>", "refuse unless the key is this user's")
  .action(async (options: { id: string; email?: string }) => {
    const result = await admin({ name: "keys-revoke", options: { id: options.id, email: options.email } });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });

const projects = program.command("projects").description("Manage projects.");
projects
  .command("create")
  .description(
    "Create a project in the user's organization (the bootstrap user by default). Prints JSON: project_id, project_api_token.",
  )
  .requiredOption("--name <name>", "the project's name")
  .option("--email <email>", "the user whose organization gets the project", "admin@signalbox.local")
  .action(async (options: { name: string; email: string }) => {
    const result = await admin({
      name: "projects-create",
      options: { email: options.email, name: options.name },
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });

const users = program.command("users").description("Manage users and their organization memberships.");
users
  .command("create")
  .description(
    "Create a user and make it a member of an organization (the bootstrap one by default). Prints JSON: user_id, uuid, distinct_id, email, first_name, organization_id, membership_id, level, joined_at. An e-mail that already has a user is refused.",
  )
  .requiredOption("--email <email>", "the user's e-mail")
  .option("--first-name <name>", "the user's first name (default: the e-mail's local part)")
  .addOption(
    new Option("--level <level>", "membership level: member (1) or admin (8)")
      .choices(NEW_USER_LEVELS)
      .default("member"),
  )
  .option("--organization <id>", "the organization's id (default: the bootstrap organization)")
  .action(
    async (options: {
      email: string;
      firstName?: string;
      level: (typeof NEW_USER_LEVELS)[number];
      organization?: string;
    }) => {
      const result = await admin({
        name: "users-create",
        options: {
          email: options.email,
          level: options.level,
          ...(options.firstName !== undefined ? { firstName: options.firstName } : {}),
          ...(options.organization !== undefined ? { organizationId: options.organization } : {}),
        },
      });
      process.stdout.write(`${JSON.stringify(result)}\n`);
    },
  );
users
  .command("list")
  .description(
    "Print an organization's members (the bootstrap organization by default) as JSON: organization_id and members, newest first.",
  )
  .option("--organization <id>", "the organization's id (default: the bootstrap organization)")
  .action(async (options: { organization?: string }) => {
    const result = await admin({
      name: "users-list",
      options: options.organization !== undefined ? { organizationId: options.organization } : {},
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });

/** The exit code of a command that failed with `error` (see `EXIT`). */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT.usage;
  if (error instanceof ConfigurationError) return EXIT.configuration;
  if (error instanceof DataDirectoryLockedError) return EXIT.dataDirectoryLocked;
  return EXIT.failure;
}

program.parseAsync(process.argv).then(
  () => {
    // `serve` keeps running; one-shot commands exit with their code (PGlite may reset process.exitCode).
    if (program.args[0] !== "serve") process.exit(0);
  },
  (error: unknown) => {
    const code = exitCodeOf(error);
    // Commander has written its own message (and the help, for a usage error).
    if (!(error instanceof CommanderError)) {
      const message =
        error instanceof CliError ||
        error instanceof DomainError ||
        error instanceof DataDirectoryLockedError ||
        error instanceof ConfigurationError
          ? (error as Error).message
          : String((error as Error)?.stack ?? error);
      process.stderr.write(`signalbox: ${message}\n`);
    }
    process.exit(code);
  },
);
