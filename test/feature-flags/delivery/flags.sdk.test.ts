/**
 * Remote flag evaluation on the SDK door (`/flags/`, `/decide/`) through HTTP, on PGlite and
 * PostgreSQL, with raw requests as SDKs send them: each answer shape (`/flags` v1 and v2, `/decide`
 * v1 to v4, PostHog's defaults), bodies plain, gzip and base64, CORS preflight, bad input and
 * unknown tokens, the runtime and evaluation-tag filters, `flag_keys`, `disable_flags`, the config,
 * the remote config (JSON and script), the SQL statements per request, and what a failure to read
 * stored data answers (`errorsWhileComputingFlags`).
 */
import { gzipSync } from "node:zlib";
import { beforeAll, expect, it } from "vitest";
import { generateProjectApiToken } from "../../../src/core/auth/api-keys.js";
import { projectToken, sendToSdk } from "../../support/capture.js";
import {
  createEvaluationFixtures,
  EVALUATED_ID,
  EVALUATED_VALUES,
  type EvaluationFixtures,
} from "../../support/flag-evaluation.js";
import { describeEachBackend, type TestResponse } from "../../support/server.js";

/** The SQL statements a response cost (`Server-Timing`). */
function statementsOf(response: TestResponse): number {
  return Number(/desc="(\d+) statements?"/.exec(response.headers.get("server-timing") ?? "")?.[1]);
}

