/**
 * The process's log as an operator reads it (src/core/logger.ts, src/app.ts `logRequests`): ISO 8601
 * times and level names; one "request completed" line a request at `info` with its method, URL
 * (credentials redacted), status and time, whether fastify answered it or the door answered it from
 * memory (rest/known-answers.ts); probes and scrapes only at `debug`; and the build's version and
 * commit in `/healthz` (src/version.ts).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** The checkout's commit as src/version.ts finds it (null where git cannot tell). */
function checkoutCommit(): string | null {
  if (process.env["SIGNALBOX_COMMIT"]) return process.env["SIGNALBOX_COMMIT"];
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

/** The parsed log records of `server` whose message is `msg`. */
function records(server: TestServer, msg: string): Array<Record<string, unknown>> {
  return server.logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((r) => r["msg"] === msg);
}

describe.each(["info", "debug"] as const)("request logs at %s", (logLevel) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { logLevel });
  });
  afterAll(async () => {
    await server.close();
  });

  it("writes one line a request, with ISO times and level names; probes only at debug", async () => {
    const before = server.logLines.length;
    const list = await server.request(
      "GET",
      `/api/projects/${server.projectId}/feature_flags/?personal_api_key=phx_secret`,
      { key: null },
    );
    expect(list.status).toBe(401);
    expect((await server.request("GET", "/healthz", { key: null })).status).toBe(200);
    const lines = server.logLines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = lines.filter((r) => r["msg"] === "request completed");
    const api = completed.filter((r) => (r["req"] as { url: string }).url.startsWith("/api/"));
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({
      level: "info",
      req: {
        method: "GET",
        url: `/api/projects/${server.projectId}/feature_flags/?personal_api_key=[Redacted]`,
      },
      res: { statusCode: 401 },
      responseTime: expect.any(Number),
    });
    expect(String(api[0]!["time"])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(lines.some((r) => r["msg"] === "incoming request")).toBe(false);
    const probes = completed.filter((r) => (r["req"] as { url: string }).url === "/healthz");
    expect(probes.map((r) => r["level"])).toEqual(logLevel === "debug" ? ["debug"] : []);
  });

  it("logs an answer given from memory in the same one line", async () => {
    const project = await server.db.project.findUniqueOrThrow({ where: { id: server.projectId } });
    const path = `/flags/definitions/?token=${project.apiToken}`;
    // The first poll reads the token and loads the definitions; the second is answered before routing.
    expect((await server.request("GET", path)).status).toBe(200);
    const served = server.app.knownAnswers.answered;
    const before = records(server, "request completed").length;
    expect((await server.request("GET", path)).status).toBe(200);
    expect(server.app.knownAnswers.answered).toBe(served + 1);
    const after = records(server, "request completed").slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      level: "info",
      // The token is redacted as every credential in a URL is (core/logger.ts).
      req: { method: "GET", url: "/flags/definitions/?token=[Redacted]" },
      res: { statusCode: 200 },
    });
  });

  it("names the version and commit in /healthz", async () => {
    const health = await server.request("GET", "/healthz", { key: null });
    expect(health.body).toEqual({
      status: "ok",
      version: VERSION,
      commit: checkoutCommit(),
    });
  });
});
