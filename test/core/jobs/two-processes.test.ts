/**
 * Two real `signalbox serve` processes on one PostgreSQL database (issue 10 §3's proof): the
 * flag-call roll-up is scheduled every second in both, and each scheduled run happens once. The
 * database is made by `signalbox migrate` (our migrations and graphile-worker's schema), the project
 * by `signalbox bootstrap`; a flag is created through one server and its `$feature_flag_called`
 * event captured through the other, and the roll-up (in whichever process took it) sets the flag's
 * `last_called_at`. At the end each run is checked in both servers' logs: every run is one job
 * (no job id twice), no run found the roll-up held by the other process (`skipped`), and the
 * runs' windows follow each other (each starts where the previous one ended, less the late-event
 * margin), which two independent schedules could not produce; and one scheduled run is waiting.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scheduleKey } from "../../../src/core/jobs/jobs.js";
import { FLAG_CALL_ROLLUP, LATE_EVENTS_MS } from "../../../src/feature-flags/flag-calls.js";
import { cli, type ServeProcess, spawnServe } from "../../support/cli.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../../support/postgres.js";

const answers = await postgresAnswers();

/** The pino records a server printed. */
function logRecords(server: ServeProcess): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One completed roll-up run, as a server logged it. */
interface RollupRun {
  jobId: string;
  result: { skipped: boolean; window?: { since: string; until: string } };
}

function rollupRuns(server: ServeProcess): RollupRun[] {
  return logRecords(server)
    .filter((record) => record["msg"] === "job completed" && record["job"] === FLAG_CALL_ROLLUP)
    .map((record) => record as unknown as RollupRun);
}

describe.skipIf(!answers)("two server processes on one PostgreSQL", () => {
  const name = `sbx_test_${randomBytes(6).toString("hex")}`;
  const url = databaseUrl(name);
  let dataDir: string;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${name}`);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-jobs-"));
  });
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("runs each scheduled roll-up once across both, and the roll-up sets last_called_at", async () => {
    const env = { DATABASE_URL: url };
    const migrated = await cli(["migrate"], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const boot = await cli(["bootstrap"], env);
    expect(boot.code, boot.stderr).toBe(0);
    const {
      project_id: projectId,
      project_api_token: token,
      personal_api_key: key,
    } = JSON.parse(boot.stdout);

    const serverEnv = {
      ...env,
      FLAG_CALL_ROLLUP_INTERVAL_MS: "1000",
      JOB_POLL_INTERVAL_MS: "200",
      LOG_LEVEL: "debug",
    };
    servers.push(spawnServe(dataDir, serverEnv), spawnServe(dataDir, serverEnv));
    const [portA, portB] = await Promise.all(servers.map((server) => server.listening));
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    const created = await fetch(`http://127.0.0.1:${portA}/api/projects/${projectId}/feature_flags/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ key: "two-process-flag", filters: { groups: [{ rollout_percentage: 100 }] } }),
    });
    expect(created.status).toBe(201);
    const flag = (await created.json()) as { id: number; last_called_at: string | null };
    expect(flag.last_called_at).toBeNull();
    const captured = await fetch(`http://127.0.0.1:${portB}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        api_key: token,
        batch: [
          {
            event: "$feature_flag_called",
            distinct_id: "user-1",
            properties: { $feature_flag: "two-process-flag", $feature_flag_response: true },
            timestamp: new Date().toISOString(),
          },
        ],
      }),
    });
    expect(captured.status).toBe(200);

    // Wait (polling both servers' logs and the flag) until the roll-up moved the flag and four
    // scheduled runs completed in all.
    const deadline = Date.now() + 60_000;
    let lastCalledAt: string | null = null;
    for (;;) {
      const read = await fetch(
        `http://127.0.0.1:${portB}/api/projects/${projectId}/feature_flags/${flag.id}/`,
        {
          headers,
        },
      );
      lastCalledAt = ((await read.json()) as { last_called_at: string | null }).last_called_at;
      const runs = servers.flatMap(rollupRuns).length;
      if (lastCalledAt !== null && runs >= 4) break;
      if (Date.now() > deadline)
        throw new Error(`waited for the roll-up: ${runs} runs, last_called_at ${lastCalledAt}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(lastCalledAt).not.toBeNull();

    for (const server of servers) server.child.kill("SIGTERM");
    expect(await Promise.all(servers.map((server) => server.exited))).toEqual([0, 0]);

    for (const server of servers) {
      expect(logRecords(server)).toContainEqual(
        expect.objectContaining({
          msg: "job queue started",
          runner: "postgres",
          jobs: expect.arrayContaining([FLAG_CALL_ROLLUP]),
        }),
      );
    }
    const runs = servers.flatMap(rollupRuns);
    expect(new Set(runs.map((run) => run.jobId)).size).toBe(runs.length);
    // A run that starts while the previous one (1 s earlier, in the other process) still holds the
    // roll-up's lock, as on a loaded machine, skips: it reads and writes nothing. The others chain.
    const done = runs.filter((run) => !run.result.skipped);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const run of runs.filter((r) => r.result.skipped)) expect(run.result.window).toBeUndefined();
    const windows = done
      .map((run) => run.result.window!)
      .sort((a, b) => Date.parse(a.until) - Date.parse(b.until));
    for (let i = 1; i < windows.length; i++) {
      expect(Date.parse(windows[i]!.since)).toBe(Date.parse(windows[i - 1]!.until) - LATE_EVENTS_MS);
    }

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const waiting = await client.query(
        `SELECT j.key FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
         WHERE t.identifier = $1 AND j.locked_at IS NULL AND j.attempts < j.max_attempts`,
        [FLAG_CALL_ROLLUP],
      );
      expect(waiting.rows).toEqual([{ key: scheduleKey(FLAG_CALL_ROLLUP) }]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
