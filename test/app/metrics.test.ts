/**
 * `/metrics` (src/metrics-endpoint.ts, src/core/metrics.ts), scraped and parsed as Prometheus reads
 * it: behind `METRICS_TOKEN` on the service's port (401 in PostHog's body without it) and on a port
 * of its own (`METRICS_PORT`); absent when neither is set; and each family counts what it says after
 * real traffic through the server: HTTP requests by route template (fastify's and those answered
 * from memory), flag requests and evaluations by door, the definitions cache, captured events,
 * query runs by outcome, job runs and the queue's depth, the database pool, the event loop and the
 * process. Counters are compared before and after (one registry serves every server of the file).
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { describeEachBackend, startTestServer, type TestServer } from "../support/server.js";

const TOKEN = "metrics-token-0123456789";

/** One sample of the exposition: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses Prometheus's text format 0.0.4: `# HELP`/`# TYPE` lines and samples
 * `name{label="value",...} number`, label values with `\\`, `\"` and `\n` escapes.
 * @throws Error on a line that is neither.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (sample[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

/** The sum of `name`'s samples whose labels include `labels`. */
function sampleSum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Scrapes `server`'s `/metrics` with the token and parses it. */
async function scrape(server: TestServer) {
  const response = await server.request("GET", "/metrics", {
    key: null,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.text);
}

describeEachBackend(
  "metrics",
  (server) => {
    it("answers only with the configured bearer token, in PostHog's error body otherwise", async () => {
      for (const authorization of [undefined, "Bearer wrong-token-0123456789", `Basic ${TOKEN}`]) {
        const response = await server().request("GET", "/metrics", {
          key: null,
          headers: authorization ? { authorization } : {},
        });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe("Bearer");
        expect(response.body).toEqual({
          type: "authentication_error",
          code: "not_authenticated",
          detail: "The metrics need Authorization: Bearer with the configured METRICS_TOKEN.",
          attr: null,
        });
      }
      // A personal API key is no metrics token.
      expect((await server().request("GET", "/metrics")).status).toBe(401);
      const { types } = await scrape(server());
      expect(types.get("signalbox_http_requests_total")).toBe("counter");
      expect(types.get("signalbox_http_request_duration_seconds")).toBe("histogram");
    });

    it("serves the same exposition on its own port, and nothing else there", async () => {
      const port = server().app.metricsPort();
      expect(port).toEqual(expect.any(Number));
      const own = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(own.status).toBe(200);
      expect(parseExposition(await own.text()).types.get("signalbox_flag_requests_total")).toBe("counter");
      expect((await fetch(`http://127.0.0.1:${port}/api/projects/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST" })).status).toBe(405);
    });

    it("counts HTTP requests by route template, method and status, with their latency", async () => {
      const s = server();
      const route = "/api/projects/:project_id/feature_flags/";
      const before = (await scrape(s)).samples;
      expect((await s.request("GET", `/api/projects/${s.projectId}/feature_flags/`)).status).toBe(200);
      expect((await s.request("GET", `/api/projects/${s.projectId}/feature_flags/?limit=x`)).status).toBe(
        200,
      );
      expect((await s.request("GET", "/no/such/path/12345")).status).toBe(404);
      const after = (await scrape(s)).samples;
      const delta = (name: string, labels: Record<string, string>) =>
        sampleSum(after, name, labels) - sampleSum(before, name, labels);
      expect(delta("signalbox_http_requests_total", { route, method: "GET", status: "200" })).toBe(2);
      expect(
        delta("signalbox_http_request_duration_seconds_count", { route, method: "GET", status: "200" }),
      ).toBe(2);
      expect(
        delta("signalbox_http_requests_total", { route: "unmatched", method: "GET", status: "404" }),
      ).toBe(1);
      // Raw URLs never become labels.
      expect(after.some((sample) => sample.labels["route"]?.includes("12345"))).toBe(false);
    });

    it("counts flag delivery by door, flags evaluated, and definitions-cache reads", async () => {
      const s = server();
      const flag = await s.request("POST", `/api/projects/${s.projectId}/feature_flags/`, {
        body: { key: "metrics-flag", filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
      });
      expect(flag.status).toBe(201);
      const { apiToken } = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
      const before = (await scrape(s)).samples;
      const local = `/api/projects/${s.projectId}/feature_flags/local_evaluation/`;
      const first = await s.request("GET", local);
      expect(first.status).toBe(200);
      const again = await s.request("GET", local, {
        headers: { "if-none-match": first.headers.get("etag")! },
      });
      expect(again.status).toBe(304);
      const remote = await s.request("POST", "/flags/?v=2", {
        key: null,
        body: { token: apiToken, distinct_id: "u1" },
      });
      expect(remote.status).toBe(200);
      const ofrep = await s.request("POST", "/ofrep/v1/evaluate/flags", {
        key: null,
        headers: { authorization: `Bearer ${apiToken}` },
        body: { context: { targetingKey: "u1" } },
      });
      expect(ofrep.status).toBe(200);
      const after = (await scrape(s)).samples;
      const delta = (name: string, labels: Record<string, string>) =>
        sampleSum(after, name, labels) - sampleSum(before, name, labels);
      expect(delta("signalbox_flag_requests_total", { door: "local" })).toBe(2);
      expect(delta("signalbox_flag_requests_total", { door: "remote" })).toBe(1);
      expect(delta("signalbox_flag_requests_total", { door: "ofrep" })).toBe(1);
      expect(delta("signalbox_flag_evaluations_total", { door: "remote" })).toBe(1);
      expect(delta("signalbox_flag_evaluations_total", { door: "ofrep" })).toBe(1);
      const reads =
        delta("signalbox_flag_definitions_cache_total", { result: "hit" }) +
        delta("signalbox_flag_definitions_cache_total", { result: "miss" });
      expect(reads).toBeGreaterThanOrEqual(4);
      expect(delta("signalbox_flag_definitions_cache_total", { result: "hit" })).toBeGreaterThanOrEqual(3);
      // Both polls count under their route template, whichever path answered them.
      const template = "/api/projects/:project_id/feature_flags/local_evaluation/";
      expect(delta("signalbox_http_requests_total", { route: template, status: "200" })).toBe(1);
      expect(delta("signalbox_http_requests_total", { route: template, status: "304" })).toBe(1);
    });

    it("counts captured events stored and dropped", async () => {
      const s = server();
      const { apiToken } = await s.db.project.findUniqueOrThrow({ where: { id: s.projectId } });
      const event = {
        event: "metrics-test",
        distinct_id: "u2",
        uuid: "0192a4f1-0000-7000-8000-00000000abcd",
      };
      const before = (await scrape(s)).samples;
      for (let i = 0; i < 2; i++) {
        const sent = await s.request("POST", "/batch/", {
          key: null,
          body: { api_key: apiToken, batch: [event] },
        });
        expect(sent.status).toBe(200);
      }
      const after = (await scrape(s)).samples;
      const delta = (labels: Record<string, string>) =>
        sampleSum(after, "signalbox_capture_events_total", labels) -
        sampleSum(before, "signalbox_capture_events_total", labels);
      // The second is the same uuid again: received, not stored.
      expect(delta({ outcome: "stored" })).toBe(1);
      expect(delta({ outcome: "dropped" })).toBe(1);
    });

    it("counts query runs by kind and outcome, a refusal by its error code", async () => {
      const s = server();
      const before = (await scrape(s)).samples;
      const run = (query: string) =>
        s.request("POST", `/api/projects/${s.projectId}/query/`, {
          body: { query: { kind: "HogQLQuery", query } },
        });
      expect((await run("SELECT 1")).status).toBe(200);
      const refused = await run("SELECT FROM WHERE");
      expect(refused.status).toBe(400);
      const after = (await scrape(s)).samples;
      const delta = (labels: Record<string, string>) =>
        sampleSum(after, "signalbox_query_runs_total", labels) -
        sampleSum(before, "signalbox_query_runs_total", labels);
      expect(delta({ kind: "HogQLQuery", outcome: "ok" })).toBe(1);
      // The refusal is counted under the code its error body carries.
      const code = (refused.body as { code: string }).code;
      expect(code).not.toBe("ok");
      expect(delta({ kind: "HogQLQuery", outcome: code })).toBe(1);
    });

    it("counts job runs, and reads the queue's depth, the database pool, the event loop and the process", async () => {
      const s = server();
      const before = (await scrape(s)).samples;
      await s.app.jobs.runNow("flag-call-rollup");
      const { samples, types } = await scrape(s);
      expect(
        sampleSum(samples, "signalbox_job_runs_total", { job: "flag-call-rollup", outcome: "ok" }) -
          sampleSum(before, "signalbox_job_runs_total", { job: "flag-call-rollup", outcome: "ok" }),
      ).toBe(1);
      for (const state of ["due", "scheduled", "running"]) {
        expect(
          samples.some((x) => x.name === "signalbox_job_queue_jobs" && x.labels["state"] === state),
        ).toBe(true);
      }
      // The sweep of scheduled changes and the roll-up are scheduled jobs: the queue holds some.
      expect(sampleSum(samples, "signalbox_job_queue_jobs")).toBeGreaterThan(0);
      expect(sampleSum(samples, "signalbox_db_pool_connections", { state: "open" })).toBeGreaterThanOrEqual(
        1,
      );
      expect(sampleSum(samples, "signalbox_db_pool_connections", { state: "max" })).toBeGreaterThanOrEqual(1);
      const utilization = sampleSum(samples, "nodejs_eventloop_utilization_ratio");
      expect(utilization).toBeGreaterThanOrEqual(0);
      expect(utilization).toBeLessThanOrEqual(1);
      expect(types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");
      expect(sampleSum(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
      expect(sampleSum(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    });
  },
  { env: { METRICS_TOKEN: TOKEN, METRICS_PORT: "0" } },
);

describe("metrics settings", () => {
  it("serves no /metrics when neither METRICS_TOKEN nor METRICS_PORT is set", async () => {
    const s = await startTestServer("pglite");
    try {
      expect((await s.request("GET", "/metrics", { key: null })).status).toBe(404);
      expect(s.app.metricsPort()).toBeNull();
    } finally {
      await s.close();
    }
  });

  it("refuses a token shorter than 16 characters", () => {
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(
      "Invalid configuration:\n  METRICS_TOKEN: Too short: at least 16 characters",
    );
  });
});
