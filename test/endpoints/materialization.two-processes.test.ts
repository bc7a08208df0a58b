/**
 * Two real `signalbox serve` processes on one PostgreSQL database (issue 10 part 3's proof for
 * materialization): an endpoint materialized every `5min`, with the test-only
 * `ENDPOINT_MATERIALIZATION_INTERVAL_SCALE` making that 1.5 s, is refreshed on schedule, and each
 * scheduled refresh runs once across both processes: every refresh is one job (no job id twice),
 * each refresh schedules a distinct next run (two schedules would produce two runs per time), the
 * refreshes the servers logged are exactly the runs the database counted (`run_count`), and one
 * refresh is waiting at the end.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENDPOINT_MATERIALIZE_JOB,
  materializeJobKey,
} from "../../src/endpoints/materialization/materialization.service.js";
import { cli, type ServeProcess, spawnServe } from "../support/cli.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";

const answers = await postgresAnswers();

/** `5min` × this = 1.5 s. */
const SCALE = String(1.5 / 300);

/** The refreshes a server logged as completed jobs. */
function refreshes(
  server: ServeProcess,
): Array<{ jobId: string; result: { outcome: string; nextRunAt?: string } }> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record["msg"] === "job completed" && record["job"] === ENDPOINT_MATERIALIZE_JOB)
    .map((record) => record as never);
}

describe.skipIf(!answers)("endpoint materialization with two server processes on one PostgreSQL", () => {
  const name = `sbx_test_${randomBytes(6).toString("hex")}`;
  const url = databaseUrl(name);
  let dataDir: string;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${name}`);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-materialize-"));
  });
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("runs each scheduled refresh once across both", async () => {
    const env = { DATABASE_URL: url };
    expect((await cli(["migrate"], env)).code).toBe(0);
    const boot = await cli(["bootstrap"], env);
    expect(boot.code, boot.stderr).toBe(0);
    const { project_id: projectId, personal_api_key: key } = JSON.parse(boot.stdout);
    const serverEnv = {
      ...env,
      ENDPOINT_MATERIALIZATION_INTERVAL_SCALE: SCALE,
      JOB_POLL_INTERVAL_MS: "200",
      LOG_LEVEL: "debug",
    };
    servers.push(spawnServe(dataDir, serverEnv), spawnServe(dataDir, serverEnv));
    const [portA] = await Promise.all(servers.map((server) => server.listening));
    const created = await fetch(`http://127.0.0.1:${portA}/api/projects/${projectId}/endpoints/`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "two-process",
        query: { kind: "HogQLQuery", query: "SELECT 1 AS one" },
        sync_frequency: "5min",
      }),
    });
    expect(created.status).toBe(201);

    const deadline = Date.now() + 60_000;
    for (;;) {
      const done = servers.flatMap(refreshes).filter((run) => run.result.outcome === "completed").length;
      if (done >= 5) break;
      if (Date.now() > deadline) throw new Error(`waited for refreshes: ${done} completed`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const server of servers) server.child.kill("SIGTERM");
    expect(await Promise.all(servers.map((server) => server.exited))).toEqual([0, 0]);

    const runs = servers.flatMap(refreshes);
    expect(runs.every((run) => run.result.outcome === "completed")).toBe(true);
    expect(new Set(runs.map((run) => run.jobId)).size).toBe(runs.length);
    expect(new Set(runs.map((run) => run.result.nextRunAt)).size).toBe(runs.length);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const state = await client.query(
        `SELECT m.version_id::text AS id, m.run_count AS runs, m.status FROM endpoint_materializations m`,
      );
      expect(state.rows).toEqual([{ id: expect.any(String), runs: runs.length, status: "Completed" }]);
      const waiting = await client.query(
        `SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE key = $1 AND locked_at IS NULL`,
        [materializeJobKey(state.rows[0].id)],
      );
      expect(waiting.rows).toEqual([{ n: 1 }]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
