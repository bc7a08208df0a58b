/**
 * Restart after a crash on the embedded database, with the real CLI and a real SIGKILL: the
 * restart starts on its first try with the data intact and says whose lock it took over, the
 * admin socket left by the dead server is bound again, a second live server is refused, and of
 * two restarts racing after a crash exactly one serves.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type ServeProcess, spawnServe } from "../support/cli.js";

const IN_USE = "is in use by another Signalbox process";

/** Kills a server with SIGKILL, as the OOM killer or `kill -9` would, and waits until it is gone. */
async function crash(server: ServeProcess): Promise<void> {
  server.child.kill("SIGKILL");
  expect(await server.exited).toBeNull();
}

/** The pino records a server printed. */
function logRecords(server: ServeProcess): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("signalbox serve after a SIGKILL on the embedded database", () => {
  let dataDir: string;
  let key: string;
  let flagsPath: string;
  const running = new Set<ServeProcess>();

  /** Starts `serve` on the test's data directory; it is stopped at the end if still running. */
  const serve = () => {
    const server = spawnServe(dataDir);
    running.add(server);
    void server.exited.then(() => running.delete(server));
    return server;
  };
  const get = (port: number, url: string) =>
    fetch(`http://127.0.0.1:${port}${url}`, { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "signalbox-crash-"));
    const boot = await cli(["bootstrap"], { DATA_DIR: dataDir });
    expect(boot.code, boot.stderr).toBe(0);
    const { personal_api_key, project_id } = JSON.parse(boot.stdout);
    key = personal_api_key;
    flagsPath = `/api/projects/${project_id}/feature_flags/`;
  });
  afterAll(async () => {
    for (const server of running) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("restarts at once with the flag kept, naming the dead pid, and serves the admin socket again", async () => {
    const first = serve();
    const firstPort = await first.listening;
    const created = await fetch(`http://127.0.0.1:${firstPort}${flagsPath}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ key: "survives-a-crash", name: "Survives a crash" }),
    });
    expect(created.status).toBe(201);
    await crash(first);
    // The crash left the lock and the admin socket behind.
    const left = await fs.readdir(dataDir);
    expect(left).toContain(".signalbox.lock");
    expect(left).toContain(".signalbox.sock");

    const second = serve();
    const port = await second.listening;
    const takeover = logRecords(second).find((record) => record.level === "warn" && "deadPid" in record);
    expect(takeover).toMatchObject({ deadPid: first.child.pid, dataDir });
    const flags = await (await get(port, flagsPath)).json();
    expect(flags.results.map((flag: { key: string }) => flag.key)).toEqual(["survives-a-crash"]);
    // CLI commands reach the restarted server through the admin socket it bound again.
    const viaSocket = await cli(["keys", "create", "--scopes", "feature_flag:read"], { DATA_DIR: dataDir });
    expect(viaSocket.code, viaSocket.stderr).toBe(0);
    expect(viaSocket.stdout.trim()).toMatch(/^phx_/);
  });

  it("refuses a second live server on the same directory with the holder's pid", async () => {
    const [holder] = running;
    expect(holder).toBeDefined();
    const intruder = serve();
    expect(await intruder.exited).toBe(4);
    expect(intruder.output()).toContain(`${IN_USE} (pid ${holder!.child.pid})`);
    expect((await get(await holder!.listening, flagsPath)).status).toBe(200);
  });

  it("lets exactly one of two restarts racing after a crash serve", async () => {
    const [holder] = running;
    await crash(holder!);
    const racers = [serve(), serve()];
    const outcomes = await Promise.all(
      racers.map((racer) =>
        racer.listening.then(
          (port) => ({ port }),
          () => ({ port: null }),
        ),
      ),
    );
    const winners = outcomes.filter((outcome) => outcome.port !== null);
    expect(winners).toHaveLength(1);
    const loser = racers[outcomes.findIndex((outcome) => outcome.port === null)]!;
    expect(await loser.exited).toBe(4);
    expect(loser.output()).toContain(IN_USE);
    const flags = await (await get(winners[0]!.port!, flagsPath)).json();
    expect(flags.results.map((flag: { key: string }) => flag.key)).toEqual(["survives-a-crash"]);
  });
});
