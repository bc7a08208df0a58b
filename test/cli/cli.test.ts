import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cli, type Run, spawnServe, startServer } from "../support/cli.js";
import { adminQuery, databaseUrl } from "../support/postgres.js";

/**
 * Each test here starts several Node processes (the CLI, a server, each opening PGlite): on a
 * loaded 2-core machine one test has taken a minute, so they get a longer hang guard.
 */
const PROCESS_TEST_TIMEOUT_MS = 180_000;

/** The folders of prisma/migrations, in the order they apply. */
async function migrationNames(): Promise<string[]> {
  const dir = path.join(import.meta.dirname, "..", "..", "prisma", "migrations");
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
}

/**
 * Checks a `migrate` that applied every migration: on stderr one progress line per migration, in
 * order, then the summary; on stdout the JSON report alone.
 */
async function expectEveryMigrationApplied(run: Run): Promise<void> {
  expect(run.code, run.stderr).toBe(0);
  const names = await migrationNames();
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines.slice(0, -1).map((line) => line.replace(/\(\d+ ms\)$/, "(N ms)"))).toEqual(
    names.map((name) => `applying ${name} … done (N ms)`),
  );
  expect(lines.at(-1)).toMatch(new RegExp(`^applied ${names.length} migrations to .+ in \\d+ ms$`));
  expect(JSON.parse(run.stdout).applied).toEqual(names);
}