describeEachBackend("remote flag evaluation on /flags and /decide", (server) => {
  let token: string;
  let fixtures: EvaluationFixtures;
  beforeAll(async () => {
    token = await projectToken(server());
    fixtures = await createEvaluationFixtures(server());
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    token,
    distinct_id: EVALUATED_ID,
    groups: { company: "acme" },
    ...extra,
  });
  const flags = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    sendToSdk(server(), path, { json, headers });

  /** A flag in the v2 shape, with the fixture's id and version 1. */
  const details = (
    key: string,
    value: boolean | string,
    reason: string,
    description: string,
    payload: unknown = null,
  ) => ({
    key,
    enabled: value !== false,
    variant: typeof value === "string" ? value : null,
    reason: { code: reason, condition_index: 0, description },
    metadata: { id: fixtures.flags[key], version: 1, description: null, payload, has_experiment: false },
  });
  const MATCHED = "Matched condition set 1";
  /**
   * The fixtures' values for u_42 in company acme, as these requests see them: Node's `fetch` sends
   * `Sec-Fetch-Mode: cors`, so, stating no runtime, they count as a client (flags.rs
   * `detect_evaluation_runtime_from_request`) and get `client-only` but not `server-only`.
   */
  const EXPECTED_VALUES = { ...EVALUATED_VALUES, "client-only": true };

  it("answers v=2 with every active flag's value, reason, condition index and payload", async () => {
    const answer = await flags("/flags/?v=2", body());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errorsWhileComputingFlags).toBe(false);
    expect(answer.body.flags).toEqual({
      "on-for-all": details("on-for-all", true, "condition_match", MATCHED, '{"a":1}'),
      "off-for-all": details("off-for-all", false, "out_of_rollout_bound", "Out of rollout bound"),
      "pro-only": details("pro-only", true, "condition_match", MATCHED),
      "new-checkout": details("new-checkout", "control", "condition_match", MATCHED, '"c"'),
      "override-variant": details("override-variant", "test", "condition_match", MATCHED),
      "company-flag": details("company-flag", true, "condition_match", MATCHED),
      "vip-flag": details("vip-flag", true, "condition_match", MATCHED),
      tagged: details("tagged", true, "condition_match", MATCHED),
      "client-only": details("client-only", true, "condition_match", MATCHED),
    });
    expect(answer.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof answer.body.evaluatedAt).toBe("number");
    // `v` given without `config`: no config fields.
    expect(answer.body).not.toHaveProperty("supportedCompression");
  });

  it("answers v=1 with featureFlags and featureFlagPayloads (only flags with a payload)", async () => {
    const answer = await flags("/flags/?v=1", body());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.featureFlags).toEqual(EXPECTED_VALUES);
    expect(answer.body.featureFlagPayloads).toEqual({ "on-for-all": '{"a":1}', "new-checkout": '"c"' });
    expect(answer.body.errorsWhileComputingFlags).toBe(false);
    expect(answer.body).not.toHaveProperty("flags");
  });

  it("defaults to v=2 with the config when neither v nor config is given; config=true adds it to v=1", async () => {
    const bare = await flags("/flags/", body());
    expect(bare.status, bare.text).toBe(200);
    expect(Object.keys(bare.body.flags).sort()).toEqual(Object.keys(EXPECTED_VALUES).sort());
    expect(bare.body).toMatchObject({
      token,
      hasFeatureFlags: true,
      supportedCompression: ["gzip", "gzip-js"],
      sessionRecording: false,
      surveys: false,
      heatmaps: false,
      autocapture_opt_out: false,
      capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
      config: { enable_collect_everything: true },
      toolbarParams: {},
      isAuthenticated: false,
    });
    const v1 = await flags("/flags/?v=1&config=true", body());
    expect(v1.body.featureFlags).toEqual(EXPECTED_VALUES);
    expect(v1.body.sessionRecording).toBe(false);
    const noConfig = await flags("/flags/?config=false", body());
    expect(noConfig.body.featureFlags).toEqual(EXPECTED_VALUES);
    expect(noConfig.body).not.toHaveProperty("sessionRecording");
  });

  it("answers /decide in its four shapes, always with the config", async () => {
    const enabled = Object.entries(EXPECTED_VALUES).filter(([, value]) => value !== false);
    const v1 = await flags("/decide/", body());
    expect(v1.status, v1.text).toBe(200);
    expect([...v1.body.featureFlags].sort()).toEqual(enabled.map(([key]) => key).sort());
    expect(v1.body).not.toHaveProperty("errorsWhileComputingFlags");
    expect(v1.body.isAuthenticated).toBe(false);
    const v2 = await flags("/decide/?v=2", body());
    expect(v2.body.featureFlags).toEqual(Object.fromEntries(enabled));
    const v3 = await flags("/decide/?v=3", body());
    expect(v3.body.featureFlags).toEqual(EXPECTED_VALUES);
    expect(v3.body.featureFlagPayloads).toEqual({ "on-for-all": '{"a":1}', "new-checkout": '"c"' });
    expect(v3.body.supportedCompression).toEqual(["gzip", "gzip-js"]);
    const v4 = await flags("/decide/?v=4", body());
    expect(v4.body.flags["new-checkout"].variant).toBe("control");
    expect(v4.body.hasFeatureFlags).toBe(true);
  });

  it("reads gzip (?compression=gzip-js, Content-Encoding) and base64 bodies, and PostHog's field aliases", async () => {
    const json = JSON.stringify(body());
    const shapes: Array<[string, Parameters<typeof sendToSdk>[2]]> = [
      ["/flags/?v=1&compression=gzip-js", { raw: gzipSync(json), headers: { "content-type": "text/plain" } }],
      ["/flags/?v=1", { raw: gzipSync(json), headers: { "content-encoding": "gzip" } }],
      ["/flags/?v=1&compression=base64", { raw: Buffer.from(json).toString("base64") }],
    ];
    for (const [path, options] of shapes) {
      const answer = await sendToSdk(server(), path, { method: "POST", ...options });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      expect(answer.body.featureFlags, path).toEqual(EXPECTED_VALUES);
    }
    const aliased = await flags("/flags/?v=1", {
      api_key: token,
      $distinct_id: EVALUATED_ID,
      $groups: { company: "acme" },
      $properties: { plan: "free" },
      flag_keys_to_evaluate: ["pro-only", "company-flag"],
    });
    expect(aliased.body.featureFlags).toEqual({ "pro-only": false, "company-flag": true });
  });

  it("lets the request's person and group properties win over the stored ones", async () => {
    const answer = await flags(
      "/flags/?v=1",
      body({
        person_properties: { plan: "free" },
        group_properties: { company: { tier: "startup" } },
        flag_keys: ["pro-only", "company-flag"],
      }),
    );
    expect(answer.body.featureFlags).toEqual({ "pro-only": false, "company-flag": false });
    const unknown = await flags("/flags/?v=1", {
      token,
      distinct_id: "nobody-yet",
      person_properties: { plan: "pro" },
      flag_keys: ["pro-only", "vip-flag"],
    });
    expect(unknown.body.featureFlags).toEqual({ "pro-only": true, "vip-flag": false });
  });

  it("reports a group flag without its group as no_group_type", async () => {
    const answer = await flags("/flags/?v=2", {
      token,
      distinct_id: EVALUATED_ID,
      flag_keys: ["company-flag"],
    });
    expect(answer.body.flags["company-flag"]).toMatchObject({
      enabled: false,
      reason: { code: "no_group_type", condition_index: 0, description: "No group type" },
    });
  });

  it("filters by runtime (stated, or told by the user agent and browser headers) and by evaluation tags", async () => {
    const keys = async (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
      Object.keys((await flags("/flags/?v=2", body(extra), headers)).body.flags).sort();
    const everywhere = Object.keys(EXPECTED_VALUES).filter((key) => key !== "client-only");
    expect(await keys({ evaluation_runtime: "server" })).toEqual([...everywhere, "server-only"].sort());
    expect(await keys({ evaluation_runtime: "CLIENT" })).toEqual([...everywhere, "client-only"].sort());
    expect(await keys({ evaluation_runtime: "all" })).toEqual(
      [...everywhere, "client-only", "server-only"].sort(),
    );
    expect(await keys({}, { "user-agent": "posthog-node/5.70.0" })).toContain("server-only");
    expect(await keys({}, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64)" })).toContain("client-only");
    expect(await keys({}, { origin: "https://app.example.com" })).toContain("client-only");
    expect(await keys({ evaluation_contexts: ["mobile"] })).not.toContain("tagged");
    expect(await keys({ evaluation_environments: ["web"] })).toContain("tagged");
  });

  it("evaluates only flag_keys, and no flag at all for disable_flags (the config still comes)", async () => {
    const some = await flags("/flags/?v=2", body({ flag_keys: ["pro-only", "no-such-flag"] }));
    expect(Object.keys(some.body.flags)).toEqual(["pro-only"]);
    const disabled = await flags("/flags/", body({ disable_flags: true }));
    expect(disabled.status).toBe(200);
    expect(disabled.body.flags).toEqual({});
    expect(disabled.body.hasFeatureFlags).toBe(true);
  });

  it("answers an empty GET with the minimal answer, and a GET ?data= like a POST", async () => {
    const minimal = await sendToSdk(server(), "/flags/?v=2");
    expect(minimal.status, minimal.text).toBe(200);
    expect(minimal.body).toMatchObject({
      flags: {},
      errorsWhileComputingFlags: false,
      sessionRecording: false,
      isAuthenticated: false,
    });
    const data = encodeURIComponent(Buffer.from(JSON.stringify(body())).toString("base64"));
    const withData = await sendToSdk(server(), `/flags/?v=1&data=${data}`);
    expect(withData.status, withData.text).toBe(200);
    expect(withData.body.featureFlags).toEqual(EXPECTED_VALUES);
  });

  it("answers CORS preflights and mirrors the origin", async () => {
    const origin = "https://shop.example.com";
    const preflight = await sendToSdk(server(), "/flags/?v=2", {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type");
    const answer = await flags("/flags/?v=2", body(), { origin });
    expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
    expect(answer.headers.get("access-control-allow-credentials")).toBe("true");
  });

  it("refuses an unknown or missing token (401), and bad bodies (400) in PostHog's error body", async () => {
    const unknown = await flags("/flags/?v=2", { token: generateProjectApiToken(), distinct_id: "x" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ type: "authentication_error", code: "authentication_failed" });
    const missing = await flags("/flags/?v=2", { distinct_id: "x" });
    expect(missing.status).toBe(401);
    const noDistinctId = await flags("/flags/?v=2", { token });
    expect(noDistinctId.status).toBe(400);
    expect(noDistinctId.body).toEqual({
      type: "validation_error",
      code: "required",
      detail: "The distinct_id field is missing from the request. Please include a valid identifier.",
      attr: "distinct_id",
    });
    const badGroups = await flags("/flags/?v=2", { token, distinct_id: "x", groups: ["acme"] });
    expect(badGroups.status).toBe(400);
    expect(badGroups.body).toMatchObject({ type: "validation_error", attr: "groups" });
    const badProperties = await flags("/flags/?v=2", { token, distinct_id: "x", person_properties: "pro" });
    expect(badProperties.body).toMatchObject({ type: "validation_error", attr: "person_properties" });
    const notJson = await sendToSdk(server(), "/flags/?v=2", { raw: "{not json", method: "POST" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.type).toBe("invalid_request");
  });

  it("reads a number distinct id as its text and keeps its first 200 characters", async () => {
    const number = await flags("/flags/?v=1", { token, distinct_id: 42, flag_keys: ["on-for-all"] });
    expect(number.body.featureFlags).toEqual({ "on-for-all": true });
    const long = await flags("/flags/?v=1", {
      token,
      distinct_id: "x".repeat(500),
      flag_keys: ["on-for-all"],
    });
    expect(long.status).toBe(200);
  });

  it("costs one statement for a subject not seen yet, and none once warm (the definitions' revision and the subject come from caches the change feed keeps)", async () => {
    await flags("/flags/?v=2", body());
    const unseen = await flags("/flags/?v=2", body({ distinct_id: "not-seen-yet" }));
    expect(unseen.status).toBe(200);
    expect(statementsOf(unseen)).toBe(1);
    const warm = await flags("/flags/?v=2", body());
    expect(warm.status).toBe(200);
    expect(statementsOf(warm)).toBe(0);
    const config = await sendToSdk(server(), `/array/${token}/config`);
    expect(statementsOf(config)).toBe(0);
  });

  it("reads nothing stored when the request's properties decide every flag (PostHog's requires_db_properties)", async () => {
    const s = server();
    const project = await s.createProject("Properties only");
    const created = await s.request("POST", `/api/projects/${project}/feature_flags/`, {
      body: {
        key: "example-emails",
        filters: {
          groups: [
            {
              properties: [{ key: "email", type: "person", value: "@example.com", operator: "icontains" }],
              rollout_percentage: 100,
            },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const { apiToken } = await s.db.project.findUniqueOrThrow({ where: { id: project } });
    const ask = (extra: Record<string, unknown>) =>
      flags("/flags/?v=2", { token: apiToken, distinct_id: "someone", ...extra });
    await ask({});
    const decided = await ask({
      distinct_id: "someone-new",
      person_properties: { email: "ada@example.com" },
    });
    expect(decided.body.flags["example-emails"]).toMatchObject({ enabled: true });
    expect(statementsOf(decided)).toBe(0);
    // Without the property, the stored person is read (and has none: no match).
    const stored = await ask({ distinct_id: "someone-new" });
    expect(stored.body.flags["example-emails"]).toMatchObject({ enabled: false });
    expect(statementsOf(stored)).toBe(1);
  });

  it("serves the remote config posthog-js loads: JSON, and a script registering it under the token", async () => {
    const json = await sendToSdk(server(), `/array/${token}/config`);
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual({
      token,
      supportedCompression: ["gzip", "gzip-js"],
      hasFeatureFlags: true,
      captureDeadClicks: false,
      capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
      autocapture_opt_out: false,
      autocaptureExceptions: false,
      analytics: { endpoint: "/i/v0/e/" },
      elementsChainAsString: true,
      errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
      sessionRecording: false,
      heatmaps: false,
      surveys: false,
      defaultIdentifiedOnly: true,
      siteApps: [],
    });
    const script = await sendToSdk(server(), `/array/${token}/config.js`, {
      headers: { origin: "https://shop.example.com" },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(script.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: unknown; siteApps: unknown[] }> } = {};
    new Function("window", script.text)(window);
    const { siteApps: _siteApps, ...config } = json.body;
    expect(window._POSTHOG_REMOTE_CONFIG?.[token]).toEqual({ config, siteApps: [] });
    const unknown = await sendToSdk(server(), `/array/${generateProjectApiToken()}/config`);
    expect(unknown.status).toBe(404);
  });

  // Last: it drops a table of this file's database.
  it("still answers when stored data cannot be read: flags the request decides, the others failed", async () => {
    const s = server();
    await s.db.$executeRawUnsafe("DROP TABLE cohort_people CASCADE");
    // A distinct id never read before: the subject cache holds nothing for it.
    const answer = await flags(
      "/flags/?v=2",
      body({
        distinct_id: "never-read",
        person_properties: { plan: "pro" },
        flag_keys: ["on-for-all", "pro-only", "vip-flag"],
      }),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.errorsWhileComputingFlags).toBe(true);
    expect(answer.body.flags["on-for-all"].enabled).toBe(true);
    expect(answer.body.flags["pro-only"].enabled).toBe(true);
    expect(answer.body.flags["vip-flag"]).toMatchObject({
      enabled: false,
      failed: true,
      reason: { code: "database_error", condition_index: null },
    });
    expect(s.errorLogs.some((log) => log["msg"] === "flag evaluation could not read stored data")).toBe(true);
  });
});

/** The services' clock, fixed: what `evaluatedAt` must say. */
const CLOCK = new Date("2026-11-26T08:00:00.000Z");

describeEachBackend(
  "remote flag evaluation stamps its answers with the services' clock",
  (server) => {
    it("answers evaluatedAt from the services' clock, on an evaluation and on the minimal answer", async () => {
      const token = await projectToken(server());
      const evaluated = await sendToSdk(server(), "/flags/?v=2", { json: { token, distinct_id: "someone" } });
      expect(evaluated.status, evaluated.text).toBe(200);
      expect(evaluated.body.evaluatedAt).toBe(CLOCK.getTime());
      const minimal = await sendToSdk(server(), "/flags/?v=2");
      expect(minimal.status, minimal.text).toBe(200);
      expect(minimal.body.evaluatedAt).toBe(CLOCK.getTime());
    });
  },
  { now: () => CLOCK },
);
