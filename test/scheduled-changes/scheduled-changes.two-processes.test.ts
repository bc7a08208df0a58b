/**
 * Two real `signalbox serve` processes on one PostgreSQL database (issue 26 part B): every scheduled
 * change is applied exactly once across both.
 * 1. On time: changes due a few seconds ahead, created through either process, are each applied once
 *    (graphile-worker's keyed run jobs are taken by either process).
 * 2. Missed while down: with both stopped, changes become overdue; both start at once, and their two
 *    start sweeps walk the same rows together: each change is applied by exactly one of them (the
 *    row's claim, `FOR UPDATE SKIP LOCKED` and `executed_at`), as the sweeps' logged tallies and the
 *    flags (version + 1, one activity entry with the change's trigger) show.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEDULED_CHANGES_SWEEP_JOB } from "../../src/scheduled-changes/scheduled-changes.runs.js";
import { cli, type ServeProcess, spawnServe } from "../support/cli.js";
import { adminQuery, databaseUrl, postgresAnswers } from "../support/postgres.js";

const answers = await postgresAnswers();

/** How many changes each phase schedules. */
const CHANGES = 24;

/** The sweep tallies a server logged as completed jobs. */
function sweeps(server: ServeProcess): Array<{ due: number; applied: number; skipped: number }> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record["msg"] === "job completed" && record["job"] === SCHEDULED_CHANGES_SWEEP_JOB)
    .map((record) => record["result"] as never);
}

describe.skipIf(!answers)("scheduled changes with two server processes on one PostgreSQL", () => {
  const name = `sbx_test_${randomBytes(6).toString("hex")}`;
  const url = databaseUrl(name);
  let dataDir: string;
  let client: pg.Client;
  const servers: ServeProcess[] = [];
  let projectId: number;
  let key: string;

  const env = { DATABASE_URL: url };
  const serverEnv = { ...env, JOB_POLL_INTERVAL_MS: "200", LOG_LEVEL: "debug" };

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${name}`);
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-scheduled-"));
    expect((await cli(["migrate"], env)).code).toBe(0);
    const boot = await cli(["bootstrap"], env);
    expect(boot.code, boot.stderr).toBe(0);
    ({ project_id: projectId, personal_api_key: key } = JSON.parse(boot.stdout));
    client = new pg.Client({ connectionString: url });
    await client.connect();
  }, 90_000);
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await client?.end();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** Starts both servers together; returns their ports. */
  const startBoth = async (): Promise<[number, number]> => {
    const pair = [spawnServe(dataDir, serverEnv), spawnServe(dataDir, serverEnv)];
    servers.push(...pair);
    const [a, b] = await Promise.all(pair.map((server) => server.listening));
    return [a!, b!];
  };
  const stopAll = async () => {
    const running = servers.filter((server) => server.child.exitCode === null);
    for (const server of running) server.child.kill("SIGTERM");
    expect(await Promise.all(running.map((server) => server.exited))).toEqual(running.map(() => 0));
  };

  const call = async (port: number, method: string, route: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/projects/${projectId}/${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** Creates `CHANGES` flags, each with a change turning it off at `at`, alternately through each port. */
  const scheduleMany = async (ports: [number, number], prefix: string, at: Date) => {
    const ids: Array<{ flag: number; change: number }> = [];
    for (let i = 0; i < CHANGES; i++) {
      const port = ports[i % 2]!;
      const flag = await call(port, "POST", "feature_flags/", {
        key: `${prefix}-${i}`,
        filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
      });
      expect(flag.status).toBe(201);
      const change = await call(port, "POST", "scheduled_changes/", {
        record_id: flag.body["id"],
        model_name: "FeatureFlag",
        payload: { operation: "update_status", value: false },
        scheduled_at: at.toISOString(),
      });
      expect(change.status).toBe(201);
      ids.push({ flag: flag.body["id"] as number, change: change.body["id"] as number });
    }
    return ids;
  };

  /** Waits until every change of `ids` is executed. */
  const waitExecuted = async (ids: Array<{ change: number }>) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM scheduled_changes WHERE id = ANY($1::int[]) AND executed_at IS NOT NULL",
        [ids.map((id) => id.change)],
      );
      if (rows[0].n === ids.length) return;
      if (Date.now() > deadline)
        throw new Error(`waited for the changes: ${rows[0].n} of ${ids.length} executed`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  /** Asserts each flag of `ids` was switched off once, by its change: version 2, one triggered entry. */
  const expectAppliedOnce = async (ids: Array<{ flag: number; change: number }>) => {
    const { rows } = await client.query(
      `SELECT f.id AS flag, f.version, f.active,
         (SELECT count(*)::int FROM activity_logs a WHERE a.item_id = f.id::text AND a.activity = 'updated') AS updates,
         (SELECT array_agg(a.detail->'trigger'->>'job_id') FROM activity_logs a
            WHERE a.item_id = f.id::text AND a.activity = 'updated') AS triggers
       FROM feature_flags f WHERE f.id = ANY($1::int[]) ORDER BY f.id`,
      [ids.map((id) => id.flag)],
    );
    const expected = ids
      .map((id) => ({ flag: id.flag, version: 2, active: false, updates: 1, triggers: [String(id.change)] }))
      .sort((a, b) => a.flag - b.flag);
    expect(rows).toEqual(expected);
    const failures = await client.query(
      "SELECT count(*)::int AS n FROM scheduled_changes WHERE id = ANY($1::int[]) AND failure_reason IS NOT NULL",
      [ids.map((id) => id.change)],
    );
    expect(failures.rows).toEqual([{ n: 0 }]);
  };

  /** The changes of phase 2, scheduled an hour ahead while both run, made overdue while both are down. */
  let later: Array<{ flag: number; change: number }> = [];

  it("applies changes due while both run once each, whichever process takes them", async () => {
    const ports = await startBoth();
    const ids = await scheduleMany(ports, "on-time", new Date(Date.now() + 3_000));
    later = await scheduleMany(ports, "missed", new Date(Date.now() + 60 * 60_000));
    await waitExecuted(ids);
    await expectAppliedOnce(ids);
    await stopAll();
  }, 180_000);

  it("applies changes missed while both were down once each, though both start sweeps walk them", async () => {
    expect(later).toHaveLength(CHANGES);
    // Down past their time: they are overdue when the processes come back.
    await client.query(
      "UPDATE scheduled_changes SET scheduled_at = now() - interval '5 minutes' WHERE id = ANY($1::int[])",
      [later.map((id) => id.change)],
    );
    const first = servers.length;
    await startBoth();
    await waitExecuted(later);
    await expectAppliedOnce(later);
    const restarted = servers.slice(first);
    // Each overdue change was applied by one sweep of one process; the other sweep skipped it.
    const deadline = Date.now() + 10_000;
    while (restarted.flatMap(sweeps).filter((tally) => tally.due > 0).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const tallies = restarted.flatMap(sweeps).filter((tally) => tally.due > 0);
    expect(tallies.length).toBe(2);
    expect(tallies.reduce((sum, tally) => sum + tally.applied, 0)).toBe(CHANGES);
    await stopAll();
  }, 180_000);
});