/** GET /api/users/@me/ with `key` on the server at `port`: its status. */
async function meStatus(port: number, key: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/api/users/@me/`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.arrayBuffer();
  return response.status;
}

/** The id of the key labelled `label` among `keys list`'s output. */
function keyIdOf(listed: Run, label: string): string {
  const keys = JSON.parse(listed.stdout) as { id: string; label: string }[];
  const key = keys.find((k) => k.label === label);
  if (!key) throw new Error(`no key labelled ${label} in ${listed.stdout}`);
  return key.id;
}

describe("signalbox CLI on the embedded database", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-cli-"));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const run = (args: string[]) => cli(args, { DATA_DIR: dataDir });

  it("bootstraps once and reuses the project after, with a new key each run", async () => {
    const first = await run(["bootstrap"]);
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(Object.keys(a).sort()).toEqual(["personal_api_key", "project_api_token", "project_id"]);
    expect(a.personal_api_key).toMatch(/^phx_[0-9A-Za-z]+$/);
    expect(a.project_api_token).toMatch(/^phc_/);
    const second = JSON.parse((await run(["bootstrap"])).stdout);
    expect(second.project_id).toBe(a.project_id);
    expect(second.project_api_token).toBe(a.project_api_token);
    expect(second.personal_api_key).not.toBe(a.personal_api_key);
  });

  it("creates keys with chosen scopes, and rejects an invalid scope", async () => {
    const created = await run([
      "keys",
      "create",
      "--scopes",
      "feature_flag:read,activity_log:read",
      "--projects",
      "1",
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^phx_[0-9A-Za-z]+$/);
    const bad = await run(["keys", "create", "--scopes", "flags:everything"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Invalid scope: flags:everything");
    const badProject = await run(["keys", "create", "--scopes", "*", "--projects", "x"]);
    expect(badProject.code).toBe(2);
    expect(badProject.stderr).toContain('"x" is not a project id.');
  });

  it("lists a user's keys and revokes one; refuses an unknown e-mail or id and a missing option", async () => {
    const created = await run(["keys", "create", "--scopes", "user:read", "--label", "listed"]);
    expect(created.code, created.stderr).toBe(0);
    const listed = await run(["keys", "list", "--email", "admin@signalbox.local"]);
    expect(listed.code, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(keys[0]).toEqual({
      id: expect.any(String),
      label: "listed",
      mask_value: `phx_...${created.stdout.trim().slice(-4)}`,
      scopes: ["user:read"],
      scoped_teams: [],
      scoped_organizations: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
    });
    expect(listed.stdout).not.toContain(created.stdout.trim());
    const id = keyIdOf(listed, "listed");
    const unknownEmail = await run(["keys", "list", "--email", "nobody@example.com"]);
    expect(unknownEmail.code).toBe(1);
    expect(unknownEmail.stderr).toContain("No user with e-mail nobody@example.com.");
    const noEmail = await run(["keys", "list"]);
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain("required option '--email <email>' not specified");

    const notTheirs = await run(["keys", "revoke", "--id", id, "--email", "nobody@example.com"]);
    expect(notTheirs.code).toBe(1);
    expect(notTheirs.stderr).toContain("No user with e-mail nobody@example.com.");
    const revoked = await run(["keys", "revoke", "--id", id, "--email", "admin@signalbox.local"]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: id });
    const again = await run(["keys", "revoke", "--id", id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`signalbox: No personal API key with id ${id}.`);
    const noId = await run(["keys", "revoke"]);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain("required option '--id <id>' not specified");
    const after = JSON.parse((await run(["keys", "list", "--email", "admin@signalbox.local"])).stdout);
    expect(after.map((k: { id: string }) => k.id)).not.toContain(id);
  });

  it("creates users in the bootstrap organization, lists them, and refuses a taken e-mail", async () => {
    const created = await run([
      "users",
      "create",
      "--email",
      "ada@example.com",
      "--first-name",
      "Ada",
      "--level",
      "admin",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ email: "ada@example.com", first_name: "Ada", level: 8 });
    expect(user.user_id).toEqual(expect.any(Number));
    expect(user.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const taken = await run(["users", "create", "--email", "ada@example.com"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("There is already an account with this email address.");
    const badLevel = await run(["users", "create", "--email", "bob@example.com", "--level", "owner"]);
    expect(badLevel.code).toBe(2);
    expect(badLevel.stderr).toContain("Allowed choices are member, admin.");
    const listed = await run(["users", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const { organization_id, members } = JSON.parse(listed.stdout);
    expect(organization_id).toBe(user.organization_id);
    expect(members.map((m: { email: string; level: number }) => [m.email, m.level])).toEqual([
      ["ada@example.com", 8],
      ["admin@signalbox.local", 15],
    ]);
  });

  it("prints help and rejects unknown commands", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["serve", "migrate", "bootstrap", "keys", "users"])
      expect(help.stdout).toContain(command);
    expect(help.stdout).toContain("'signalbox config' lists each");
    const keysHelp = await run(["keys", "--help"]);
    expect(keysHelp.code).toBe(0);
    for (const command of ["create", "list", "revoke"])
      expect(keysHelp.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it("prints its version, and every setting with secrets masked; a bad setting exits 3", async () => {
    const version = await run(["--version"]);
    expect(version.code).toBe(0);
    const { version: expected } = JSON.parse(
      await fs.readFile(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8"),
    ) as { version: string };
    expect(version.stdout.trim()).toMatch(
      new RegExp(`^${expected.replace(/\./g, "\\.")}( \\([0-9a-f]+\\))?$`),
    );
    const config = await cli(["config", "--json"], {
      DATA_DIR: dataDir,
      METRICS_TOKEN: "metrics-token-that-is-secret",
      PORT: "9100",
    });
    expect(config.code, config.stderr).toBe(0);
    const rows = JSON.parse(config.stdout) as Array<{ name: string; value: string | null; source: string }>;
    expect(rows.find((row) => row.name === "PORT")).toMatchObject({ value: "9100", source: "environment" });
    expect(rows.find((row) => row.name === "METRICS_TOKEN")?.value).toBe("[Redacted]");
    expect(config.stdout).not.toContain("metrics-token-that-is-secret");
    const text = await run(["config"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("RATE_LIMIT_BURST");
    const bad = await cli(["config"], { DATA_DIR: dataDir, PORT: "not-a-port" });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("Invalid configuration");
  });

  it("lets one process hold the data directory: the server runs CLI commands, migrate is refused", async () => {
    const before = JSON.parse((await run(["bootstrap"])).stdout);
    const server = await startServer(dataDir);
    try {
      const ready = await fetch(`http://127.0.0.1:${server.port}/readyz`);
      expect(ready.status).toBe(200);
      const viaServer = await run(["bootstrap"]);
      expect(viaServer.code, viaServer.stderr).toBe(0);
      const boot = JSON.parse(viaServer.stdout);
      expect(boot.project_id).toBe(before.project_id);
      const flags = await fetch(
        `http://127.0.0.1:${server.port}/api/projects/${boot.project_id}/feature_flags/`,
        {
          headers: { authorization: `Bearer ${boot.personal_api_key}` },
        },
      );
      expect(flags.status).toBe(200);
      const key = await run(["keys", "create", "--scopes", "feature_flag:read"]);
      expect(key.stdout.trim()).toMatch(/^phx_/);
      const badScope = await run(["keys", "create", "--scopes", "nope"]);
      expect(badScope.code).toBe(1);
      expect(badScope.stderr).toContain("Invalid scope: nope");
      const blocked = await run(["migrate"]);
      expect(blocked.code).toBe(4);
      expect(blocked.stderr).toContain("is in use by another Signalbox process");
    } finally {
      const exited = new Promise<number | null>((resolve) => server.child.on("exit", resolve));
      server.child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    expect(server.output()).toContain("shutting down");
    await expect(fs.stat(path.join(dataDir, ".signalbox.sock"))).rejects.toThrow();
    const after = await run(["bootstrap"]);
    expect(after.code, after.stderr).toBe(0);
  });

  it("lists and revokes keys through a running server, which then refuses the revoked key", async () => {
    const server = await startServer(dataDir);
    try {
      const key = (await run(["keys", "create", "--scopes", "user:read", "--label", "served"])).stdout.trim();
      // Twice: the second answer comes from the server's cache of authenticated keys.
      expect(await meStatus(server.port, key)).toBe(200);
      expect(await meStatus(server.port, key)).toBe(200);
      const listed = await run(["keys", "list", "--email", "admin@signalbox.local"]);
      expect(listed.code, listed.stderr).toBe(0);
      const id = keyIdOf(listed, "served");
      const unknownEmail = await run(["keys", "list", "--email", "nobody@example.com"]);
      expect(unknownEmail.code).toBe(1);
      expect(unknownEmail.stderr).toContain("No user with e-mail nobody@example.com.");
      const revoked = await run(["keys", "revoke", "--id", id]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toEqual({ revoked: id });
      expect(await meStatus(server.port, key)).toBe(401);
      const unknownId = await run(["keys", "revoke", "--id", id]);
      expect(unknownId.code).toBe(1);
      expect(unknownId.stderr).toContain(`No personal API key with id ${id}.`);
    } finally {
      const exited = new Promise<number | null>((resolve) => server.child.on("exit", resolve));
      server.child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });

  it("migrate names each migration as it runs, then says when none is pending", async () => {
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-migrate-"));
    try {
      await expectEveryMigrationApplied(await cli(["migrate"], { DATA_DIR: fresh }));
      const again = await cli(["migrate"], { DATA_DIR: fresh });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toBe(`no pending migrations: PGlite at ${fresh} is up to date\n`);
      expect(JSON.parse(again.stdout).applied).toEqual([]);
    } finally {
      await fs.rm(fresh, { recursive: true, force: true });
    }
  });
});

