/**
 * Request rate limits through the real server (src/core/rate-limit.ts), on PGlite and PostgreSQL,
 * with small configured rates: the management API per key (REST and GraphQL share it, burst and
 * sustained windows), the local-evaluation poll and `remote_config` per project, and the SDK paths
 * per project token, capture apart from flag evaluation. Every refusal is PostHog's (DRF's) 429:
 * `{"type": "throttled_error", "code": "throttled", "detail": "Request was throttled. Expected
 * available in N seconds.", "attr": null}` with `Retry-After: N`.
 */
import { expect, it } from "vitest";
import { projectToken, sendToSdk } from "../support/capture.js";
import { createFlag } from "../support/flags.js";
import { describeEachBackend, type TestResponse, type TestServer } from "../support/server.js";

/** Asserts DRF's throttled answer and returns its `Retry-After` in seconds. */
function expectThrottled(response: TestResponse): number {
  expect(response.status).toBe(429);
  const wait = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(wait) && wait >= 1).toBe(true);
  expect(response.body).toEqual({
    type: "throttled_error",
    code: "throttled",
    detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? "" : "s"}.`,
    attr: null,
  });
  return wait;
}

const flagsList = (s: TestServer) => `/api/projects/${s.projectId}/feature_flags/`;

describeEachBackend(
  "rate limits",
  (server) => {
    it("answers a key's fifth request in a minute with 429 and Retry-After; another key is not affected", async () => {
      const s = server();
      const key = await s.createKey(["*"]);
      for (let i = 0; i < 4; i++) expect((await s.request("GET", flagsList(s), { key })).status).toBe(200);
      const wait = expectThrottled(await s.request("GET", flagsList(s), { key }));
      expect(wait).toBeLessThanOrEqual(60);
      // A refused request is not counted: still refused, with no longer a wait.
      expect(expectThrottled(await s.request("GET", flagsList(s), { key }))).toBeLessThanOrEqual(wait);
      const other = await s.createKey(["*"]);
      expect((await s.request("GET", flagsList(s), { key: other })).status).toBe(200);
    });

    it("counts GraphQL requests against the same key, refusing the whole request with HTTP 429", async () => {
      const s = server();
      const key = await s.createKey(["*"]);
      const query = { query: `query { project(id: "${s.projectId}") { name } }` };
      const graphql = () => s.request("POST", "/graphql", { key, body: query });
      expect((await graphql()).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await s.request("GET", flagsList(s), { key })).status).toBe(200);
      const refused = await graphql();
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      const errors = (
        refused.body as { errors: Array<{ message: string; extensions: Record<string, unknown> }> }
      ).errors;
      expect(errors[0]).toMatchObject({
        message: `Request was throttled. Expected available in ${wait} second${wait === 1 ? "" : "s"}.`,
        extensions: { code: "throttled", retryAfterSeconds: wait },
      });
      expectThrottled(await s.request("GET", flagsList(s), { key }));
      // Introspection needs no key, and counts against none.
      expect(
        (await s.request("POST", "/graphql", { key: null, body: { query: "{ __typename }" } })).status,
      ).toBe(200);
    });

    it("counts local-evaluation polls per project, apart from the key's limit, answered from memory or not", async () => {
      const s = server();
      const project = await s.createProject("Polled");
      const key = await s.createKey(["*"]);
      // The SDK door's polling path (answered from memory once the token and payload are held) and
      // the REST door's project path count against the same limit.
      const polled = `/flags/definitions/?token=${await projectToken(s, project)}`;
      const path = `/api/projects/${project}/feature_flags/local_evaluation/`;
      const first = await s.request("GET", polled, { key });
      expect(first.status).toBe(200);
      const answeredBefore = s.app.knownAnswers.answered;
      expect((await s.request("GET", polled, { key })).status).toBe(200);
      expect(s.app.knownAnswers.answered).toBe(answeredBefore + 1);
      expectThrottled(await s.request("GET", path, { key }));
      expectThrottled(await s.request("GET", polled, { key }));
      // The project's limit, whoever polls: another key is refused too.
      expectThrottled(await s.request("GET", path, { key: await s.createKey(["feature_flag:read"]) }));
      // The polls did not count against the key's own limit (4 a minute).
      for (let i = 0; i < 4; i++) {
        expect((await s.request("GET", `/api/projects/${project}/feature_flags/`, { key })).status).toBe(200);
      }
    });

    it("counts remote_config per project", async () => {
      const s = server();
      const key = await s.createKey(["*"]);
      const flag = await createFlag(s, {
        key: "remote",
        is_remote_configuration: true,
        filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"theme":"dark"}' } },
      });
      const path = `${flagsList(s)}${flag.id}/remote_config/`;
      expect((await s.request("GET", path, { key })).status).toBe(200);
      expectThrottled(await s.request("GET", path, { key }));
    });

    it("counts capture per project token, and flag evaluation apart from it", async () => {
      const s = server();
      const token = await projectToken(s, await s.createProject("Captured"));
      const batch = { api_key: token, batch: [{ event: "signup", distinct_id: "u1" }] };
      expect((await sendToSdk(s, "/batch/", { json: batch })).status).toBe(200);
      expect((await sendToSdk(s, "/e/", { json: { ...batch.batch[0], api_key: token } })).status).toBe(200);
      const origin = "https://app.example.com";
      const refused = await sendToSdk(s, "/batch/", { json: batch, headers: { origin } });
      expectThrottled(refused);
      // A page can read the refusal (CORS), as every SDK answer.
      expect(refused.headers.get("access-control-allow-origin")).toBe(origin);
      const flags = { api_key: token, distinct_id: "u1" };
      expect((await sendToSdk(s, "/flags/?v=2", { json: flags })).status).toBe(200);
      expectThrottled(await sendToSdk(s, "/flags/?v=2", { json: flags }));
    });
  },
  {
    env: {
      RATE_LIMIT_BURST: "4/minute",
      RATE_LIMIT_SUSTAINED: "1000/hour",
      RATE_LIMIT_LOCAL_EVALUATION: "2/minute",
      RATE_LIMIT_REMOTE_CONFIG: "1/minute",
      RATE_LIMIT_CAPTURE: "2/minute",
      RATE_LIMIT_FLAGS: "1/minute",
    },
  },
);

describeEachBackend(
  "rate limits: the sustained window",
  (server) => {
    it("refuses past the hour's allowance with the wait until the oldest request leaves it", async () => {
      const s = server();
      const key = await s.createKey(["*"]);
      for (let i = 0; i < 2; i++) expect((await s.request("GET", flagsList(s), { key })).status).toBe(200);
      const wait = expectThrottled(await s.request("GET", flagsList(s), { key }));
      expect(wait).toBeGreaterThan(3500);
      expect(wait).toBeLessThanOrEqual(3600);
    });
  },
  { env: { RATE_LIMIT_BURST: "off", RATE_LIMIT_SUSTAINED: "2/hour" } },
);