describe("signalbox CLI on a data directory too deep for a socket path", {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let root: string;
  let dataDir: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-deep-"));
    // Past the 108 bytes of a Unix socket address (and macOS's 104) once `/.signalbox.sock` is added.
    dataDir = path.join(root, "a-data-directory-nested-deeper-than-a-socket-address-can-name", "data");
    await fs.mkdir(dataDir, { recursive: true });
    expect(Buffer.byteLength(path.join(dataDir, ".signalbox.sock"))).toBeGreaterThan(108);
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it("serves, and runs CLI commands through the running server", async () => {
    const server = await startServer(dataDir);
    try {
      const viaServer = await cli(["bootstrap"], { DATA_DIR: dataDir });
      expect(viaServer.code, viaServer.stderr).toBe(0);
      expect(JSON.parse(viaServer.stdout).personal_api_key).toMatch(/^phx_/);
    } finally {
      const exited = new Promise<number | null>((resolve) => server.child.on("exit", resolve));
      server.child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });
});

describe.skipIf(!inject("postgresTemplate"))(
  "signalbox CLI on PostgreSQL",
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    const name = `sbx_cli_${randomBytes(5).toString("hex")}`;
    beforeAll(() => adminQuery(`CREATE DATABASE ${name}`));
    afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

    it("refuses to bootstrap before migrate, then migrates and bootstraps", async () => {
      const env = { DATABASE_URL: databaseUrl(name) };
      const early = await cli(["bootstrap"], env);
      expect(early.code).toBe(1);
      expect(early.stderr).toContain("Run 'signalbox migrate' first");
      await expectEveryMigrationApplied(await cli(["migrate"], env));
      const status = JSON.parse((await cli(["migrate", "--status"], env)).stdout);
      expect(status).toMatchObject({ pending: [], failed: [] });
      const boot = await cli(["bootstrap"], env);
      expect(boot.code, boot.stderr).toBe(0);
      expect(JSON.parse(boot.stdout).project_id).toBeGreaterThan(0);
    });

    it("revokes a key in one process; a server in another refuses it from then on", async () => {
      const env = { DATABASE_URL: databaseUrl(name) };
      const migrated = await cli(["migrate"], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).toMatch(/^no pending migrations: postgresql:\/\/.+ is up to date\n$/);
      const key = (
        await cli(["keys", "create", "--scopes", "user:read", "--label", "remote"], env)
      ).stdout.trim();
      const id = keyIdOf(await cli(["keys", "list", "--email", "admin@signalbox.local"], env), "remote");
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-cli-pg-"));
      const server = spawnServe(dataDir, env);
      try {
        const port = await server.listening;
        expect(await meStatus(port, key)).toBe(200);
        expect(await meStatus(port, key)).toBe(200);
        const revoked = await cli(["keys", "revoke", "--id", id, "--email", "admin@signalbox.local"], env);
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(JSON.parse(revoked.stdout)).toEqual({ revoked: id });
        // The server hears of the delete on its listening connection, within the network's latency.
        await expect.poll(() => meStatus(port, key), { timeout: 5_000 }).toBe(401);
      } finally {
        server.child.kill("SIGTERM");
        expect(await server.exited).toBe(0);
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    });
  },
);
